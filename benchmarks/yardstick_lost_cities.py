"""The yardstick for the Lost Cities engine: a minimal, straightforward uniform-random playout of
the same rules, written from docs/games/lost-cities.md (not from the engine).

One round: 60 cards (five colours, three wagers and 2..10 each), 8-card hands, one action per
turn (play or discard a card, then draw from the deck or a non-empty discard pile other than the
one just discarded onto, piles only while ``turn < stall_guard``), the round ends on the draw of
the last deck card, then each expedition scores ``(sum - 20) * (1 + wagers)`` (+20 with 8 cards
or more), 0 when empty. The random player picks uniformly among the distinct legal actions, as
``random.choice(GAME.legal_actions(state))`` does. ``benchmarks/run.py`` measures it against the
engine in the same run (``yardstick_rounds_per_s``, ``engine_vs_yardstick``) and
``tests/games/test_yardstick.py`` checks it plays the same game (its round scores' distribution).

What it leaves out (what the engine has and this does not): immutable states (lists mutated in
place; a searching bot cannot branch from a position), matches (rounds are independent: no seed
per round, starter rules or totals), options and their validation, action values and texts
(parsing, formatting, a canonical order of the legal actions), any check of an action (it only
ever plays one it listed), observations (no views, nothing hidden), history and last actions,
explanations of illegal actions, deal records and round summaries.
"""

from __future__ import annotations

import random

CARDS = [colour * 16 + value for colour in range(5) for value in (0, 0, 0, *range(2, 11))]
"""All 60 cards as ints ``colour * 16 + value``, value 0 for a wager."""


def play_round(rng: random.Random, stall_guard: int = 150, starter: int = 0) -> tuple[int, int]:
    """Play one uniform-random round; return both seats' scores."""
    deck = CARDS[:]
    rng.shuffle(deck)
    hands = [deck[:8], deck[8:16]]
    del deck[:16]
    expeditions: list[list[list[int]]] = [[[] for _ in range(5)], [[] for _ in range(5)]]
    piles: list[list[int]] = [[] for _ in range(5)]
    player, turn = starter, 0
    while True:
        hand, mine = hands[player], expeditions[player]
        sources = [-1]
        if turn < stall_guard:
            sources += [colour for colour in range(5) if piles[colour]]
        moves = []  # (card, discard): each pairs with every source but its own pile's
        for card in set(hand):
            expedition = mine[card >> 4]
            if not expedition or card & 15 >= expedition[-1] & 15:
                moves.append((card, False))
            moves.append((card, True))
        while True:  # uniform over the legal (move, source) pairs: reject the one illegal kind
            card, discard = rng.choice(moves)
            source = rng.choice(sources)
            if not (discard and source == card >> 4):
                break
        hand.remove(card)
        (piles if discard else mine)[card >> 4].append(card)
        hand.append(deck.pop() if source < 0 else piles[source].pop())
        turn += 1
        if not deck:
            return score(expeditions[0]), score(expeditions[1])
        player = 1 - player


def score(expeditions: list[list[int]]) -> int:
    """A player's round score: the sum of the five expeditions' scores."""
    total = 0
    for expedition in expeditions:
        if expedition:
            numbers = sum(card & 15 for card in expedition)
            wagers = sum(1 for card in expedition if not card & 15)
            total += (numbers - 20) * (1 + wagers) + (20 if len(expedition) >= 8 else 0)
    return total


def rounds_per_s(seconds: float, seed: int = 1) -> float:
    """Uniform-random rounds per second of CPU time."""
    import time

    rng = random.Random(seed)
    rounds = 0
    started = time.process_time()
    while time.process_time() - started < seconds:
        play_round(rng)
        rounds += 1
    return rounds / (time.process_time() - started)


if __name__ == "__main__":
    print(f"{rounds_per_s(2.0):.1f} rounds/s")
