"""Hostile Lost Cities bot ``fork_bomb``: forks until the pids limit stops it.

Plays the first legal action until its third decision, then attacks. Part of the arena's
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


def attack(decision: Decision) -> Any:
    """Children fork forever; the bot itself goes on playing.

    The children run at the lowest priority (nice 19) so that the bot keeps most of its
    container's CPU for its own decisions, as an author who means to win while attacking would:
    at equal priority, 63 spinning processes left the bot a 63rd of its quota, and a decision
    of a few milliseconds took over a second on a loaded machine."""
    import os
    import time

    if os.fork() == 0:
        os.nice(19)
        failures = 0
        while True:
            try:
                os.fork()
            except OSError:
                failures += 1  # the pids limit: spin and try again
    time.sleep(0.2)
    report("fork bomb started")
    return None


def choose(decision: Decision) -> Any:
    """Play normally, attack on the third decision."""
    global _count
    _count += 1
    if _count == TRIGGER:
        result = attack(decision)
        if result is not None:
            return result
    return decision.legal_actions[0]


if __name__ == "__main__":
    from arena.sdk import run

    run(choose, name="fork_bomb")
