"""Goofspiel sample bot: a uniformly random legal bid (reproducible per match)."""

from __future__ import annotations

import random
from typing import Any

from arena.sdk.decision import Decision


def choose(decision: Decision) -> Any:
    """A legal bid drawn uniformly, seeded by match id, seat, round and the history length."""
    view = decision.observation
    rng = random.Random(f"{decision.match.match_id}:{decision.seat}:{view.round}:"
                        f"{len(view.history)}")
    return rng.choice(decision.legal_actions)


if __name__ == "__main__":
    from arena.sdk import run

    run(choose, name="random")
