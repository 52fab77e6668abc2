"""The board of a game whose plugin brings no HTML board: its terminal renderer's drawing as
text (``docs/games/plugins.md``). Pure: the same renderer ``arena watch`` uses, exported to plain
text, escaped into a ``pre`` block."""

from __future__ import annotations

import io
from dataclasses import dataclass
from typing import Any

from rich.console import Console, RenderableType

from arena.render.api import GameRenderer
from arena.render.html.markup import Markup, leaf

WIDTH = 100
"""The columns the terminal drawing is laid out in."""


def _plain(renderable: RenderableType) -> str:
    console = Console(width=WIDTH, file=io.StringIO(), color_system=None, force_terminal=False)
    console.print(renderable)
    text: str = console.file.getvalue()  # type: ignore[attr-defined]
    return text


@dataclass
class TextBoard:
    """An ``HtmlBoard`` drawn from a game's terminal renderer."""

    renderer: GameRenderer
    game_id: str
    round_name: str = "round"

    def state(self, state: Any, names: tuple[str, str]) -> Markup:
        """The omniscient drawing of a state."""
        return leaf("pre", "text-board", _plain(self.renderer.render_state(state)))

    def view(self, view: Any, names: tuple[str, str]) -> Markup:
        """One seat's drawing of its view."""
        return leaf("pre", "text-board", _plain(self.renderer.render_view(view)))
