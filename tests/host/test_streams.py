"""Every open stream holds one of the server's handler threads, so streams are bounded (issue
33): a share of the threads for all streams together (``[server] max_streams``) that leaves the
rest to unary calls, a cap per contestant, and idle and total time limits. A real `arena host`
on 127.0.0.1 (process sandbox: no bot is built or plays here) and real gRPC clients."""

from __future__ import annotations

import threading
import time
import urllib.request
from collections.abc import Iterator
from typing import Any

import grpc
import pytest

from arena.host.accounts import Accounts
from arena.host.config import load_competition
from arena.host.submissions import BUILT, ENTERED, UPLOADED, VALIDATED, SubmissionBook
from arena.ladder.store import LadderStore
from arena.v1 import competition_pb2 as pb
from tests.support.competition import RunningServer, make_server

pytestmark = pytest.mark.integration

CROWD = 16
"""Contestants holding every stream they may open (8 each: 128, the server's threads)."""
IDLE_S, TOTAL_S = 2, 10
"""The limits of the ``limited`` server's streams."""
GAP_S = 0.5
"""The pause between the chunks of an upload that keeps sending."""


def _accounts(server: RunningServer) -> Accounts:
    return Accounts.open(load_competition(server.file).database)


def _entered(server: RunningServer, who: str) -> int:
    """A submission of ``who``'s, entered and awaiting its first rated match: following it
    holds a stream with nothing to send (the ladder never plays it: no such bot)."""
    book = SubmissionBook(LadderStore(load_competition(server.file).database).engine)
    sid = book.open(who, "lost-cities", f"{who}-bot", "directory", 1, "")
    for stage in (UPLOADED, BUILT, VALIDATED, ENTERED):
        book.advance(sid, stage)
    return sid


def _follow(stub: Any, sid: int, timeout: float = 120) -> Any:
    return stub.FollowSubmission(pb.FollowSubmissionRequest(submission_id=sid, follow=True),
                                 timeout=timeout)


def _metric(server: RunningServer, line: str) -> float:
    url = f"http://127.0.0.1:{server.metrics_port}/metrics"
    text = urllib.request.urlopen(url, timeout=30).read().decode()
    found = [row for row in text.splitlines() if row.startswith(line + " ")]
    return float(found[0].rsplit(" ", 1)[1]) if found else 0.0


@pytest.fixture  # one test's: stopped before the next starts the limited server
def crowd(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[RunningServer, list[int]]]:
    """A server with the default limits, 17 more contestants, an entered submission each."""
    server = make_server(tmp_path_factory.mktemp("crowd"), sandbox="process")
    accounts = _accounts(server)
    names = [f"c{i:02d}" for i in range(CROWD + 1)]
    server.tokens.update({name: accounts.add(name) for name in names})
    sids = [_entered(server, name) for name in names]
    server.start()
    yield server, sids
    server.end()


@pytest.fixture(scope="module")
def limited(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    """A server whose streams are closed after 2 s idle and 10 s open."""
    server = make_server(tmp_path_factory.mktemp("limited"), sandbox="process",
                         server=f"stream_idle_s = {IDLE_S}\nstream_max_s = {TOTAL_S}\n")
    server.start()
    yield server
    server.end()


def test_sixteen_contestants_holding_streams_leave_room_for_a_unary_call(
        crowd: tuple[RunningServer, list[int]]) -> None:
    """ATTACK: 16 contestants open 8 streams each, every one the server would allow them:
    128, as many as its handler threads. The server takes 96 (``max_streams``) and refuses the
    rest at once, saying why; a 17th contestant's WhoAmI is answered at once."""
    server, sids = crowd
    held: list[Any] = []
    refused: list[str] = []
    try:
        for i in range(CROWD):
            stub = server.stub(f"c{i:02d}")
            for _ in range(8):
                call = _follow(stub, sids[i])
                try:
                    assert pb.SubmissionStage.Name(next(call).stage) == "RECEIVING"
                    held.append(call)
                except grpc.RpcError as exc:
                    assert exc.code() is grpc.StatusCode.RESOURCE_EXHAUSTED, exc
                    refused.append(exc.details())
        assert (len(held), len(refused)) == (96, 32)
        assert set(refused) == {"the server has 96 streams open, as many as it allows: try "
                                "again in a minute"}
        started = time.monotonic()
        reply = server.stub(f"c{CROWD:02d}").WhoAmI(pb.WhoAmIRequest(), timeout=30)
        assert reply.contestant == f"c{CROWD:02d}"
        assert time.monotonic() - started < 15.0  # milliseconds, unless the machine is swamped
        assert _metric(server, "arena_streams_open") == 96
        assert _metric(server, 'arena_streams_refused_total{limit="server"}') == 32
    finally:
        for call in held:
            call.cancel()
    deadline = time.monotonic() + 30
    while _metric(server, "arena_streams_open") and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _metric(server, "arena_streams_open") == 0  # cancelled streams give their threads back


def test_an_upload_that_sends_nothing_is_closed_after_the_idle_limit(
        limited: RunningServer) -> None:
    """ATTACK: an upload that stops sending holds its thread no longer than ``stream_idle_s``
    (2 s here): chunks that keep coming keep it open longer; then it is closed with the
    reason, and the submission is cancelled (nothing kept, not counted)."""
    alice = limited.stub("alice")
    release = threading.Event()

    def trickle() -> Iterator[pb.SubmitRequest]:
        yield pb.SubmitRequest(start=pb.SubmitStart(name="slow-bot", kind="directory", size=10))
        for _ in range(4):  # 2 s in all, each pause well under the idle limit
            time.sleep(GAP_S)
            yield pb.SubmitRequest(chunk=b"x")
        release.wait(60)

    upload = alice.Submit(trickle(), timeout=60)
    sid = next(upload).submission_id
    started = time.monotonic()
    try:
        with pytest.raises(grpc.RpcError) as caught:
            list(upload)
        took = time.monotonic() - started
    finally:
        release.set()
    assert caught.value.code() is grpc.StatusCode.RESOURCE_EXHAUSTED
    assert caught.value.details().startswith(f"the stream was idle for {IDLE_S} s")
    assert 4 * GAP_S + IDLE_S - 0.25 <= took < TOTAL_S  # not closed while the chunks came
    deadline = time.monotonic() + 30
    stages: list[str] = []
    while stages[-1:] != ["CANCELLED"] and time.monotonic() < deadline:
        stages = [pb.SubmissionStage.Name(e.stage) for e in alice.FollowSubmission(
            pb.FollowSubmissionRequest(submission_id=sid), timeout=30)]
    assert stages == ["RECEIVING", "CANCELLED"]
    assert _metric(limited, 'arena_streams_closed_total{why="idle"}') >= 1


@pytest.mark.slow
def test_a_stream_is_closed_after_the_total_limit(limited: RunningServer) -> None:
    """A follow the server has nothing to send for is never idle, but it is closed after
    ``stream_max_s`` (10 s here), saying how to follow again."""
    sid = _entered(limited, "bob")
    follow = _follow(limited.stub("bob"), sid)
    started = time.monotonic()
    with pytest.raises(grpc.RpcError) as caught:
        list(follow)
    took = time.monotonic() - started
    assert caught.value.code() is grpc.StatusCode.RESOURCE_EXHAUSTED
    assert caught.value.details().startswith(f"the stream was open for {TOTAL_S} s")
    assert "arena submissions --follow" in caught.value.details()
    assert TOTAL_S - 0.5 <= took < TOTAL_S + 10
    assert _metric(limited, 'arena_streams_closed_total{why="total"}') >= 1


def test_a_revoked_contestants_open_stream_is_closed(limited: RunningServer) -> None:
    """``revoke`` shuts a contestant out at once, streams they opened before included: their
    token is checked again every few seconds (every 2 s here: the idle limit)."""
    token = _accounts(limited).add("erin")
    limited.tokens["erin"] = token
    sid = _entered(limited, "erin")
    follow = _follow(limited.stub("erin"), sid, timeout=60)
    assert pb.SubmissionStage.Name(next(follow).stage) == "RECEIVING"
    _accounts(limited).revoke("erin")
    started = time.monotonic()
    with pytest.raises(grpc.RpcError) as caught:
        list(follow)
    assert caught.value.code() is grpc.StatusCode.UNAUTHENTICATED
    assert time.monotonic() - started < TOTAL_S - 2  # the token check, not the total limit
