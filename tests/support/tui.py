"""Driving the terminal apps in tests: the screen as text (what a terminal shows, no styles)."""

from __future__ import annotations

import io

from rich.console import Console
from textual.app import App


def screen_text(app: App[object]) -> str:
    """Every character of ``app``'s screen, line by line, as a terminal of its size shows it."""
    width, height = app.size
    console = Console(width=width, height=height, file=io.StringIO(), force_terminal=True,
                      color_system="truecolor", record=True, legacy_windows=False)
    console.print(app.screen._compositor.render_update(full=True))
    return console.export_text(styles=False)
