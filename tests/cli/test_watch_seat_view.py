"""`arena watch` replays the seat views `arena logs` writes: one seat, as that seat saw it
(real matches of every game, signed downloads as the server makes them)."""

from __future__ import annotations

import asyncio
import json
import random
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli.main import app
from arena.games import game_ids, get_game
from arena.host.views import Sight, download
from arena.model import BotSpec, DecisionEvent, MatchSpec, TimeControl
from arena.record.log import read_events
from arena.record.replay import replay_events
from arena.record.signing import load_signer, new_key, sign_log
from arena.referee.local import LocalPlayer
from arena.referee.match import Match
from arena.render import renderer_for
from arena.render.seat_view import HIDDEN_MOVE, read_seat_view

pytestmark = pytest.mark.unit
OPTIONS: dict[str, dict[str, object]] = {
    "lost-cities": {"rounds": 1}, "haggis": {"target": 60}, "portas": {"games": 1}}


def _seat_view(game: str, root: Path, seat: int) -> tuple[Path, Path]:
    """A signed log of a random match of ``game`` and the seat view of it that a contestant
    who played ``seat`` downloads (with the referee's statement)."""
    bots = (BotSpec("alpha", game), BotSpec("beta", game))
    spec = MatchSpec(game, 4_100_000_000, bots, dict(OPTIONS.get(game, {})), TimeControl(),
                     match_id=f"sv-{game}")
    rngs = (random.Random(1), random.Random(2))
    players = tuple(LocalPlayer(s, lambda d, r=rngs[s]: r.choice(d.legal_actions))
                    for s in (0, 1))
    asyncio.run(Match(spec, sandbox_name="in-process", log_dir=root)
                .run((players[0], players[1])))
    log = root / f"sv-{game}.jsonl"
    key, _ = new_key(root / "referee")
    sign_log(log, load_signer(key))
    data, kind = download(log, Sight(frozenset({seat}), False), frozenset({seat}),
                          load_signer(key))
    assert kind == "seat-view"
    view = root / f"sv-{game}.seat-view.jsonl"
    view.write_bytes(data)
    return log, view


@pytest.mark.parametrize("game", game_ids())
def test_a_seat_view_replays_as_that_seat_saw_it(game: str, tmp_path: Path) -> None:
    log, path = _seat_view(game, tmp_path, 1)
    view = read_seat_view(path)
    assert view.seat == 1 and view.header.seed is None
    steps = list(replay_events(read_events(log)))
    engine = get_game(game)
    own = [(before.state, step.event) for before, step in zip(steps, steps[1:], strict=False)
           if isinstance(step.event, DecisionEvent)]
    read = [(event, seen) for event, seen in view.events if isinstance(event, DecisionEvent)]
    assert len(read) == len(own)
    renderer = renderer_for(game)
    for (state, logged), (event, seen) in zip(own, read, strict=True):
        assert (event.n, event.seat) == (logged.n, logged.seat)
        if logged.seat == 1:  # the board is what seat 1 was shown before its decision
            assert event.action == logged.action
            assert seen == engine.observation(state, 1)
            renderer.render_view(seen)
        else:
            assert event.action == HIDDEN_MOVE and seen is None
    out = CliRunner().invoke(app, ["watch", str(path)], env={"COLUMNS": "120"})
    assert out.exit_code == 0, out.output
    assert "seat 1 view (beta)" in out.stdout and "match over" in out.stdout


def test_a_seat_view_holds_one_seat_and_cannot_be_followed(tmp_path: Path) -> None:
    _, path = _seat_view("lost-cities", tmp_path, 0)
    runner = CliRunner()
    for args, words in (
            (["--seat", "1"], "holds only seat 0's view (drop --seat, or give --seat 0)"),
            (["--follow"], "one seat's view of a finished match"),
            (["--html", str(tmp_path / "x.html")], "one seat's view of a finished match")):
        out = runner.invoke(app, ["watch", str(path), *args])
        assert out.exit_code == 2, out.output
        assert words in " ".join(out.stderr.split()), out.stderr
    assert runner.invoke(app, ["watch", str(path), "--seat", "0"]).exit_code == 0


def test_a_broken_seat_view_is_one_line_naming_its_line(tmp_path: Path) -> None:
    _, path = _seat_view("lost-cities", tmp_path, 0)
    lines = path.read_bytes().splitlines()
    record = json.loads(lines[2])
    record["type"] = "gossip"
    lines[2] = json.dumps(record).encode()
    bad = tmp_path / "bad.seat-view.jsonl"
    bad.write_bytes(b"\n".join(lines) + b"\n")
    out = CliRunner().invoke(app, ["watch", str(bad)], env={"COLUMNS": "400"})
    assert out.exit_code == 2, out.output
    assert f"{bad}, line 3: unknown record type 'gossip' in a seat view" in " ".join(
        out.stderr.split())
