"""Haggis sample bot: uniform over the legal actions (bets included)."""

from __future__ import annotations

import random
from typing import Any

from arena.sdk.decision import Decision


def choose(decision: Decision) -> Any:
    """A uniformly random legal action, reproducible from the match id, seat and history."""
    view = decision.observation
    rng = random.Random(f"{decision.match.match_id}:{decision.seat}:{len(view.history)}")
    return rng.choice(decision.legal_actions)


if __name__ == "__main__":
    from arena.sdk import run

    run(choose, name="random")
