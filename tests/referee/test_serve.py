"""`arena serve`: a real referee process with the admin service and gRPC health checking (one
for the module, another for the test that lists what its referee played)."""

from __future__ import annotations

import asyncio
import json
import tempfile
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from textual.pilot import Pilot
from typer.testing import CliRunner

from arena.cli.main import app
from arena.errors import ConfigError
from arena.model import DecisionEvent, HeaderEvent, MatchEndEvent, TimeControl
from arena.record.log import read_events
from arena.serve.access import check_listen_address
from arena.serve.client import run_on_referee, watch_on_referee
from arena.tui.watch import WatchApp, open_live
from arena.v1 import admin_pb2, admin_pb2_grpc, bot_pb2
from tests.support.paths import RANDOM_BOT

pytestmark = pytest.mark.integration


def test_health_reports_the_referee_service(referee: str) -> None:
    with grpc.insecure_channel(referee) as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        answer = stub.Check(
            health_pb2.HealthCheckRequest(service="arena.v1.RefereeService"), timeout=5
        )
    assert answer.status == health_pb2.HealthCheckResponse.SERVING


def test_match_on_the_referee_and_follow_its_events(fresh_referee: str) -> None:
    referee = fresh_referee  # its list of matches holds this one alone
    result = run_on_referee(referee, [str(RANDOM_BOT), str(RANDOM_BOT)], None, 4,
                            {"rounds": "1"}, TimeControl(), "process")
    assert str(result.termination) == "normal"
    assert len(result.rounds) == 1
    events = list(watch_on_referee(referee, result.match_id))
    assert isinstance(events[0], HeaderEvent) and isinstance(events[-1], MatchEndEvent)
    assert sum(isinstance(e, DecisionEvent) for e in events) == result.decisions
    logged = list(read_events(Path(result.log or "")))  # typed, the same records as the log
    assert [e.to_json() for e in events] == [e.to_json() for e in logged]
    with grpc.insecure_channel(referee) as channel:
        listed = admin_pb2_grpc.RefereeServiceStub(channel).ListMatches(
            admin_pb2.ListMatchesRequest(), timeout=5)
    assert [m.match_id for m in listed.matches] == [result.match_id]
    assert listed.matches[0].status == admin_pb2.MATCH_STATUS_FINISHED
    assert listed.matches[0].termination == bot_pb2.TERMINATION_NORMAL


def test_a_request_picks_its_clock_and_guard(referee: str) -> None:
    """`arena match --referee --clock cpu --wall-guard 6`: the served match is charged CPU time
    with that guard (its log says so and records CPU per decision); the server's own setting
    (auto: cpu here) applies when the request names none; a guard out of range is refused."""
    tc = TimeControl(wall_guard=6.0)
    for clock, guard in (("cpu", 6.0), ("wall", 6.0), ("", 4.0)):
        asked = tc if guard == 6.0 else TimeControl()
        result = run_on_referee(referee, [str(RANDOM_BOT), str(RANDOM_BOT)], None, 4,
                                {"rounds": "1"}, asked, "process", clock)
        assert str(result.termination) == "normal", result.detail
        events = list(read_events(Path(result.log or "")))
        header = events[0]
        assert isinstance(header, HeaderEvent)
        assert header.time_control.clock == (clock or "cpu")
        assert header.time_control.wall_guard == guard
        decisions = [e for e in events if isinstance(e, DecisionEvent)]
        assert decisions and all(d.cpu_ms is not None for d in decisions)
    with grpc.insecure_channel(referee) as channel:
        stub = admin_pb2_grpc.RefereeServiceStub(channel)
        with pytest.raises(grpc.RpcError) as refused:
            stub.StartMatch(admin_pb2.StartMatchRequest(
                bots=[str(RANDOM_BOT), str(RANDOM_BOT)], clock="cpu", wall_guard=0.5),
                timeout=10)
    assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "wall_guard" in (refused.value.details() or "")


def test_watch_follows_a_running_match(referee: str) -> None:
    with grpc.insecure_channel(referee) as channel:
        stub = admin_pb2_grpc.RefereeServiceStub(channel)
        started = stub.StartMatch(admin_pb2.StartMatchRequest(
            bots=[str(RANDOM_BOT), str(RANDOM_BOT)], seed=8, has_seed=True), timeout=10)
    # `arena watch` through its command line in this process (not on a terminal: it prints
    # the final position once the match is over)
    out = CliRunner().invoke(app, ["watch", "--referee", referee, "--match", started.match_id])
    assert out.exit_code == 0, (out.stderr, out.exception)
    assert "match over" in out.stdout


def test_bad_requests_are_refused_clearly(referee: str) -> None:
    with grpc.insecure_channel(referee) as channel:
        stub = admin_pb2_grpc.RefereeServiceStub(channel)
        with pytest.raises(grpc.RpcError) as refused:
            stub.StartMatch(admin_pb2.StartMatchRequest(bots=["/nope", "/nope"]), timeout=10)
        assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        with pytest.raises(grpc.RpcError) as missing:
            list(stub.WatchMatch(admin_pb2.WatchMatchRequest(match_id="nope"), timeout=10))
        assert missing.value.code() == grpc.StatusCode.NOT_FOUND


@pytest.mark.unit
@pytest.mark.parametrize("address", ["0.0.0.0:7000", "10.1.2.3:7000", "example:80", "7000"])
def test_admin_service_never_listens_on_a_network(address: str) -> None:
    with pytest.raises(ConfigError):
        check_listen_address(address)
    assert check_listen_address("127.0.0.1:7000") == "127.0.0.1:7000"
    assert json.dumps(check_listen_address("unix:///tmp/x.sock"))


def test_an_unusable_listen_address_is_one_clear_error(tmp_path: Path) -> None:
    # through its command line in this process: it fails before it serves anything
    out = CliRunner().invoke(app, ["serve", "--listen", f"unix://{tmp_path}/missing/admin.sock"])
    assert out.exit_code == 2 and isinstance(out.exception, SystemExit), out.exception
    assert "cannot listen on" in out.stderr and "Traceback" not in out.stderr


def test_old_matches_are_served_from_their_logs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                                ) -> None:
    """A long-lived referee keeps only the latest finished matches in memory; watching an older
    one streams the same events from its log."""
    import asyncio
    import contextlib
    import threading

    from arena.serve import server

    monkeypatch.setattr(server, "KEEP_IN_MEMORY", 1)
    address = f"unix://{tempfile.mkdtemp(prefix='k', dir='/tmp')}/admin.sock"
    loop = asyncio.new_event_loop()
    ready = threading.Event()

    async def main() -> None:
        started = asyncio.Event()
        task = asyncio.ensure_future(server.serve(address, tmp_path / "logs", ready=started))
        await started.wait()
        ready.set()
        await task

    def run() -> None:
        with contextlib.suppress(asyncio.CancelledError):
            loop.run_until_complete(main())

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    assert ready.wait(20)
    try:
        ids = [run_on_referee(address, [str(RANDOM_BOT), str(RANDOM_BOT)], None, seed,
                              {"rounds": "1"}, TimeControl(), "process").match_id
               for seed in (1, 2)]
        for match_id in ids:  # the first is on disk by now, the second in memory
            events = list(watch_on_referee(address, match_id))
            log = tmp_path / "logs" / f"{match_id}.jsonl"
            # typed over the wire, the same records as the log, to the last field
            assert [e.to_json() for e in events] == [
                json.loads(line) for line in log.read_text().splitlines()]
    finally:
        for task in asyncio.all_tasks(loop):
            loop.call_soon_threadsafe(task.cancel)
        thread.join(10)


def test_the_watch_app_follows_a_match_live_from_the_referee(referee: str) -> None:
    """`arena watch --referee` on a terminal: the app, at the newest decision as they come,
    the match checked by the rules engine to its end."""
    with grpc.insecure_channel(referee) as channel:
        stub = admin_pb2_grpc.RefereeServiceStub(channel)
        started = stub.StartMatch(admin_pb2.StartMatchRequest(
            bots=[str(RANDOM_BOT), str(RANDOM_BOT)], seed=9, has_seed=True,
            options={"rounds": "1"}), timeout=10)
    timeline, steps = open_live(watch_on_referee(referee, started.match_id))
    app = WatchApp(timeline, live=steps)

    async def script(pilot: Pilot[None]) -> None:
        assert app.pinned  # at the newest, following (or done already: a fast match)
        for _ in range(1200):  # the match: a few seconds; a minute on a loaded machine
            if app.timeline.end is not None and not app.following:
                break
            await pilot.pause(0.05)
        assert app.timeline.end is not None and not app.following
        assert app.position == app.timeline.last > 0  # it stayed at the newest
        await pilot.press("home", "f")
        assert app.position == 0 and "nothing more to follow" in app.message

    async def run() -> None:
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.pause()
            await script(pilot)

    asyncio.run(run())
