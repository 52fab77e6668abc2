"""Every registered game end to end over the real gRPC path: match, log, replay, watch views."""

from __future__ import annotations

import asyncio
import io
from pathlib import Path

import pytest
from rich.console import Console

from arena.bots import load_bot_dir
from arena.cli.watch_cmds import play
from arena.games import game_ids
from arena.model import MatchSpec, Termination, TimeControl
from arena.record.log import read_events
from arena.record.replay import replay_log
from arena.referee.match import play_match
from tests.support.paths import sample_bot

pytestmark = pytest.mark.integration


@pytest.mark.parametrize("game_id", game_ids())
def test_sample_bots_play_a_full_match(game_id: str, log_dir: Path, socket_root: Path) -> None:
    bots = tuple(load_bot_dir(sample_bot(game_id, name)) for name in ("greedy", "random"))
    assert all(b.game == game_id for b in bots)
    spec = MatchSpec(game_id, 21, bots, {}, TimeControl(2000, 0, 10_000))
    result = asyncio.run(
        play_match(spec, sandbox="process", log_dir=log_dir, socket_root=socket_root)
    )
    assert result.termination is Termination.NORMAL, result.detail
    assert result.rounds and result.totals == (
        sum(r[0] for r in result.rounds), sum(r[1] for r in result.rounds))
    report = replay_log(Path(result.log or ""))
    assert report.finished and report.decisions == result.decisions
    events = list(read_events(Path(result.log or "")))
    for seat in (None, 0, 1):
        buffer = io.StringIO()
        play(events, seat=seat, delay=0, out=Console(file=buffer, width=100, color_system=None))
        text = buffer.getvalue()
        assert "match over" in text
        assert ("omniscient view" if seat is None else f"seat {seat} view") in text
        assert ("seed 21" in text) == (seat is None), "a seat's view must not show the seed"
