"""How the installed games and a gate's verdict look on the terminal (`arena games list`,
`arena games check`): each id, version and status whole on its line (short words), the rest
folding at 80 columns. Every text a game package controls (its title, a check's detail) is
shown through ``plain``. Pure: rows in, rich renderables out."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from rich.table import Table

from arena.render.text import plain

if TYPE_CHECKING:
    from arena.gate.report import GateReport

STATUS_STYLE = {"passed": "green", "FAILED": "bold red", "not run": "yellow"}
"""How a gate status is shown."""
WHOLE = ("id", "rules", "gate", "check", "status")
"""Columns never wrapped (short words; the others fold at 80 columns)."""


def games_table(rows: Sequence[Mapping[str, Any]]) -> Table:
    """The installed games (`arena games list`'s rows): id, title, rules version, distribution,
    where its code is, its gate status."""
    table = Table(title="installed games")
    for column in ("id", "title", "rules", "distribution", "source", "gate"):
        table.add_column(column, overflow="fold", no_wrap=column in WHOLE)
    for row in rows:
        table.add_row(plain(row["id"]), plain(row["title"]), plain(row["version"]),
                      plain(f"{row['distribution']} {row['dist_version']}".strip()),
                      plain(row["source"]),
                      plain(row["gate"], STATUS_STYLE.get(row["gate"], "")))
    return table


def gate_table(report: GateReport, game_id: str) -> Table:
    """A gate's verdict on a game: one row per check, passed or the first failure's detail."""
    verdict = "passed" if report.passed else f"FAILED: {', '.join(report.failed)}"
    table = Table(title=plain(f"arena games check {game_id}: {verdict} "
                              f"({report.seconds:.1f} s)"))
    for column in ("check", "status", "detail"):
        table.add_column(column, overflow="fold", no_wrap=column in WHOLE)
    for check in report.checks:
        status = "passed" if check.passed else "FAILED"
        table.add_row(plain(check.name), plain(status, STATUS_STYLE[status]), plain(check.detail))
    return table
