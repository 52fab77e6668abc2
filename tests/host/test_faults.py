"""kill -9 of a competition server during an upload, a build or validation, and a ladder match:
restarted, it loses nothing recorded, counts nothing twice, and finishes or cleanly refuses what
was in flight; the quota clock survives. One real server (Docker sandbox), killed and restarted
three times in order."""

from __future__ import annotations

import functools
import re
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from sqlalchemy import create_engine, text

from arena.host.client import _requests, payload
from arena.host.config import load_competition
from arena.v1 import competition_pb2 as pb
from tests.support.competition import RunningServer, make_server, wait_for
from tests.support.containers import require_docker

pytestmark = [pytest.mark.docker, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
GREEDY = ROOT / "sample_bots" / "lost-cities" / "greedy"
STAGE = pb.SubmissionStage.Name


_wait = functools.partial(wait_for, timeout=600, every=0.3)  # this file's patience


def _submissions(server: RunningServer, who: str) -> list[Any]:
    try:
        return list(server.stub(who).ListSubmissions(pb.SubmissionsRequest(),
                                                     timeout=10).submissions)
    except grpc.RpcError:
        return []


def _in_flight(server: RunningServer) -> bool:
    url = f"http://127.0.0.1:{server.metrics_port}/metrics"
    metrics = urllib.request.urlopen(url, timeout=10).read().decode()
    found = re.search(r'arena_matches_in_flight\{game="lost-cities"\} (\d+)', metrics)
    return found is not None and float(found.group(1)) >= 1


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    require_docker()
    running = make_server(tmp_path_factory.mktemp("faults"))
    running.start()
    yield running
    running.end()


def test_kill9_during_an_upload_leaves_nothing(server: RunningServer) -> None:
    release = threading.Event()

    def slow() -> Iterator[pb.SubmitRequest]:
        yield pb.SubmitRequest(start=pb.SubmitStart(name="alice-bot", kind="directory",
                                                    size=4 * 1024 * 1024))
        yield pb.SubmitRequest(chunk=b"\0" * (1024 * 1024))
        release.wait(120)

    def upload() -> None:
        try:
            list(server.stub("alice").Submit(slow(), timeout=120))
        except grpc.RpcError:
            pass  # the server died under it

    thread = threading.Thread(target=upload, daemon=True)
    thread.start()
    row = _wait("the upload to start", lambda: _submissions(server, "alice"))[0]
    assert STAGE(row.stage) == "RECEIVING"
    _wait("the first chunk on disk", lambda: any(
        (server.state_dir / "uploads" / str(row.submission_id)).glob("*")))
    server.kill9()
    release.set()
    thread.join(30)
    server.start()
    after = _submissions(server, "alice")
    assert [(s.submission_id, STAGE(s.stage), s.counted) for s in after] == [
        (row.submission_id, "CANCELLED", False)]
    assert not (server.state_dir / "uploads" / str(row.submission_id)).exists()


@pytest.mark.parametrize(("after", "pause", "name"), [("UPLOADED", 0.3, "alice-bot"),
                                                      ("BUILT", 0.0, "alice-late")],
                         ids=["during-the-build", "during-validation"])
def test_kill9_during_the_build_or_validation_takes_it_up_again(
        server: RunningServer, after: str, pause: float, name: str) -> None:
    """(A second bot, not a second version: a name's next version waits for its window of
    encounters before it plays, which is not what is tested here.)"""
    seen: list[str] = []
    used = server.stub("alice").WhoAmI(pb.WhoAmIRequest(), timeout=30).quotas.used_today

    def send() -> None:
        with payload(GREEDY, "directory") as made:
            start = pb.SubmitStart(name=name, kind="directory", size=made.size,
                                   sha256=made.sha256)
            try:
                for event in server.stub("alice").Submit(_requests(start, made.path, None),
                                                         timeout=600):
                    seen.append(STAGE(event.stage))
            except grpc.RpcError:
                pass  # the server died under it

    thread = threading.Thread(target=send, daemon=True)
    thread.start()
    _wait(f"the submission to reach {after}", lambda: after in seen, every=0.05)
    time.sleep(pause)  # inside the build, or the validation matches
    server.kill9()
    thread.join(30)
    assert "ENTERED" not in seen, seen
    server.start()
    sid = _submissions(server, "alice")[0].submission_id
    events = []
    for event in server.stub("alice").FollowSubmission(
            pb.FollowSubmissionRequest(submission_id=sid, follow=True), timeout=900):
        events.append(STAGE(event.stage))
        if event.final:
            break
    assert "ENTERED" in events and events[-1] == "RATED", events
    assert events.count("ENTERED") == 1
    reply = server.stub("alice").WhoAmI(pb.WhoAmIRequest(), timeout=30)
    assert reply.quotas.used_today == used + 1  # counted once (the cut upload not at all)


def test_kill9_during_a_ladder_match_counts_nothing_twice(server: RunningServer) -> None:
    url = load_competition(server.file).database
    engine = create_engine(url)

    def counts() -> tuple[int, int, int]:
        with engine.connect() as conn:
            matches = conn.execute(text("SELECT COUNT(*) FROM matches")).scalar_one()
            unique = conn.execute(text("SELECT COUNT(DISTINCT match_id) FROM matches")
                                  ).scalar_one()
            ratings = conn.execute(text("SELECT COUNT(*) FROM ratings")).scalar_one()
        return int(matches), int(unique), int(ratings)

    _wait("a ladder match in flight", lambda: _in_flight(server), timeout=300, every=0.1)
    before = counts()
    used = server.stub("alice").WhoAmI(pb.WhoAmIRequest(), timeout=30).quotas.used_today
    server.kill9()
    server.start()
    assert server.stub("alice").WhoAmI(pb.WhoAmIRequest(),
                                       timeout=30).quotas.used_today == used
    _wait("two more recorded matches", lambda: counts()[0] >= before[0] + 2, timeout=600)
    matches, unique, ratings = counts()
    assert matches == unique
    with engine.connect() as conn:
        void = conn.execute(text("SELECT COUNT(*) FROM matches WHERE void")).scalar_one()
    assert ratings == 2 * (matches - int(void))  # every rated match applied exactly once
    engine.dispose()
