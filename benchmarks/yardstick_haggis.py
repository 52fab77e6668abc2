"""The yardstick for the Haggis engine: a minimal, straightforward uniform-random playout of the
same rules, written from docs/games/haggis.md (not from the engine).

A match to ``target`` points (at most 40 rounds). A round: 36 number cards (2..10 in four suits)
shuffled, 14 to each seat plus its own J, Q and K, 8 left over as the Haggis. A decision lists
every legal action and picks one uniformly, as ``random.choice(GAME.legal_actions(state))`` does:
the leader plays any combination, the follower passes or beats the top (a set of as many cards
and a higher rank, a run of the same width and length with a higher top, any bomb on a non-bomb,
a higher bomb on a bomb); a seat that has not bet nor played a card yet may add bet 15 or 30 to a
play and bet 0, 15 or 30 to a pass. Combinations: sets (one rank 2..10, wild cards standing for
it; a lone J, Q or K is a single of its rank), runs (w cards per rank in the same w suits, 3 ranks
for singles, 2 otherwise, wild cards filling the missing places, each for its own or a lower rank,
in the one canonical assignment: J, Q, K fill the places in rising order) and the six bombs. A pass
ends the trick: it goes to the last player, to the other seat when it was won with a bomb, and the
last player leads. A seat with an empty hand goes out: it scores its captured card points (with
the last trick unless it went out with a bomb), the other seat's leftover card points and 5 per
card, the Haggis's points and both bets; the other seat scores its captured points. The lower
total leads the next round (on equal totals: the seat that did not go out).

``benchmarks/run.py`` measures it against the engine in the same run
(``haggis_yardstick_rounds_per_s``, ``haggis_vs_yardstick``) and
``tests/games/test_yardstick_haggis.py`` checks it plays the same game (the round scores'
distribution).

What it leaves out (what the engine has and this does not): immutable states (lists mutated in
place; a searching bot cannot branch from a position), any cache of what a hand can play (every
decision enumerates it afresh), options and their validation, action values and texts (the
reading of a combination as text, parsing, the canonical order of the legal actions), any check
of an action (it only ever plays one it listed), observations (no views, nothing hidden),
history and last actions, explanations of illegal actions, deal records and round summaries.
"""

from __future__ import annotations

import random
from itertools import combinations, product

SET, RUN, BOMB = 0, 1, 2
J, Q, K = 44, 48, 52
"""The face cards; every card is ``rank * 4 + suit`` (number cards: rank 2..10, suit 0..3)."""
NUMBERS = [rank * 4 + suit for rank in range(2, 11) for suit in range(4)]
POINTS = {3: 1, 5: 1, 7: 1, 9: 1, 11: 2, 12: 3, 13: 5}
WILD_BOMBS = [(2, (J, Q)), (3, (J, K)), (4, (Q, K)), (5, (J, Q, K))]
"""(level, cards) of the bombs of face cards; rainbow is level 1, suited 6."""


def points(cards: list[int]) -> int:
    """The card points of some cards."""
    return sum(POINTS.get(card // 4, 0) for card in cards)


def combos(hand: list[int]) -> list[tuple[int, int, int, int, tuple[int, ...]]]:
    """Every combination in ``hand``: (kind, low, high, width, cards) (bombs: low = high = the
    level)."""
    wilds = sorted(card for card in hand if card >= J)
    wild_sets = [sub for k in range(len(wilds) + 1) for sub in combinations(wilds, k)]
    out = []
    for rank in range(2, 11):  # sets
        held = [card for card in hand if card // 4 == rank]
        for k in range(1, len(held) + 1):
            for numbers in combinations(held, k):
                for sub in wild_sets:
                    out.append((SET, rank, rank, k + len(sub), numbers + sub))
    out += [(SET, card // 4, card // 4, 1, (card,)) for card in wilds]
    runs: set[tuple[int, int, int, int, tuple[int, ...]]] = set()
    for width in (1, 2, 3, 4):
        for suits in combinations(range(4), width):
            for low in range(2, 13):
                _extend(hand, wilds, width, suits, low, low, (), (), runs)
    out += runs
    odd = [[card for card in hand if card // 4 == rank] for rank in (3, 5, 7, 9)]
    for cards in product(*odd):  # number bombs
        suits = {card % 4 for card in cards}
        if len(suits) in (1, 4):
            out.append((BOMB, 6 if len(suits) == 1 else 1, 6 if len(suits) == 1 else 1, 4, cards))
    for level, cards in WILD_BOMBS:
        if all(card in wilds for card in cards):
            out.append((BOMB, level, level, len(cards), cards))
    return out


def _extend(hand: list[int], wilds: list[int], width: int, suits: tuple[int, ...], low: int,
            rank: int, numbers: tuple[int, ...], slots: tuple[int, ...],
            out: set[tuple[int, int, int, int, tuple[int, ...]]]) -> None:
    """Add rank ``rank`` to a run from ``low`` in every way (number cards of ``suits`` held,
    wild cards for the rest)."""
    held = [rank * 4 + suit for suit in suits if rank <= 10 and rank * 4 + suit in hand]
    for k in range(len(held) + 1):
        for sub in combinations(held, k):
            missing = slots + (rank,) * (width - k)
            if len(missing) > len(wilds):
                continue
            used = numbers + sub
            if used and rank - low + 1 >= (3 if width == 1 else 2):
                for fill in combinations(wilds, len(missing)):
                    if all(wild // 4 >= slot for wild, slot in zip(fill, missing, strict=True)):
                        out.add((RUN, low, rank, width, tuple(sorted(used)) + fill))
            if rank < 13:
                _extend(hand, wilds, width, suits, low, rank + 1, used, missing, out)


def beats(combo: tuple[int, int, int, int, tuple[int, ...]],
          top: tuple[int, int, int, int, tuple[int, ...]]) -> bool:
    """Whether ``combo`` may be played on ``top``."""
    if combo[0] == BOMB:
        return top[0] != BOMB or combo[1] > top[1]
    if top[0] == BOMB or combo[0] != top[0] or combo[3] != top[3]:
        return False
    return combo[2] - combo[1] == top[2] - top[1] and combo[2] > top[2]


def play_round(rng: random.Random, leader: int,
               per_card: int = 5) -> tuple[tuple[int, int], int]:
    """Play one uniform-random round; return both seats' scores and the seat that went out
    (``per_card``: the points for each card left in the other seat's hand, 5 by the rules)."""
    deck = NUMBERS[:]
    rng.shuffle(deck)
    hands = [deck[:14] + [J, Q, K], deck[14:28] + [J, Q, K]]
    haggis = deck[28:]
    captured: list[list[int]] = [[], []]
    bets: list[int | None] = [None, None]
    played = [False, False]
    trick: list[tuple[int, tuple[int, int, int, int, tuple[int, ...]]]] = []
    player = leader
    while True:
        can_bet = bets[player] is None and not played[player]
        plays = combos(hands[player])
        actions: list[tuple[tuple[int, int, int, int, tuple[int, ...]] | None, int | None]] = []
        if trick:
            plays = [combo for combo in plays if beats(combo, trick[-1][1])]
            actions += [(None, bet) for bet in ((None, 0, 15, 30) if can_bet else (None,))]
        actions += [(combo, bet) for combo in plays for bet in
                    ((None, 15, 30) if can_bet else (None,))]
        combo, bet = rng.choice(actions)
        if bet is not None:
            bets[player] = bet
        if combo is None:  # a pass ends the trick
            winner = trick[-1][0]
            receiver = 1 - winner if trick[-1][1][0] == BOMB else winner
            captured[receiver] += [card for _, play in trick for card in play[4]]
            trick = []
            player = winner
            continue
        if bets[player] is None:
            bets[player] = 0
        played[player] = True
        for card in combo[4]:
            hands[player].remove(card)
        trick.append((player, combo))
        if not hands[player]:
            receiver = 1 - player if combo[0] == BOMB else player
            captured[receiver] += [card for _, play in trick for card in play[4]]
            left = hands[1 - player]
            scores = [points(captured[0]), points(captured[1])]
            scores[player] += (points(left) + per_card * len(left) + points(haggis)
                               + (bets[0] or 0) + (bets[1] or 0))
            return (scores[0], scores[1]), player
        player = 1 - player


def play_match(rng: random.Random, target: int = 250, per_card: int = 5) -> list[tuple[int, int]]:
    """Play one uniform-random match; return its rounds' score pairs."""
    totals = [0, 0]
    rounds: list[tuple[int, int]] = []
    leader = 0
    while True:
        scores, out = play_round(rng, leader, per_card)
        rounds.append(scores)
        totals = [totals[0] + scores[0], totals[1] + scores[1]]
        if (max(totals) >= target and totals[0] != totals[1]) or len(rounds) >= 40:
            return rounds
        leader = (0 if totals[0] < totals[1] else 1) if totals[0] != totals[1] else 1 - out


def rounds_per_s(seconds: float, seed: int = 1) -> float:
    """Uniform-random rounds (of whole matches) per second of CPU time."""
    import time

    rng = random.Random(seed)
    rounds = 0
    started = time.process_time()
    while time.process_time() - started < seconds:
        rounds += len(play_match(rng))
    return rounds / (time.process_time() - started)


if __name__ == "__main__":
    print(f"{rounds_per_s(2.0):.1f} rounds/s")
