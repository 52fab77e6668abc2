"""A competition end to end: a real `arena host` on 127.0.0.1 with TLS, two contestants, real
Docker. A submission is uploaded, built offline, validated, entered and rated; names are owned;
every visibility rule holds for a contestant without rights (PERMISSION_DENIED, nothing leaked);
quotas cut uploads at their limit."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest

from arena.host.client import _requests, payload
from arena.v1 import competition_pb2 as pb
from tests.support.competition import RunningServer

pytestmark = [pytest.mark.docker, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
GREEDY = ROOT / "sample_bots" / "lost-cities" / "greedy"
STAGE = pb.SubmissionStage.Name


def submit(stub: Any, directory: Path, name: str, *, until: str = "RATED",
           timeout: float = 600) -> list[Any]:
    """Upload ``directory`` as ``name``; the events until ``until`` or the end."""
    events = []
    with payload(directory, "directory") as made:
        start = pb.SubmitStart(name=name, kind="directory", size=made.size, sha256=made.sha256)
        call = stub.Submit(_requests(start, made.path, None), timeout=timeout)
        for event in call:
            events.append(event)
            if event.final or STAGE(event.stage) == until:
                call.cancel()
                break
    return events


@pytest.fixture(scope="module")
def rated(competition_server: RunningServer) -> dict[str, Any]:
    """alice's greedy, submitted as alice-bot, followed to its first rated match."""
    events = submit(competition_server.stub("alice"), GREEDY, "alice-bot")
    return {"events": events, "server": competition_server}


def test_a_submission_is_built_validated_entered_and_rated(rated: dict[str, Any]) -> None:
    events = rated["events"]
    stages = [STAGE(e.stage) for e in events]
    assert stages == ["RECEIVING", "UPLOADED", "BUILT", "VALIDATED", "ENTERED", "RATED"], (
        [(STAGE(e.stage), e.message, e.detail) for e in events])
    sid = events[0].submission_id
    assert events[-1].version == f"s{sid}"
    validated = next(e for e in events if STAGE(e.stage) == "VALIDATED")
    assert set(validated.match_ids) == {f"s{sid}-self", f"s{sid}-reference"}
    assert events[-1].match_ids and events[-1].final
    server: RunningServer = rated["server"]
    standings = server.stub("bob").Standings(pb.StandingsRequest(), timeout=30).games[0]
    row = next(r for r in standings.rows if r.name == "alice-bot")
    assert (row.version, row.owner, row.matches >= 1) == (f"s{sid}", "alice", True)
    mine = server.stub("alice").ListMatches(pb.MatchesRequest(mine=True), timeout=30).matches
    assert events[-1].match_ids[0] in {m.match_id for m in mine}
    assert all("alice-bot" in m.names for m in mine)
    assert server.stub("bob").ListMatches(pb.MatchesRequest(mine=True), timeout=30).matches == []
    listed = server.stub("alice").ListSubmissions(pb.SubmissionsRequest(), timeout=30)
    assert [(s.submission_id, STAGE(s.stage)) for s in listed.submissions] == [(sid, "RATED")]


def test_nobody_submits_under_another_contestants_name(rated: dict[str, Any]) -> None:
    server: RunningServer = rated["server"]
    for name in ("alice-bot", "ALICE-BOT", "random"):  # alice's, in any case; the house's
        with pytest.raises(grpc.RpcError) as caught:
            submit(server.stub("bob"), GREEDY, name)
        assert caught.value.code() is grpc.StatusCode.FAILED_PRECONDITION, name
        assert "belongs to another" in caught.value.details()
    assert server.stub("bob").ListSubmissions(pb.SubmissionsRequest(),
                                              timeout=30).submissions == []


def _rated_match(rated: dict[str, Any]) -> tuple[str, int]:
    """A rated match of alice-bot and the seat it played."""
    server: RunningServer = rated["server"]
    match_id = rated["events"][-1].match_ids[0]
    page = server.stub("bob").ListMatches(pb.MatchesRequest(bot="alice-bot"), timeout=30)
    match = next(m for m in page.matches if m.match_id == match_id)
    return match_id, list(match.names).index("alice-bot")


def test_the_owner_sees_their_own_seat_and_others_see_nothing(rated: dict[str, Any]) -> None:
    server: RunningServer = rated["server"]
    match_id, seat = _rated_match(rated)
    alice, bob = server.stub("alice"), server.stub("bob")
    frames = list(alice.WatchMatch(pb.WatchRequest(match_id=match_id, seat=seat), timeout=60))
    assert frames[-1].final and all(f.seat == seat for f in frames)
    assert f"seat {seat} view" in frames[0].board
    chunks = list(alice.GetLog(pb.LogRequest(match_id=match_id), timeout=60))
    assert {c.kind for c in chunks} == {"seat-view"}
    lines = [json.loads(line) for line in b"".join(c.data for c in chunks).splitlines()]
    assert lines[0]["type"] == "seat_header" and "seed" not in lines[0]
    output = alice.GetBotOutput(pb.BotOutputRequest(match_id=match_id), timeout=30)
    assert output.seat == seat
    denied = [
        lambda: list(alice.WatchMatch(pb.WatchRequest(match_id=match_id, seat=-1), timeout=30)),
        lambda: list(alice.WatchMatch(pb.WatchRequest(match_id=match_id, seat=1 - seat),
                                      timeout=30)),
        lambda: list(bob.WatchMatch(pb.WatchRequest(match_id=match_id, seat=seat), timeout=30)),
        lambda: list(bob.WatchMatch(pb.WatchRequest(match_id=match_id, seat=-1), timeout=30)),
        lambda: list(bob.GetLog(pb.LogRequest(match_id=match_id), timeout=30)),
        lambda: bob.GetBotOutput(pb.BotOutputRequest(match_id=match_id), timeout=30),
    ]
    sid = rated["events"][0].submission_id
    for validation in (f"s{sid}-self", f"s{sid}-reference"):  # the owner's only
        denied.append(lambda v=validation: list(bob.GetLog(pb.LogRequest(match_id=v),
                                                           timeout=30)))
        denied.append(lambda v=validation: list(bob.WatchMatch(
            pb.WatchRequest(match_id=v, seat=0), timeout=30)))
        assert list(alice.GetLog(pb.LogRequest(match_id=validation), timeout=60))
    for number, call in enumerate(denied):
        with pytest.raises(grpc.RpcError) as caught:
            call()
        assert caught.value.code() is grpc.StatusCode.PERMISSION_DENIED, number
        assert match_id not in caught.value.details() or "no " in caught.value.details()


def test_an_upload_past_its_quota_is_cut_and_leaves_nothing(rated: dict[str, Any],
                                                           tmp_path: Path) -> None:
    server: RunningServer = rated["server"]
    bob = server.stub("bob")
    limit = 5 * 1024 * 1024
    with pytest.raises(grpc.RpcError) as caught:  # announced too big: refused before a byte
        list(bob.Submit(iter([pb.SubmitRequest(start=pb.SubmitStart(
            name="bob-bot", kind="directory", size=limit + 1))]), timeout=60))
    assert caught.value.code() is grpc.StatusCode.RESOURCE_EXHAUSTED

    def lying() -> Iterator[pb.SubmitRequest]:  # announces 1 KiB, then sends on and on
        yield pb.SubmitRequest(start=pb.SubmitStart(name="bob-bot", kind="directory",
                                                    size=1024))
        for _ in range(64):
            yield pb.SubmitRequest(chunk=b"\0" * (1024 * 1024))

    with pytest.raises(grpc.RpcError) as caught:
        list(bob.Submit(lying(), timeout=120))
    assert caught.value.code() is grpc.StatusCode.RESOURCE_EXHAUSTED
    listed = bob.ListSubmissions(pb.SubmissionsRequest(), timeout=30).submissions
    assert [STAGE(s.stage) for s in listed] == ["REFUSED"]  # its sender lied: it counts
    uploads = server.state_dir / "uploads" / str(listed[0].submission_id)
    assert not uploads.exists()


def test_a_refused_submission_says_why_and_counts(rated: dict[str, Any],
                                                  tmp_path: Path) -> None:
    server: RunningServer = rated["server"]
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "bot.toml").write_text((GREEDY / "bot.toml").read_text())
    (broken / "bot.py").write_text("import sys\nprint('I am broken', flush=True)\n"
                                   "sys.exit(3)\n")
    for extra in GREEDY.iterdir():
        if extra.name not in ("bot.py", "bot.toml") and extra.is_file():
            (broken / extra.name).write_bytes(extra.read_bytes())
    events = submit(server.stub("bob"), broken, "bob-broken")
    assert STAGE(events[-1].stage) == "REFUSED", [(STAGE(e.stage), e.message) for e in events]
    assert "I am broken" in events[-1].detail
    listed = server.stub("bob").ListSubmissions(pb.SubmissionsRequest(), timeout=30)
    assert listed.submissions[0].counted
    assert server.stub("bob").WhoAmI(pb.WhoAmIRequest(), timeout=30).quotas.used_today == 2


def test_the_public_page_is_written(rated: dict[str, Any]) -> None:
    server: RunningServer = rated["server"]
    deadline = time.monotonic() + 60
    site = server.state_dir / "site"
    page = site / "lost-cities" / "index.html"
    while time.monotonic() < deadline and not (page.exists() and "alice-bot" in page.read_text()):
        time.sleep(1)
    assert "alice-bot" in page.read_text()
    assert 'href="lost-cities/index.html"' in (site / "index.html").read_text()
    assert not (site / "lost-cities" / "replays").exists()  # logs are not public here
