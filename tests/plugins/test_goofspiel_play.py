"""Goofspiel, the plugin game, everywhere a built-in game plays: its sample bots in the process
sandbox (`arena match`, `arena replay`, `arena watch` at 80 columns, the HTML replay page), a bot
that knows nothing of the game (the arena.v1 code of before the plugin envelope, text answers
only), an illegal bid named with the engine's reason, and an SPRT test. The container runs (a
match, a short ladder) are in test_goofspiel_containers.py."""

from __future__ import annotations

import asyncio
import io
import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from rich.console import Console
from typer.testing import CliRunner

from arena.bots.manifest import load_bot_dir
from arena.cli.main import app
from arena.cli.watch_cmds import frames, html_replay, play
from arena.model import DecisionEvent, MatchSpec, Termination, TimeControl
from arena.record.log import read_events
from arena.record.replay import replay_log
from arena.referee.match import play_match
from tests.support.goofspiel import GREEDY, RANDOM, goofspiel
from tests.support.pages import frame_html, frame_states, page_data

pytestmark = pytest.mark.integration

runner = CliRunner()


@pytest.fixture(scope="module")
def logged(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    """`arena match greedy random` in the process sandbox, as JSON (with its log)."""
    goofspiel()
    logs = tmp_path_factory.mktemp("logs")
    out = runner.invoke(app, ["match", str(GREEDY), str(RANDOM), "--seed", "5", "--sandbox",
                              "process", "--format", "json", "--log-dir", str(logs)])
    assert out.exit_code == 0, out.output
    data: dict[str, object] = json.loads(out.stdout)
    return data


@pytest.mark.integration
def test_the_sample_bots_play_a_match_in_the_process_sandbox(logged: dict[str, object]) -> None:
    assert logged["game"] == "goofspiel" and logged["termination"] == "normal"
    rounds = logged["rounds"]
    assert isinstance(rounds, list) and len(rounds) == 3
    assert all(sum(r) <= 91 for r in rounds)
    report = replay_log(Path(str(logged["log"])))
    assert report.finished and report.decisions == 3 * 13 * 2
    replayed = runner.invoke(app, ["replay", str(logged["log"])])
    assert replayed.exit_code == 0 and "agree" in replayed.stdout, replayed.output


@pytest.mark.integration
@pytest.mark.parametrize("seat", [None, 0, 1])
def test_arena_watch_fits_80_columns(logged: dict[str, object], seat: int | None) -> None:
    events = list(read_events(Path(str(logged["log"]))))
    buffer = io.StringIO()
    play(events, seat=seat, delay=0, out=Console(file=buffer, width=80, color_system=None))
    text = buffer.getvalue()
    assert "match over" in text and "Goofspiel" in text
    assert max(len(line) for line in text.splitlines()) <= 80
    watched = runner.invoke(app, ["watch", str(logged["log"]), "--delay", "0",
                                  *([] if seat is None else ["--seat", str(seat)])])
    assert watched.exit_code == 0, watched.output


@pytest.mark.integration
def test_the_html_replay_draws_the_goofspiel_board_and_hides_what_a_seat_cannot_see(
        logged: dict[str, object], tmp_path: Path) -> None:
    """Every frame of the page: the omniscient board shows seat 0's pending bid and the prize
    order; seat 1's board shows only that seat 0 has bid, and the face-down prizes in value
    order (never in the order they will come)."""
    log = Path(str(logged["log"]))
    page = html_replay(read_events(log), (None, 0, 1)).html
    assert page.startswith("<!DOCTYPE html>") and "default-src 'none'" in page
    for fetch in ("<link", " src=", "http://", "https://"):
        assert fetch not in page, fetch
    data = page_data(page)
    states = frame_states(log)
    pending_frames = 0
    for frame, state in enumerate(states):
        everything, own, seat1 = (frame_html(data, frame, view) for view in range(3))
        assert 'data-zone="prizes"' in everything
        if state.mover is None:
            continue
        later = [f"P{p}" for p in state.prizes[1:]]
        shown = [c for c in re.findall(r'data-card="(P[0-9]+)"', seat1) if c in later]
        assert shown == sorted(later, key=lambda c: int(c[1:]))
        if state.pending is not None:
            pending_frames += 1
            bid = f"bid {state.pending}, face down"
            assert bid in everything and bid in own and bid not in seat1
            assert "has bid (face down)" in seat1
    assert pending_frames == 3 * 13
    out = runner.invoke(app, ["watch", str(log), "--html", str(tmp_path / "replay.html")])
    assert out.exit_code == 0, out.output
    assert page_data((tmp_path / "replay.html").read_text()) == data


TEXT_BOT = '''\
"""Plays Goofspiel knowing nothing of it: the arena.v1 code of before the plugin envelope (no
field for the game's observation), an answer chosen among the legal action texts."""
import os
import queue
import sys

import grpc
from arena.v1 import bot_pb2, bot_pb2_grpc

assert "plugin" not in bot_pb2.Observation.DESCRIPTOR.fields_by_name, "not the old code"
outbox = queue.Queue()
outbox.put(bot_pb2.BotMessage(hello=bot_pb2.Hello(bot_name="text", bot_version="1",
                                                  protocol_version=1)))
channel = grpc.insecure_channel(os.environ["ARENA_SOCKET"])
stream = bot_pb2_grpc.BotServiceStub(channel).Play(iter(outbox.get, None))
for message in stream:
    kind = message.WhichOneof("kind")
    if kind == "decision":
        if message.decision.observation.WhichOneof("game") is not None:
            sys.exit("a typed observation this code should not know")
        texts = message.decision.legal_actions
        answer = bot_pb2.DecisionResponse(decision_id=message.decision.decision_id,
                                          action_text=texts[len(texts) // 2])
        outbox.put(bot_pb2.BotMessage(decision=answer))
    elif kind == "match_end":
        break
outbox.put(None)
'''


def _text_bot(old_bot: Path, where: Path) -> Path:
    directory = where / "text-goofspiel"
    shutil.copytree(old_bot, directory)
    (directory / "bot.py").write_text(TEXT_BOT)
    (directory / "bot.toml").write_text(
        'name = "text"\ngame = "goofspiel"\nversion = "1"\ncommand = ["python3", "bot.py"]\n')
    return directory


def _play(bots: tuple[Path, Path], logs: Path, seed: int = 9) -> object:
    spec = MatchSpec("goofspiel", seed, tuple(load_bot_dir(b) for b in bots), {"rounds": 1},
                     TimeControl(2000, 0, 20_000))
    sockets = Path(tempfile.mkdtemp(prefix="t", dir="/tmp"))
    try:
        return asyncio.run(play_match(spec, sandbox="process", log_dir=logs,
                                      socket_root=sockets))
    finally:
        shutil.rmtree(sockets, ignore_errors=True)


def test_a_bot_answering_by_text_only_plays_without_the_games_code(
        old_bot: Path, readable_root: Path, tmp_path: Path) -> None:
    goofspiel()
    text_bot = _text_bot(old_bot, readable_root)
    for bots in ((text_bot, RANDOM), (GREEDY, text_bot)):
        result = _play(bots, tmp_path / "logs")
        assert result.termination is Termination.NORMAL, result.detail  # type: ignore[attr-defined]
        assert result.decisions == 26  # type: ignore[attr-defined]


ILLEGAL_BOT = '''\
"""Bids 13 every time: legal once per round, then an illegal action (already bid)."""
from arena.sdk import run

run(lambda decision: "bid 13", name="thirteen")
'''


def test_an_illegal_bid_is_named_with_the_engines_reason(readable_root: Path,
                                                        tmp_path: Path) -> None:
    goofspiel()
    bot = readable_root / "thirteen"
    bot.mkdir()
    (bot / "bot.py").write_text(ILLEGAL_BOT)
    (bot / "bot.toml").write_text(
        'name = "thirteen"\ngame = "goofspiel"\nversion = "1"\ncommand = ["python3", "bot.py"]\n')
    for path in (bot, bot / "bot.py", bot / "bot.toml"):
        path.chmod(0o755)
    result = _play((RANDOM, bot), tmp_path / "logs")
    assert result.termination is Termination.ILLEGAL_ACTION  # type: ignore[attr-defined]
    assert result.faulty_seat == 1  # type: ignore[attr-defined]
    assert "card 13 was already bid this round" in result.detail  # type: ignore[attr-defined]


@pytest.mark.slow
def test_an_sprt_test_of_greedy_against_random(tmp_path: Path) -> None:
    """The plugin game through `arena sprt` end to end: pairs played and recorded, the result's
    figures add up, its matches listed and replayable. Which outcome a few pairs reach is not
    the point (the statistics are tests/sprt's): 3 pairs, 6 one-round matches, one at a time
    (one worker in its embedded cluster: the cluster is tests/cluster's); its matches listed by
    `arena matches` in this process."""
    goofspiel()
    proc = subprocess.run(
        [sys.executable, "-m", "arena", "sprt", str(GREEDY), str(RANDOM), "--elo0", "0",
         "--elo1", "100", "--max-pairs", "3", "--option", "rounds=1", "--sandbox", "process",
         "--move-time", "1000", "--concurrency", "1", "--format", "json"],
        cwd=tmp_path, capture_output=True, text=True, timeout=600, check=False)
    assert proc.stdout, proc.stderr
    result = json.loads(proc.stdout)
    assert result["outcome"] in ("H1", "H0", "inconclusive"), result
    assert 0 < int(result["pairs"]) <= 3
    assert sum(result["pentanomial"]) == result["pairs"]
    ladder = tmp_path / str(result["ladder_file"])
    listed = runner.invoke(app, ["matches", str(ladder), "--format", "json"])
    assert listed.exit_code == 0, listed.output
    matches = [json.loads(line) for line in listed.stdout.splitlines()]  # a match a line
    assert len(matches) == result["matches_played"] > 0
    assert all(m["termination"] == "normal" for m in matches)
    assert replay_log(tmp_path / matches[0]["log"]).finished
    assert re.search(r"greedy", str(result["candidate"]))


@pytest.mark.integration
def test_attack_a_contestant_watching_seat_1_never_sees_seat_0s_pending_bid(
        logged: dict[str, object]) -> None:
    """The competition server's seat views (arena.host.views: what a contestant watches of its
    own bot's seat, live or after the match) of seat 1: the board says only that seat 0 has
    bid, the caption only that it moved, and the JSON lines' typed observations (the Any's
    JSON form) never carry seat 0's card; the whole board does show it."""
    from arena.host.views import seat_view_lines
    from arena.render.frames import seat_frames

    events = list(read_events(Path(str(logged["log"]))))
    pending = re.compile(r"bid \d+ \(face down\)")
    seat1 = list(seat_frames(events, 1))
    assert seat1 and not any(pending.search(f.board) for f in seat1)
    assert sum("has bid (face down)" in f.board for f in seat1) == 3 * 13
    assert not any(re.search(r"seat 0 .*plays", f.caption) for f in seat1)
    assert any(pending.search(f.board) for f in seat_frames(events, None))
    asked = 0
    for line in seat_view_lines(events, 1):
        data = json.loads(line)
        if data["type"] != "observation":
            continue
        typed = data["observation"]["plugin"]
        assert typed["@type"] == "type.googleapis.com/goofspiel.v1.Observation"
        assert typed["opponentBid"] is True and "bid" not in typed
        asked += 1
    assert asked == 3 * 13
    from arena.games import registered
    from tests.support.broken_goofspiel import LEAKY

    with registered(LEAKY):  # the same log through the leaking engine: caught
        assert any(pending.search(f.board) for f in seat_frames(events, 1))


@pytest.mark.integration
def test_attack_arena_watch_of_seat_1_does_not_show_seat_0s_pending_bid(
        logged: dict[str, object]) -> None:
    """`arena watch --seat 1` is only what seat 1 saw: while seat 1 decides, seat 0's bid is
    `bid ?` in the move list (the omniscient view shows it); once both bids are in, the board
    shows them."""
    events = list(read_events(Path(str(logged["log"]))))
    first = next(e for e in events if isinstance(e, DecisionEvent))
    assert first.seat == 0 and first.action and first.action.startswith("bid ")

    def frame_after_first_bid(seat: int | None) -> str:
        for event, frame in frames(events, seat):
            if event is first or (isinstance(event, DecisionEvent) and event.n == first.n):
                buffer = io.StringIO()
                Console(file=buffer, width=120, color_system=None).print(frame)
                return buffer.getvalue()
        raise AssertionError("no frame after the first decision")

    assert first.action in frame_after_first_bid(None)
    seat_1 = frame_after_first_bid(1)
    assert "bid ?" in seat_1 and first.action not in seat_1
    assert first.action in frame_after_first_bid(0)
