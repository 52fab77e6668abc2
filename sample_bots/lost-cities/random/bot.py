"""Lost Cities sample bot ``random``: uniform over the legal actions (seeded per match and seat)."""

from __future__ import annotations

import random
from typing import Any

from arena.sdk.decision import Decision

_RNGS: dict[tuple[str, int], random.Random] = {}


def choose(decision: Decision) -> Any:
    """A uniformly random legal action."""
    key = (decision.match.match_id, decision.seat)
    rng = _RNGS.get(key)
    if rng is None:
        rng = _RNGS[key] = random.Random(f"{decision.match.match_id}:{decision.seat}")
    return rng.choice(decision.legal_actions)


if __name__ == "__main__":
    from arena.sdk import run

    run(choose, name="random")
