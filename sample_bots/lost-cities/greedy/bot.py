"""Lost Cities sample bot ``greedy``: scores every legal action with a one-turn heuristic.

* Play: extend a started expedition with the smallest gap (skipping cards still in the own hand
  costs most); start an expedition only when the cards of that colour in hand (plus a share of the
  unseen ones) are likely to beat the 20-point cost in the turns left; wagers only early and on a
  strong colour.
* Discard: cards dead for us (below our expedition) and useless to the opponent first; never feed
  an opponent's started expedition if avoidable.
* Draw: a discard-pile top that extends our expedition with a small gap (or denies the opponent a
  card they can use), otherwise the deck.
"""

from __future__ import annotations

from typing import Any

from arena.games.lost_cities import Action, Card, View
from arena.sdk.decision import Decision


def _value(code: int) -> int:
    rank = code % 10
    return rank + 1 if rank else 0


class Context:
    """Per-decision facts derived from the view (codes are ``int(card)``)."""

    def __init__(self, view: View) -> None:
        me = view.seat
        self.view = view
        self.hand = [int(c) for c in view.hand]
        self.mine = view.expeditions[me]
        self.theirs = view.expeditions[1 - me]
        placed: set[int] = set()
        for exps in view.expeditions:
            for exp in exps:
                placed.update(int(c) for c in exp if int(c) % 10)
        self.placed = placed
        self.in_hand = set(self.hand)
        self.turns_left = (view.deck_count + 1) // 2
        self.deck_count = view.deck_count

    def top(self, exp: tuple[Card, ...]) -> int:
        return int(exp[-1]) if exp else -1

    def wagers(self, exp: tuple[Card, ...]) -> int:
        return sum(1 for c in exp if int(c) % 10 == 0)

    def skipped(self, colour: int, top: int, code: int) -> tuple[int, int]:
        """(cards in hand, other live cards) strictly between ``top`` and ``code``."""
        low = max(top, colour * 10) + 1
        in_hand = other = 0
        for c in range(low, code):
            if c in self.in_hand:
                in_hand += 1
            elif c not in self.placed:
                other += 1
        return in_hand, other

    def hand_numbers(self, colour: int, above: int) -> list[int]:
        return [c for c in self.hand if c // 10 == colour and c % 10 and c >= above]

    def live_unseen_sum(self, colour: int, above: int) -> int:
        total = 0
        for c in range(max(above, colour * 10 + 1), colour * 10 + 10):
            if c not in self.in_hand and c not in self.placed:
                total += _value(c)
        return total

    # --- scores ------------------------------------------------------------------------------
    def play_score(self, code: int) -> float:
        colour = code // 10
        exp = self.mine[colour]
        mult = 1 + self.wagers(exp)
        if exp and int(exp[-1]) % 10:  # a number is down: extend
            in_hand, other = self.skipped(colour, int(exp[-1]), code)
            return 8.0 + 0.1 * _value(code) - (3.0 * in_hand + 0.8 * other) * mult
        numbers = self.hand_numbers(colour, code if code % 10 else 0)
        potential = sum(_value(c) for c in numbers)
        future = 0.25 * self.live_unseen_sum(colour, code + 1) * self.deck_count / 44.0
        need = len(numbers) + (0 if code % 10 else 1)
        if need > self.turns_left:
            return -20.0
        if code % 10 == 0:  # a wager: early, on a strong colour
            if self.deck_count < 18 or potential + future < 24:
                return -10.0
            return 4.0 + (potential + future - 24) / 3.0
        if exp:  # only wagers so far: the first number
            in_hand, _ = self.skipped(colour, int(exp[-1]), code)
            return 6.0 + 0.1 * _value(code) - 3.0 * in_hand * mult
        in_hand, _ = self.skipped(colour, -1, code)
        est = potential + future - 20.0
        return 0.5 * est - 1.0 - 3.0 * in_hand

    def discard_score(self, code: int) -> float:
        colour = code // 10
        value = _value(code)
        exp = self.mine[colour]
        if exp and code < int(exp[-1]) or (not exp and code % 10 == 0 and self.deck_count < 18):
            my_use = 0.0
        elif exp:
            my_use = 2.0 + 0.3 * value
        else:
            potential = sum(_value(c) for c in self.hand_numbers(colour, 0))
            my_use = 2.5 if potential >= 15 else 0.3 + 0.05 * value
        theirs = self.theirs[colour]
        if theirs:
            if code > int(theirs[-1]) or (code % 10 == 0 and int(theirs[-1]) % 10 == 0):
                opp_use = (2.0 + 0.5 * value) * (1 + self.wagers(theirs))
            else:
                opp_use = 0.0
        elif self.deck_count > 12:
            opp_use = 1.5 if code % 10 == 0 else 0.3 + 0.12 * value
        else:
            opp_use = 0.1
        return -1.0 - my_use - opp_use

    def draw_score(self, colour: int, pile_top: int, played: int | None) -> float:
        exp = self.mine[colour]
        top = self.top(exp)
        if played is not None and played // 10 == colour:
            top = played
        score = -1.0
        if top >= 0 and pile_top > top and (pile_top % 10 or top % 10 == 0):
            in_hand, other = self.skipped(colour, top, pile_top)
            score = 3.0 + 0.2 * _value(pile_top) - 2.0 * in_hand - 0.8 * other
        elif top < 0:
            numbers = self.hand_numbers(colour, 0)
            if sum(_value(c) for c in numbers) + _value(pile_top) >= 20:
                score = 1.0
        theirs = self.theirs[colour]
        if theirs and pile_top > int(theirs[-1]) and pile_top % 10:
            score = max(score, 0.0) + 0.3 * (1 + 0.2 * _value(pile_top))
        return score

    def action_score(self, action: Action) -> float:
        code = int(action.card)
        base = self.discard_score(code) if action.discard else self.play_score(code)
        if action.draw is None:
            return base
        pile = self.view.piles[action.draw]
        played = None if action.discard else code
        return base + self.draw_score(action.draw, int(pile[-1]), played)


def ranked(view: View, legal: tuple[Action, ...]) -> list[tuple[float, int, Action]]:
    """Every legal action with its heuristic score, best first (ties: legal order)."""
    ctx = Context(view)
    scored = [(ctx.action_score(a), -i, a) for i, a in enumerate(legal)]
    scored.sort(key=lambda t: (t[0], t[1]), reverse=True)
    return scored


def choose(decision: Decision) -> Any:
    """The legal action with the best heuristic score."""
    return ranked(decision.observation, decision.legal_actions)[0][2]


if __name__ == "__main__":
    from arena.sdk import run

    run(choose, name="greedy")
