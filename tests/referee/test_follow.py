"""`arena watch --follow` on a log file: events arrive while the match is still running."""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path

import pytest

from arena.bots import load_bot_dir
from arena.errors import LogFormatError
from arena.model import (
    BotSpec,
    DecisionEvent,
    MatchEndEvent,
    MatchEvent,
    MatchSpec,
    TimeControl,
)
from arena.record.log import aborted_name, follow_events, read_events
from arena.referee.local import UNTIMED, LocalPlayer
from arena.referee.match import Match, play_match
from tests.support.paths import ROOT

pytestmark = pytest.mark.integration


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


@pytest.mark.unit
def test_a_follower_of_a_log_set_aside_unfinished_says_so(tmp_path: Path) -> None:
    bots = (BotSpec("ann", "lost-cities"), BotSpec("bob", "lost-cities"))
    spec = MatchSpec("lost-cities", 3, bots, {"rounds": 1}, UNTIMED, match_id="m")
    first = LocalPlayer(0, lambda d: d.legal_texts[0]), LocalPlayer(1, lambda d: d.legal_texts[0])
    asyncio.run(Match(spec, sandbox_name="process", log_dir=tmp_path / "done").run(first))
    lines = (tmp_path / "done" / "m.jsonl").read_text().splitlines(keepends=True)
    path = tmp_path / "m.jsonl"
    path.write_text("".join(lines[:5]))  # a match in play...
    seen: list[MatchEvent] = []
    failed: list[Exception] = []

    def follow() -> None:
        try:
            seen.extend(follow_events(path, poll_s=0.01, idle_timeout_s=20))
        except LogFormatError as exc:
            failed.append(exc)

    follower = threading.Thread(target=follow)
    follower.start()
    deadline = time.monotonic() + 20
    while len(seen) < 5 and time.monotonic() < deadline:
        time.sleep(0.01)
    with path.open("a") as handle:  # ...that gains a line, then starts again: set aside
        handle.write(lines[5])
    path.rename(aborted_name(path))
    path.write_text(lines[0])
    follower.join(20)
    assert len(seen) == 6 and not follower.is_alive()  # the followed file was read to its end
    assert failed and "started again" in str(failed[0])
