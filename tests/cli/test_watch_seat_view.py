"""`arena watch` replays the seat views `arena logs` writes: one seat, as that seat saw it, in
the terminal and as a page (`--html`) (real matches of every game, signed downloads as the server
makes them)."""

from __future__ import annotations

import asyncio
import json
import random
import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from arena.cli.main import app
from arena.games import game_ids, get_game
from arena.host.views import Sight, download
from arena.model import BotSpec, DecisionEvent, MatchSpec, TimeControl
from arena.record.log import read_events
from arena.record.replay import replay_events
from arena.record.signing import DEFAULT_KEY_NAME, load_signer, new_key, sign_log
from arena.referee.local import LocalPlayer
from arena.referee.match import Match
from arena.render import renderer_for
from arena.render.seat_view import HIDDEN_MOVE, read_seat_view

pytestmark = pytest.mark.unit
OPTIONS: dict[str, dict[str, object]] = {
    "lost-cities": {"rounds": 1}, "haggis": {"target": 60}, "portas": {"games": 1}}


def _download(log: Path, root: Path, seat: int, name: str) -> Path:
    """The seat view of the signed ``log`` that a contestant who played ``seat`` downloads."""
    key = root / "referee" / f"{DEFAULT_KEY_NAME}.key"
    if not key.exists():
        new_key(key.parent)
    sign_log(log, load_signer(key))
    data, kind = download(log, Sight(frozenset({seat}), False), frozenset({seat}),
                          load_signer(key))
    assert kind == "seat-view"
    view = root / name
    view.write_bytes(data)
    return view


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
    return log, _download(log, root, seat, f"sv-{game}.seat-view.jsonl")


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
            (["--follow"], "one seat's view of a finished match: it cannot be followed"),
            (["--html", str(tmp_path / "x.html"), "--seat", "1"],
             "holds only seat 0's view")):
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


def _html(path: Path, out: Path) -> str:
    """``arena watch --html`` of ``path``: the page."""
    done = CliRunner().invoke(app, ["watch", str(path), "--html", str(out)],
                              env={"COLUMNS": "200"})
    assert done.exit_code == 0, done.output
    assert f"wrote {out}" in " ".join(done.stdout.split())
    return out.read_text(encoding="utf-8")


def _page_data(page: str) -> dict[str, Any]:
    """The page's data (its frames, views and moves), as the player reads it."""
    found = re.search(r'<script type="application/json" id="arena-data">(.*?)</script>', page, re.S)
    assert found, "the page holds its data"
    data: dict[str, Any] = json.loads(found.group(1))
    return data


def _hide_seat0(log: Path, out: Path) -> Path:
    """``log`` with what seat 1 never sees changed: seat 0's thinking times."""
    lines = []
    for line in log.read_text().splitlines():
        record = json.loads(line)
        if record.get("type") == "signature":
            continue  # (signed again)
        if record.get("type") == "decision" and record["seat"] == 0:
            record["ms"] = round(record["ms"] / 3 + 0.5, 3)
            if record.get("cpu_ms") is not None:
                record["cpu_ms"] = round(record["cpu_ms"] / 3 + 0.25, 3)
        lines.append(json.dumps(record, separators=(",", ":")))
    out.write_text("\n".join(lines) + "\n")
    return out


@pytest.mark.parametrize("game", game_ids())
def test_a_seat_view_replays_as_a_page_of_that_seat_only(game: str, tmp_path: Path) -> None:
    """``arena watch --html`` of a seat view: a page offering that seat's view alone, a frame at
    the start and for every decision, the seed nowhere; and what the seat did not see changed
    in the match's log (the other seat's times) leaves the page byte for byte the same, while
    the whole log's page shows the change."""
    log, path = _seat_view(game, tmp_path, 1)
    page = _html(path, tmp_path / "seat.html")
    data = _page_data(page)
    view = read_seat_view(path)
    decisions = sum(isinstance(event, DecisionEvent) for event, _ in view.events)
    assert data["views"] == [1] and data["decisions"] == decisions and data["ended"]
    assert len(data["frames"]) == decisions + 2  # the start, the decisions, the end
    assert "what seat 1 saw (beta)" in page and "omniscient" not in page
    meta = re.search(r'<p class="meta">(.*?)</p>', page)
    assert meta and "seed" not in meta.group(1) and "4100000000" not in page
    moves = re.findall(r'<li class="move s([01])"[^>]*>(.*?)</li>', page)
    assert len(moves) == decisions
    for seat, item in moves:  # the other seat's moves: that they happened, no action, no time
        if seat == "0":
            assert HIDDEN_MOVE in item and '<span class="ms"></span>' in item, item
        else:
            assert re.search(r'<span class="ms">[0-9.]+ ms', item), item
    other = _hide_seat0(log, tmp_path / "other.jsonl")
    assert _html(_download(other, tmp_path, 1, "other.seat-view.jsonl"),
                 tmp_path / "other-seat.html") == page
    full = CliRunner().invoke(app, ["watch", str(log), "--html", str(tmp_path / "a.html")])
    assert full.exit_code == 0, full.output
    changed = CliRunner().invoke(app, ["watch", str(other), "--html", str(tmp_path / "b.html")])
    assert changed.exit_code == 0, changed.output
    assert (tmp_path / "a.html").read_text() != (tmp_path / "b.html").read_text()


def test_a_seat_view_page_shows_no_card_the_seat_did_not_see(tmp_path: Path) -> None:
    """Lost Cities: the cards the other seat still held at the end, never shown to seat 1 (not
    in its hand, on an expedition or a pile at any of its decisions), are on the whole log's
    page and nowhere on seat 1's page."""
    log, path = _seat_view("lost-cities", tmp_path, 1)
    seen: set[str] = set()
    for _, observation in read_seat_view(path).events:
        if observation is not None:
            seen |= {str(c) for c in observation.hand}
            seen |= {str(c) for side in observation.expeditions for e in side for c in e}
            seen |= {str(c) for pile in observation.piles for c in pile}
    final = list(replay_events(read_events(log)))[-1].state
    hidden = {str(c) for c in final.hands[0]} - seen
    assert hidden, "the other seat ends with cards seat 1 never saw"
    seat_page = _html(path, tmp_path / "seat.html")
    _html(log, tmp_path / "full.html")
    full_page = (tmp_path / "full.html").read_text()
    for text in hidden:
        shown = re.compile(rf'data-card=\\?"{text}\\?"')
        assert shown.search(full_page), text
        assert not shown.search(seat_page), text
