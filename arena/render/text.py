"""Recorded strings on the terminal: shown as the characters they are, never interpreted.

A bot's name and version, its last output line, an answer it gave, a match id, a log path: what
a bot or its author controls reaches the terminal through ``plain`` (as ``rich.text.Text``, so
rich never parses it as markup: a name ``[/]`` does not crash a table and ``[link=...]`` makes no
hyperlink) without the characters a terminal would act on (``arena.model.plain_text``: no
escape sequence clears the screen, moves the cursor or writes the clipboard). Logs and stores
written before those strings were cleaned at record time are shown safely as well. Pure.
"""

from __future__ import annotations

from rich.text import Text

from arena.model import plain_text


def plain(value: object, style: str = "") -> Text:
    """``str(value)`` as rich text shown literally: never markup, no control characters."""
    return Text(plain_text(str(value)), style=style)
