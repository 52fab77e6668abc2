"""Rich renderables as plain text, and a table row's cells."""

from __future__ import annotations

import io

from rich.console import Console, RenderableType


def text_of(*renderables: RenderableType, width: int = 100) -> str:
    console = Console(file=io.StringIO(), width=width, color_system=None)
    for r in renderables:
        console.print(r)
    return console.file.getvalue()  # type: ignore[attr-defined,no-any-return]


def row_of(text: str, first: str) -> list[str]:
    """The cells of the table row whose first cell is ``first``."""
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip("│┃ ").split("│")]
        if cells and cells[0] == first:
            return cells
    raise AssertionError(f"no row {first!r} in:\n{text}")
