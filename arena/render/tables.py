"""Tables that fit the terminal without cutting what a user must copy.

A table of matches, submissions or bots holds identifiers a user types next (`arena watch
--match ID`, `arena submissions --follow ID`, an image id): rich's default, on a narrow
terminal, is to cut every cell to "…", and an id cut is an id lost. ``fitted_table`` builds the
table for the width it is rendered at (``Fitted``): the columns marked ``keep`` are never cut
nor folded (each as wide as its longest cell); when the whole does not fit, the less important
columns go first, in the order their ``drop`` says, and the caption says which went (the JSON
output has everything); what is left folds, so no cell is ever cut. Pure.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from rich.console import Console, RenderableType
from rich.table import Table
from rich.text import Text

from arena.render.text import Fitted

Justify = Literal["left", "right", "center"]


@dataclass(frozen=True)
class Col:
    """A column of a fitted table."""

    header: str
    justify: Justify = "left"
    keep: bool = False
    """An identifier a user copies: shown whole, on one line."""
    drop: int = 0
    """0: always shown; else the order in which columns are left out when the table does not
    fit (1 goes first)."""


Cell = str | Text


def fitted_table(columns: Sequence[Col], rows: Sequence[Sequence[Cell]], *, title: str = "",
                 caption: str = "") -> Fitted:
    """``rows`` (one cell per column) as a table that fits the width it is rendered at."""
    return Fitted(lambda width: _build(columns, rows, width, title, caption))


def _build(columns: Sequence[Col], rows: Sequence[Sequence[Cell]], width: int, title: str,
           caption: str) -> RenderableType:
    shown = list(range(len(columns)))
    droppable = sorted((c.drop, i) for i, c in enumerate(columns) if c.drop)
    left_out: list[str] = []
    table = _table(columns, rows, shown, title, caption, left_out)
    while droppable and _natural_width(table, width) > width:
        _, gone = droppable.pop(0)
        shown.remove(gone)
        left_out.append(columns[gone].header)
        table = _table(columns, rows, shown, title, caption, left_out)
    return table


def _natural_width(table: Table, width: int) -> int:
    """The width ``table`` takes with no column folded."""
    console = Console(width=max(width, 1000), color_system=None, force_terminal=False)
    return console.measure(table).maximum


def _table(columns: Sequence[Col], rows: Sequence[Sequence[Cell]], shown: Sequence[int],
           title: str, caption: str, left_out: Sequence[str]) -> Table:
    note = ([caption] if caption else []) + (
        [f"left out to fit: {', '.join(left_out)} (a wider terminal, or --format json, shows "
         "them)"] if left_out else [])
    table = Table(title=title or None, caption="\n".join(note) or None)
    for i in shown:
        column = columns[i]
        if column.keep:
            longest = max([len(column.header), *(_length(row[i]) for row in rows)])
            table.add_column(column.header, justify=column.justify, no_wrap=True,
                             min_width=longest)
        else:
            table.add_column(column.header, justify=column.justify, overflow="fold")
    for row in rows:
        table.add_row(*(row[i] for i in shown))
    return table


def _length(cell: Cell) -> int:
    """The width of the cell's longest line."""
    text = cell if isinstance(cell, Text) else Text(cell)
    return max((line.cell_len for line in text.split("\n")), default=0)
