"""A submission's name and its contestant, checked at every stage (issue 33): a name is claimed
only when a submission under it is entered, so a refused or cancelled one leaves it free; a
contestant revoked while their upload is under way gets nothing more done. A real `arena host`
on 127.0.0.1 (process sandbox; nothing here reaches a build) and real gRPC clients; the
pipeline's own checks at the build, the validation and the entry are in test_pipeline.py."""

from __future__ import annotations

import hashlib
import threading
import time
from collections.abc import Iterator
from typing import Any

import grpc
import pytest

from arena.host.accounts import Accounts
from arena.host.config import load_competition
from arena.host.submissions import SubmissionBook
from arena.ladder.store import LadderStore
from arena.v1 import competition_pb2 as pb
from tests.support.competition import RunningServer, make_server

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    """One counted submission a day, uploads of at most 1 KiB."""
    running = make_server(tmp_path_factory.mktemp("checks"), sandbox="process", per_day=1,
                          max_upload_mb=0.001)
    running.start()
    yield running
    running.end()


def _start(name: str, size: int = 10, sha256: str = "") -> pb.SubmitRequest:
    return pb.SubmitRequest(start=pb.SubmitStart(name=name, kind="directory", size=size,
                                                 sha256=sha256))


def _held(name: str, release: threading.Event) -> Iterator[pb.SubmitRequest]:
    """A submission's start, then nothing until ``release``."""
    yield _start(name)
    release.wait(30)


def _stages(stub: Any, sid: int) -> list[str]:
    """The submission's stages once it has ended."""
    deadline = time.monotonic() + 30
    stages: list[str] = []
    while time.monotonic() < deadline:
        stages = [pb.SubmissionStage.Name(e.stage) for e in stub.FollowSubmission(
            pb.FollowSubmissionRequest(submission_id=sid), timeout=30)]
        if stages[-1] in ("REFUSED", "CANCELLED", "FAILED"):
            break
        time.sleep(0.1)
    return stages


def test_refused_and_cancelled_submissions_claim_no_name(server: RunningServer) -> None:
    """ATTACK: names used to be claimed at a submission's start, before the quota was checked,
    and kept when the start was refused or the upload cut or cancelled: names for free. Now a
    name is claimed with the entry alone, and another contestant may take it meanwhile."""
    alice, bob = server.stub("alice"), server.stub("bob")

    def oversize() -> Iterator[pb.SubmitRequest]:  # past the 1 KiB quota: cut, counted
        yield _start("bob-first", size=100)
        yield pb.SubmitRequest(chunk=b"x" * 2000)

    cut = bob.Submit(oversize(), timeout=30)
    first = next(cut).submission_id
    with pytest.raises(grpc.RpcError) as caught:
        list(cut)
    assert caught.value.code() is grpc.StatusCode.RESOURCE_EXHAUSTED
    assert _stages(bob, first) == ["RECEIVING", "REFUSED"]
    with pytest.raises(grpc.RpcError) as caught:  # the day's one submission is used
        next(bob.Submit(iter([_start("squat")]), timeout=30))
    assert caught.value.code() is grpc.StatusCode.RESOURCE_EXHAUSTED
    assert "quota" in caught.value.details()
    assert list(bob.WhoAmI(pb.WhoAmIRequest(), timeout=30).bots) == []
    release = threading.Event()
    upload = alice.Submit(_held("held", release), timeout=30)
    sid = next(upload).submission_id
    upload.cancel()
    release.set()
    assert _stages(alice, sid) == ["RECEIVING", "CANCELLED"]
    assert list(alice.WhoAmI(pb.WhoAmIRequest(), timeout=30).bots) == []
    for name in ("bob-first", "squat"):  # free for alice: her starts are taken
        release.clear()
        upload = alice.Submit(_held(name, release), timeout=30)
        started = next(upload)
        assert pb.SubmissionStage.Name(started.stage) == "RECEIVING"
        upload.cancel()
        release.set()
        # an upload counts against the day's quota until the server has seen it end
        assert _stages(alice, started.submission_id) == ["RECEIVING", "CANCELLED"]


def test_an_upload_under_way_when_its_contestant_is_revoked_goes_no_further(
        server: RunningServer) -> None:
    """ATTACK: a call already open when its contestant was revoked went on to build, validate
    and enter the bot. Now the token is checked again when the upload ends: the submission is
    cancelled there (nothing kept) and the call ends UNAUTHENTICATED."""
    accounts = Accounts.open(load_competition(server.file).database)
    server.tokens["dave"] = accounts.add("dave")
    payload = b"not even a tar, and never opened"
    rest = threading.Event()

    def parts() -> Iterator[pb.SubmitRequest]:
        yield _start("dave-bot", size=len(payload), sha256=hashlib.sha256(payload).hexdigest())
        yield pb.SubmitRequest(chunk=payload[:10])
        rest.wait(30)
        yield pb.SubmitRequest(chunk=payload[10:])

    upload = server.stub("dave").Submit(parts(), timeout=60)
    sid = next(upload).submission_id
    accounts.revoke("dave")
    rest.set()
    with pytest.raises(grpc.RpcError) as caught:
        list(upload)
    assert caught.value.code() is grpc.StatusCode.UNAUTHENTICATED
    book = SubmissionBook(LadderStore(load_competition(server.file).database).engine)
    assert [e.stage for e in book.events(sid)] == ["RECEIVING", "UPLOADED", "CANCELLED"]
    row = book.get(sid)
    assert row is not None and not row.counted


def test_a_call_ended_at_its_first_event_leaves_no_upload_waiting(server: RunningServer) -> None:
    """A client gone the moment its submission was opened used to leave it RECEIVING (and
    counted against the day's one submission) until the server restarted: gRPC closes the
    call's generator without running on. It is cancelled then, and not counted."""
    accounts = Accounts.open(load_competition(server.file).database)
    server.tokens["erin"] = accounts.add("erin")
    erin = server.stub("erin")
    release = threading.Event()
    for attempt in range(5):
        upload = erin.Submit(_held(f"gone-{attempt}", release), timeout=30)
        sid = next(upload).submission_id
        upload.cancel()
        assert _stages(erin, sid) == ["RECEIVING", "CANCELLED"]
    release.set()
    assert erin.WhoAmI(pb.WhoAmIRequest(), timeout=30).quotas.used_today == 0
