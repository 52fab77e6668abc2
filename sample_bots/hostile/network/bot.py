"""Hostile Lost Cities bot ``network``: tries to open network connections, then plays on.

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
    """No interface but lo: every outside connection fails."""
    import socket

    with open("/proc/net/dev", encoding="ascii") as devices:  # this network namespace's
        names = sorted(line.split(":")[0].strip() for line in devices.readlines()[2:])
    report(f"interfaces: {names}")
    for host, port in (("1.1.1.1", 53), ("8.8.8.8", 443), ("10.0.0.1", 80), ("172.17.0.1", 2375)):
        try:
            socket.create_connection((host, port), timeout=0.5).close()
            report(f"connect {host}:{port}: connected")
        except OSError as exc:
            report(f"connect {host}:{port}: {type(exc).__name__}")
    try:
        socket.getaddrinfo("example.com", 80)
        report("dns: resolved")
    except OSError as exc:
        report(f"dns: {type(exc).__name__}")
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

    run(choose, name="network")
