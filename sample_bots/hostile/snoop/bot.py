"""Hostile Lost Cities bot ``snoop``: everything a contestant would try from inside a sandbox.

Before it says Hello it reports, one ``[hostile] snoop:`` line each, what it could reach:
the other seat's socket (next to its own), every Unix socket the kernel lists, the Docker
socket, files and sockets named in ``targets.txt`` beside it (a test writes the referee's logs,
secrets and admin socket there), a TCP port on 127.0.0.1 (``tcp PORT`` in targets.txt), and its
own uid. It also leaves a grandchild behind (setsid, marker ``arena-snoop-grandchild``) that must
not outlive the match. Then it plays the first legal action every turn. Part of the arena's
hostile-bot suite.
"""

from __future__ import annotations

import errno
import os
import socket
import subprocess
import sys
from pathlib import Path

MARKER = "arena-snoop-grandchild"


def report(line: str) -> None:
    """Print one line of findings to the log the arena keeps."""
    print(f"[hostile] snoop: {line}", flush=True)


def outcome(exc: BaseException | None) -> str:
    if exc is None:
        return "ok"
    if isinstance(exc, OSError) and exc.errno is not None:
        return errno.errorcode.get(exc.errno, str(exc.errno))
    return type(exc).__name__


def try_unix(path: str) -> str:
    try:
        with socket.socket(socket.AF_UNIX) as conn:
            conn.settimeout(1.0)
            conn.connect(path)
        return "connected"
    except OSError as exc:
        return outcome(exc)


def try_read(path: str) -> str:
    try:
        if os.path.isdir(path):
            os.listdir(path)
        else:
            with open(path, "rb") as handle:
                handle.read(1)
        return "read"
    except OSError as exc:
        return outcome(exc)


def try_tcp(port: int) -> str:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1.0):
            return "connected"
    except OSError as exc:
        return outcome(exc)


def listed_sockets() -> list[str]:
    try:
        lines = Path("/proc/net/unix").read_text().splitlines()[1:]
    except OSError:
        return []
    return sorted({line.split()[-1] for line in lines if line.split()[-1].startswith("/")})


def snoop() -> None:
    own = os.environ.get("ARENA_SOCKET", "").removeprefix("unix://")
    seat_dir = os.path.dirname(own)
    other = os.path.join(os.path.dirname(seat_dir),
                         "s1" if seat_dir.endswith("s0") else "s0", "bot.sock")
    report(f"uid {os.getuid()}")
    report(f"other seat {other}: {try_unix(other)}")
    others = [p for p in listed_sockets() if p != own]
    reached = [p for p in others if try_unix(p) == "connected"]
    report(f"listed unix sockets {len(others)}, reached {len(reached)} {reached[:5]}")
    for path in ("/var/run/docker.sock", "/run/docker.sock"):
        report(f"docker {path}: {try_unix(path)}")
    targets = Path(__file__).with_name("targets.txt")
    for line in targets.read_text().splitlines() if targets.exists() else []:
        kind, _, value = line.partition(" ")
        if kind == "tcp":
            report(f"tcp {value}: {try_tcp(int(value))}")
        elif kind == "socket":
            report(f"socket {value}: {try_unix(value)}")
        elif kind == "read":
            report(f"read {value}: {try_read(value)}")
    code = f"import os, time; os.setsid(); time.sleep(3600)  # {MARKER}"
    subprocess.Popen([sys.executable, "-c", code], start_new_session=True,
                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    report("grandchild started")


if __name__ == "__main__":
    snoop()
    from arena.sdk import run

    run(lambda decision: decision.legal_actions[0], name="snoop")
