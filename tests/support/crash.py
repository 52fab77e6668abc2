"""The crash tests' ladder process and its handling: the real runner and store with a slow fake
player that leaves a marker line per started match, started in a session of its own and killed
(-9) once the test's condition holds.

As a process: ``python -m tests.support.crash ladder|sprt LADDER MARKERS`` runs the ladder (or
the SPRT test) of the file ``LADDER``, writing ``MARKERS/started.txt``."""

from __future__ import annotations

import contextlib
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from arena.ladder.config import LadderConfig
from arena.ladder.store import LadderStore
from tests.support.paths import ROOT


def recorded(cfg: LadderConfig) -> int:
    """How many matches the ladder's store holds (0 while the writer creates it). A SQLite
    store is read as a plain read-only file: opening a ``LadderStore`` (about 4 ms of CPU) takes
    a write lock for its schema, and the tests ask 20 times a second."""
    if not cfg.store_exists():
        return 0
    if cfg.sqlite_path is not None:
        try:
            with contextlib.closing(sqlite3.connect(f"{cfg.sqlite_path.as_uri()}?mode=ro", uri=True,
                                                    timeout=5)) as db:
                row = db.execute("SELECT count(DISTINCT match_id) FROM matches WHERE ladder = ?",
                                 (cfg.name,)).fetchone()
            return int(row[0])
        except sqlite3.Error:  # the writer may be creating the schema right now
            return 0
    try:
        with LadderStore(cfg.database_url) as db:
            return len(db.recorded_ids(cfg.name))
    except Exception:  # the writer may be creating the schema right now
        return 0


def start(args: list[str], log: Path) -> subprocess.Popen[bytes]:
    """``python ARGS`` from the repository, in a session of its own, output to ``log``."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    with log.open("wb") as out:
        return subprocess.Popen([sys.executable, *args], cwd=ROOT, env=env, stdout=out,
                                stderr=subprocess.STDOUT, start_new_session=True)


def driver_args(kind: str, ladder: Path, markers: Path) -> list[str]:
    """The arguments of ``start`` that run this module's driver (``kind``: ladder or sprt)."""
    return ["-m", "tests.support.crash", kind, str(ladder), str(markers)]


def kill_when(proc: subprocess.Popen[bytes], ready: Callable[[], bool], timeout: float) -> None:
    """kill -9 ``proc`` (and its session) once ``ready()`` holds; fail if it exits first or
    makes no progress within ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    try:
        while not ready():
            if proc.poll() is not None:
                pytest.fail(f"the ladder process exited early with {proc.returncode}")
            if time.monotonic() > deadline:
                pytest.fail("the ladder made no progress in time")
            time.sleep(0.05)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
    finally:
        # the bots it started are in its session: clean them up too (ours, by group id)
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def main(kind: str, ladder: str, markers: str) -> None:
    """The driver: run the ladder (``kind`` ladder) or the SPRT test (``sprt``) of ``ladder``
    with a slow fake player that appends "MATCH_ID SEED" to ``markers``/started.txt."""
    from arena.ladder.config import load_ladder
    from arena.model import MatchSpec
    from tests.support.fakes import FakePlayer, fake_resolve

    out = Path(markers)
    out.mkdir(parents=True, exist_ok=True)

    def mark(spec: MatchSpec) -> None:
        with (out / "started.txt").open("a") as f:
            f.write(f"{spec.match_id} {spec.seed}\n")

    player = FakePlayer(delay=0.15, hook=mark)
    if kind == "sprt":
        from arena.sprt.run import run_sprt_blocking

        summary = run_sprt_blocking(load_ladder(ladder), play=player, resolve=fake_resolve)
        print(summary.outcome, summary.status.pairs)
    else:
        from arena.ladder.runner import run_ladder_blocking

        run_ladder_blocking(load_ladder(ladder), play=player, resolve=fake_resolve)


if __name__ == "__main__":
    main(*sys.argv[1:4])
