"""A knockout's report in a real browser (headless Chromium, no network): the bracket's SVG is
drawn inline, every tie a visible box in its round's column, each joined to the tie it feeds, and
the page asks for nothing but itself and the site's style sheet."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.ladder.reports import crosstable_of, standings_of
from arena.site.report_page import ReportData, report_page
from tests.support import statuses
from tests.support.browser import Browser
from tests.support.fakes import stored
from tests.support.pages import assert_only_the_site, write_shared

pytestmark = pytest.mark.integration


def test_the_bracket_is_drawn_in_the_browser(browser: Browser, tmp_path: Path) -> None:
    matches = [stored("m1", ("alpha", "delta"), (30, 10), winner=0, encounter="e1", leg=0)]
    page = tmp_path / "index.html"
    page.write_text(report_page(ReportData(
        "cup", "lost-cities", standings_of("cup", matches), crosstable_of(matches), matches,
        [], schedule=statuses.decided())), encoding="utf-8")
    write_shared(tmp_path)
    browser.open(page, "true")
    assert_only_the_site(browser, tmp_path, page)
    boxes = browser.eval(
        "Array.from(document.querySelectorAll('#bracket-chart g[data-tie]')).map(g => {"
        " const r = g.querySelector('rect').getBoundingClientRect();"
        " return [g.dataset.tie, Math.round(r.left), Math.round(r.top), Math.round(r.width),"
        " Math.round(r.height)]; })")
    assert [b[0] for b in boxes] == ["0-0", "0-1", "0-2", "0-3", "1-0", "1-1", "2-0"]
    assert all(width > 100 and height > 30 for _, _, _, width, height in boxes)
    left = {tie: x for tie, x, _, _, _ in boxes}
    assert left["0-0"] < left["1-0"] < left["2-0"]  # a round a column, left to right
    top = {tie: y for tie, _, y, _, _ in boxes}
    assert top["0-0"] < top["0-1"] < top["0-2"] < top["0-3"]
    assert top["1-0"] < top["2-0"] < top["1-1"]  # the final between its semi-finals
    assert browser.eval("document.querySelectorAll('#bracket-chart polyline').length") == 6
    champion = browser.eval("document.querySelector('[data-champion]').textContent")
    assert champion == f"champion: {statuses.MARKUP}"
    width = browser.eval("document.querySelector('[data-champion]').getBBox().width")
    assert width > 50  # the text is laid out, not an empty node
