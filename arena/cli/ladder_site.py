"""`arena ladder report`'s writer: the ladder's static site brought up to date.

The site itself (index, list pages, one replay page per match, the shared player) is written by
``arena.site.refresh.refresh_site``, incrementally: a second report of the same ladder into the
same directory writes only what changed. Here: what the command says about it (a warning for
each match whose log cannot be replayed, the files written and left as they were).
"""

from __future__ import annotations

from pathlib import Path

from arena.cli.common import console, err_console, notice
from arena.ladder.config import LadderConfig
from arena.render.text import plain
from arena.site.refresh import MISSING, SiteSummary, refresh_site

__all__ = ["SiteSummary", "refresh_report"]


def refresh_report(config: LadderConfig, out: Path) -> SiteSummary:
    """Bring the ladder's site in ``out`` up to date; warn about each match whose log cannot
    be replayed and say what was written."""
    summary = refresh_site(config, out)
    for match_id, problem in summary.problems.items():
        if problem != MISSING:
            err_console.print(notice("warning", "yellow", f"no replay of {match_id}: {problem}"))
    megabytes = summary.bytes_written / 1e6
    console.print(plain(f"site: {summary.written} files written ({megabytes:.1f} MB), "
                        f"{summary.unchanged} up to date, {summary.removed} removed, in "
                        f"{summary.seconds:.1f} s"))
    return summary
