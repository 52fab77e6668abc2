"""PORTAS sample bot: a one-ply heuristic.

Take a chest when possible (the biggest own share first); otherwise never leave a chest whose
remaining content is a card in the opponent's visible hand; among safe plays prefer chests where
its own share is high and small cards (keeping big ones to finish chests later).
"""

from __future__ import annotations

from typing import Any

from arena.games.portas import Pass, Play, View
from arena.sdk.decision import Decision


def score_play(view: View, play: Play) -> float:
    """Heuristic value of ``play`` for the seat to move (higher is better)."""
    me = view.seat
    opp = 1 - me
    chest = next(c for c in view.chests if c.value == play.chest)
    mine = sum(chest.cards[me]) + play.card
    theirs = sum(chest.cards[opp])
    left = chest.remaining - play.card
    if left == 0:
        return 1000.0 + 10.0 * mine
    value = 0.0
    if left in view.hands[opp]:
        value -= 500.0 + 10.0 * (mine + theirs)
    if left <= 6 and left in view.hands[me]:
        value += 20.0
    value += 2.0 * (mine - theirs) - play.card
    return value


def choose(decision: Decision) -> Any:
    """The best legal action under ``score_play`` (ties: the first in the stable order)."""
    view: View = decision.observation
    best: Any = decision.legal_actions[0]
    if isinstance(best, Pass):
        return best
    best_score = float("-inf")
    for action in decision.legal_actions:
        if isinstance(action, Play):
            value = score_play(view, action)
            if value > best_score:
                best, best_score = action, value
    return best


if __name__ == "__main__":
    from arena.sdk import run

    run(choose, name="greedy")
