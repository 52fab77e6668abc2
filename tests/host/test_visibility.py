"""Each `logs` setting against a real server, tried by a contestant with rights and one without:
`participants` and `public` (own-seat: tests/host/test_competition.py). The house's bots play in
the process sandbox; the operator assigns `greedy` to alice (`arena contestants assign`), so she
is a participant of its matches and bob of none. The public page the server keeps is opened in
headless Chromium once it has recorded results. `arena host --check` is one table, exit 0 or 2."""

from __future__ import annotations

import json
import statistics
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from typer.testing import CliRunner

from arena.cli.main import app
from arena.host.config import load_competition
from arena.v1 import competition_pb2 as pb
from tests.support.competition import (
    OneAtATime,
    RunningServer,
    finished_match,
    house_server,
    house_servers,
)

pytestmark = pytest.mark.integration
runner = CliRunner(env={"COLUMNS": "400"})  # the message's lines, not the path's wrapping


def _denied(call: Any) -> None:
    with pytest.raises(grpc.RpcError) as caught:
        call()
    assert caught.value.code() is grpc.StatusCode.PERMISSION_DENIED
    assert caught.value.details().startswith("no ")


@pytest.fixture(scope="module")
def servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[OneAtATime]:
    """The module's two servers, one running at a time (the tests come grouped by server)."""
    root = tmp_path_factory.mktemp("servers")
    both = house_servers(root, "participants", "public")
    yield both
    both.stop()


@pytest.fixture
def participants(servers: OneAtATime) -> RunningServer:
    return servers.get("participants")


@pytest.fixture
def public(servers: OneAtATime) -> RunningServer:
    return servers.get("public")


def _whole_log(stub: Any, match_id: str) -> list[dict[str, Any]]:
    """The records of a match's log as the server sends it (its last line, the referee's signed
    statement of it, left out: tests/host/test_signed_downloads.py)."""
    chunks = list(stub.GetLog(pb.LogRequest(match_id=match_id), timeout=60))
    assert {c.kind for c in chunks} == {"log"}
    lines = [json.loads(line) for line in b"".join(c.data for c in chunks).splitlines()]
    assert lines[-1]["type"] == "statement"
    return lines[:-1]


def test_host_check_says_what_would_stop_the_server(tmp_path: Path) -> None:
    # `arena host FILE --check` through its command in this process (a check starts nothing)
    server = house_server(tmp_path / "check", "own-seat")
    good = runner.invoke(app, ["host", str(server.file), "--check"])
    assert good.exit_code == 0, good.output
    assert "TLS certificate" in good.stdout and "database" in good.stdout
    assert "gate " in good.stdout  # each hosted game's conformance-gate verdict (or: not run)
    (server.file.parent / "certs" / "server.pem").unlink()
    bad = runner.invoke(app, ["host", str(server.file), "--check"])
    assert bad.exit_code == 2
    assert "TLS certificate" in bad.output
    assert not (load_competition(server.file).state_dir / "server.json").exists()
    broken = server.file.parent / "broken.toml"
    broken.write_text(server.file.read_text().replace("submissions_per_day = 5",
                                                      "submissions_per_day = 0"))
    one = runner.invoke(app, ["host", str(broken), "--check"])
    assert one.exit_code == 2
    assert "submissions_per_day" in one.stderr and len(one.stderr.strip().splitlines()) <= 3


def test_participants_see_the_whole_match_and_others_nothing(
        participants: RunningServer) -> None:
    match_id, seat = finished_match(participants)
    alice, bob = participants.stub("alice"), participants.stub("bob")
    lines = _whole_log(alice, match_id)
    assert lines[0]["type"] == "header" and "seed_commitment" in lines[0]  # the whole log
    assert lines[-1]["type"] == "match_end" and lines[-1]["bot_logs"] == [None, None]
    assert lines[-1]["result"]["log"] is None  # no path of the head's
    frames = list(alice.WatchMatch(pb.WatchRequest(match_id=match_id, seat=-1), timeout=120))
    assert frames[-1].final and frames[0].seat == -1
    assert alice.GetBotOutput(pb.BotOutputRequest(match_id=match_id), timeout=30).seat == seat
    _denied(lambda: list(bob.GetLog(pb.LogRequest(match_id=match_id), timeout=30)))
    for view in (-1, 0, 1):
        _denied(lambda v=view: list(bob.WatchMatch(pb.WatchRequest(match_id=match_id, seat=v),
                                                   timeout=30)))
    _denied(lambda: bob.GetBotOutput(pb.BotOutputRequest(match_id=match_id), timeout=30))


@pytest.mark.slow
def test_an_unknown_id_and_a_forbidden_one_take_the_same_time(
        participants: RunningServer) -> None:
    """ATTACK: a match bob may not see used to be answered after reading its players' owners
    (~0.5 ms more than a made-up id here), so timing told which ids exist. Both now take one
    path. Calls alternate (so load falls on both alike) and are compared pair by pair: the
    forbidden one is the slower of a pair about half the time; the old path made it 76-92%."""
    match_id, _ = finished_match(participants)
    bob = participants.stub("bob")
    unknown = match_id[:-1] + ("x" if match_id[-1] != "x" else "y")
    calls = {
        "GetBotOutput": lambda m: bob.GetBotOutput(pb.BotOutputRequest(match_id=m), timeout=30),
        "GetLog": lambda m: list(bob.GetLog(pb.LogRequest(match_id=m), timeout=30)),
        "WatchMatch": lambda m: list(bob.WatchMatch(pb.WatchRequest(match_id=m, seat=0),
                                                    timeout=30)),
    }
    pairs = 300
    for method, call in calls.items():
        times: dict[str, list[float]] = {match_id: [], unknown: []}
        answers = set()
        for i in range(pairs):
            for ident in (match_id, unknown) if i % 2 else (unknown, match_id):
                started = time.perf_counter()
                with pytest.raises(grpc.RpcError) as caught:
                    call(ident)
                times[ident].append(time.perf_counter() - started)
                assert caught.value.code() is grpc.StatusCode.PERMISSION_DENIED
                answers.add(caught.value.details().replace(ident, "<id>"))
        assert len(answers) == 1, answers  # the same words
        slower = sum(f > u for f, u in zip(times[match_id], times[unknown], strict=True))
        medians = [statistics.median(times[i]) * 1000 for i in (match_id, unknown)]
        assert 0.35 < slower / pairs < 0.65, (method, slower / pairs, medians)


def test_public_shows_everyone_the_match_but_never_anothers_output(public: RunningServer,
                                                                   tmp_path: Path) -> None:
    match_id, seat = finished_match(public)
    bob = public.stub("bob")
    lines = _whole_log(bob, match_id)
    assert lines[0]["type"] == "header"
    end = lines[-1]["result"]
    assert end["detail"] == ""  # a fault's detail quotes the faulty bot: its owner's only
    frames = list(bob.WatchMatch(pb.WatchRequest(match_id=match_id, seat=-1), timeout=120))
    assert frames[-1].final
    _denied(lambda: bob.GetBotOutput(pb.BotOutputRequest(match_id=match_id), timeout=30))
    assert public.stub("alice").GetBotOutput(pb.BotOutputRequest(match_id=match_id),
                                             timeout=30).seat == seat


def test_the_public_page_opens_in_a_browser(public: RunningServer) -> None:
    from tests.support.browser import require_chromium
    from tests.support.pages import assert_only_the_site

    require_chromium()
    from tests.support.browser import Browser

    match_id, _ = finished_match(public)
    site = public.state_dir / "site" / "lost-cities"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and not (site / "replays").is_dir():
        time.sleep(0.5)
    replays = sorted((site / "replays").glob("*.html"))
    assert replays, "the public site has replays when logs are public"
    browser = Browser()
    try:
        browser.open(site / "index.html", "document.body !== null")
        assert "greedy" in browser.eval("document.body.innerText")
        assert_only_the_site(browser, site, site / "index.html")
        browser.open(replays[0])
        assert browser.eval("document.body.dataset.ready") == "1"
        assert browser.violations() == []
    finally:
        browser.close()
