"""The competition API's door: every method needs a valid token, a client must pin the server's
CA, failures from one peer are braked, and the metrics count what happened. A real `arena host`
process on 127.0.0.1 with TLS (process sandbox: no bot plays here)."""

from __future__ import annotations

import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest

from arena.host.accounts import Accounts
from arena.host.config import load_competition
from arena.v1 import competition_pb2 as pb
from tests.host.conftest import RunningServer, make_server

SERVICE = pb.DESCRIPTOR.services_by_name["CompetitionService"]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    running = make_server(tmp_path_factory.mktemp("auth"), sandbox="process")
    running.tokens["carol"] = Accounts.open(load_competition(running.file).database).add("carol")
    running.env["ARENA_MAX_FAILED_TOKENS"] = "100000"  # this module fails tokens on purpose
    running.start()
    yield running
    running.stop()


def _call(server: RunningServer, method: Any, metadata: tuple[tuple[str, str], ...],
          ca: Path | None = None) -> grpc.RpcError:
    """Call ``method`` with a default request and return the error it ends with."""
    credentials = grpc.ssl_channel_credentials(root_certificates=(ca or server.ca).read_bytes())
    with grpc.secure_channel(server.address, credentials) as channel:
        path = f"/{SERVICE.full_name}/{method.name}"
        request_type = getattr(pb, method.input_type.name)
        response_type = getattr(pb, method.output_type.name)
        kind = (method.client_streaming, method.server_streaming)
        factory = {(False, False): channel.unary_unary, (False, True): channel.unary_stream,
                   (True, False): channel.stream_unary, (True, True): channel.stream_stream}[kind]
        call = factory(path, request_serializer=request_type.SerializeToString,
                       response_deserializer=response_type.FromString)
        request: Any = iter([request_type()]) if method.client_streaming else request_type()
        with pytest.raises(grpc.RpcError) as caught:
            result = call(request, metadata=metadata, timeout=30)
            if method.server_streaming:
                list(result)
        return caught.value


BAD_TOKENS = {
    "none": (),
    "empty": (("authorization", "Bearer "),),
    "not bearer": (("authorization", "Basic abc"),),
    "garbage": (("authorization", "Bearer arena_zzzz_" + "x" * 40),),
    "huge": (("authorization", "Bearer " + "a" * 6000),),
}


def test_every_method_refuses_a_call_without_a_valid_token(server: RunningServer) -> None:
    methods = list(SERVICE.methods)
    assert {m.name for m in methods} >= {"WhoAmI", "Submit", "Standings", "ListMatches",
                                         "WatchMatch", "GetLog", "GetBotOutput",
                                         "ListSubmissions", "FollowSubmission"}
    alice = server.tokens["alice"]
    wrong_secret = alice[:-4] + ("AAAA" if not alice.endswith("AAAA") else "BBBB")
    tokens = {**BAD_TOKENS, "wrong secret": (("authorization", f"Bearer {wrong_secret}"),)}
    for method in methods:
        for label, metadata in tokens.items():
            error = _call(server, method, metadata)
            assert error.code() is grpc.StatusCode.UNAUTHENTICATED, (method.name, label)
            assert error.details() == "unknown or revoked token", (method.name, label)


def test_a_revoked_token_is_refused_at_once(server: RunningServer) -> None:
    accounts = Accounts.open(load_competition(server.file).database)
    token = accounts.add("dave")
    stub = server.stub(None)
    metadata = (("authorization", f"Bearer {token}"),)
    assert stub.WhoAmI(pb.WhoAmIRequest(), metadata=metadata, timeout=30).contestant == "dave"
    accounts.revoke("dave")
    with pytest.raises(grpc.RpcError) as caught:
        stub.WhoAmI(pb.WhoAmIRequest(), metadata=metadata, timeout=30)
    assert caught.value.code() is grpc.StatusCode.UNAUTHENTICATED


def test_whoami_says_who_and_what(server: RunningServer) -> None:
    reply = server.stub("alice").WhoAmI(pb.WhoAmIRequest(), timeout=30)
    assert reply.contestant == "alice"
    assert reply.competition == "t"
    assert [g.game for g in reply.games] == ["lost-cities"]
    assert reply.games[0].reference == "random"
    assert reply.quotas.submissions_per_day == 5
    assert reply.quotas.max_upload_bytes == 5 * 1024 * 1024
    assert reply.logs == "own-seat"


def test_a_client_pinning_another_ca_is_refused(server: RunningServer, tmp_path: Path) -> None:
    from arena.host.certs import make_server_certs

    make_server_certs(tmp_path / "other", ["127.0.0.1"])
    error = _call(server, SERVICE.methods_by_name["WhoAmI"],
                  (("authorization", f"Bearer {server.tokens['alice']}"),),
                  ca=tmp_path / "other" / "ca.pem")
    assert error.code() is grpc.StatusCode.UNAVAILABLE


def test_the_public_calls_answer_with_nothing_recorded(server: RunningServer) -> None:
    stub = server.stub("bob")
    standings = stub.Standings(pb.StandingsRequest(), timeout=30)
    assert [g.game for g in standings.games] == ["lost-cities"]
    assert stub.ListMatches(pb.MatchesRequest(), timeout=30).matches == []
    assert stub.ListSubmissions(pb.SubmissionsRequest(), timeout=30).submissions == []
    with pytest.raises(grpc.RpcError) as caught:
        stub.Standings(pb.StandingsRequest(game="chess"), timeout=30)
    assert caught.value.code() is grpc.StatusCode.NOT_FOUND


def test_unknown_and_foreign_ids_answer_alike(server: RunningServer) -> None:
    stub = server.stub("bob")
    answers = set()
    for match_id in ("no-such-match", "s1-self", "s999-reference", "../../etc/passwd"):
        calls = (
            lambda m=match_id: list(stub.WatchMatch(pb.WatchRequest(match_id=m, seat=0),
                                                    timeout=30)),
            lambda m=match_id: list(stub.GetLog(pb.LogRequest(match_id=m), timeout=30)),
            lambda m=match_id: stub.GetBotOutput(pb.BotOutputRequest(match_id=m), timeout=30),
        )
        for call in calls:
            with pytest.raises(grpc.RpcError) as caught:
                call()
            assert caught.value.code() is grpc.StatusCode.PERMISSION_DENIED
            answers.add(caught.value.details().replace(match_id[:80], "<id>"))
    assert len(answers) == 2  # "no match <id> ..." and "no finished match of your bots <id> ..."
    with pytest.raises(grpc.RpcError) as caught:
        list(stub.FollowSubmission(pb.FollowSubmissionRequest(submission_id=1), timeout=30))
    assert caught.value.code() is grpc.StatusCode.PERMISSION_DENIED


def test_the_metrics_count_calls_by_method_and_status(server: RunningServer) -> None:
    server.stub("alice").WhoAmI(pb.WhoAmIRequest(), timeout=30)
    _call(server, SERVICE.methods_by_name["Standings"], ())
    url = f"http://127.0.0.1:{server.metrics_port}/metrics"
    text = urllib.request.urlopen(url, timeout=30).read().decode()
    assert 'arena_api_calls_total{code="OK",method="WhoAmI"}' in text
    assert 'arena_api_calls_total{code="UNAUTHENTICATED",method="Standings"}' in text
    assert "arena_auth_failures_total" in text
    assert "arena_matches_in_flight" in text or "arena_submissions_total" in text


def test_repeated_failures_from_one_peer_are_braked(tmp_path: Path) -> None:
    running = make_server(tmp_path / "brake", sandbox="process")
    running.start()
    try:
        whoami = SERVICE.methods_by_name["WhoAmI"]
        codes = [_call(running, whoami, BAD_TOKENS["garbage"]).code() for _ in range(12)]
        assert codes[:10] == [grpc.StatusCode.UNAUTHENTICATED] * 10
        assert codes[10:] == [grpc.StatusCode.RESOURCE_EXHAUSTED] * 2
        # even the right token waits out the brake: guessing gains nothing by mixing them in
        error = _call(running, whoami,
                      (("authorization", "Bearer " + running.tokens["alice"]),))
        assert error.code() is grpc.StatusCode.RESOURCE_EXHAUSTED
        assert "retry in" in error.details()
    finally:
        running.stop()


def test_one_contestant_cannot_hold_every_handler(server: RunningServer) -> None:
    """At most 8 open streams per contestant: the 9th is refused, others are not affected."""
    import threading

    release = threading.Event()
    carol = server.stub("carol")

    def stalled() -> Iterator[pb.SubmitRequest]:
        yield pb.SubmitRequest(start=pb.SubmitStart(name="carol-bot", kind="directory", size=10))
        release.wait(60)

    upload = carol.Submit(stalled(), timeout=90)
    first = next(upload)
    sid = first.submission_id
    follows = [carol.FollowSubmission(pb.FollowSubmissionRequest(submission_id=sid, follow=True),
                                      timeout=90) for _ in range(7)]
    try:
        for follow in follows:
            assert pb.SubmissionStage.Name(next(follow).stage) == "RECEIVING"
        with pytest.raises(grpc.RpcError) as caught:
            next(carol.FollowSubmission(pb.FollowSubmissionRequest(submission_id=sid,
                                                                   follow=True), timeout=30))
        assert caught.value.code() is grpc.StatusCode.RESOURCE_EXHAUSTED
        assert "streams open" in caught.value.details()
        assert server.stub("alice").WhoAmI(pb.WhoAmIRequest(), timeout=30).contestant == "alice"
    finally:
        release.set()
        for call in (upload, *follows):
            call.cancel()
    import time

    deadline = time.monotonic() + 60
    stages: list[str] = []
    while time.monotonic() < deadline and stages[-1:] != ["CANCELLED"]:
        time.sleep(0.2)
        try:  # the cancelled streams close within a moment
            stages = [pb.SubmissionStage.Name(e.stage) for e in carol.FollowSubmission(
                pb.FollowSubmissionRequest(submission_id=sid), timeout=30)]
        except grpc.RpcError as exc:
            assert exc.code() is grpc.StatusCode.RESOURCE_EXHAUSTED
    assert stages[-1] == "CANCELLED"  # the stalled upload kept nothing
