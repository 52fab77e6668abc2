"""The match list of a ladder's site, in pages: the newest matches on the index, every match on
the list pages (PURE: recorded matches in, HTML out).

A list page holds ``page_size`` matches in recording order (page 1: the first ``page_size``
recorded), shown newest first, so a page never changes once it is full but for its link to
the page after it: a new result rewrites one list page (two when it starts a page). The index
shows the newest ``page_size`` matches and links to every list page. Each match id opens its
replay (``replays/<match>.html``); a match without one says why when hovered.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from arena.ladder.reports import format_when, given_up_text, seat_version
from arena.ladder.store import StoredMatch, VoidAttempt
from arena.model import plain_text
from arena.render.html.markup import Markup, el, leaf
from arena.render.html.page import SiteLinks, document

PAGE_SIZE = 200
"""Matches a list page holds (and the index shows)."""
REPLAY_DIR = "replays"
"""Where the replay pages go, inside the site."""
LIST_DIR = "matches"
"""Where the list pages go, inside the site."""
HIDDEN = "replays are not public on this site"
"""Why no match has a replay on a site that shows none."""
COLUMNS = ("#", "match", "cycle/leg", "seat 0", "seat 1", "totals", "result", "termination",
           "seconds")


@dataclass(frozen=True)
class MatchLinks:
    """Where each match's replay is, or why it has none."""

    replays: Mapping[str, str] = field(default_factory=dict)
    """match id → its replay page, relative to the site's root."""
    problems: Mapping[str, str] = field(default_factory=dict)
    """match id → why it has no replay (no log, an unreadable log)."""
    hidden: bool = False
    """The site shows no replays (a competition whose logs are not public)."""

    def why_none(self, match_id: str) -> str:
        """Why a match has no replay on the site."""
        return HIDDEN if self.hidden else self.problems.get(match_id, "no replay")


def replay_name(match_id: str) -> str:
    """The replay page of a match inside ``replays/``: the id itself where it is a safe file
    name (not hidden), else the id made safe plus a hash of it (two ids never share a
    page)."""
    safe = re.sub(r"[^A-Za-z0-9._-]|^\.", "_", match_id)  # no hidden file either
    if safe != match_id:
        safe += "-" + hashlib.sha256(match_id.encode("utf-8")).hexdigest()[:10]
    return f"{safe}.html"


def page_count(matches: int, page_size: int = PAGE_SIZE) -> int:
    """The list pages of ``matches`` recorded matches."""
    return -(-matches // page_size)


def list_page_path(number: int) -> str:
    """List page ``number`` (1: the oldest matches), relative to the site's root."""
    return f"{LIST_DIR}/page-{number:04d}.html"


def page_span(number: int, total: int, page_size: int = PAGE_SIZE) -> tuple[int, int]:
    """The first and last match numbers (1-based, recording order) of list page ``number``."""
    return (number - 1) * page_size + 1, min(number * page_size, total)


def page_key(matches: Sequence[StoredMatch], number: int, links: MatchLinks,
             page_size: int = PAGE_SIZE) -> list[object]:
    """What list page ``number`` shows that can change (its matches, their replays or
    problems, whether a page follows it): equal keys, equal pages."""
    first, last = page_span(number, len(matches), page_size)
    shown = [(m.match_id, links.replays.get(m.match_id, ""), links.problems.get(m.match_id, ""))
             for m in matches[first - 1:last]]
    return [number, page_size, last < len(matches), shown]


def index_matches(matches: Sequence[StoredMatch], links: MatchLinks,
                  given_up: Sequence[VoidAttempt], page_size: int = PAGE_SIZE) -> Markup:
    """The index's match section: the newest ``page_size`` matches, links to every list page,
    then the matches the cluster gave up on."""
    total = len(matches)
    newest = _rows(matches, max(0, total - page_size), total, links, SiteLinks(""))
    note = f"The latest {min(total, page_size)} of {total} matches, newest first. " \
        if total > page_size else "Every match, newest first. "
    missing = sum(1 for m in matches if m.match_id not in links.replays)
    if links.hidden:
        note += "Replays are not public on this site."
    else:
        note += "Each match id opens its replay."
        if missing:
            note += f" {missing} match(es) have no replay (no readable log); hover for why."
    return el("section", None, leaf("h2", None, "Matches"), leaf("p", "dim", note),
              _table(newest, "matches"), _page_links(total, page_size), _given_up(given_up),
              id="matches-section")


def list_page(ladder: str, game: str, matches: Sequence[StoredMatch], number: int,
              links: MatchLinks, page_size: int = PAGE_SIZE) -> str:
    """List page ``number`` of the ladder's matches (all recorded ones, in recording order)."""
    total = len(matches)
    first, last = page_span(number, total, page_size)
    title = f"Ladder {ladder} ({game}): matches {first}–{last}"
    nav: list[Markup] = [leaf("a", None, "latest matches and standings", href="../index.html")]
    if number > 1:
        older = page_span(number - 1, total, page_size)
        nav += [" · ", leaf("a", None, f"older: {older[0]}–{older[1]}", rel="prev",
                            href=f"../{list_page_path(number - 1)}")]
    if last < total:
        newer = page_span(number + 1, total, page_size)
        nav += [" · ", leaf("a", None, f"newer: {newer[0]}–{newer[1]}", rel="next",
                            href=f"../{list_page_path(number + 1)}")]
    body = el("div", "report", leaf("h1", None, title), el("p", "meta", *nav, id="pager"),
              el("section", None, leaf("p", "dim", "Newest first. " + (
                  "Replays are not public on this site." if links.hidden
                  else "Each match id opens its replay.")),
                 _table(_rows(matches, first - 1, last, links, SiteLinks("../")), "matches")))
    return document(title, body, site=SiteLinks("../"))


def _page_links(total: int, page_size: int) -> Markup:
    """Every list page, newest first."""
    pages = page_count(total, page_size)
    links: list[Markup] = []
    for number in range(pages, 0, -1):
        first, last = page_span(number, total, page_size)
        links += [" · " if links else "", leaf("a", None, f"{first}–{last}",
                                               href=list_page_path(number))]
    return el("p", None, f"Every match, {page_size} a page (newest first): ", *links,
              id="pages")


def _table(rows: Sequence[Markup], table_id: str) -> Markup:
    head = el("tr", None, *(leaf("th", None, h) for h in COLUMNS))
    return el("table", "grid", head, *rows, id=table_id)


def _rows(matches: Sequence[StoredMatch], start: int, stop: int, links: MatchLinks,
          site: SiteLinks) -> list[Markup]:
    """The rows of ``matches[start:stop]``, newest first, numbered in recording order."""
    return [_row(number, matches[number - 1], links, site)
            for number in range(stop, start, -1)]


def _row(number: int, m: StoredMatch, links: MatchLinks, site: SiteLinks) -> Markup:
    link = links.replays.get(m.match_id)
    name: Markup = (leaf("a", None, m.match_id, href=site.root + link) if link is not None
                    else leaf("span", None, m.match_id, title=links.why_none(m.match_id)))
    return el("tr", "void" if m.void else None, leaf("td", "num", number), el("td", None, name),
              leaf("td", None, f"{m.cycle}/{m.leg}"), _seat(m, 0), _seat(m, 1),
              leaf("td", "num", f"{m.totals[0]} – {m.totals[1]}"),
              leaf("td", None, _outcome(m)), leaf("td", None, str(m.termination)),
              leaf("td", "num", f"{m.duration_s:.1f}"), data_match=m.match_id)


def _seat(m: StoredMatch, seat: int) -> Markup:
    """A seat's bot, with its version and identity (dim) when they were recorded."""
    version = seat_version(m, seat)
    if not version:
        return leaf("td", None, m.bots[seat])
    return el("td", None, m.bots[seat], " ", leaf("span", "dim", version))


def _given_up(attempts: Sequence[VoidAttempt]) -> Markup:
    """The matches the cluster gave up on: when, and why (nothing when there are none)."""
    if not attempts:
        return ""
    head = el("tr", None, *(leaf("th", None, h) for h in (
        "match", "cycle/leg", "seat 0", "seat 1", "given up at", "detail")))
    rows = [el("tr", "void", leaf("td", None, a.match_id), leaf("td", None, f"{a.cycle}/{a.leg}"),
               leaf("td", None, a.bots[0]), leaf("td", None, a.bots[1]),
               leaf("td", None, format_when(a.finished_at)),
               leaf("td", None, plain_text(a.detail)),
               data_given_up=a.match_id)
            for a in attempts]
    note = (f"{given_up_text(len(attempts))}: their attempts killed the workers that played "
            "them. They are not recorded matches, so they have no result and no replay.")
    return el("div", None, leaf("p", "dim", note),
              el("table", "grid", head, *rows, id="given-up"))


def _outcome(m: StoredMatch) -> str:
    if m.void:
        return "void"
    if m.winner is None:
        return "draw"
    return f"{m.bots[m.winner]} wins"
