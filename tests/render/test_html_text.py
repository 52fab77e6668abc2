"""Issue 19, holes 4 and 5, in the HTML pages: a bot's name, a match id and a recorded detail are
text in `arena watch --html` replays and the `arena ladder report` index, never markup and never
control characters (a page is also read with `cat`)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arena.cli.watch_cmds import html_replay
from arena.ladder.reports import crosstable_of, standings_of
from arena.ladder.store import VoidAttempt
from arena.model import Termination
from arena.record.log import read_events
from arena.site.report_page import ReportData, report_page
from tests.support.fakes import stored
from tests.support.pages import page_data, play_logged
from tests.support.terminal import ESCAPES, assert_text

pytestmark = pytest.mark.integration

INJECTED = ("<img src=x onerror=alert(1)>", "</p><script>alert(2)</script>")
"""Bot names that would be markup if a page took them as HTML."""


@pytest.mark.parametrize("game", ["lost-cities", "haggis", "portas"])
def test_a_replay_page_shows_names_and_details_as_text(game: str, tmp_path: Path) -> None:
    log = play_logged(tmp_path, game, 3, names=INJECTED, match_id=f"{game}-names")
    lines = []  # and a detail with escapes, as a log written before record-time cleaning holds
    for line in log.read_text(encoding="utf-8").splitlines():
        data = json.loads(line)
        if data["type"] == "match_end":
            data["result"]["detail"] = f"last output: {ESCAPES}<b>you won</b>"
        lines.append(json.dumps(data))
    log.write_text("\n".join(lines) + "\n", encoding="utf-8")
    html = html_replay(read_events(log)).html
    fragments = "".join(e for e in page_data(html)["t"] if isinstance(e, str))  # the frames
    for markup in (html, fragments):
        assert "<img" not in markup and "<script>alert" not in markup
    assert "&lt;img src=x onerror=alert(1)&gt; (seat 0)" in fragments
    assert "&lt;img src=x onerror=alert(1)&gt;" in html
    assert "<b>you" not in html and "&lt;b&gt;you won&lt;/b&gt;" in html
    assert_text(html, f"the {game} replay page")


@pytest.mark.unit
def test_the_report_index_shows_match_ids_and_details_as_text() -> None:
    linked = "m1<script>alert(3)</script>"
    matches = [stored("m0", ("ann", INJECTED[0]), (10, 5), winner=0, encounter="e0"),
               stored(linked, (INJECTED[0], "ann"), (5, 10), winner=1, encounter="e0", leg=1)]
    lost = [VoidAttempt("m2<i>", "e1", 0, 0, "lost-cities", 7, ("ann", INJECTED[1]),
                        Termination.CANCELLED, f"killed{ESCAPES}<b>workers</b>", None, 1.0)]
    html = report_page(ReportData("t", "lost-cities", standings_of("t", matches, given_up=1),
                                  crosstable_of(matches), matches, [],
                                  {linked: "replays/m1.html"}, given_up=lost))
    assert "<script>alert" not in html and "<img" not in html and "<i>" not in html
    assert '<a href="replays/m1.html">m1&lt;script&gt;alert(3)&lt;/script&gt;</a>' in html
    assert "killed]52;c;cHduZWQ=]0;title[2J[1;1H2J&lt;b&gt;workers&lt;/b&gt;" in html
    assert_text(html, "the report's index page")
