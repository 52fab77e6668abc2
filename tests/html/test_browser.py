"""The pages in a real browser: headless Chromium (Debian's package) with no network. A replay
is driven with the keyboard like a person would; the report is opened and followed to a replay.
Every test checks that the page asked for nothing but itself."""

from __future__ import annotations

import json
import time
from collections import Counter
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli.main import app
from arena.ladder.config import load_ladder
from arena.ladder.reports import load_matches
from arena.record.log import read_events, write_seed_sidecar
from arena.sprt.run import SprtOutcome
from tests.support.browser import Browser, press
from tests.support.pages import (
    assert_only_the_site,
    frame_states,
    lost_cities_visible,
    mini_ladder,
    mini_sprt,
    play_logged,
)

pytestmark = pytest.mark.integration

runner = CliRunner()
PNG = b"\x89PNG\r\n\x1a\n"


def _write_replay(log: Path, out: Path) -> Path:
    result = runner.invoke(app, ["watch", str(log), "--html", str(out)])
    assert result.exit_code == 0, result.output
    return out


def _open(browser: Browser, page: Path) -> None:
    browser.open(page)
    assert browser.requests() == [page.resolve().as_uri()], "the page fetched something"
    assert browser.violations() == []
    assert browser.eval("performance.getEntriesByType('resource').length") == 0


def _frame(browser: Browser) -> int:
    return int(browser.eval("document.body.dataset.frame"))


def _totals(browser: Browser) -> list[int]:
    return browser.eval(
        "Array.from(document.querySelectorAll('#board [data-total]')).map(e => +e.textContent)")


def _board_cards(browser: Browser) -> Counter[str]:
    cards = browser.eval(
        "Array.from(document.querySelectorAll('#board [data-card]')).map(e => e.dataset.card)")
    return Counter(cards)


def _shot(browser: Browser, path: Path) -> None:
    browser.screenshot(path)
    data = path.read_bytes()
    assert data.startswith(PNG) and len(data) > 20_000
    width, height = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    assert (width, height) == (1280, 900)


def test_lost_cities_replay_driven_by_keyboard(browser: Browser, tmp_path: Path) -> None:
    # one round (every frame is stepped through, three evaluations each, in seat 0's view):
    # the rounds' navigation is the player controls' test, on the 3-round log
    log = play_logged(tmp_path, "lost-cities", 7, options={"rounds": 1})
    page = _write_replay(log, tmp_path / "lost-cities.html")
    _open(browser, page)
    states = frame_states(log)
    last = len(states) - 1
    assert _frame(browser) == 0 and browser.eval("document.getElementById('counter')"
                                                 ".textContent") == "start"
    press(browser, "ArrowRight", 5)
    assert _frame(browser) == 5
    press(browser, "ArrowLeft", 2)
    assert _frame(browser) == 3
    press(browser, "ArrowRight", last)  # stepping past the end stays at the end
    assert _frame(browser) == last
    result = list(read_events(log))[-1].result  # type: ignore[union-attr]
    assert _totals(browser) == list(result.totals)
    assert "Match over" in browser.eval("document.querySelector('[data-zone=result]')"
                                        ".textContent")
    _shot(browser, tmp_path / "lost-cities.png")

    press(browser, "0")  # what seat 0 saw, frame by frame back to the start
    assert browser.eval("document.getElementById('view').value") == "1"
    for index in range(last, -1, -1):
        assert _frame(browser) == index
        assert not _board_cards(browser) - lost_cities_visible(states[index], 0), index
        assert browser.eval("document.querySelectorAll('[data-zone=hand-1] [data-card]')"
                            ".length") == 0
        press(browser, "ArrowLeft")
    press(browser, "o")
    assert _board_cards(browser)  # the omniscient view shows both hands again
    assert browser.eval("document.querySelectorAll('[data-zone=hand-1] [data-card]')"
                        ".length") == 8


def test_the_player_controls(browser: Browser, logs: dict[str, Path], tmp_path: Path) -> None:
    page = _write_replay(logs["lost-cities"], tmp_path / "controls.html")
    _open(browser, page)
    starts = browser.eval("JSON.parse(document.getElementById('arena-data').textContent)"
                          ".rounds")
    assert len(starts) == 3
    press(browser, "ArrowDown")  # next round
    assert _frame(browser) == starts[1]
    assert browser.eval("document.getElementById('round').value") == "1"
    press(browser, "ArrowDown")
    press(browser, "ArrowUp")
    assert _frame(browser) == starts[1]
    press(browser, "Home")
    for _ in range(5):
        press(browser, "+")  # the fastest speed
    assert browser.eval("document.getElementById('speed').value") == "32"
    press(browser, " ")  # play …
    browser.wait_for("+document.body.dataset.frame >= 4", timeout_s=10)
    press(browser, " ")  # … and pause
    stopped = _frame(browser)
    time.sleep(0.3)
    assert _frame(browser) == stopped
    browser.eval("document.querySelector('#moves li.move:nth-of-type(20)').click()")
    clicked = int(browser.eval("document.querySelector('#moves li.current').dataset.frame"))
    assert _frame(browser) == clicked and clicked > 0
    press(browser, "End")
    assert browser.eval("document.querySelector('#moves li.current').className") == "end current"


@pytest.mark.parametrize("game", ["haggis", "portas"])
def test_haggis_and_portas_replays(browser: Browser, logs: dict[str, Path], tmp_path: Path,
                                   game: str) -> None:
    log = logs[game]
    page = _write_replay(log, tmp_path / f"{game}.html")
    _open(browser, page)
    press(browser, "ArrowRight", 12)
    assert _frame(browser) == 12
    _shot(browser, tmp_path / f"{game}.png")
    press(browser, "End")
    result = list(read_events(log))[-1].result  # type: ignore[union-attr]
    assert _totals(browser) == list(result.totals)
    press(browser, "1")
    assert browser.eval("document.body.dataset.view") == "2"
    if game == "haggis":  # the opponent's number cards are face down in seat 1's view
        press(browser, "Home")
        assert browser.eval("document.querySelectorAll('[data-zone=hand-0] .card.back')"
                            ".length") == 14
        assert browser.eval("document.querySelectorAll('[data-zone=haggis]').length") == 0


def test_a_truncated_replay_says_it_is_unfinished(browser: Browser, logs: dict[str, Path],
                                                  tmp_path: Path) -> None:
    lines = logs["portas"].read_text().splitlines(keepends=True)
    torn = tmp_path / "torn.jsonl"
    torn.write_text("".join(lines[:20]) + lines[20][:30])
    # A running log's header commits to its seed; the referee keeps it beside the log.
    write_seed_sidecar(torn, json.loads(lines[-1])["result"]["seed"])
    page = _write_replay(torn, tmp_path / "torn.html")
    _open(browser, page)
    assert browser.eval("getComputedStyle(document.getElementById('unfinished')).display") \
        != "none"
    press(browser, "End")
    assert browser.eval("document.querySelectorAll('[data-zone=result]').length") == 0


# --- the ladder report ------------------------------------------------------------------------
def test_ladder_report_opens_offline_and_links_each_replay(browser: Browser, tmp_path: Path
                                                           ) -> None:
    ladder = mini_ladder(tmp_path)
    out = tmp_path / "site"
    result = runner.invoke(app, ["ladder", "report", str(ladder), "--out", str(out)])
    assert result.exit_code == 0, result.output
    index = out / "index.html"
    _open_report = browser.open(index, "true")
    assert _open_report < 10
    assert_only_the_site(browser, out, index)
    assert browser.eval("document.querySelectorAll('#standings tr').length") == 4
    for chart in ("interval-chart", "history-chart"):
        assert browser.eval(f"document.querySelectorAll('#{chart} svg').length") == 1
    assert browser.eval("document.querySelectorAll('#crosstable td.cell[style]').length") == 6
    links = browser.eval("Array.from(document.querySelectorAll('#matches a'))"
                         ".map(a => a.getAttribute('href'))")
    assert len(links) == 12 and all((out / link).is_file() for link in links)
    browser.screenshot(tmp_path / "report.png", full_page=True)
    assert (tmp_path / "report.png").read_bytes().startswith(PNG)
    # follow a link like a reader: the replay opens from the report, offline
    browser.events.clear()
    browser.eval("document.querySelector('#matches a').click()")
    browser.wait_for("document.body.dataset.ready === '1'")
    assert browser.eval("location.href") == (out / links[0]).resolve().as_uri()
    assert_only_the_site(browser, out, out / links[0])
    press(browser, "End")
    assert browser.eval("document.querySelectorAll('[data-zone=result]').length") == 1


def test_an_sprt_report_draws_the_llr_path_between_its_bounds(browser: Browser, tmp_path: Path
                                                             ) -> None:
    ladder, summary = mini_sprt(tmp_path)  # greedy against a random player: H1, in order
    status = summary.status
    assert summary.outcome is SprtOutcome.H1 and status.pairs >= 5
    out = tmp_path / "site"
    result = runner.invoke(app, ["ladder", "report", str(ladder), "--out", str(out)])
    assert result.exit_code == 0, result.output
    index = out / "index.html"
    browser.open(index, "true")
    assert_only_the_site(browser, out, index)
    decision = browser.eval("document.querySelector('#sprt .decision').textContent")
    assert decision.startswith(f"H1 accepted after {status.pairs} pairs: greedy is at least "
                               "100 Elo stronger than random")
    assert browser.eval("getComputedStyle(document.querySelector('#sprt .decision')).color") \
        == "rgb(31, 122, 61)"  # the page's "good" colour
    cells = browser.eval("Array.from(document.querySelectorAll('#pentanomial td[data-cell]'))"
                         ".map(td => +td.textContent)")
    assert cells == list(status.counts.counts)
    figures = browser.eval("Object.fromEntries(Array.from(document.querySelectorAll("
                           "'#sprt-figures td')).map(td => [td.dataset.figure, td.textContent]))")
    assert figures["LLR"].startswith(f"{status.llr:+.2f} ")
    assert figures["complete pairs"] == f"{status.pairs} of at most 40 ({status.pairs} begun)"
    # the drawing as laid out: the path from 0 over every complete pair, under the H1 line
    # until the pair that crossed it (one match at a time: the run stopped right there)
    box = browser.eval("(r => [r.width, r.height])(document.querySelector('#llr-chart svg')"
                       ".getBoundingClientRect())")
    assert box == [760, 300]
    points = browser.eval("(l => Array.from({length: l.numberOfItems}, (_, i) => "
                          "[l.getItem(i).x, l.getItem(i).y]))(document.querySelector("
                          "'#llr-chart [data-llr-path]').points)")
    upper, lower = (float(browser.eval(f"document.querySelector('#llr-chart [data-bound={key}]')"
                                       ".getAttribute('y1')")) for key in ("H1", "H0"))
    assert len(points) == status.pairs + 1
    assert [x for x, _ in points] == sorted(x for x, _ in points)
    assert upper < points[0][1] < lower
    assert all(upper < y for _, y in points[:-1]) and points[-1][1] <= upper
    browser.screenshot(tmp_path / "sprt.png", full_page=True)
    assert (tmp_path / "sprt.png").read_bytes().startswith(PNG)
    # the match list links every leg to its replay; the leg that decided the test opens
    links = browser.eval("Array.from(document.querySelectorAll('#matches a'))"
                         ".map(a => a.getAttribute('href'))")
    assert len(links) == len(load_matches(load_ladder(ladder))) == 2 * status.pairs
    browser.events.clear()
    browser.eval("document.querySelector('#matches a').click()")  # newest first
    browser.wait_for("document.body.dataset.ready === '1'")
    assert browser.eval("location.href") == (out / links[0]).resolve().as_uri()
    press(browser, "End")
    assert "greedy (seat 1) wins" in browser.eval("document.querySelector('[data-zone=result]')"
                                         ".textContent")


def test_a_lost_cities_replay_opens_in_under_a_second(browser: Browser, logs: dict[str, Path],
                                                      tmp_path: Path) -> None:
    page = _write_replay(logs["lost-cities"], tmp_path / "speed.html")
    _open(browser, page)
    ready_ms = browser.eval("performance.getEntriesByName('arena-ready')[0].startTime")
    assert 0 < ready_ms < 1000
