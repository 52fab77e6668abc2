"""The yardstick for the PORTAS engine: a minimal, straightforward uniform-random playout of the
same rules, written from docs/games/portas.md (not from the engine).

One game: each seat's own 14-card port deck (1 1 1 2 2 2 3 3 4 4 5 5 6 6) shuffled, its top 4 the
hand; the five treasures 11..15 shuffled, the first two open as chests. A turn refills the mover's
hand to 4 from its deck, then puts one hand card on an open chest without going over its value,
or passes when no card fits (and only then). The card that fills a chest exactly takes it: the
taker scores its own cards on it, the next hidden treasure opens. The game ends when the fifth
chest is taken or after two passes in a row. The random player picks uniformly among the
distinct legal actions (distinct card values times the chests they fit), as
``random.choice(GAME.legal_actions(state))`` does. ``benchmarks/run.py`` measures it against the
engine in the same run (``portas_yardstick_games_per_s``, ``portas_vs_yardstick``) and
``tests/games/test_yardstick_portas.py`` checks it plays the same game (its score distribution).

What it leaves out (what the engine has and this does not): immutable states (lists mutated in
place; a searching bot cannot branch from a position), matches (games are independent: no seed
per game, no starter rule for games 2 and 3, no totals), options and their validation, action
values and texts (parsing, formatting, the canonical order of the legal actions), any check of an
action (it only ever plays one it listed), observations (no views, nothing hidden), history and
last actions, explanations of illegal actions, deal records and game summaries.
"""

from __future__ import annotations

import random

DECK = [1, 1, 1, 2, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6]
"""Every seat's 14 port cards."""
TREASURES = [11, 12, 13, 14, 15]


def play_game(rng: random.Random, hand_size: int = 4, starter: int = 0) -> tuple[int, int]:
    """Play one uniform-random game; return both seats' scores."""
    decks = [DECK[:], DECK[:]]
    rng.shuffle(decks[0])
    rng.shuffle(decks[1])
    hands = [decks[0][:hand_size], decks[1][:hand_size]]
    del decks[0][:hand_size], decks[1][:hand_size]
    treasures = TREASURES[:]
    rng.shuffle(treasures)
    chests = [[value, 0, [0, 0]] for value in treasures[:2]]  # value, placed, each seat's share
    hidden = treasures[2:]
    scores = [0, 0]
    player, passes, taken = starter, 0, 0
    while True:
        hand, deck = hands[player], decks[player]
        while len(hand) < hand_size and deck:
            hand.append(deck.pop())
        moves = [(card, chest) for card in set(hand) for chest in chests
                 if card <= chest[0] - chest[1]]
        if not moves:
            passes += 1
            if passes == 2:
                return scores[0], scores[1]
        else:
            passes = 0
            card, chest = rng.choice(moves)
            hand.remove(card)
            chest[1] += card
            chest[2][player] += card
            if chest[1] == chest[0]:
                scores[player] += chest[2][player]
                chests.remove(chest)
                taken += 1
                if taken == 5:
                    return scores[0], scores[1]
                if hidden:
                    chests.append([hidden.pop(0), 0, [0, 0]])
        player = 1 - player


def games_per_s(seconds: float, seed: int = 1) -> float:
    """Uniform-random games per second of CPU time."""
    import time

    rng = random.Random(seed)
    games = 0
    started = time.process_time()
    while time.process_time() - started < seconds:
        play_game(rng)
        games += 1
    return games / (time.process_time() - started)


if __name__ == "__main__":
    print(f"{games_per_s(2.0):.1f} games/s")
