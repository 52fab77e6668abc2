"""Hostile Lost Cities bot ``disk_writer``: writes outside /tmp and fills /tmp, then plays on.

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
    """Every write outside /tmp fails; /tmp is small and fills up."""
    import errno

    for path in ("/bot/owned", "/etc/owned", "/usr/bin/owned", "/arena/owned", "/owned"):
        try:
            with open(path, "w") as handle:
                handle.write("owned")
            report(f"write {path}: ok")
        except OSError as exc:
            report(f"write {path}: {errno.errorcode.get(exc.errno or 0, exc)}")
    import os

    written = []
    try:
        for index in range(1000):  # 4 MiB files: the file size limit is per file
            path = f"/tmp/fill{index}"
            written.append(path)
            with open(path, "wb") as handle:
                for _ in range(4):
                    handle.write(b"\0" * (1 << 20))
                    handle.flush()
        report("fill /tmp: never full")
    except OSError as exc:
        report(f"fill /tmp: {errno.errorcode.get(exc.errno or 0, exc)}")
    for path in written:
        if os.path.exists(path):
            os.unlink(path)
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

    run(choose, name="disk_writer")
