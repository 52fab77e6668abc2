"""Tables that fit the terminal without cutting what a user must copy.

A table of matches, submissions or bots holds identifiers a user types next (`arena watch
--match ID`, `arena submissions --follow ID`, an image id): rich's default, on a narrow
terminal, is to cut every cell to "…", and an id cut is an id lost. ``fitted_table`` builds the
table for the width it is rendered at (``Fitted``): the columns marked ``keep`` are never cut
nor folded (each as wide as its longest cell) unless that cell is wider than the terminal itself
(a 129-character version key at 100 columns), which then wraps rather than widen every line;
when the whole does not fit, the less important columns go first, in the order their ``drop``
says, and the caption says which went (the JSON output has everything); what is left folds, so
no cell is ever cut. Pure.
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
Cell = str | Text


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


@dataclass(frozen=True)
class Look:
    """How a fitted table looks besides its cells: its title and caption (literal text: give a
    ``Text`` for what a user controls), where the title sits, a header or none, its caption's
    style."""

    title: Cell = ""
    caption: Cell = ""
    title_justify: Justify = "center"
    show_header: bool = True
    caption_justify: Justify = "center"


def fitted_table(columns: Sequence[Col], rows: Sequence[Sequence[Cell]], *, title: Cell = "",
                 caption: Cell = "", look: Look | None = None) -> Fitted:
    """``rows`` (one cell per column) as a table that fits the width it is rendered at
    (``look``: the title, caption and the rest; ``title`` and ``caption`` are short for it)."""
    look = look or Look(title=title, caption=caption)
    return Fitted(lambda width: _build(columns, rows, width, look))


def _build(columns: Sequence[Col], rows: Sequence[Sequence[Cell]], width: int, look: Look
           ) -> RenderableType:
    shown = list(range(len(columns)))
    droppable = sorted((c.drop, i) for i, c in enumerate(columns) if c.drop)
    left_out: list[str] = []
    table = _table(columns, rows, shown, look, left_out, width)
    while droppable and natural_width(table, width) > width:
        _, gone = droppable.pop(0)
        shown.remove(gone)
        left_out.append(columns[gone].header)
        table = _table(columns, rows, shown, look, left_out, width)
    return table


def natural_width(renderable: RenderableType, width: int) -> int:
    """The width ``renderable`` takes with nothing folded (a table: no column folded)."""
    console = Console(width=max(width, 1000), color_system=None, force_terminal=False)
    return console.measure(renderable).maximum


def _table(columns: Sequence[Col], rows: Sequence[Sequence[Cell]], shown: Sequence[int],
           look: Look, left_out: Sequence[str], width: int) -> Table:
    caption = _literal(look.caption, "table.caption")
    if left_out:
        caption.append(("\n" if caption else "") + f"left out to fit: {', '.join(left_out)} (a "
                       "wider terminal, or --format json, shows them)")
    table = Table(title=_literal(look.title, "table.title") or None, caption=caption or None,
                  title_justify=look.title_justify, caption_justify=look.caption_justify,
                  show_header=look.show_header)
    for i in shown:
        column = columns[i]
        longest = max([len(column.header), *(_length(row[i]) for row in rows)])
        if column.keep and longest <= width - 4:
            table.add_column(column.header, justify=column.justify, no_wrap=True,
                             min_width=longest)
        elif column.keep:  # wider than the terminal: it wraps, in half of it at most
            table.add_column(column.header, justify=column.justify, overflow="fold",
                             max_width=max(width // 2, 20))
        else:
            table.add_column(column.header, justify=column.justify, overflow="fold")
    for row in rows:
        table.add_row(*(row[i] for i in shown))
    return table


def _literal(cell: Cell, style: str) -> Text:
    """A title or caption as literal text, in the table's style for it (rich styles only the
    ``str`` ones itself)."""
    return cell.copy() if isinstance(cell, Text) else Text(cell, style=style)


def _length(cell: Cell) -> int:
    """The width of the cell's longest line."""
    text = cell if isinstance(cell, Text) else Text(cell)
    return max((line.cell_len for line in text.split("\n")), default=0)
