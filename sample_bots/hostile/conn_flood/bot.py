"""Hostile Lost Cities bot ``conn_flood``: descriptor exhaustion through its own seat socket.

Before it says Hello, it forks helpers that open about 2,000 connections to its seat's socket
and park them half-open (connected, nothing sent), waits until they are parked, then tries to
play through the SDK. A referee that keeps every connection runs out of descriptors (and takes
other matches down with it); the arena's seat keeps one connection and closes the rest at once,
so the flood only ever hurts this bot. Part of the arena's hostile-bot suite.
"""

from __future__ import annotations

import os
import socket
import time

CONNECTIONS = 2000
PER_HELPER = 200
"""Below the sandbox's open-files limit per process."""


def report(line: str) -> None:
    """Print one line of findings to the log the arena keeps."""
    print(f"[hostile] conn_flood: {line}", flush=True)


def park(path: str, count: int, ready: int) -> None:
    """In a helper: open ``count`` connections, report how many stuck, then hold them."""
    held, refused = [], 0
    for _ in range(count):
        conn = socket.socket(socket.AF_UNIX)
        try:
            conn.connect(path)
            held.append(conn)
        except OSError:
            refused += 1
            conn.close()
    time.sleep(0.5)  # let the referee close what it will not keep
    alive = 0
    for conn in held:
        conn.setblocking(False)
        try:
            alive += conn.recv(4096) != b""  # data (the server's settings) or nothing yet
        except BlockingIOError:
            alive += 1
        except OSError:
            pass  # reset: the referee closed it
    os.write(ready, f"{alive} {refused}\n".encode())
    time.sleep(3600)


def flood(path: str) -> None:
    read, write = os.pipe()
    helpers = CONNECTIONS // PER_HELPER
    for _ in range(helpers):
        if os.fork() == 0:
            os.close(read)
            park(path, PER_HELPER, write)
            os._exit(0)
    os.close(write)
    lines = b""
    while lines.count(b"\n") < helpers:
        chunk = os.read(read, 4096)
        if not chunk:
            break
        lines += chunk
    counts = [tuple(map(int, line.split())) for line in lines.decode().splitlines()]
    report(f"parked {sum(c[0] for c in counts)} of {CONNECTIONS} connections "
           f"({sum(c[1] for c in counts)} refused at connect)")


if __name__ == "__main__":
    target = os.environ["ARENA_SOCKET"]
    flood(target.removeprefix("unix://"))
    from arena.sdk import run

    run(lambda decision: decision.legal_actions[0], name="conn_flood")
