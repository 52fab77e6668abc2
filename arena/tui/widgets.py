"""Widgets the terminal apps share (`arena watch`, `arena play`).

``BoardView`` shows a game's own terminal rendering (``arena.render.renderer_for``) of one
position in one view: the full state (everything) or one seat's observation. Give it a seat's
observation and it can show nothing else: a seat's screen built from that alone never depends
on what the seat may not see. The other widgets take plain data. Every string a bot or its
author controls (a name, an answer, its output) is shown as the characters it is: rich ``Text``
through ``arena.render.text.plain``, never markup, no control characters.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from typing import Any

from rich.console import Console, RenderableType
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from arena.games import get_game
from arena.model import RoundEndEvent
from arena.render import renderer_for
from arena.render.text import plain

SEAT_STYLES = ("cyan", "magenta")
"""Each seat's colour in lists and tables."""


def rendered(renderable: RenderableType, width: int, console: Console) -> Text:
    """``renderable`` rendered once at ``width`` as styled lines (no wrapping left to do):
    Textual then measures and paints plain lines, where a rich table would be rendered once
    to measure its height and again to paint it."""
    lines = console.render_lines(renderable, console.options.update_width(max(width, 1)),
                                 pad=False)
    text = Text("\n").join(Text.assemble(*((seg.text, seg.style or "") for seg in line
                                           if not seg.control)) for line in lines)
    text.no_wrap = True
    text.overflow = "crop"
    return text


class Rendered(Static):
    """A rich renderable drawn at the widget's width (again when it is resized)."""

    def __init__(self, *, id: str | None = None, classes: str | None = None  # noqa: A002
                 ) -> None:
        super().__init__(id=id, classes=classes)
        self.renderable: RenderableType | None = None
        self._drawn_at = 0
        self._rich = Console(file=io.StringIO(), force_terminal=True, color_system="truecolor",
                             width=80)

    def show(self, renderable: RenderableType, *, layout: bool = True) -> None:
        self.renderable = renderable
        self._drawn_at = self._width()
        self.update(rendered(renderable, self._drawn_at, self._rich), layout=layout)

    def _width(self) -> int:
        return self.content_region.width or self.size.width or 80

    def on_resize(self) -> None:
        if self.renderable is not None and self._width() != self._drawn_at:
            self.show(self.renderable)


class BoardView(VerticalScroll):
    """A game's terminal rendering of one position for one view (scrolls when taller than its
    space). ``game_id`` picks the game's renderer; nothing here knows any game. The scrollbar's
    gutter is always kept: without it the board is drawn once at the full width, gets a
    scrollbar when it turns out taller than its space and is drawn again two columns narrower,
    so the same position could show at two widths depending on when the screen was looked at."""

    DEFAULT_CSS = """
    BoardView { height: 1fr; scrollbar-gutter: stable; }
    BoardView > .board-body { width: 100%; }
    BoardView > .board-note { color: $text-muted; }
    """

    def __init__(self, game_id: str, *, id: str | None = None) -> None:  # noqa: A002
        super().__init__(id=id)
        self.game = get_game(game_id)
        self.renderer = renderer_for(game_id)
        self._body = Rendered(classes="board-body")
        self._note = Static(classes="board-note")

    def compose(self) -> ComposeResult:
        yield self._body
        yield self._note

    def show(self, board: RenderableType, note: str = "") -> None:
        """Any renderable (a renderer's board, a placeholder), with a line under it."""
        self._body.show(board)
        self._note.update(plain(note))
        self._note.display = bool(note)

    def show_state(self, state: Any, seat: int | None) -> None:
        """``state`` as a whole (``seat`` None) or as ``seat`` observes it."""
        if seat is None:
            self.show(self.renderer.render_state(state))
        else:
            self.show_observation(self.game.observation(state, seat))

    def show_observation(self, observation: Any, note: str = "") -> None:
        """One seat's observation (``game.observation(state, seat)``), drawn by its renderer."""
        self.show(self.renderer.render_view(observation), note)

    @property
    def board(self) -> RenderableType | None:
        """What the board shows (the renderable last given)."""
        return self._body.renderable


class MoveList(OptionList):
    """The decisions of a match, one row each, and a last row for the end; highlighting a row
    (arrows, a click) asks the app to go there (``OptionHighlighted``)."""

    DEFAULT_CSS = """
    MoveList { height: 1fr; text-wrap: nowrap; text-overflow: ellipsis; }
    """

    def __init__(self, *, id: str | None = None) -> None:  # noqa: A002
        super().__init__(id=id, markup=False)  # rows are Text; a str is never markup either

    def set_rows(self, rows: Sequence[Text]) -> None:
        """Replace every row, keeping the highlighted one (posting no ``OptionHighlighted``)."""
        highlighted = self.highlighted
        with self.prevent(OptionList.OptionHighlighted):
            self.clear_options()
            self.add_options(Option(row) for row in rows)
            if highlighted is not None:
                self.highlighted = min(highlighted, len(rows) - 1)


def move_row(n: int, seat: int, bot: str, action: str, round_start: int | None,
             width: int = 10) -> Text:
    """A decision's row: its number, the round when it starts one, its bot and its action."""
    row = Text(f"{n:>4} ", style="dim", no_wrap=True, overflow="ellipsis")
    row.append(f"R{round_start + 1:<3}" if round_start is not None else "    ", style="bold")
    row.append_text(plain(f"{bot[:width]:<{width}} ", SEAT_STYLES[seat]))
    row.append_text(plain(action))
    return row


def scores_table(bots: Sequence[str], rounds: Sequence[RoundEndEvent], last: int = 8) -> Table:
    """The score of the ``last`` rounds ended so far and the totals."""
    table = Table(title="scores", expand=True, show_edge=False, padding=(0, 1))
    table.add_column("round", justify="right")
    for seat, bot in enumerate(bots):
        table.add_column(plain(bot[:12], SEAT_STYLES[seat]), justify="right")
    totals = rounds[-1].totals if rounds else (0, 0)
    if len(rounds) > last:
        table.add_row("…", "", "", style="dim")
    for event in rounds[-last:]:
        table.add_row(str(event.round + 1), str(event.scores[0]), str(event.scores[1]))
    table.add_row("total", str(totals[0]), str(totals[1]), style="bold")
    return table


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}"


def _s(value: float | None) -> str:
    return "-" if value is None else f"{value / 1000:.2f}"


def times_table(bots: Sequence[str], times: Sequence[Any]) -> Table:
    """Each seat's latest decision (the current one included): its number, wall and CPU time
    (ms), and the seat's wall and CPU time so far (s) (``arena.tui.model.SeatTime``); a seat
    hidden in this view shows none ("·")."""
    table = Table(title="time: decision (ms) · so far (s)", expand=True, show_edge=False,
                  padding=(0, 1), show_header=True)
    for name, justify in (("seat", "left"), ("#", "right"), ("wall", "right"),
                          ("CPU", "right"), ("wall", "right"), ("CPU", "right")):
        table.add_column(name, justify=justify, no_wrap=True)  # type: ignore[arg-type]
    for t in times:
        who = plain(bots[t.seat][:8], SEAT_STYLES[t.seat])
        number = "-" if t.last_n is None else str(t.last_n)
        if t.hidden:
            table.add_row(who, number, "·", "·", "·", "·")
            continue
        table.add_row(who, number, _ms(t.ms), _ms(t.cpu_ms), _s(t.total_ms),
                      _s(t.total_cpu_ms))
    return table


class OutputPane(VerticalScroll):
    """The end of one bot's output, as plain text (never markup, no escape sequences)."""

    DEFAULT_CSS = """
    OutputPane { border: round $panel; height: 1fr; }
    """

    def __init__(self, title: str, *, id: str | None = None) -> None:  # noqa: A002
        super().__init__(id=id)
        self.border_title = plain(title)  # Text: never parsed as markup
        self._body = Static()
        self.shown = ""

    def compose(self) -> ComposeResult:
        yield self._body

    def show(self, text: str) -> None:
        """``text`` literally (``plain``: control characters removed), scrolled to its end."""
        if text == self.shown:
            return
        self.shown = text
        self._body.update(plain(text))
        self.scroll_end(animate=False)
