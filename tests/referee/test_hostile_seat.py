"""A bot cannot park descriptors in the referee through its own seat (process sandbox; the
container twin is in tests/sandbox/test_docker_hostile_faults.py).

``conn_flood`` opens 2,000 connections to its seat's socket before it says Hello. The seat keeps
one connection and closes the rest as soon as they are accepted: the referee's descriptor count
stays flat, the flooding bot is the only one hurt (it never gets a working connection:
``no_start``), and a match running beside it in the same referee is untouched."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from arena.bots import load_bot_dir
from arena.model import MatchResult, MatchSpec, Termination, TimeControl
from arena.referee.match import play_match
from arena.referee.seat import raise_open_files_limit

from .conftest import RANDOM_BOT, ROOT

FLOOD = ROOT / "sample_bots" / "hostile" / "conn_flood"
REFEREE_FDS_MAX = 200
"""Extra descriptors the referee may hold while two matches run (measured: about 20; keeping
the flood's connections would take over 2,000)."""


def _descriptors() -> int:
    return len(os.listdir("/proc/self/fd"))


def test_a_connection_flood_hurts_only_the_flooder(log_dir: Path, socket_root: Path) -> None:
    flood, rnd = load_bot_dir(FLOOD), load_bot_dir(RANDOM_BOT)
    tc = TimeControl(move_time_ms=1000, startup_ms=3000)

    async def scenario() -> tuple[MatchResult, MatchResult, int]:
        base, peak = _descriptors(), 0

        async def watch() -> None:
            nonlocal peak
            while True:
                peak = max(peak, _descriptors() - base)
                await asyncio.sleep(0.01)

        watcher = asyncio.create_task(watch())
        attacked, innocent = await asyncio.gather(
            play_match(MatchSpec("lost-cities", 1, (flood, rnd), {"rounds": 1}, tc),
                       log_dir=log_dir, socket_root=socket_root),
            play_match(MatchSpec("lost-cities", 2, (rnd, rnd), {"rounds": 1}, tc),
                       log_dir=log_dir, socket_root=socket_root),
        )
        watcher.cancel()
        return attacked, innocent, peak

    attacked, innocent, peak = asyncio.run(scenario())
    assert attacked.termination is Termination.NO_START, attacked.detail
    assert attacked.faulty_seat == 0 and attacked.winner == 1 and not attacked.void
    assert innocent.termination is Termination.NORMAL and innocent.decisions > 20
    assert peak < REFEREE_FDS_MAX, peak
    tail = Path(attacked.log or "").with_name(f"{attacked.match_id}.seat0.log").read_text()
    assert "[hostile] conn_flood: parked 1 of 2000 connections" in tail
    assert list(socket_root.iterdir()) == []


def test_the_referee_raises_its_descriptor_limit() -> None:
    import resource

    raised = raise_open_files_limit()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    assert raised == soft
    assert soft >= min(hard, 65_536) or hard == resource.RLIM_INFINITY
