"""Lost Cities sample bot ``strong``: a tuned heuristic plus end-game determinized Monte-Carlo.

Early in a round it takes the best action of a one-turn heuristic (the ``greedy`` bot's, tuned:
skipping live cards and starting weak expeditions cost more while the deck is large). Once the
deck holds at most ``MC_DECK`` cards it keeps the heuristic's best candidates (plus every draw
source of the two best, so it can prolong or end the round) and, until the time budget is spent,
samples full states consistent with the observation (``determinize``: the opponent's hand and
the deck drawn from the unseen cards, cards the opponent took from discard piles kept in its
hand), applies every candidate with ``GAME.apply`` and plays the round out with a fast
deterministic heuristic for both seats. The candidate with the best mean margin (own minus
opponent round score) wins; all candidates see the same samples (common random numbers).

The budget is CPU time per decision: ``ARENA_STRONG_BUDGET_MS`` (default 25 ms), far below the
1000 ms move limit; at least two samples are always taken.
"""

from __future__ import annotations

import os
import random
import time
from typing import Any

from arena.games.lost_cities import GAME, Action, Card, State, View, determinize
from arena.sdk.decision import Decision

BUDGET_MS = float(os.environ.get("ARENA_STRONG_BUDGET_MS", "25"))
CANDIDATES = 6
"""Heuristic candidates evaluated by Monte-Carlo (plus every draw source of the best two)."""
PLAY_GAP = 2
"""Rollout policy: play a card only if it skips at most this many values."""
MC_DECK = 8
"""Monte-Carlo only in the end-game (deck count at most this); earlier the heuristic decides."""
GAP_WEIGHT = 3.0
"""Early-round cost of skipping a live card (scaled down as the deck empties)."""
START_MARGIN = 14.0
"""Early-round extra points a new expedition must promise (scaled down as the deck empties)."""
MIN_SAMPLES = 2

# --- the one-turn heuristic (the greedy bot's, self-contained) ---------------------------------


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

    def wagers(self, exp: tuple[Card, ...]) -> int:
        return sum(1 for c in exp if int(c) % 10 == 0)

    def skipped(self, colour: int, top: int, code: int) -> tuple[int, int]:
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

    def play_score(self, code: int) -> float:
        colour = code // 10
        exp = self.mine[colour]
        mult = 1 + self.wagers(exp)
        if exp and int(exp[-1]) % 10:
            in_hand, other = self.skipped(colour, int(exp[-1]), code)
            other_weight = 0.5 + GAP_WEIGHT * self.deck_count / 44.0
            return 8.0 + 0.1 * _value(code) - (3.0 * in_hand + other_weight * other) * mult
        numbers = self.hand_numbers(colour, code if code % 10 else 0)
        potential = sum(_value(c) for c in numbers)
        future = 0.25 * self.live_unseen_sum(colour, code + 1) * self.deck_count / 44.0
        need = len(numbers) + (0 if code % 10 else 1)
        if need > self.turns_left:
            return -20.0
        if code % 10 == 0:
            if self.deck_count < 18 or potential + future < 24:
                return -10.0
            return 4.0 + (potential + future - 24) / 3.0
        if exp:
            in_hand, _ = self.skipped(colour, int(exp[-1]), code)
            return 6.0 + 0.1 * _value(code) - 3.0 * in_hand * mult
        in_hand, _ = self.skipped(colour, -1, code)
        margin = START_MARGIN * self.deck_count / 44.0
        return 0.5 * (potential + future - 20.0 - margin) - 1.0 - 3.0 * in_hand

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
        top = int(exp[-1]) if exp else -1
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


def ranked(view: View, legal: tuple[Action, ...]) -> list[Action]:
    """The legal actions, best heuristic score first (ties: legal order)."""
    ctx = Context(view)
    scored = [(ctx.action_score(a), -i, a) for i, a in enumerate(legal)]
    scored.sort(key=lambda t: (t[0], t[1]), reverse=True)
    return [a for _, _, a in scored]


# --- fast rollouts on mutable copies ------------------------------------------------------------


def _expedition_points(total: int, wagers: int, count: int) -> int:
    if not count:
        return 0
    return (total - 20) * (1 + wagers) + (20 if count >= 8 else 0)


class Rollout:
    """The rest of a round played by a cheap deterministic heuristic, on plain lists."""

    def __init__(self, state: State) -> None:
        self.hands = [[int(c) for c in state.hands[0]], [int(c) for c in state.hands[1]]]
        self.tops = [[-1] * 5, [-1] * 5]
        self.sums = [[0] * 5, [0] * 5]
        self.wagers = [[0] * 5, [0] * 5]
        self.counts = [[0] * 5, [0] * 5]
        for seat in (0, 1):
            for exp in state.expeditions[seat]:
                for card in exp:
                    self._place(seat, int(card))
        self.piles = [[int(c) for c in pile] for pile in state.piles]
        self.deck = [int(c) for c in reversed(state.deck[state.deck_pos :])]
        self.player = state.player if state.player is not None else 0
        self.turns_to_guard = state.rules.stall_guard_turns - state.turn

    def _place(self, seat: int, code: int) -> None:
        colour = code // 10
        self.tops[seat][colour] = code
        self.counts[seat][colour] += 1
        rank = code % 10
        if rank:
            self.sums[seat][colour] += rank + 1
        else:
            self.wagers[seat][colour] += 1

    def score(self, seat: int) -> int:
        sums, wagers, counts = self.sums[seat], self.wagers[seat], self.counts[seat]
        return sum(_expedition_points(sums[k], wagers[k], counts[k]) for k in range(5))

    def scores(self) -> tuple[int, int]:
        return (self.score(0), self.score(1))

    def run(self) -> tuple[int, int]:
        """Play to the end of the round; the round scores of seat 0 and seat 1."""
        while self.deck:
            self.turn()
        return self.scores()

    def turn(self) -> None:
        seat = self.player
        hand = self.hands[seat]
        tops = self.tops[seat]
        counts = self.counts[seat]
        opp_tops = self.tops[1 - seat]
        deck_left = len(self.deck)
        turns_left = (deck_left + 1) // 2
        best: int | None = None
        best_gap = 99
        for code in hand:
            colour = code // 10
            top = tops[colour]
            if counts[colour]:
                if code >= top:
                    gap = code - max(top, colour * 10) - 1
                    if gap < best_gap:
                        best, best_gap = code, gap
            elif best_gap > 1:
                same = [c for c in hand if c // 10 == colour]
                total = sum(c % 10 + 1 for c in same if c % 10)
                if total >= 20 - 8 * deck_left / 44 and len(same) <= turns_left:
                    low = min(same)
                    if low % 10 == 0 and (deck_left < 20 or total < 25):
                        continue
                    if low == code:
                        best, best_gap = code, 1
        discard = best is None or best_gap > PLAY_GAP
        if discard:
            cost_best = 1e9
            for code in hand:
                colour = code // 10
                value = code % 10 + 1 if code % 10 else 4
                if counts[colour]:
                    mine = 0.0 if code < tops[colour] else 10.0 + value
                else:
                    mine = 0.5 * value
                opp = opp_tops[colour]
                theirs = 5.0 + value if opp >= 0 and code > opp else 0.0
                cost = mine + theirs
                if cost < cost_best:
                    cost_best, best = cost, code
        assert best is not None
        hand.remove(best)
        colour = best // 10
        if discard:
            self.piles[colour].append(best)
        else:
            self._place(seat, best)
        drawn = None
        if self.turns_to_guard > 0:
            for pile_colour in range(5):
                pile = self.piles[pile_colour]
                if not pile or (discard and pile_colour == colour):
                    continue
                top_card = pile[-1]
                if counts[pile_colour] and top_card > tops[pile_colour]:
                    if top_card - max(tops[pile_colour], pile_colour * 10) - 1 <= 1:
                        drawn = pile.pop()
                        break
        if drawn is None:
            drawn = self.deck.pop()
        hand.append(drawn)
        self.turns_to_guard -= 1
        self.player = 1 - seat


# --- the policy ---------------------------------------------------------------------------------


def evaluate(view: View, candidates: list[Action], rng: random.Random, budget_s: float) -> Action:
    """The candidate with the best mean round-score margin over determinized rollouts."""
    me = view.seat
    totals = [0.0] * len(candidates)
    start = time.process_time()
    samples = 0
    while samples < MIN_SAMPLES or time.process_time() - start < budget_s:
        state = determinize(view, rng)
        for i, action in enumerate(candidates):
            after = GAME.apply(state, action)
            if after.round_index != state.round_index or after.player is None:
                done = after.finished[-1]
            else:
                done = Rollout(after).run()
            totals[i] += done[me] - done[1 - me]
        samples += 1
    best = max(range(len(candidates)), key=lambda i: (totals[i], -i))
    return candidates[best]


_RNGS: dict[tuple[str, int], random.Random] = {}


def choose(decision: Decision) -> Any:
    """Monte-Carlo choice among the heuristic's best candidates."""
    key = (decision.match.match_id, decision.seat)
    rng = _RNGS.get(key)
    if rng is None:
        rng = _RNGS[key] = random.Random(f"strong:{decision.match.match_id}:{decision.seat}")
    order = ranked(decision.observation, decision.legal_actions)
    candidates = order[:CANDIDATES]
    for lead in order[:2]:  # every draw source of the two best plays (prolong or end the round)
        for action in order:
            same = action.card == lead.card and action.discard == lead.discard
            if same and action not in candidates:
                candidates.append(action)
    if len(candidates) == 1 or decision.observation.deck_count > MC_DECK:
        return candidates[0]
    return evaluate(decision.observation, candidates, rng, BUDGET_MS / 1000.0)


if __name__ == "__main__":
    from arena.sdk import run

    run(choose, name="strong")
