"""The recorded start-up figure and the startup deadline are one interval (docs/protocol.md):
from the bot's process running to its Hello. What the sandbox does before the bot runs (an image
build, creating a container: here a sandbox that takes SLOW_S to start the process) is in
neither, so a bot that was not forfeited never has a recorded ``startup_ms`` over the time
control's (issue 36: containers recorded 7.6-20.1 s under a 10 s rule, none forfeited)."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import pytest

from arena.bots import load_bot_dir
from arena.model import MatchEndEvent, MatchSpec, Termination, TimeControl
from arena.record.log import read_events
from arena.sandbox.process import ProcessSandbox

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
RANDOM = ROOT / "sample_bots" / "lost-cities" / "random"
SLOW_S = 2.5
"""What the sandbox takes before the bot's process runs."""
STARTUP_MS = 2500
"""The time control's startup deadline (a Python SDK bot says Hello in about 0.5 s)."""


class _SlowToStart(ProcessSandbox):
    """The process sandbox, SLOW_S slower to start a bot (as an image build would be)."""

    async def start(self, *args: Any, **kwargs: Any) -> Any:
        await asyncio.sleep(SLOW_S)
        return await super().start(*args, **kwargs)


def test_the_startup_figure_is_the_interval_the_deadline_limits(tmp_path: Path) -> None:
    from arena.referee.match import play_match

    bots = (load_bot_dir(RANDOM), load_bot_dir(RANDOM))
    spec = MatchSpec("lost-cities", 3, bots, {"rounds": 1}, TimeControl(5000, 0, STARTUP_MS))
    began = time.perf_counter()
    result = asyncio.run(play_match(spec, sandbox=_SlowToStart(), log_dir=tmp_path))
    assert time.perf_counter() - began > SLOW_S  # the sandbox did take its time
    assert result.termination is Termination.NORMAL, result.detail
    end = list(read_events(Path(result.log or "")))[-1]
    assert isinstance(end, MatchEndEvent) and end.seat_stats is not None
    figures = [stats.startup_ms for stats in end.seat_stats]
    assert all(f is not None and 0 < f <= STARTUP_MS for f in figures), figures
