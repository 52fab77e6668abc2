"""The competition API's door: every method needs a valid token, a client must pin the server's
CA, refused tokens are braked (never a valid one), and the metrics count what happened. A real
`arena host` process on 127.0.0.1 with TLS (process sandbox: no bot plays here)."""

from __future__ import annotations

import contextlib
import socket
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest

from arena.host.accounts import Accounts
from arena.host.config import load_competition
from arena.v1 import competition_pb2 as pb
from arena.v1 import competition_pb2_grpc as pb_grpc
from tests.support.competition import RunningServer, make_server

pytestmark = pytest.mark.integration

SERVICE = pb.DESCRIPTOR.services_by_name["CompetitionService"]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    running = make_server(tmp_path_factory.mktemp("auth"), sandbox="process")
    running.tokens["carol"] = Accounts.open(load_competition(running.file).database).add("carol")
    running.env["ARENA_MAX_FAILED_TOKENS"] = "100000"  # this module fails tokens on purpose
    running.start()
    yield running
    running.end()


def _call(server: RunningServer, method: Any, metadata: tuple[tuple[str, str], ...],
          ca: Path | None = None, address: str = "") -> grpc.RpcError:
    """Call ``method`` with a default request and return the error it ends with."""
    credentials = grpc.ssl_channel_credentials(root_certificates=(ca or server.ca).read_bytes())
    with grpc.secure_channel(address or server.address, credentials) as channel:
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


class Forwarder:
    """A TCP forwarder on 127.0.0.1 that reaches the server from another loopback address
    (``source``): the server sees the calls through it come from there."""

    def __init__(self, port: int, source: str) -> None:
        self.port, self.source = port, source
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.address = f"127.0.0.1:{self.listener.getsockname()[1]}"
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:  # closed
                return
            upstream = socket.create_connection(("127.0.0.1", self.port), timeout=30,
                                                source_address=(self.source, 0))
            upstream.settimeout(None)
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(a, b), daemon=True).start()

    @staticmethod
    def _pump(a: socket.socket, b: socket.socket) -> None:
        with contextlib.suppress(OSError):
            while data := a.recv(65536):
                b.sendall(data)
        for sock in (a, b):
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)

    def close(self) -> None:
        self.listener.close()


def _metric(server: RunningServer, line: str) -> float:
    url = f"http://127.0.0.1:{server.metrics_port}/metrics"
    text = urllib.request.urlopen(url, timeout=30).read().decode()
    found = [row for row in text.splitlines() if row.startswith(line + " ")]
    return float(found[0].rsplit(" ", 1)[1]) if found else 0.0


def _bearer(token: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {token}"),)


def test_the_brake_holds_back_refused_tokens_never_a_valid_one(tmp_path: Path) -> None:
    """ATTACK (issue 33): ten bad tokens from an address contestants share (a NAT, a proxy, a
    host) used to shut every one of them out for a minute. A valid token is checked first and
    served at once; only refused tokens are braked, per address and per token id (guesses at
    one contestant's secret from many addresses), and the metrics count them."""
    running = make_server(tmp_path / "brake", sandbox="process")
    running.start()
    forwarders = [Forwarder(running.port, "127.0.0.2"), Forwarder(running.port, "127.0.0.3")]
    try:
        whoami = SERVICE.methods_by_name["WhoAmI"]
        codes = [_call(running, whoami, BAD_TOKENS["garbage"]).code() for _ in range(12)]
        assert codes == [grpc.StatusCode.UNAUTHENTICATED] * 10 + \
            [grpc.StatusCode.RESOURCE_EXHAUSTED] * 2
        started = time.monotonic()  # alice, behind the same address, is served at once
        assert running.stub("alice").WhoAmI(pb.WhoAmIRequest(), timeout=30).contestant == "alice"
        assert time.monotonic() - started < 15.0  # milliseconds; the brake's wait is a minute
        bob = running.tokens["bob"]
        wrong = bob[:-4] + ("AAAA" if not bob.endswith("AAAA") else "BBBB")
        error = _call(running, whoami, _bearer(wrong))
        assert error.code() is grpc.StatusCode.RESOURCE_EXHAUSTED
        assert error.details().startswith("too many refused tokens from your address: a wrong "
                                          "token is turned away for ")
        # ten wrong secrets for bob's token id from a second address brake that id everywhere
        second, third = (f.address for f in forwarders)
        codes = [_call(running, whoami, _bearer(wrong), address=second).code()
                 for _ in range(10)]
        assert codes == [grpc.StatusCode.UNAUTHENTICATED] * 10
        error = _call(running, whoami, _bearer(wrong), address=third)
        assert error.code() is grpc.StatusCode.RESOURCE_EXHAUSTED
        assert "naming this token's contestant" in error.details()
        # the third address itself is not braked, and bob's own token opens the door from it
        assert _call(running, whoami, BAD_TOKENS["garbage"], address=third).code() is \
            grpc.StatusCode.UNAUTHENTICATED
        credentials = grpc.ssl_channel_credentials(root_certificates=running.ca.read_bytes())
        with grpc.secure_channel(third, credentials) as channel:
            stub = pb_grpc.CompetitionServiceStub(channel)
            assert stub.WhoAmI(pb.WhoAmIRequest(), metadata=_bearer(bob),
                               timeout=30).contestant == "bob"
        assert _metric(running, "arena_auth_failures_total") == 21
        assert _metric(running, 'arena_auth_braked_total{scope="address"}') == 3
        assert _metric(running, 'arena_auth_braked_total{scope="token"}') == 1
        assert _metric(running, 'arena_auth_braking{scope="address"}') == 2
        assert _metric(running, 'arena_auth_braking{scope="token"}') == 1
        assert _metric(running, 'arena_api_calls_total{code="OK",method="WhoAmI"}') == 2
    finally:
        for forwarder in forwarders:
            forwarder.close()
        running.end()


def test_one_contestant_cannot_hold_every_handler(server: RunningServer) -> None:
    """At most 8 open streams per contestant: the 9th is refused, others are not affected."""

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
