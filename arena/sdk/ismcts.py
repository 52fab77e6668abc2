"""Information-set Monte-Carlo tree search for any game, written only against the game protocol
(``arena.games.api``: ``determinize``, ``legal_actions``, ``apply``, ``to_move``,
``finished_rounds``, the optional ``playout``), with a CPU budget per decision.

Single-observer ISMCTS (Cowling, Powley and Whitehouse, 2012): every iteration draws a world the
bot cannot tell from the real one (``determinize`` of its observation), walks one tree of
actions through it — a child is chosen by UCB1 among the actions legal in that world, counted
by how often each was available — adds one node, plays the round to its end, and credits each
node with the round's margin from its mover's side, squashed to [0, 1] by the margins seen so
far. The answer is the root's most visited legal action. The round is played out by the game's
own default policy when its engine has the optional ``playout`` hook (arena/games/api.py; Lost
Cities has one), else by uniformly random moves.

The budget is CPU time of this process (``time.process_time``): what the arena's CPU clock
charges a decision. ``max_iterations`` bounds it further, and alone (``budget_ms=0``) makes a
decision reproducible whatever the machine's load (tests use it). The generator is seeded from
the match id, the seat and the decision id, so a bot with an iteration budget plays the same
match the same way every time.
"""

from __future__ import annotations

import math
import random
import time
from typing import Any

from arena.sdk.decision import Decision

EXPLORATION = 0.7
"""UCB1's exploration constant (rewards are in [0, 1])."""
CHECK_S = 0.002
"""How often the CPU budget is looked at, in seconds of search."""


class _Node:
    """A decision point as its mover knows it: per action, [visits, reward, availability], and
    the next decision points, keyed by the action as the next mover sees it."""

    __slots__ = ("after", "stats")

    def __init__(self) -> None:
        self.stats: dict[Any, list[float]] = {}
        self.after: dict[Any, _Node] = {}


class Ismcts:
    """A policy (``decide``) searching every decision for ``budget_ms`` of CPU time (at most a
    quarter of what the decision may take) and at most ``max_iterations`` iterations."""

    def __init__(self, budget_ms: float = 200.0, max_iterations: int = 1_000_000,
                 exploration: float = EXPLORATION) -> None:
        self.budget_s = budget_ms / 1000
        self.max_iterations = max_iterations
        self.exploration = exploration
        self.iterations = 0
        """The iterations of the last decision."""

    def decide(self, decision: Decision) -> Any:
        legal = decision.legal_actions
        if len(legal) == 1:
            return legal[0]
        from arena.games import get_game

        game = get_game(decision.match.game)
        me = decision.seat
        rng = random.Random(f"{decision.match.match_id}:{me}:{decision.decision_id}")
        root = _Node()
        budget = min(self.budget_s, decision.time_left_ms / 4000) if self.budget_s else 0.0
        started = time.process_time()
        deadline = started + budget
        scale = [1.0, 0]  # the mean |margin| seen so far, and how many
        iterations, check = 0, 2
        while iterations < self.max_iterations:
            if budget and iterations >= check:
                # the CPU clock is a system call (14 µs here): read it about every CHECK_S
                now = time.process_time()
                if now >= deadline:
                    break
                each = (now - started) / iterations
                check = iterations + max(1, min(int(CHECK_S / each) if each > 0 else 1,
                                                int((deadline - now) / each) if each > 0 else 1))
            iterations += 1
            self._iterate(game, game.determinize(decision.observation, rng), root, me, rng,
                          scale)
        self.iterations = iterations
        playable = {action: root.stats[action][0] for action in legal if action in root.stats}
        return max(playable, key=playable.__getitem__) if playable else rng.choice(legal)

    def _iterate(self, game: Any, state: Any, root: _Node, me: int, rng: random.Random,
                 scale: list[float]) -> None:
        rounds = len(game.finished_rounds(state))
        seen_as = getattr(game, "action_text_for", None)
        playout = getattr(game, "playout", None)
        node, path = root, []
        while (mover := game.to_move(state)) is not None:  # selection and expansion
            legal = game.legal_actions(state)
            stats = node.stats
            untried = []
            best, best_ucb = None, -1.0
            chosen: list[float] | None = None
            exploration = self.exploration
            for action in legal:  # (one look-up each: an action's hash may be dear)
                known = stats.get(action)
                if known is None:
                    untried.append(action)
                else:
                    known[2] += 1
                    if not untried:
                        ucb = known[1] / known[0] \
                            + exploration * math.sqrt(math.log(known[2]) / known[0])
                        if ucb > best_ucb:
                            best, best_ucb, chosen = action, ucb, known
            if untried:
                action = rng.choice(untried)
                chosen = stats[action] = [0, 0.0, 1]
            else:
                action = best
            assert chosen is not None  # (a UCB value is never negative)
            path.append((chosen, mover))
            after = game.apply(state, action)
            if untried or len(game.finished_rounds(after)) > rounds:
                state = after
                break
            following = game.to_move(after)
            # the next decision point as its mover knows it: an action hidden from it (a
            # simultaneous bid) leads to the same point whatever it was
            key = action if seen_as is None or following == mover \
                else seen_as(state, action, following)
            node = node.after.get(key) or node.after.setdefault(key, _Node())
            state = after
        if playout is not None and game.to_move(state) is not None \
                and len(game.finished_rounds(state)) == rounds:
            scores = playout(state, rng)  # the game's own default policy
        else:
            while game.to_move(state) is not None \
                    and len(game.finished_rounds(state)) == rounds:
                state = game.apply(state, rng.choice(game.legal_actions(state)))  # the rollout
            finished = game.finished_rounds(state)
            scores = finished[rounds] if len(finished) > rounds else (0, 0)
        margin = scores[me] - scores[1 - me]
        mean, seen = scale
        scale[0], scale[1] = (mean * seen + abs(margin)) / (seen + 1), seen + 1
        reward = 0.5 + 0.5 * math.tanh(margin / max(scale[0], 1.0))
        for known, mover in path:
            known[0] += 1
            known[1] += reward if mover == me else 1.0 - reward

