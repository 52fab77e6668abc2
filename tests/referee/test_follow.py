"""`arena watch --follow` on a log file: events arrive while the match is still running."""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path

from arena.bots import load_bot_dir
from arena.model import DecisionEvent, MatchEndEvent, MatchEvent, MatchSpec, TimeControl
from arena.referee.log import follow_events, read_events
from arena.referee.match import play_match

from .conftest import ROOT


def test_follow_tails_a_running_match(log_dir: Path, socket_root: Path) -> None:
    greedy = load_bot_dir(ROOT / "sample_bots" / "lost-cities" / "greedy")
    spec = MatchSpec("lost-cities", 12, (greedy, greedy), {"rounds": 1}, TimeControl(),
                     match_id="follow-test")
    finished_at: list[float] = []

    def run() -> None:
        asyncio.run(play_match(spec, log_dir=log_dir, socket_root=socket_root))
        finished_at.append(time.monotonic())

    worker = threading.Thread(target=run)
    worker.start()
    seen: list[tuple[float, MatchEvent]] = []
    for event in follow_events(log_dir / "follow-test.jsonl", poll_s=0.01, idle_timeout_s=60):
        seen.append((time.monotonic(), event))
    worker.join(60)
    assert isinstance(seen[-1][1], MatchEndEvent)
    first_decision = next(t for t, e in seen if isinstance(e, DecisionEvent))
    assert first_decision < finished_at[0], "the first move must be seen before the match ends"
    assert [e for _, e in seen] == list(read_events(log_dir / "follow-test.jsonl"))
