"""Test bot: answers every decision with the first legal action after PACE_S seconds, so a match
is deterministic for its seed and lasts long enough to be interrupted."""

from __future__ import annotations

import time
from typing import Any

from arena.sdk import Decision

PACE_S = 0.01


def choose(decision: Decision) -> Any:
    time.sleep(PACE_S)
    return decision.legal_texts[0]


if __name__ == "__main__":
    from arena.sdk import run

    run(choose, name="pacer")
