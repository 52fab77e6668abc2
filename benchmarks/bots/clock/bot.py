"""Benchmark bot for the clocks (benchmarks/clocks.py): argv is MODE MS.

``burn``: every decision, spin until this process used MS more milliseconds of CPU, then answer
the first legal action. ``sleep``: answer two decisions at once, then sleep 60 s in the third.
``first``: answer the first legal action at once. Self-contained (the SDK only), so the same file
runs in a container.
"""

from __future__ import annotations

import sys
import time
from typing import Any

from arena.sdk import run

MODE = sys.argv[1] if len(sys.argv) > 1 else "first"
MS = float(sys.argv[2]) if len(sys.argv) > 2 else 0.0
_decisions = [0]


def decide(decision: Any) -> Any:
    _decisions[0] += 1
    if MODE == "burn":
        end = time.process_time() + MS / 1000
        while time.process_time() < end:
            pass
    elif MODE == "sleep" and _decisions[0] >= 3:
        time.sleep(60)
    return decision.legal_actions[0]


if __name__ == "__main__":
    run(decide, name=f"clock-{MODE}")
