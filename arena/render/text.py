"""Text for the terminal: recorded strings shown as the characters they are, and layouts that
fit the width they are given.

A bot's name and version, its last output line, an answer it gave, a match id, a log path: what
a bot or its author controls reaches the terminal through ``plain`` (as ``rich.text.Text``, so
rich never parses it as markup: a name ``[/]`` does not crash a table and ``[link=...]`` makes no
hyperlink) without the characters a terminal would act on (``arena.model.plain_text``: no
escape sequence clears the screen, moves the cursor or writes the clipboard). Logs and stores
written before those strings were cleaned at record time are shown safely as well.

``Fitted`` builds a renderable for the width rich gives it at render time (a panel's inside, a
piped console's 80 columns), so a renderer can abbreviate and wrap instead of letting rich cut
cells; ``flow`` lays out short items (a header's "deck 12", "turn 40") several to a line without
ever splitting one. Pure.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

from rich.console import Console, ConsoleOptions, RenderableType
from rich.measure import Measurement
from rich.text import Text

from arena.model import plain_text

NARROW = 90
"""Below this many columns, renderers use their compact layout (short labels, fewer columns):
a board inside ``arena watch``'s frame on an 80-column terminal gets about 72."""


def plain(value: object, style: str = "") -> Text:
    """``str(value)`` as rich text shown literally: never markup, no control characters."""
    return Text(plain_text(str(value)), style=style)


def notice(label: str, style: str, message: object) -> Text:
    """``label: message`` for the operator, the label styled and the message shown as plain
    text (``plain``: never markup, no control characters)."""
    return Text.assemble((f"{label}:", style), " ", plain(message))


class Fitted:
    """A renderable built for the width it is rendered at: ``build(width)`` is called with the
    columns available (the console's, or the inside of the panel or cell it is in)."""

    def __init__(self, build: Callable[[int], RenderableType]) -> None:
        self.build = build

    def __rich_console__(self, console: Console, options: ConsoleOptions
                         ) -> Iterator[RenderableType]:
        yield self.build(options.max_width)

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        return Measurement.get(console, options, self.build(options.max_width))


def flow(items: Iterable[Text | str], width: int, sep: str = "   ") -> Text:
    """``items`` on as few lines as fit in ``width``, ``sep`` between two on a line, each item
    whole on one line (an item longer than ``width`` alone on its line, where rich wraps it)."""
    out = Text()
    used = 0
    for item in items:
        text = item if isinstance(item, Text) else Text(item)
        if used and used + len(sep) + text.cell_len > width:
            out.append("\n")
            used = 0
        elif used:
            out.append(sep)
            used += len(sep)
        out.append_text(text)
        used += text.cell_len
    return out
