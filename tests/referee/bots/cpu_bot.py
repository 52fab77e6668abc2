"""A Lost Cities test bot for the CPU clock: argv is MODE MS COUNT (COUNT defaults to 5).

``burn``: on each of its first COUNT decisions, spin until its own CPU time advanced MS ms,
then answer. ``fork``: on each of its first COUNT decisions, fork a helper that spins MS ms of
CPU while the bot itself waits for it (sleeping in ``waitpid``), then answer. ``sleep``: answer
two decisions at once, then sleep 60 s in the third. Every answer is the first legal action.
Self-contained (the SDK only), so the same file runs in a container as ``bot.py``.
"""

from __future__ import annotations

import os
import sys
import time
from typing import Any

from arena.sdk import run

MODE = sys.argv[1]
MS = float(sys.argv[2])
COUNT = int(sys.argv[3]) if len(sys.argv) > 3 else 5
_decisions = [0]


def spin(ms: float) -> None:
    """Busy-loop until this process used ``ms`` more milliseconds of CPU."""
    end = time.process_time() + ms / 1000
    while time.process_time() < end:
        pass


def decide(decision: Any) -> Any:
    _decisions[0] += 1
    n = _decisions[0]
    if MODE == "burn" and n <= COUNT:
        spin(MS)
    elif MODE == "fork" and n <= COUNT:
        pid = os.fork()
        if pid == 0:
            spin(MS)
            os._exit(0)
        os.waitpid(pid, 0)
    elif MODE == "sleep" and n >= 3:
        time.sleep(60)
    return decision.legal_actions[0]


if __name__ == "__main__":
    run(decide, name=f"cpu-{MODE}")
