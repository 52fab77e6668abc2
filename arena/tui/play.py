"""`arena play` on a terminal: a Textual app seating a person against a bot.

The match runs in a worker thread on its own event loop (``play_against``: the bot in its
sandbox, on its clock), so drawing the screen never delays the referee; the person's seat
(``HumanPlayer``) reaches the app through ``AppSide``, which hands each decision's ``Prompt`` to
the app and waits for the person's text. What the screen shows of a decision is built from the
``Prompt`` alone: the seat's observation through the game's ``render_view`` (the shared
``BoardView``), the legal actions, the time, the reason of the last refusal
(``arena.tui.play_view``).

Keys: type an action (the suggestion completes it: → or End accepts it; the list below keeps
the legal actions that contain what you typed), Enter plays it; ↓ moves into the list, Enter
there plays the highlighted action (a click too); Esc back to typing; PgUp/PgDn scroll the
board when it is taller than its room (an 80x24 terminal: the input and the list then go
without borders, and the input always shows); Ctrl+Q quits (the match is cancelled). At the end
the whole deal is shown; Enter or q leaves.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import dataclasses
import io
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.suggester import SuggestFromList
from textual.widgets import Footer, Input, OptionList, Static
from textual.widgets.option_list import Option

from arena.model import MatchResult, MatchSpec
from arena.referee.human import HumanPlayer, Prompt, Quit, play_against
from arena.sandbox.api import Sandbox
from arena.tui.play_view import (
    log_line,
    refusal,
    revealed,
    round_line,
    status,
)
from arena.tui.widgets import BoardView
from arena.wire.conversation import SeatStart

Runner = Callable[[HumanPlayer], Awaitable[MatchResult]]
"""What plays the match once the person's seat exists (``play_against`` by default)."""


class AppSide:
    """The person's side of the match, called in the match's thread: each call is handed to
    the app's thread (``call_from_thread``); an app that is gone, or quitting, means the person
    quit."""

    def __init__(self, app: PlayApp) -> None:
        self.app = app

    def _call(self, func: Callable[..., object], *args: object) -> None:
        try:
            self.app.call_from_thread(func, *args)
        except RuntimeError:  # the app is not running any more
            pass

    def started(self, start: SeatStart) -> None:
        self._call(self.app.match_started, start)

    async def choose(self, prompt: Prompt) -> str:
        if self.app.quitting:
            raise Quit
        answer: concurrent.futures.Future[str] = concurrent.futures.Future()
        try:
            self.app.call_from_thread(self.app.ask, prompt, answer)
        except RuntimeError:
            raise Quit from None
        return await asyncio.wrap_future(answer)

    def timed_out(self, detail: str) -> None:
        self._call(self.app.say, Text(f"your time is up: {detail}", style="bold red"))

    def round_ended(self, round_index: int, scores: tuple[int, int],
                    totals: tuple[int, int]) -> None:
        self._call(self.app.say, round_line(round_index, scores, totals, self.app.seat))

    def finished(self, result: MatchResult) -> None:
        """Nothing: the app shows the end when the match's thread returns (``ended``)."""


class PlayApp(App[MatchResult | None]):
    """A person against a bot (see the module doc); ``run`` returns the result (None: the match
    could not be played)."""

    TITLE = "arena play"
    CSS = """
    #board { height: 2fr; min-height: 4; }
    #status { height: auto; padding: 0 1; }
    #message { height: auto; padding: 0 1; }
    #typed { height: 3; }
    #actions { height: 1fr; min-height: 3; max-height: 10; }
    .-short #typed { height: 1; border: none; padding: 0 1; background: $boost; }
    .-short #actions { min-height: 2; max-height: 6; border: none; }
    """
    VERTICAL_BREAKPOINTS = [(0, "-short"), (36, "-tall")]
    """Under 36 lines (an 80x24 terminal) the input and the list lose their borders: the room
    goes to the board."""
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+q", "quit_match", "quit", priority=True),
        Binding("pageup", "scroll_board(-1)", "board", key_display="PgUp/PgDn",
                priority=True),
        Binding("pagedown", "scroll_board(1)", "board down", show=False, priority=True),
        Binding("escape", "focus_typed", "type", show=False),
    ]

    def __init__(self, spec: MatchSpec, sandbox: Sandbox | None, log_dir: Path | None, *,
                 runner: Runner | None = None) -> None:
        super().__init__()
        self.spec = spec
        self.seat = spec.humans[0].seat
        self.sandbox = sandbox
        self.log_dir = log_dir
        self.runner = runner
        self.person = HumanPlayer(self.seat, AppSide(self))
        self.start: SeatStart | None = None
        self.prompt: Prompt | None = None
        self.pending: concurrent.futures.Future[str] | None = None
        self.deadline: float | None = None
        self.shown: list[str] = []
        self.quitting = False
        self.result: MatchResult | None = None
        self.over = False
        self.screens: list[str] = []
        """The text of the board of each decision shown (what the tests compare)."""

    # --- layout ---------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield BoardView(self.spec.game, id="board")
        yield Static(id="status")
        yield Static(id="message")
        yield Input(placeholder="type an action (→ completes it), or pick one below",
                    id="typed", disabled=True)
        yield OptionList(id="actions", disabled=True)
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#board", BoardView).show(
            Text(f"starting the bot ({self.spec.bots[1 - self.seat].name})…"))
        self.run_worker(self._play, thread=True, exit_on_error=False, name="match")
        self.set_interval(0.5, self._tick)

    # --- the match's thread ---------------------------------------------------------------
    def _play(self) -> None:
        """Play the match on this thread's own event loop; then show its end."""
        try:
            result = asyncio.run(self._run())
        except Exception as exc:  # noqa: BLE001 — shown, and `arena play` exits 3
            with contextlib.suppress(RuntimeError):
                self.call_from_thread(self.failed, f"{type(exc).__name__}: {exc}")
            return
        with contextlib.suppress(RuntimeError):
            self.call_from_thread(self.ended, result)

    async def _run(self) -> MatchResult:
        if self.runner is not None:
            return await self.runner(self.person)
        assert self.sandbox is not None
        return await play_against(self.spec, self.person, sandbox=self.sandbox,
                                  log_dir=self.log_dir)

    # --- called from the match's thread -----------------------------------------------------
    def match_started(self, start: SeatStart) -> None:
        self.start = start
        self.query_one("#board", BoardView).show(Text(
            f"you are seat {start.seat} against {start.bot_names[1 - start.seat]}: waiting for "
            "the first decision…"))

    def ask(self, prompt: Prompt, answer: concurrent.futures.Future[str]) -> None:
        """Show a decision and wait for the person's answer."""
        self.prompt, self.pending = prompt, answer
        self.deadline = (None if prompt.time_left_ms is None
                         else time.monotonic() + prompt.time_left_ms / 1000)
        view = self.query_one("#board", BoardView)
        view.show_observation(prompt.observation)  # the seat's observation, and nothing else
        self.screens.append(self._text_of(view.board))
        self._status()
        self.say(refusal(prompt) or Text("your move", style="bold green"))
        typed = self.query_one("#typed", Input)
        typed.disabled = False
        typed.suggester = SuggestFromList(prompt.legal_texts, case_sensitive=False)
        if not prompt.refused:
            typed.value = ""
        self._list(typed.value)
        self.query_one("#actions", OptionList).disabled = False
        self.set_focus(typed)  # now, not after the next message: a key may come at once

    def say(self, message: Text) -> None:
        self.query_one("#message", Static).update(message)

    def ended(self, result: MatchResult) -> None:
        """The match is over: the final position with every card, the result, the log."""
        self.result, self.over, self.pending, self.deadline = result, True, None, None
        self.query_one("#board", BoardView).show(revealed(result, self.seat))
        line = log_line(result)
        self.query_one("#status", Static).update(line or "")
        self.say(Text("the match is over: Enter or q leaves", style="bold"))
        self.shown = []
        self.query_one("#actions", OptionList).clear_options()
        self._idle()
        if self.quitting:
            self.exit(result)

    def failed(self, message: str) -> None:
        self.over, self.pending = True, None
        self.say(Text(f"error: {message} — Enter or q leaves", style="bold red"))
        self._idle()
        if self.quitting:
            self.exit(None)

    # --- the person's input -----------------------------------------------------------------
    @on(Input.Changed, "#typed")
    def _typed(self, event: Input.Changed) -> None:
        if self.pending is not None:
            self._list(event.value)

    @on(Input.Submitted, "#typed")
    def _submitted(self, event: Input.Submitted) -> None:
        self._answer(event.value)

    @on(OptionList.OptionSelected, "#actions")
    def _picked(self, event: OptionList.OptionSelected) -> None:
        if 0 <= event.option_index < len(self.shown):
            self._answer(self.shown[event.option_index])

    def on_key(self, event: object) -> None:
        key = getattr(event, "key", "")
        typed = self.query_one("#typed", Input)
        actions = self.query_one("#actions", OptionList)
        if key == "down" and self.pending is not None and not actions.has_focus:
            self._list(typed.value)  # what is typed now, whatever Input.Changed has said yet
            self.set_focus(actions)
        elif self.over and key in ("enter", "q"):
            self.exit(self.result)

    def _answer(self, text: str) -> None:
        pending = self.pending
        if pending is None or pending.done():
            return
        self.pending = None
        with contextlib.suppress(concurrent.futures.InvalidStateError):
            pending.set_result(text)
        self.deadline = None
        self.say(Text(f"you play {text.strip()!r}; the bot is thinking…"))
        self._idle()

    def _idle(self) -> None:
        """Nothing to answer now: the input and the list wait."""
        self.query_one("#typed", Input).disabled = True
        self.query_one("#actions", OptionList).disabled = True
        self._status()

    def _list(self, typed: str) -> None:
        """The legal actions that contain what is typed (all of them for nothing typed)."""
        texts = self.prompt.legal_texts if self.prompt is not None else ()
        wanted = " ".join(typed.split()).casefold()
        self.shown = [t for t in texts if wanted in t.casefold()] if wanted else list(texts)
        actions = self.query_one("#actions", OptionList)
        actions.set_options(Option(Text(t)) for t in self.shown)
        if self.shown:
            actions.highlighted = 0

    def _status(self) -> None:
        if self.prompt is None or self.over:
            return
        line = status(self.prompt, self.start)
        if self.deadline is not None and self.pending is not None:
            left = max(0.0, self.deadline - time.monotonic())
            line = status(dataclasses.replace(self.prompt, time_left_ms=int(left * 1000)),
                          self.start)
        self.query_one("#status", Static).update(line)

    def _tick(self) -> None:
        if self.deadline is not None:
            self._status()

    def _text_of(self, shown: object) -> str:
        from rich.console import Console

        out = io.StringIO()
        Console(width=80, file=out, color_system=None).print(shown)
        return out.getvalue()

    # --- actions ----------------------------------------------------------------------------
    def action_scroll_board(self, step: int) -> None:
        """A page of the board up or down (when it is taller than its room), whatever has the
        focus: the typed action keeps it."""
        board = self.query_one("#board", BoardView)
        if step < 0:
            board.scroll_page_up(animate=False)
        else:
            board.scroll_page_down(animate=False)

    def action_focus_typed(self) -> None:
        if not self.over:
            self.query_one("#typed", Input).focus()

    def action_quit_match(self) -> None:
        """Quit: a match still running is cancelled first (its log ends as cancelled)."""
        if self.over:
            self.exit(self.result)
            return
        self.quitting = True
        self.say(Text("quitting: the match is cancelled…", style="bold yellow"))
        pending, self.pending = self.pending, None
        if pending is not None and not pending.done():
            with contextlib.suppress(concurrent.futures.InvalidStateError):
                pending.set_exception(Quit())
