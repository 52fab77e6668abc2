"""Live match logs of cluster matches: the worker streams the log while the match plays, the
head writes it where `arena watch --follow` reads it, one attempt at a time, bounded, and the
final log replaces it without leaving a follower behind."""

from __future__ import annotations

import asyncio
import os
import signal
import threading
import zlib
from pathlib import Path
from typing import Any

import pytest

from arena.cluster import LOG_TOPIC
from arena.cluster.executor import write_outputs
from arena.cluster.live import MAX_ATTEMPTS, LiveLogs
from arena.cluster.session import open_cluster
from arena.cluster.task import MatchOutput
from arena.cluster.verify import check_output
from arena.errors import LogFormatError
from arena.model import (
    DecisionEvent,
    MatchEndEvent,
    MatchEvent,
    MatchResult,
)
from arena.record.log import follow_events, read_events
from tests.support.cluster import below, m1_spec, process_tree, slow_match, worker_log

pytestmark = pytest.mark.unit

WORKER = "tls://127.0.0.1:4001"


def decisions_in(path: Path) -> int:
    """The decisions in the log at ``path`` so far (none while it does not exist)."""
    return sum(isinstance(e, DecisionEvent) for e in read_events(path)) if path.exists() else 0


def chunk(attempt: str, offset: int, data: bytes, match_id: str = "m1") -> tuple[float, Any]:
    """A ``LOG_TOPIC`` event as the head receives it."""
    return 0.0, {"match_id": match_id, "worker": WORKER, "attempt": attempt, "offset": offset,
                 "data": zlib.compress(data, 1)}


def test_the_live_copy_holds_exactly_the_latest_attempt_and_the_final_log_completes_it(
        tmp_path: Path) -> None:
    _, old = worker_log(tmp_path / "wa", seed=3)  # an attempt whose worker died
    result, new = worker_log(tmp_path / "wb", seed=4)  # the attempt that finishes
    a0, a1, a2 = b"".join(old[:2]), b"".join(old[2:6]), b"".join(old[6:9])
    b0, b1, b2, b3 = (b"".join(new[:3]), b"".join(new[3:8]), b"".join(new[8:12]),
                      b"".join(new[12:]))
    head = tmp_path / "head"
    path = head / "m1.jsonl"
    logs = LiveLogs()
    live = logs.expect("m1", head)
    logs.handle(chunk("A", 0, a0, match_id="m9"))  # not in flight: ignored
    logs.handle(chunk("A", 0, a0))
    logs.handle(chunk("A", len(a0), a1))
    assert path.read_bytes() == a0 + a1
    logs.handle(chunk("B", 0, b0))  # a new attempt: the old one's copy is set aside
    logs.handle(chunk("A", len(a0 + a1), a2))  # the old attempt, late: dropped
    logs.handle(chunk("B", 0, b0))  # out of order (a repeat): dropped
    logs.handle(chunk("C", len(b0), b1))  # an attempt that never started here: dropped
    logs.handle(chunk("B", len(b0), b1))
    assert path.read_bytes() == b0 + b1
    assert (head / "m1.aborted-1.jsonl").read_bytes() == a0 + a1
    logs.handle(chunk("B", len(b0 + b1 + b2), b3))  # b2 was lost: the live copy stops
    logs.handle(chunk("B", len(b0 + b1), b2))
    assert path.read_bytes() == b0 + b1
    with path.open("rb") as follower:  # opened the live copy: keeps its inode
        output = MatchOutput(result, zlib.compress(b"".join(new)), (zlib.compress(b"out"), None),
                             WORKER, "h", attempt="B")
        logs.release("m1")
        written = write_outputs(check_output(output, m1_spec(4)), m1_spec(4), head, live)
        final = path.read_bytes()
        assert follower.read() == final  # completed to the match end before the replace
    assert written.log == str(path)
    assert final.startswith(b0 + b1) and len(final.splitlines()) == len(new)
    end = list(read_events(path))[-1]
    assert isinstance(end, MatchEndEvent) and end.result.log == str(path)
    assert end.bot_logs == (str(head / "m1.seat0.log"), None)
    assert sorted(os.listdir(head)) == ["m1.aborted-1.jsonl", "m1.jsonl", "m1.seat0.log"]


def test_a_follower_of_the_live_copy_ends_with_the_final_logs_events(tmp_path: Path) -> None:
    result, lines = worker_log(tmp_path / "w", seed=5)
    head = tmp_path / "head"
    path = head / "m1.jsonl"
    logs = LiveLogs()
    live = logs.expect("m1", head, seed=5)  # the seed: for a follower of the committed header
    first, rest = b"".join(lines[:4]), b"".join(lines[4:])
    logs.handle(chunk("A", 0, first))
    followed: list[MatchEvent] = []
    follower = threading.Thread(target=lambda: followed.extend(
        follow_events(path, poll_s=0.01, idle_timeout_s=20)))
    follower.start()
    logs.handle(chunk("A", len(first), rest))  # the last flush, with the match end
    live_end = list(read_events(path))[-1]
    assert isinstance(live_end, MatchEndEvent) and live_end.result.log == str(path)
    output = MatchOutput(result, zlib.compress(b"".join(lines)), (zlib.compress(b"x"), None),
                         WORKER, "h", attempt="A")
    logs.release("m1")
    write_outputs(check_output(output, m1_spec(5)), m1_spec(5), head, live)
    follower.join(20)
    assert followed == list(read_events(path)) and followed[-1] == live_end
    assert not (head / "m1.seed").exists()  # the seed's sidecar went with the release


def test_a_broken_or_hostile_stream_is_bounded(tmp_path: Path) -> None:
    _, lines = worker_log(tmp_path / "w", seed=6)
    logs = LiveLogs(cap=4096)
    logs.expect("m1", tmp_path / "head")
    path = tmp_path / "head" / "m1.jsonl"
    logs.handle((0.0, "not a chunk"))
    logs.handle((0.0, {"match_id": "m1", "worker": WORKER, "attempt": "A", "offset": -1,
                       "data": b""}))
    assert not path.exists()
    junk = {"match_id": "m1", "worker": WORKER, "attempt": "J", "offset": 0, "data": b"junk"}
    logs.handle((0.0, junk))  # not zlib: dropped, never raised
    assert path.stat().st_size == 0
    logs.handle(chunk("A", 0, b"\n" * 10_000_000))  # inflates beyond the cap: not written
    assert path.stat().st_size == 0
    logs.handle(chunk("A", 0, b"".join(lines[:2])))  # the attempt stopped: nothing more
    assert path.stat().st_size == 0
    for n in range(MAX_ATTEMPTS + 3):  # ever new attempts: a bounded number of copies
        logs.handle(chunk(f"X{n}", 0, lines[0]))
    assert len(list(path.parent.iterdir())) == MAX_ATTEMPTS


@pytest.mark.integration
def test_a_cluster_match_is_followed_live_from_the_heads_log_dir(tmp_path: Path) -> None:
    spec = slow_match(tmp_path / "bots", "live-l0")
    log_dir = tmp_path / "matches"
    path = log_dir / "live-l0.jsonl"

    def follow() -> list[MatchEvent]:
        return list(follow_events(path, poll_s=0.02, idle_timeout_s=60))

    async def run() -> tuple[MatchResult, list[int], list[MatchEvent], Any]:
        async with open_cluster(None, workers=1) as session:
            follower = asyncio.create_task(asyncio.to_thread(follow))
            play = asyncio.create_task(session.player(spec, log_dir=log_dir))
            counts: list[int] = []  # decisions in the live file, while the task is in flight
            while not play.done():  # (the final log is written in the step that ends `play`)
                if n := decisions_in(path):
                    if not counts or n != counts[-1]:
                        counts.append(n)
                await asyncio.sleep(0.05)
            result = await play
            followed = await follower
            kept = await session.client.get_events(LOG_TOPIC)
            return result, counts, followed, kept

    result, counts, followed, kept = asyncio.run(run())
    assert str(result.termination) == "normal" and result.log == str(path)
    assert len(counts) >= 3 and counts[0] < result.decisions, counts  # it grew move by move
    final = list(read_events(path))
    assert followed == final and isinstance(final[-1], MatchEndEvent)
    assert final[-1].result.log == str(path)
    assert not [p for p in log_dir.iterdir() if "aborted" in p.name or p.name.startswith(".")]
    assert kept == ()  # the scheduler kept no chunk of the omniscient log


@pytest.mark.integration
def test_a_match_played_again_after_its_worker_died_starts_a_new_live_copy(
        tmp_path: Path) -> None:
    spec = slow_match(tmp_path / "bots", "again-l0")
    log_dir = tmp_path / "matches"
    path = log_dir / "again-l0.jsonl"
    failures: list[Exception] = []

    def follow() -> None:
        try:
            list(follow_events(path, poll_s=0.02, idle_timeout_s=60))
        except LogFormatError as exc:
            failures.append(exc)

    def kill_the_player() -> None:
        """SIGKILL the worker process whose bots are playing."""
        found = process_tree(os.getpid())
        playing = {pid for pid, (_, cmd) in found.items() if "bot.py" in cmd}
        for pid, (_, cmd) in found.items():
            if "spawn_main" in cmd and below(found, pid) & playing:
                os.kill(pid, signal.SIGKILL)

    async def run() -> MatchResult:
        async with open_cluster(None, workers=1) as session:
            play = asyncio.create_task(session.player(spec, log_dir=log_dir))
            while decisions_in(path) < 3:
                assert not play.done(), "the match ended before it was seen live"
                await asyncio.sleep(0.05)
            follower = asyncio.create_task(asyncio.to_thread(follow))
            await asyncio.sleep(0.1)
            kill_the_player()  # the nanny starts the worker again, Dask replays the match
            result = await play
            await follower
            return result

    result = asyncio.run(run())
    assert str(result.termination) == "normal"
    final = list(read_events(path))
    aborted = log_dir / "again-l0.aborted-1.jsonl"
    assert isinstance(final[-1], MatchEndEvent) and final[-1].result.log == str(path)
    assert 3 <= decisions_in(aborted) < result.decisions  # the killed attempt, unfinished
    assert not isinstance(list(read_events(aborted))[-1], MatchEndEvent)
    assert failures and "started again" in str(failures[0])  # its follower was told so
