"""Hostile Lost Cities bot ``killer``: tries to kill pid 1 and its parent, then plays on.

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
    """Signal pid 1 (the container's init) and the parent: both are out of reach."""
    import errno
    import os
    import signal

    for name, pid in (("pid1", 1), ("parent", os.getppid())):
        try:
            os.kill(pid, signal.SIGKILL)
            report(f"kill {name}: sent")
        except OSError as exc:
            report(f"kill {name}: {errno.errorcode.get(exc.errno or 0, exc)}")
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

    run(choose, name="killer")
