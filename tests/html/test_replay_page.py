"""`arena watch LOG --html`: one self-contained page per match, its frames from the rules engine
(checked here without a browser: the page's data decoded as its player decodes it)."""

from __future__ import annotations

import json
import re
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from arena.cli.main import app
from arena.cli.watch_cmds import html_replay
from arena.games import get_game
from arena.model import TimeControl
from arena.record.log import read_events, write_seed_sidecar
from arena.render.html.markup import FragmentTable, el, leaf, render
from tests.support.pages import (
    cards_in,
    frame_html,
    frame_states,
    lost_cities_visible,
    page_data,
    play_logged,
)

pytestmark = pytest.mark.integration

runner = CliRunner()
GAMES = ("lost-cities", "haggis", "portas")


def _page(log: Path, seats: tuple[int | None, ...] = (None, 0, 1)) -> str:
    return html_replay(read_events(log), seats).html


@pytest.mark.unit
def test_fragment_table_rebuilds_every_tree_and_shares_repeated_parts() -> None:
    table = FragmentTable()
    card = leaf("span", "card", "5", data_card="R5")
    trees = [el("div", "a", card, el("p", None, "x & y")), el("div", "a", card, el("p", None)),
             el("div", "a", card, el("p", None, "x & y")), ("", (card, ""), "tail")]
    indexes = [table.add(tree) for tree in trees]
    assert [table.html(i) for i in indexes] == [render(t) for t in trees]
    assert indexes[0] == indexes[2]  # the same tree is stored once
    assert sum(1 for e in table.entries if e == render(card)) == 1


@pytest.mark.parametrize("game", GAMES)
def test_a_page_is_self_contained_and_holds_every_frame(logs: dict[str, Path], game: str
                                                        ) -> None:
    html = _page(logs[game])
    assert html.startswith("<!DOCTYPE html>")
    assert "Content-Security-Policy" in html and "default-src 'none'" in html
    for fetch in ("<link", " src=", "url(", "@import", "http://", "https://", "<iframe"):
        assert fetch not in html, fetch
    data = page_data(html)
    states = frame_states(logs[game])
    events = list(read_events(logs[game]))
    decisions = sum(1 for e in events if e.type == "decision")
    assert data["decisions"] == decisions and data["ended"] is True
    assert len(data["frames"]) == len(states) == decisions + 2
    assert data["views"] == ["all", 0, 1]
    # the move list has one entry per decision, with the time the referee measured
    assert len(re.findall(r'<li class="move s[01]', html)) == decisions
    first = next(e for e in events if e.type == "decision")
    assert f"{first.ms:.1f} ms" in html  # type: ignore[union-attr]


def test_lost_cities_frames_show_the_engine_state(logs: dict[str, Path]) -> None:
    data = page_data(_page(logs["lost-cities"]))
    for index, state in enumerate(frame_states(logs["lost-cities"])):
        omniscient = frame_html(data, index, 0)
        shown = cards_in(omniscient)
        expected = Counter(str(c) for hand in state.hands for c in hand)
        for cards in (*state.expeditions[0], *state.expeditions[1]):
            expected.update(str(c) for c in cards)
        expected.update(str(pile[-1]) for pile in state.piles if pile)  # a pile shows its top
        assert shown == expected, f"frame {index}"
        assert f"deck {state.deck_count}<" in omniscient


@pytest.mark.parametrize("seat", [0, 1])
def test_a_seat_view_never_shows_a_card_the_seat_could_not_see(logs: dict[str, Path],
                                                               seat: int) -> None:
    log = logs["lost-cities"]
    data = page_data(_page(log))
    for index, state in enumerate(frame_states(log)):
        view = frame_html(data, index, 1 + seat)
        assert not cards_in(view) - lost_cities_visible(state, seat), f"frame {index}"
        opponent = re.search(rf'data-zone="hand-{1 - seat}">(.*?)</div>', view, re.S)
        assert opponent is not None and "data-card" not in opponent.group(1)
        assert opponent.group(1).count("card back") == len(state.hands[1 - seat])


def test_a_haggis_seat_view_shows_only_the_opponents_face_cards(logs: dict[str, Path]) -> None:
    log = logs["haggis"]
    data = page_data(_page(log))
    game = get_game("haggis")
    for index, state in enumerate(frame_states(log)):
        view = frame_html(data, index, 1)
        observed = game.observation(state, 0)
        opponent = re.search(r'data-zone="hand-1">(.*?)</div>', view, re.S)
        assert opponent is not None
        assert set(cards_in(opponent.group(1))) <= {"J", "Q", "K"}
        mine = re.search(r'data-zone="hand-0">(.*?)</div>', view, re.S)
        assert mine is not None and len(cards_in(mine.group(1))) == len(observed.hand)
        assert 'data-zone="haggis"' not in view
        assert 'data-zone="haggis"' in frame_html(data, index, 0)


def test_a_seat_only_page_leaves_out_the_seed_and_the_other_views(logs: dict[str, Path]
                                                                   ) -> None:
    log = logs["lost-cities"]
    html = _page(log, seats=(0,))
    data = page_data(html)
    header = next(iter(read_events(log)))
    assert data["views"] == [0] and all(len(f) == 1 for f in data["frames"])
    assert f"seed {header.seed}" not in html  # type: ignore[union-attr]
    states = frame_states(log)
    every = Counter[str]()
    for index, state in enumerate(states):
        every |= cards_in(frame_html(data, index, 0))
        assert not cards_in(frame_html(data, index, 0)) - lost_cities_visible(state, 0)
    # no table entry at all (used or not) holds a card beyond what seat 0 ever saw
    ever_seen = Counter[str]()
    for state in states:
        ever_seen |= lost_cities_visible(state, 0)
    assert not cards_in("".join(e for e in data["t"] if isinstance(e, str))).keys() - (
        ever_seen.keys())


@pytest.mark.parametrize("game", GAMES)
def test_the_last_frame_shows_the_logged_totals_and_result(logs: dict[str, Path], game: str
                                                           ) -> None:
    data = page_data(_page(logs[game]))
    end = list(read_events(logs[game]))[-1]
    result = end.result  # type: ignore[union-attr]
    last = frame_html(data, len(data["frames"]) - 1, 0)
    shown = [int(v) for v in re.findall(r'data-total="[01]">(-?\d+)<', last)]
    assert shown == list(result.totals)
    assert 'data-zone="result"' in last and f"{result.totals[0]} – {result.totals[1]}" in last
    assert 'data-zone="result"' not in frame_html(data, len(data["frames"]) - 2, 0)


@pytest.mark.unit
def test_bot_text_cannot_inject_markup(tmp_path: Path) -> None:
    log = play_logged(tmp_path, "portas", 2, names=("<script>alert(1)</script>", "a&b\u2028"))
    html = _page(log)
    assert "<script>alert(1)" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert html.count("</script>") == 2  # the data block and the player, nothing else


def _first(decision: Any) -> Any:
    return decision.legal_actions[0]


def _illegal(decision: Any) -> str:
    legal = set(decision.legal_texts)
    return next(t for t in (f"play {c}{v} deck" for c in "YBWGR" for v in range(2, 11))
                if t not in legal)


def _slow(decision: Any) -> Any:
    time.sleep(0.08)
    return _first(decision)


def _after_two(bad: Any) -> Any:
    count = 0

    def policy(decision: Any) -> Any:
        nonlocal count
        count += 1
        return _first(decision) if count <= 2 else bad(decision)

    return policy


@pytest.mark.parametrize(("bad", "move_ms", "shown"), [
    (_illegal, 1000, "illegal_action"), (_slow, 40, "timeout")])
def test_a_forfeit_shows_what_happened_at_the_end(tmp_path: Path, bad: Any, move_ms: int,
                                                  shown: str) -> None:
    log = play_logged(tmp_path, "lost-cities", 8, options={"rounds": 1},
                      policies=(_first, _after_two(bad)), names=("good", "bad"),
                      time_control=TimeControl(move_time_ms=move_ms, startup_ms=1000))
    html = _page(log)
    data = page_data(html)
    last = frame_html(data, len(data["frames"]) - 1, 0)
    assert 'class="result forfeit"' in last and f'data-termination="{shown}"' in last
    assert "bad (seat 1) forfeited" in last
    fault = re.search(r'<li class="move s1 fault".*?</li>', html, re.S)
    assert fault is not None and f"{shown}: forfeit" in fault.group(0)
    if shown == "illegal_action":
        assert "answered &#x27;play" in fault.group(0)  # the offending action
    else:
        assert re.search(r"\d\d\.\d ms", fault.group(0))  # how long it took


def test_the_command_writes_one_file(logs: dict[str, Path], tmp_path: Path) -> None:
    out = tmp_path / "replay.html"
    result = runner.invoke(app, ["watch", str(logs["lost-cities"]), "--html", str(out)])
    assert result.exit_code == 0, result.output
    assert "moves" in result.stdout and out.is_file()
    assert [p.name for p in tmp_path.iterdir()] == ["replay.html"]
    assert out.read_text(encoding="utf-8") == _page(logs["lost-cities"])
    seat = runner.invoke(app, ["watch", str(logs["lost-cities"]), "--html", str(out),
                               "--seat", "1"])
    assert seat.exit_code == 0, seat.output
    assert page_data(out.read_text(encoding="utf-8"))["views"] == [1]


@pytest.mark.unit
def test_a_truncated_log_replays_its_complete_moves_and_says_so(logs: dict[str, Path],
                                                                 tmp_path: Path) -> None:
    lines = logs["lost-cities"].read_text().splitlines(keepends=True)
    decision_lines = [i for i, line in enumerate(lines) if '"type":"decision"' in line]
    cut = decision_lines[40]  # 40 complete decisions, then half of the 41st line
    torn = tmp_path / "torn.jsonl"
    torn.write_text("".join(lines[:cut]) + lines[cut][: len(lines[cut]) // 2])
    # A running log's header commits to its seed; the referee keeps it beside the log.
    write_seed_sidecar(torn, json.loads(lines[-1])["result"]["seed"])
    out = tmp_path / "torn.html"
    result = runner.invoke(app, ["watch", str(torn), "--html", str(out)])
    assert result.exit_code == 0, result.output
    assert "unfinished" in result.output
    html = out.read_text(encoding="utf-8")
    data = page_data(html)
    assert data["decisions"] == 40 and data["ended"] is False and len(data["frames"]) == 41
    assert 'id="unfinished"' in html and "Unfinished match" in html


@pytest.mark.unit
@pytest.mark.parametrize("content", [
    b"", b"hello, world\nthis is not a log\n", b'{"type": "header"}\n', b"\x89PNG\r\n\x1a\n\0\0",
    b'{"type":"decision","n":1,"round":0,"seat":0,"action":"pass","ms":1}\n'])
def test_a_file_that_is_not_a_match_log_is_one_clear_error(tmp_path: Path, content: bytes
                                                           ) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(content)
    out = tmp_path / "out.html"
    result = runner.invoke(app, ["watch", str(bad), "--html", str(out)])
    assert result.exit_code == 2, result.output
    assert result.output.count("error:") == 1 and "Traceback" not in result.output
    assert not out.exists()


@pytest.mark.unit
def test_html_does_not_follow_a_running_match(logs: dict[str, Path], tmp_path: Path) -> None:
    out = tmp_path / "out.html"
    result = runner.invoke(app, ["watch", str(logs["portas"]), "--follow", "--html", str(out)])
    assert result.exit_code == 2 and "--follow" in result.output
    missing = runner.invoke(app, ["watch", str(tmp_path / "nope.jsonl"), "--html", str(out)])
    assert missing.exit_code == 2 and "no match log" in missing.output
    assert not out.exists()


def test_a_lost_cities_page_stays_small(logs: dict[str, Path]) -> None:
    log = logs["lost-cities"]  # random play: 400+ decisions, about twice a usual match
    html = _page(log)
    assert len(html.encode()) < 4 * log.stat().st_size + 200_000 < 1_000_000


@pytest.mark.unit
def test_a_match_that_ended_before_its_first_move(logs: dict[str, Path], tmp_path: Path
                                                  ) -> None:
    """A bot that never started: the log holds the header, the deal and the match end."""
    records = [json.loads(line) for line in logs["portas"].read_text().splitlines()]
    end = records[-1]
    end["result"].update(rounds=[], totals=[0, 0], winner=0, termination="no_start",
                         faulty_seat=1, decisions=0, detail="seat 1 never connected")
    log = tmp_path / "no-start.jsonl"
    log.write_text("".join(json.dumps(r) + "\n" for r in [*records[:2], end]))
    html = _page(log)
    data = page_data(html)
    assert data["decisions"] == 0 and data["ended"] is True and len(data["frames"]) == 2
    last = frame_html(data, 1, 0)
    assert "bob (seat 1) forfeited: the bot never started." in last
    assert "seat 1 never connected" in last
