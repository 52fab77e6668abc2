"""How a competition looks on the terminal: its answers on a contestant's (`arena standings
--server`, `arena matches --server`, `arena submissions`), and on the operator's the
contestants (`arena contestants list`) and the checks before it starts (`arena host --check`):
tables that fit 80 columns and never cut what is copied next (a bot's name, a match id, a
submission id, a contestant). Every text the server sends
is shown through ``plain``: literal text, never markup, no control characters. Pure: the API's
messages in, rich renderables out.
"""

from __future__ import annotations

import datetime
import time
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from arena.model import plain_text
from arena.render.tables import Col, fitted_table
from arena.render.text import Fitted, plain

STAGE_STYLES = {"ENTERED": "green", "RATED": "bold green", "REFUSED": "bold red",
                "FAILED": "bold yellow", "CANCELLED": "yellow"}
"""How each stage of a submission is coloured."""


def when(at: float) -> str:
    """A ``time.time()`` value as local ``YYYY-MM-DD HH:MM`` ("" for none)."""
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(at)) if at else ""


def mib(size: int) -> str:
    """A size in MiB, or KiB below one MiB."""
    return f"{size / 2**20:.1f} MiB" if size >= 2**20 else f"{size / 1024:.1f} KiB"


def standings_table(ladder: Any) -> Fitted:
    """One game's standings on a competition server (a ``GameStandings`` message): each bot's
    name whole (`arena matches --bot` takes it); older versions dimmed; at 80 columns the owner,
    then W/D/L and the match count go first."""
    columns = (Col("rank", justify="right"), Col("bot", keep=True), Col("version"),
               Col("rating", justify="right"), Col("95% CI", drop=4),
               Col("matches", justify="right", drop=3), Col("W/D/L", drop=2),
               Col("owner", drop=1))
    cells = []
    for row in ladder.rows:
        style = "" if row.current else "dim"
        cells.append(tuple(plain(cell, style) for cell in (
            row.rank, row.name, row.version, f"{row.rating:.0f}",
            f"{row.low:.0f}–{row.high:.0f}", row.matches,
            f"{row.wins}/{row.draws}/{row.losses}", row.owner or "house")))
    return fitted_table(columns, cells, title=plain_text(
        f"{ladder.game} · {ladder.ladder} · {ladder.matches} matches"))


def matches_table(rows: Sequence[Any]) -> Fitted:
    """A competition's matches (``MatchRow`` messages) as a table that never cuts a match id
    (the one `arena watch --match` and `arena logs --match` need): at 80 columns the kind,
    the finish time, the termination and the winner go first."""
    columns = (Col("match", keep=True), Col("finished", drop=2), Col("seat 0"), Col("seat 1"),
               Col("points", justify="right"), Col("winner", drop=4),  # the points say it
               Col("termination", drop=3), Col("kind", drop=1))
    cells = []
    for row in rows:
        seats = [f"{n}@{v}" if v else n for n, v in zip(row.names, row.versions, strict=False)]
        seats += [""] * (2 - len(seats))
        winner = ("void" if row.void else "draw" if row.winner < 0
                  else seats[row.winner] if row.winner < len(seats) else "")
        cells.append((plain(row.match_id), plain(row.finished_at), plain(seats[0]),
                      plain(seats[1]), ":".join(str(p) for p in row.points), plain(winner),
                      plain(row.termination),
                      plain(f"{row.kind}: {row.note}" if getattr(row, "note", "") else row.kind)))
    return fitted_table(columns, cells, title="matches, newest first")


def submissions_table(rows: Sequence[Any], stages: Mapping[int, str], contestant: str
                      ) -> Fitted:
    """A contestant's submissions (``Submission`` messages): the id (for `arena submissions
    --follow`) whole, and the first matches' ids (for `arena watch --match`) whole in the
    table or, when the table would not fit, each on its own line below it; then at 80 columns
    the size, the counted flag, the game, the time and the version go first. A version the
    final plays (selected, or the latest by default) has "· selected" after its stage."""
    columns = [Col("id", justify="right", keep=True), Col("game", drop=3), Col("bot"),
               Col("version", drop=5), Col("stage"), Col("message"), Col("submitted", drop=4),
               Col("size", justify="right", drop=1), Col("counted", drop=2)]
    cells = []
    for row in rows:
        stage = stages.get(row.stage, str(row.stage))
        chosen = " · selected" if getattr(row, "selected", False) else ""
        cells.append((str(row.submission_id), plain(row.game), plain(row.name),
                      plain(row.version), Text(stage + chosen, style=STAGE_STYLES.get(stage, "")),
                      plain(row.message), when(row.created), mib(row.size),
                      "yes" if row.counted else "no"))
    title = plain_text(f"submissions of {contestant}")
    with_matches = fitted_table(
        [*columns, Col("matches", keep=True)],
        [(*c, plain("\n".join(r.match_ids))) for c, r in zip(cells, rows, strict=True)],
        title=title)
    below = fitted_table(columns, cells, title=title)
    listed = Text("\n").join(plain(f"{r.submission_id}: {match}") for r in rows
                             for match in r.match_ids)

    def build(width: int) -> RenderableType:
        table = with_matches.build(width)
        if not isinstance(table, Table) or table.caption is None:  # it fits: nothing left out
            return table
        return Group(below.build(width), Text("first matches:", style="bold"), listed)

    return Fitted(build)


class ContestantRow(Protocol):
    """What the contestants' table shows of one (``arena.host.accounts.Contestant``)."""

    @property
    def name(self) -> str: ...
    @property
    def created(self) -> float: ...
    @property
    def revoked(self) -> float | None: ...
    @property
    def bots(self) -> Sequence[str]: ...
    @property
    def disqualified(self) -> str | None: ...


def contestants_table(contestants: Sequence[ContestantRow]) -> Fitted:
    """The contestants: each name whole, when added, when revoked, the bot names they own,
    why they were disqualified (at 80 columns the time added goes first)."""
    columns = (Col("contestant", keep=True), Col("added", drop=1), Col("revoked"),
               Col("bots"), Col("disqualified", drop=2))
    cells = [(plain(who.name), _local(who.created),
              Text("-") if who.revoked is None else Text(_local(who.revoked), "red"),
              plain(", ".join(who.bots) or "-"),
              Text("-") if who.disqualified is None else plain(who.disqualified, "red"))
             for who in contestants]
    return fitted_table(columns, cells)


def _local(at: float) -> str:
    return datetime.datetime.fromtimestamp(at).strftime("%Y-%m-%d %H:%M")


CHECK_STYLES = {"ok": "green", "warn": "yellow", "fail": "red"}
"""How each outcome of a check is coloured."""


def checks_table(title: str, rows: Sequence[tuple[str, str, str]]) -> Table:
    """Checks before a competition starts (`arena host --check`): each one's name, outcome
    (``ok``, ``warn``, ``fail``) and detail."""
    table = Table(title=plain(title))
    for column in ("check", "status", "detail"):
        table.add_column(column)
    for name, status, detail in rows:
        table.add_row(plain(name), plain(status, CHECK_STYLES[status]), plain(detail))
    return table
