"""A contestant checks what the server sends them, offline, with the competition's public key:
real `arena host` processes on 127.0.0.1 (TLS, the process sandbox, the house's bots; the
operator assigns `greedy` to alice). Under `own-seat`, alice downloads her seat's view with
`arena logs` and `arena verify` checks it against the `referee.pub` the public page offers;
under `public`, bob, who played nothing, downloads the whole log, and the public page offers the
signed log beside the replay. A changed result, score, seed commitment, decision of the seat or
claim of the statement: `arena verify` says NOT verified in one line, exit 1.

The same servers serve `arena watch --server`'s app (WatchRequest.records): alice follows her
seat of a running match in the app (pilot), bob the whole board of a finished one under
`public` (pilot, and the CLI in tmux), and whoever may not watch a match gets the refusal
before any record."""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import re
import shlex
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from rich.console import Console
from textual.pilot import Pilot
from typer.testing import CliRunner, Result

from arena.cli.main import app
from arena.cli.remote_cmds import watch_remote
from arena.games import get_game
from arena.host import client as hc
from arena.host.config import load_competition
from arena.host.views import seat_view_records
from arena.model import DecisionEvent
from arena.record.log import read_events
from arena.record.replay import replay_events
from arena.render import renderer_for
from arena.tui.model import Timeline
from arena.tui.watch import WatchApp, open_records
from arena.tui.widgets import BoardView
from arena.v1 import competition_pb2 as pb
from tests.support.competition import (
    OneAtATime,
    RunningServer,
    finished_match,
    house_servers,
)
from tests.support.tui import screen_text
from tests.tui.test_watch_terminal import Tmux

pytestmark = [pytest.mark.integration, pytest.mark.slow]
runner = CliRunner(env={"COLUMNS": "400"})


@pytest.fixture(scope="module")
def servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[OneAtATime]:
    """The module's two servers (own-seat, public), one running at a time: the tests below
    come grouped by server."""
    root = tmp_path_factory.mktemp("servers")
    both = house_servers(root, "own-seat", "public")
    yield both
    both.stop()


@pytest.fixture
def own_seat(servers: OneAtATime) -> RunningServer:
    return servers.get("own-seat")


@pytest.fixture
def public(servers: OneAtATime) -> RunningServer:
    return servers.get("public")


def _arena(server: RunningServer, who: str, *args: str) -> Result:
    """``arena ARGS`` as ``who``, the server given by the environment (as in CI)."""
    env = {hc.CONFIG_ENV: str(server.state_dir.parent / "no-profiles.toml"),
           hc.SERVER_ENV: server.address, hc.CA_ENV: str(server.ca),
           hc.TOKEN_ENV: server.tokens[who]}
    return runner.invoke(app, list(args), env=env)


def _wait_for(path: Path, timeout: float = 120) -> Path:
    deadline = time.monotonic() + timeout
    while not path.is_file():
        assert time.monotonic() < deadline, f"{path} did not appear"
        time.sleep(0.3)
    return path


def _public_key(server: RunningServer) -> Path:
    """The referee's public key as the competition's public page offers it."""
    return _wait_for(load_competition(server.file).site_dir / "referee.pub")


def _verify(file: Path, key: Path) -> Result:
    return runner.invoke(app, ["verify", str(file), "--key", str(key)])


def _not_verified(file: Path, key: Path) -> str:
    """`arena verify` refuses ``file``: exit 1, one line."""
    out = _verify(file, key)
    lines = [line for line in out.output.splitlines() if line.strip()]
    assert out.exit_code == 1 and len(lines) == 1, out.output
    assert lines[0].startswith(f"NOT verified: {file}: "), lines
    return lines[0]


def _edited(original: Path, out: Path, kind: str, edit: Callable[[dict[str, Any]], None]
            ) -> Path:
    """A copy of ``original`` with the first record of type ``kind`` changed by ``edit`` (the
    record re-written as the server writes JSON)."""
    lines = original.read_bytes().splitlines(keepends=True)
    for number, line in enumerate(lines):
        record = json.loads(line)
        if record["type"] == kind:
            edit(record)
            lines[number] = (json.dumps(record, separators=(",", ":")) + "\n").encode()
            break
    else:
        raise AssertionError(f"no {kind} record")
    out.write_bytes(b"".join(lines))
    return out


def _flip_hex(text: str) -> str:
    return ("1" if text[0] != "1" else "2") + text[1:]


def test_a_seat_view_download_verifies_offline_and_nothing_in_it_can_be_changed(
        own_seat: RunningServer, tmp_path: Path) -> None:
    match_id, seat = finished_match(own_seat)
    file = tmp_path / "mine.seat-view.jsonl"
    got = _arena(own_seat, "alice", "logs", "--match", match_id, "-o", str(file))
    assert got.exit_code == 0, got.output
    assert "your seat's view" in got.stdout and "signed statement" in got.stdout
    key = _public_key(own_seat)
    checked = _verify(file, key)
    assert checked.exit_code == 0, checked.output
    assert re.match(rf"verified: {re.escape(str(file))}: seat {seat}'s view of match "
                    rf"{re.escape(match_id)} \(lost-cities: ", checked.stdout), checked.stdout
    statement = json.loads(json.loads(file.read_bytes().splitlines()[-1])["statement"])
    assert statement["document"] == "seat-view" and statement["seat"] == seat

    def winner(r: dict[str, Any]) -> None:
        r["result"]["winner"] = 1 if r["result"]["winner"] != 1 else 0

    def score(r: dict[str, Any]) -> None:
        r["scores"][seat] += 1

    def commitment(r: dict[str, Any]) -> None:
        r["seed_commitment"] = _flip_hex(r["seed_commitment"])

    def decision(r: dict[str, Any]) -> None:
        r["action"] = "pass" if r["action"] != "pass" else "draw"

    for kind, edit in (("match_end", winner), ("round_end", score),
                       ("seat_header", commitment), ("observation", decision)):
        line = _not_verified(_edited(file, tmp_path / f"{kind}.jsonl", kind, edit), key)
        assert "changed after it was signed" in line, line

    def claim(r: dict[str, Any]) -> None:  # the statement itself: another winner
        text = json.loads(r["statement"])
        text["result"]["winner"] = 1 - (text["result"]["winner"] or 0)
        r["statement"] = json.dumps(text, separators=(",", ":"))

    line = _not_verified(_edited(file, tmp_path / "claim.jsonl", "statement", claim), key)
    assert "signature is not key" in line
    # hidden information: the seed and its salt (the operator's log) are nowhere in the file
    log = Path(load_competition(own_seat.file).logs_dir / "lost-cities" / f"{match_id}.jsonl")
    end = json.loads(log.read_bytes().splitlines()[-2])
    assert end["type"] == "match_end"
    for secret in (str(end["result"]["seed"]), end["seed_salt"]):
        assert secret.encode() not in file.read_bytes()
    bob = _arena(own_seat, "bob", "logs", "--match", match_id, "-o", str(tmp_path / "b.jsonl"))
    assert bob.exit_code == 2 and not (tmp_path / "b.jsonl").exists()  # own-seat: not his


# --- `arena watch --server`: the watch app on the records a WatchFrame carries ------------------
def _env(server: RunningServer, who: str) -> dict[str, str]:
    return {hc.CONFIG_ENV: str(server.state_dir.parent / "no-profiles.toml"),
            hc.SERVER_ENV: server.address, hc.CA_ENV: str(server.ca),
            hc.TOKEN_ENV: server.tokens[who]}


def _log_of(server: RunningServer, match_id: str) -> Path:
    return load_competition(server.file).logs_dir / "lost-cities" / f"{match_id}.jsonl"


def _running_match(server: RunningServer) -> tuple[str, int]:
    """A match greedy (alice's) plays, caught while it runs (its log has no match end yet) if
    one is found within a minute, else the newest recorded one; and greedy's seat."""
    logs = load_competition(server.file).logs_dir / "lost-cities"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        for path in logs.glob("*.jsonl"):
            if "." in path.stem:  # an aborted match set aside
                continue
            with contextlib.suppress(OSError, ValueError, KeyError):
                data = path.read_bytes()
                header = json.loads(data.split(b"\n", 1)[0])
                names = [bot["name"] for bot in header["bots"]]
                if b'"match_end"' not in data and "greedy" in names:
                    return path.stem, names.index("greedy")
        time.sleep(0.05)
    return finished_match(server)


async def _until(pilot: Pilot[None], done: Callable[[], bool], what: str,
                 timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while not done():
        assert time.monotonic() < deadline, f"never: {what}"
        await pilot.pause(0.05)


def _text_of(renderable: Any) -> str:
    out = io.StringIO()
    Console(file=out, width=100, color_system=None).print(renderable)
    return out.getvalue()


def test_a_contestant_follows_her_own_seat_live_in_the_watch_app(own_seat: RunningServer
                                                                 ) -> None:
    """alice (greedy's owner, own-seat) watches greedy's match from its start while it runs:
    the app grows as the records come, keeps the position she chose while moves arrive, End
    goes to the newest and stays with it; every board her seat was shown is the one the app
    shows; the records are her seat's view (no seed, no deal, no move of the other seat), the
    bytes `arena logs` downloads for it."""
    match_id, seat = _running_match(own_seat)
    records: list[str] = []
    gates = _Gates(4, 7)
    with hc.connect(hc.profile(None, environ=_env(own_seat, "alice"))) as connection:

        def kept() -> Iterator[str]:
            for frame in connection.watch(match_id, seat, records=True):
                assert frame.board == ""  # nothing drawn: the app draws
                assert frame.seat == seat
                if frame.record:
                    records.append(frame.record)
                    gates.passing(frame.record)
                    yield frame.record

        timeline, arrivals = open_records(kept())
        assert timeline.views == (seat,) and timeline.seat_view
        app = WatchApp(timeline, view=seat, delay=0.1, live=arrivals)
        try:
            asyncio.run(_follow_live(app, seat, _log_of(own_seat, match_id), gates))
        finally:
            gates.open_all()
    lines = [json.loads(r) for r in records]
    assert lines[0]["type"] == "seat_header" and "seed" not in lines[0]
    assert {line["type"] for line in lines} <= {"seat_header", "observation", "opponent_moved",
                                                 "round_end", "match_end"}
    assert all(set(line) == {"type", "n", "round"} for line in lines
               if line["type"] == "opponent_moved")
    log = _log_of(own_seat, match_id)
    assert "".join(r + "\n" for r in records).encode() == b"".join(
        seat_view_records(replay_events(read_events(log)), seat, detail=False))


class _Gates:
    """The watcher's side of the stream holds the moves back in stages: the first ``moves[0]``
    pass, the next up to ``moves[1]`` once the test opens the first gate, and so on; the server
    sends at its own pace (the tests' fastest), the app sees the moves come while the test acts
    between the stages, however loaded the machine."""

    def __init__(self, *moves: int) -> None:
        self.moves = moves
        self.gates = [threading.Event() for _ in moves]
        self.count = 0

    def passing(self, record: str) -> None:
        """(The follower thread) wait for its gate before a move beyond a stage's."""
        if json.loads(record)["type"] in ("observation", "opponent_moved"):
            for limit, gate in zip(self.moves, self.gates, strict=True):
                if self.count == limit:
                    assert gate.wait(timeout=300), f"the gate after {limit} moves stayed shut"
            self.count += 1

    def open(self, stage: int) -> None:
        self.gates[stage].set()

    def open_all(self) -> None:
        for gate in self.gates:
            gate.set()


async def _follow_live(app: WatchApp, seat: int, log: Path, gates: _Gates) -> None:
    timeline = app.timeline
    async with app.run_test(size=(100, 40)) as pilot:
        await _until(pilot, lambda: timeline.last >= 4, "four moves")
        await pilot.press("home")
        await pilot.pause()
        assert app.position == 0 and not app.pinned
        seen = timeline.last
        gates.open(0)  # more moves come now, while the app shows the start
        await _until(pilot, lambda: timeline.last >= seen + 3, "three more moves")
        assert app.position == 0  # kept while the moves came
        await pilot.press("end")
        await pilot.pause()
        assert app.position == timeline.last and app.pinned
        gates.open(1)  # the rest of the match comes now, after End
        await _until(pilot, lambda: timeline.end is not None and not app.following,
                     "the match end")
        await pilot.pause()
        assert app.position == timeline.last  # it stayed with the newest
        assert "end: " in screen_text(app)
        # what the seat saw, before each of its decisions, as the app shows it
        steps = list(replay_events(read_events(log)))
        game, renderer = get_game("lost-cities"), renderer_for("lost-cities")
        made, shown = 0, []
        for before, step in zip(steps, steps[1:], strict=False):
            if isinstance(step.event, DecisionEvent):
                if step.event.seat == seat:
                    shown.append((made, renderer.render_view(game.observation(before.state,
                                                                              seat))))
                made += 1
        assert made == timeline.last and len(shown) > 10
        for position, board in shown:
            assert _text_of(timeline.board(position, seat)[0]) == _text_of(board), position
        for position, board in shown[::len(shown) // 4]:
            app.seek(position)
            await pilot.pause()
            assert _text_of(app.query_one(BoardView).board) == _text_of(board), position


def test_a_match_one_may_not_watch_gets_the_refusal_and_no_record(
        own_seat: RunningServer, monkeypatch: pytest.MonkeyPatch) -> None:
    """Under own-seat, bob (no bot) asks for alice's match from every seat, alice for the whole
    board and the other seat: each call is refused before a single frame; `arena watch --server`
    on a terminal says so in one line and opens no app."""
    match_id, seat = finished_match(own_seat)
    bob, alice = own_seat.stub("bob"), own_seat.stub("alice")
    asks = [(bob, 0), (bob, 1), (bob, -1), (alice, -1), (alice, 1 - seat)]
    for stub, asked in asks:
        got: list[Any] = []
        with pytest.raises(grpc.RpcError) as caught:
            for frame in stub.WatchMatch(pb.WatchRequest(match_id=match_id, seat=asked),
                                         timeout=60):
                got.append(frame)
        assert caught.value.code() is grpc.StatusCode.PERMISSION_DENIED, asked
        assert got == [], asked
    for name, value in _env(own_seat, "bob").items():
        monkeypatch.setenv(name, value)
    with pytest.raises(hc.ServerError) as refused:
        watch_remote(None, match_id, seat=None, follow=True, delay=0.1, interactive=True)
    assert refused.value.code == "PERMISSION_DENIED"
    assert "add --seat N" in str(refused.value) and "\n" not in str(refused.value)


def test_the_whole_board_in_the_watch_app_where_visibility_allows_it(public: RunningServer
                                                                     ) -> None:
    """Under `public`, bob (no bot) watches a finished match: the app gets every view (Tab),
    each board as the log on the operator's disk replays, every move."""
    match_id, _ = finished_match(public)
    with hc.connect(hc.profile(None, environ=_env(public, "bob"))) as connection:
        frames = connection.watch(match_id, -1, records=True)
        timeline, arrivals = open_records(f.record for f in frames if f.record)
        app = WatchApp(timeline, delay=0.1, live=arrivals)

        async def script() -> None:
            async with app.run_test(size=(100, 40)) as pilot:
                await _until(pilot, lambda: timeline.end is not None and not app.following,
                             "the match end")
                await pilot.press("home", "right", "right", "tab")
                await pilot.pause()
                assert (app.position, app.view) == (2, 0)
                assert "view: seat 0" in screen_text(app)

        asyncio.run(script())
    assert timeline.views == (None, 0, 1) and not timeline.seat_view
    local = Timeline.of_steps(replay_events(read_events(_log_of(public, match_id))))
    assert timeline.moves == local.moves and timeline.end is not None and local.end is not None
    assert (timeline.end.result.winner, timeline.end.result.totals) == (
        local.end.result.winner, local.end.result.totals)
    for position in range(0, local.last + 1, 7):
        for view in (None, 0, 1):
            assert (_text_of(timeline.board(position, view)[0])
                    == _text_of(local.board(position, view)[0]))


def test_arena_watch_server_opens_the_app_on_a_terminal(public: RunningServer,
                                                         tmp_path: Path) -> None:
    """`arena watch --server --match` in a real terminal (tmux): the app, not frames."""
    match_id, _ = finished_match(public)
    env = " ".join(f"{k}={shlex.quote(v)}" for k, v in _env(public, "bob").items())
    command = f"{env} {shlex.quote(sys.executable)} -m arena watch --match {match_id}"
    pane = Tmux(tmp_path, ["sh", "-c", f"{command}; echo EXIT=$?; sleep 60"], (100, 40))
    try:
        pane.wait_for("view: everything")
        screen = pane.wait_for("end: ", timeout_s=180)
        assert "(Tab:" in screen  # every view: the whole match
        pane.keys("q")
        assert "EXIT=0" in pane.wait_for("EXIT=")
    finally:
        pane.close()


# --- under `public`: the whole log, signed, downloaded and on the public page ---------------
def test_the_whole_log_verifies_where_visibility_allows_it(public: RunningServer,
                                                           tmp_path: Path) -> None:
    match_id, _ = finished_match(public)
    file = tmp_path / f"{match_id}.jsonl"
    got = _arena(public, "bob", "logs", "--match", match_id, "-o", str(file))
    assert got.exit_code == 0, got.output
    assert "the match log" in got.stdout and "signed statement" in got.stdout
    key = _public_key(public)
    checked = _verify(file, key)
    assert checked.exit_code == 0, checked.output
    assert "the match log of match" in checked.stdout
    assert "replayed under the rules" in checked.stdout
    assert "the seed matches its commitment" in checked.stdout
    replayed = runner.invoke(app, ["replay", str(file)])  # the statement line is skipped
    assert replayed.exit_code == 0, replayed.output

    def reveal(r: dict[str, Any]) -> None:
        r["seed_salt"] = _flip_hex(r["seed_salt"])

    def totals(r: dict[str, Any]) -> None:
        r["totals"][0] += 1

    def deal(r: dict[str, Any]) -> None:
        r["deal"]["deck"] = r["deal"]["deck"][1:] + r["deal"]["deck"][:1]

    for kind, edit in (("match_end", reveal), ("round_end", totals), ("deal", deal)):
        _not_verified(_edited(file, tmp_path / f"{kind}.jsonl", kind, edit), key)


def test_the_public_page_offers_the_signed_log_next_to_the_replay(public: RunningServer) -> None:
    match_id, _ = finished_match(public)
    replays = load_competition(public.file).site_dir / "lost-cities" / "replays"
    signed = _wait_for(replays / f"{match_id}.jsonl")
    page = (replays / f"{match_id}.html").read_text()
    assert f'href="{match_id}.jsonl"' in page and "arena verify" in page
    checked = _verify(signed, _public_key(public))
    assert checked.exit_code == 0, checked.output
    end = json.loads(signed.read_bytes().splitlines()[-2])
    assert end["result"]["detail"] == "" and end["bot_logs"] == [None, None]
    index = (load_competition(public.file).site_dir / "index.html").read_text()
    assert 'href="referee.pub"' in index
