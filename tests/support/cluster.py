"""The cluster tests' helpers: copies of the deterministic ``pacer`` test bot under distinct
names, ladder files, free loopback ports, and subprocesses of the `arena` command started in
their own sessions (so a test can kill one with everything it started)."""

from __future__ import annotations

import asyncio
import dataclasses
import os
import shlex
import shutil
import signal
import socket
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

from arena.bots import load_bot_dir
from arena.bots.identity import bot_identity
from arena.cluster.security import CertFiles
from arena.model import (
    BotSpec,
    MatchResult,
    MatchSpec,
    TimeControl,
)
from arena.referee.local import UNTIMED, LocalPlayer
from arena.referee.match import Match
from tests.support.paths import ROOT

PACER = ROOT / "tests" / "cluster" / "bots" / "pacer"
LOOPBACK = "127.0.0.1"


def pacers(root: Path, names: Sequence[str], pace_s: float | None = None) -> list[Path]:
    """Copies of the pacer bot named ``names`` (distinct entrants of one ladder); ``pace_s``:
    seconds per decision instead of the pacer's 10 ms."""
    made = []
    for name in names:
        directory = root / name
        shutil.copytree(PACER, directory, ignore=shutil.ignore_patterns("__pycache__"))
        manifest = directory / "bot.toml"
        manifest.write_text(manifest.read_text().replace('name = "pacer"', f'name = "{name}"'))
        if pace_s is not None:
            code = directory / "bot.py"
            code.write_text(code.read_text().replace("PACE_S = 0.01", f"PACE_S = {pace_s}"))
        for path in (root, directory, *directory.iterdir()):
            path.chmod(0o755)
        made.append(directory)
    return made


def ladder_file(path: Path, name: str, entrants: Sequence[Path], *, cycles: int = 1,
                concurrency: int = 2, sandbox: str = "process", extra: str = "") -> Path:
    """A one-round Lost Cities ladder of ``entrants``."""
    refs = ", ".join(f'"{e}"' for e in entrants)
    path.write_text(
        f'name = "{name}"\ngame = "lost-cities"\nentrants = [{refs}]\n'
        f'sandbox = "{sandbox}"\nconcurrency = {concurrency}\n'
        f"[options]\nrounds = 1\n[schedule]\ncycles = {cycles}\n{extra}"
    )
    return path


def free_port() -> int:
    """A TCP port free on the loopback interface right now."""
    with socket.socket() as probe:
        probe.bind((LOOPBACK, 0))
        return int(probe.getsockname()[1])


def cluster_section(address: str, certs: CertFiles, host: str = "head", *,
                    listen: bool = True, wait_s: int = 60, worker_ttl_s: int = 60) -> str:
    files = certs.hosts[host]
    key = "listen" if listen else "scheduler"
    return (f'[cluster]\n{key} = "{address}"\nca = "{files.ca}"\ncert = "{files.cert}"\n'
            f'key = "{files.key}"\nwait_s = {wait_s}\nworker_ttl_s = {worker_ttl_s}\n')


def start(args: Sequence[str], log: Path, *, pythonpath: Path | None = None,
          prefix: Sequence[str] = (), env: dict[str, str] | None = None
          ) -> subprocess.Popen[bytes]:
    """``python -m arena ARGS`` in its own session, output to ``log``; with
    ``pythonpath``, the arena package found there (run from that directory); ``prefix``: a
    command that runs it (e.g. ``setpriv`` to another user); ``env``: more variables."""
    env = {**os.environ, "PYTHONPATH": str(pythonpath or ROOT), **(env or {})}
    with log.open("wb") as out:
        return subprocess.Popen([*prefix, sys.executable, "-m", "arena", *args],
                                cwd=pythonpath or ROOT,
                                env=env, stdout=out, stderr=subprocess.STDOUT,
                                start_new_session=True)


def own_host(boot_id: str | None = None) -> list[str]:
    """A ``start`` prefix that runs a process as if on a host of its own: in a private mount
    namespace with its own (empty) epoch directory (what each host of a cluster keeps to itself
    that processes of one machine share: ``arena.sandbox.epochs.state_dir()``), and with
    ``boot_id`` as its kernel's boot id (what the cluster tells hosts apart by) when given. As
    root only."""
    from arena.sandbox.epochs import state_dir

    host_state = shlex.quote(str(state_dir()))
    script = [f"mkdir -p {host_state}", f"mount -t tmpfs -o mode=0700 arena-host {host_state}"]
    if boot_id is not None:
        script += [f"echo {boot_id} > {host_state}/.boot_id",
                   f"mount --bind {host_state}/.boot_id /proc/sys/kernel/random/boot_id"]
    return ["unshare", "--mount", "--propagation", "private", "--", "/bin/sh", "-c",
            " && ".join(script) + ' && exec "$@"', "own-host"]


def worker_args(address: str, certs: CertFiles, host: str, cache: Path,
                matches: int = 1) -> list[str]:
    files = certs.hosts[host]
    return ["worker", address, "--ca", str(files.ca), "--cert", str(files.cert),
            "--key", str(files.key), "--matches", str(matches), "--host", LOOPBACK,
            "--cache", str(cache), "--name", host]


def kill_session(proc: subprocess.Popen[bytes]) -> None:
    """SIGKILL a process started by ``start`` and everything in its session."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    proc.wait(timeout=30)


def stop(proc: subprocess.Popen[bytes]) -> None:
    """SIGTERM, then SIGKILL after 20 s; the session's leftovers too."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            pass
    kill_session(proc)


def process_tree(pid: int) -> dict[int, tuple[int, str]]:
    """Every process below ``pid``: its parent and command line. One look at ``/proc``: each
    process's ``stat`` (its parent), then the command lines of those below ``pid`` alone (a
    look at every process's two files took 11 ms on a quiet host, and tests poll)."""
    children: dict[int, list[int]] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", "rb") as stat:
                parent = int(stat.read().rsplit(b")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        children.setdefault(parent, []).append(int(entry.name))
    found: dict[int, tuple[int, str]] = {}
    frontier = [pid]
    while frontier:
        current = frontier.pop()
        for child in children.get(current, ()):
            try:
                command = Path(f"/proc/{child}/cmdline").read_bytes().replace(
                    b"\0", b" ").decode(errors="replace")
            except OSError:  # it ended meanwhile
                continue
            found[child] = (current, command)
            frontier.append(child)
    return found


def below(tree: dict[int, tuple[int, str]], pid: int) -> set[int]:
    """The processes below ``pid`` in a ``process_tree``."""
    found: set[int] = set()
    frontier = [pid]
    while frontier:
        current = frontier.pop()
        for child, (parent, _) in tree.items():
            if parent == current and child not in found:
                found.add(child)
                frontier.append(child)
    return found


def descendants(pid: int) -> list[tuple[int, str]]:
    """(pid, command line) of every process below ``pid``."""
    return [(child, command) for child, (_, command) in process_tree(pid).items()]


def slow_match(root: Path, match_id: str) -> MatchSpec:
    """A 1-round match of two pacers that take 40 ms a decision (~2 s in all)."""
    bots = [load_bot_dir(d) for d in pacers(root, ["ann", "bob"], pace_s=0.04)]
    bots = [dataclasses.replace(b, digest=bot_identity(b)) for b in bots]
    return MatchSpec("lost-cities", 5, (bots[0], bots[1]), {"rounds": 1},
                     TimeControl(2000, 0, 10_000), match_id=match_id)


def m1_spec(seed: int) -> MatchSpec:
    """The spec of match ``m1`` (the head's)."""
    bots = (BotSpec("ann", "lost-cities"), BotSpec("bob", "lost-cities"))
    return MatchSpec("lost-cities", seed, bots, {"rounds": 1}, UNTIMED, match_id="m1")


def worker_log(work: Path, seed: int) -> tuple[MatchResult, list[bytes]]:
    """A finished match ``m1`` as a worker's temporary directory holds it: its result and its
    log's lines (in-process policies, seat 0's output kept as a worker's referee would)."""
    spec = m1_spec(seed)
    players = (LocalPlayer(0, lambda d: d.legal_texts[0]),
               LocalPlayer(1, lambda d: d.legal_texts[-1]))
    result = asyncio.run(Match(spec, sandbox_name="process", log_dir=work).run(players))
    text = (work / "m1.jsonl").read_bytes().replace(
        b'"bot_logs":[null,null]', b'"bot_logs":["%s/m1.seat0.log",null]' % str(work).encode())
    return result, text.splitlines(keepends=True)
