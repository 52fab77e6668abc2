"""Hostile Lost Cities bot ``cpu_spin``: spins on the CPU, then stops answering.

Plays the first legal action; from its third decision a thread burns CPU while it plays on,
and at its tenth it spins in the main thread and never answers. Part of the arena's
hostile-bot suite (tests/sandbox/test_docker_hostile.py): the Docker sandbox must contain it.
"""

from __future__ import annotations

from typing import Any

from arena.sdk.decision import Decision

TRIGGER = 3
_count = 0


def report(line: str) -> None:
    """Print one line of findings to the log the arena keeps."""
    print(f"[hostile] {line}", flush=True)


def spin() -> None:
    """Burn CPU forever."""
    x = 0
    while True:
        x += 1


def choose(decision: Decision) -> Any:
    """Play normally while a thread spins; stop answering at the tenth decision."""
    global _count
    _count += 1
    if _count == TRIGGER:
        import threading

        threading.Thread(target=spin, daemon=True).start()
        report("spinning thread started")
    if _count == 10:
        spin()
    return decision.legal_actions[0]


if __name__ == "__main__":
    from arena.sdk import run

    run(choose, name="cpu_spin")
