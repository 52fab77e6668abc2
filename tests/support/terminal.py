"""What the terminal-safety tests (issue 19, holes 4 and 5) look for: characters a terminal acts
on, and rich output on a colour terminal with its styling taken off."""

from __future__ import annotations

import io
import re
from typing import Any

from rich.console import Console, RenderableType

UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
"""What a terminal acts on instead of showing: C0 controls but tab and newline (ESC starts every
escape sequence, BEL ends an OSC), DEL, C1 controls (CSI), the bidi controls."""
SGR = re.compile("\x1b\\[[0-9;]*m")
"""A Select Graphic Rendition sequence: the colours and styles rich writes on a terminal."""
ESCAPES = "\x1b]52;c;cHduZWQ=\x07\x1b]0;title\x07\x1b[2J\x1b[1;1H\x9b2J\u202e"
"""Some of what the hostile bots write (tests/referee/bots/escapes.py): an OSC 52 clipboard
write, a title change, clear-screen, cursor home, a C1 CSI, a bidi override."""
MARKUP_NAMES = ("[/]", "[link=http://127.0.0.1:1/]victim[/link]")
"""Bot names rich would parse: a closing tag with nothing open (MarkupError), a hyperlink."""
MARKUP_ANSWER = "[b][/b]victim"
"""Rich markup that shows as ``victim``."""


def assert_text(value: str, where: str) -> None:
    """``value`` holds nothing a terminal would act on."""
    found = UNSAFE.search(value)
    assert found is None, f"{where} holds {found.group()!r}: {value!r}"


def on_terminal(*renderables: RenderableType | Any, width: int = 200) -> str:
    """What rich writes for ``renderables`` on a colour terminal, with the colours and styles
    (SGR sequences) taken off; everything else rich wrote stays, so an OSC 8 hyperlink or a
    bot's escape sequence shows."""
    console = Console(file=io.StringIO(), width=width, force_terminal=True,
                      color_system="truecolor")
    for renderable in renderables:
        console.print(renderable)
    return SGR.sub("", console.file.getvalue())  # type: ignore[attr-defined]


def flat(text: str) -> str:
    """``text`` with its line breaks and runs of blanks made single spaces (rich wraps)."""
    return " ".join(text.split())


def console_width(monkeypatch: Any, width: int) -> None:
    """The CLI's consoles (``arena.cli.common``, one for every command) draw ``width`` columns
    for this test. Their width is set, not the property: ``monkeypatch.setattr(console,
    "width", n)`` would put back the width the console had *then* as a fixed one, and every later
    test in that process would draw at it whatever COLUMNS it gives."""
    from arena.cli import common

    for console in (common.console, common.err_console):
        monkeypatch.setattr(console, "_width", width)
