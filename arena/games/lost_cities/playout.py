"""Lost Cities' default policy for searches: the rest of a round played by a cheap heuristic for
both seats, on plain lists (the engine's optional ``playout`` hook, arena/games/api.py).

A search (``arena.sdk.ismcts``) plays it from the worlds it draws with ``determinize``: a world
holds what the searching seat knows and a random draw of the rest, so the policy may read all of
it (the drawn opponent hand and deck order are a guess, never the real ones). It is the
``strong`` sample bot's rollout heuristic: play the card that skips the fewest values of an
open expedition (at most two), open a colour only with enough points in hand for the turns
left, else discard the card that helps either seat least; take a discard that extends an
expedition by at most one skipped value, else draw from the deck.
"""

from __future__ import annotations

from typing import Any

from arena.games.lost_cities.cards import BONUS, BONUS_LENGTH, CARDS, EXPEDITION_COST, Action

PLAY_GAP = 2
"""Play a card only if it skips at most this many values of its expedition."""


def _points(total: int, wagers: int, count: int) -> int:
    if not count:
        return 0
    return (total - EXPEDITION_COST) * (1 + wagers) + (BONUS if count >= BONUS_LENGTH else 0)


def playout(state: Any, record: list[Action] | None = None) -> tuple[int, int]:
    """The score pair of ``state``'s round (running) once the policy has played it out;
    ``record``: a list the turns played are appended to (as the engine's actions)."""
    hands = [[int(c) for c in state.hands[0]], [int(c) for c in state.hands[1]]]
    tops = [[-1] * 5, [-1] * 5]
    sums = [[0] * 5, [0] * 5]
    wagers = [[0] * 5, [0] * 5]
    counts = [[0] * 5, [0] * 5]
    for seat in (0, 1):
        for colour, expedition in enumerate(state.expeditions[seat]):
            for card in expedition:
                code = int(card)
                tops[seat][colour] = code
                counts[seat][colour] += 1
                if code % 10:
                    sums[seat][colour] += code % 10 + 1
                else:
                    wagers[seat][colour] += 1
    piles = [[int(c) for c in pile] for pile in state.piles]
    deck = [int(c) for c in reversed(state.deck[state.deck_pos:])]
    seat = state.player
    guard = state.rules.stall_guard_turns - state.turn
    while deck:
        hand, mine, counted, theirs = hands[seat], tops[seat], counts[seat], tops[1 - seat]
        left = len(deck)
        turns_left = (left + 1) // 2
        best = -1
        best_gap = 99
        opening = 20 - 8 * left / 44
        for code in hand:
            colour = code // 10
            top = mine[colour]
            if counted[colour]:
                if code >= top:
                    gap = code - max(top, colour * 10) - 1
                    if gap < best_gap:
                        best, best_gap = code, gap
            elif best_gap > 1:
                low, total, cards = 99, 0, 0
                for card in hand:
                    if card // 10 == colour:
                        cards += 1
                        if card < low:
                            low = card
                        if card % 10:
                            total += card % 10 + 1
                if total >= opening and cards <= turns_left:
                    if low % 10 == 0 and (left < 20 or total < 25):
                        continue
                    if low == code:
                        best, best_gap = code, 1
        discard = best < 0 or best_gap > PLAY_GAP
        if discard:
            cheapest = 1e9
            for code in hand:
                colour = code // 10
                value = code % 10 + 1 if code % 10 else 4
                if counted[colour]:
                    cost = 0.0 if code < mine[colour] else 10.0 + value
                else:
                    cost = 0.5 * value
                opponent = theirs[colour]
                if opponent >= 0 and code > opponent:
                    cost += 5.0 + value
                if cost < cheapest:
                    cheapest, best = cost, code
        hand.remove(best)
        colour = best // 10
        if discard:
            piles[colour].append(best)
        else:
            mine[colour] = best
            counted[colour] += 1
            if best % 10:
                sums[seat][colour] += best % 10 + 1
            else:
                wagers[seat][colour] += 1
        drawn = -1
        if guard > 0:
            for source in range(5):
                pile = piles[source]
                if not pile or (discard and source == colour):
                    continue
                if counted[source] and pile[-1] > mine[source] \
                        and pile[-1] - max(mine[source], source * 10) - 1 <= 1:
                    drawn = pile.pop()
                    break
        if record is not None:
            record.append(Action(CARDS[best], discard, None if drawn < 0 else drawn // 10))
        hand.append(deck.pop() if drawn < 0 else drawn)
        guard -= 1
        seat = 1 - seat
    return (sum(_points(sums[0][k], wagers[0][k], counts[0][k]) for k in range(5)),
            sum(_points(sums[1][k], wagers[1][k], counts[1][k]) for k in range(5)))
