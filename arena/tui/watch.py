"""The interactive `arena watch`: a match log (or a downloaded seat view, or a match live from
`arena serve` or a competition server: ``open_live``, ``open_records``) in a Textual app.

The board of the current decision (the game's own terminal renderer: nothing here knows a
game), the list of moves (select one to go there), the score by round, each seat's wall and CPU
time, and each bot's output tail. Keys: space play/pause, ←/→ one decision, [ ] (shift+←/→)
the previous/next round, Home/End, ``:`` go to decision N, +/− speed, Tab the view (everything,
seat 0, seat 1: only what the source allows), ``f`` follow a log still being written (the
position you chose stays while moves arrive; End goes to the newest and stays with it), ``o``
the output pane, ``q`` quit.
"""

from __future__ import annotations

import itertools
import json
import queue
import threading
import time
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, ClassVar

from google.protobuf import json_format
from rich.text import Text
from textual import on
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.css.query import NoMatches
from textual.timer import Timer
from textual.widgets import Footer, Input, OptionList, Static

from arena.errors import ArenaError, LogFormatError
from arena.model import HeaderEvent, MatchEndEvent, MatchEvent, event_from_json, plain_text
from arena.record.log import follow_events, read_events
from arena.record.replay import ReplayStep, replay_events
from arena.render.seat_view import HIDDEN_MOVE, SEAT_HEADER, seat_header, seat_record
from arena.render.text import plain
from arena.tui.model import Timeline, View, view_name
from arena.tui.widgets import (
    SEAT_STYLES,
    BoardView,
    MoveList,
    OutputPane,
    Rendered,
    move_row,
    scores_table,
    times_table,
)

SPEEDS = (2.0, 1.0, 0.5, 0.3, 0.2, 0.1, 0.05, 0.02)
"""The paces of playback, in seconds a decision (``+`` goes right, ``−`` left)."""
FOLLOW_POLL_S = 0.1
"""How often a followed log is read for new lines, and new moves shown."""


Seen = tuple[MatchEvent, Any]
"""The next event of a seat view with the seat's observation before it (its own decisions;
else None): what a competition server sends a watcher of one seat."""
Arrival = ReplayStep | Seen
"""What a live match brings: a step of the match log's replay, or of a seat view."""
Arrivals = queue.Queue[Arrival | ArenaError | None]
"""What the follower thread hands the app: the next arrival, why it stopped, or None (the
end)."""


def nearest_speed(delay: float) -> int:
    """The index in ``SPEEDS`` of the pace nearest ``delay``."""
    return min(range(len(SPEEDS)), key=lambda i: abs(SPEEDS[i] - delay))


class WatchApp(App[None]):
    """Watch one match: see the module docstring."""

    TITLE = "arena watch"
    CSS = """
    #title { height: 1; background: $panel; padding: 0 1; }
    #status { height: 1; padding: 0 1; background: $boost; }
    #main { height: 1fr; }
    #left { width: 1fr; }
    #side { width: 48; }
    #scores { height: auto; max-height: 14; }
    #times { height: 5; }
    #outputs { height: 8; }
    #outputs.-hidden { display: none; }
    #goto { dock: bottom; display: none; }
    #goto.-shown { display: block; }
    .-narrow #main { layout: vertical; }
    .-narrow #left { height: auto; max-height: 75%; }
    .-narrow BoardView { height: auto; }
    .-narrow #side { width: 100%; height: 1fr; min-height: 5; layout: horizontal; }
    .-narrow #moves { width: 1fr; }
    .-narrow #figures { width: 38; }
    .-narrow #outputs { height: 6; }
    """
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (110, "-wide")]
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("space", "toggle_play", "play/pause", priority=True),
        Binding("left", "step(-1)", "step", key_display="←/→", priority=True),
        Binding("right", "step(1)", "step", show=False, priority=True),
        Binding("left_square_bracket,shift+left", "round(-1)", "round", key_display="[ ]",
                priority=True),
        Binding("right_square_bracket,shift+right", "round(1)", "next round", show=False,
                priority=True),
        Binding("home", "first", "first", show=False, priority=True),
        Binding("end", "last", "last", show=False, priority=True),
        Binding("colon", "goto", "go to", key_display=":", priority=True),
        Binding("plus,equals_sign", "speed(1)", "speed", key_display="+/−", priority=True),
        Binding("minus", "speed(-1)", "slower", show=False, priority=True),
        Binding("tab", "next_view", "view", priority=True),
        Binding("f", "follow", "follow", priority=True),
        Binding("o", "outputs", "output", priority=True),
        Binding("q", "quit", "quit", priority=True),
    ]

    def __init__(self, timeline: Timeline, *, view: View = None, delay: float | None = None,
                 follow: bool = False, live: Iterator[Arrival] | None = None) -> None:
        """``follow``: follow the timeline's log from the start; ``live``: what is still to
        come of a match streamed live (the referee's steps, `arena watch --referee`; a
        competition server's, `arena watch --server`: steps, or a seat view's events), followed
        from the start until it ends."""
        super().__init__()
        self.timeline = timeline
        if view not in timeline.views:
            view = timeline.views[0]
        self.view: View = view
        self.position = 0
        self.playing = False
        self.speed = nearest_speed(0.3 if delay is None else delay)
        self.following = False
        self.pinned = False
        """At the newest position by End (or from the start of following): stays with it."""
        self._follow_at_start = follow or live is not None
        self._live = live
        self._timer: Timer | None = None
        self._poller: Timer | None = None
        self._arrivals: Arrivals = queue.Queue()
        self._stop = threading.Event()
        self._follower: threading.Thread | None = None
        self._rounds_shown = -1
        self.message = ""
        """What the status bar says until the next move (an error, a hint)."""
        self.error = False

    # layout

    def compose(self) -> ComposeResult:
        bots = self.timeline.header.bot_names
        yield Static(id="title")
        with Horizontal(id="main"):
            with Vertical(id="left"):
                yield BoardView(self.timeline.header.game, id="board")
            with Vertical(id="side"):
                yield MoveList(id="moves")
                with Vertical(id="figures"):
                    yield Rendered(id="scores")
                    yield Rendered(id="times")
        yield Static(id="status")
        with Horizontal(id="outputs"):
            for seat in (0, 1):
                yield OutputPane(f"seat {seat} output ({bots[seat]})", id=f"output{seat}")
        yield Input(placeholder="go to decision N (Enter; Esc: back)", id="goto",
                    restrict=r"[0-9]*")
        yield Footer()

    def on_mount(self) -> None:
        self._rebuild_rows()
        self.position = self.timeline.last if self._follow_at_start else 0
        self.refresh_outputs()
        self.show_position()
        self.query_one(MoveList).focus()
        if self._follow_at_start:
            self.action_follow()
            self.pinned = True

    def on_unmount(self) -> None:
        self._stop.set()

    async def action_quit(self) -> None:
        """Stop playing and following first: no tick draws on a closing screen."""
        for timer in (self._timer, self._poller):
            if timer is not None:
                timer.stop()
        self._stop.set()
        self.exit()

    # what is shown

    def _rebuild_rows(self) -> None:
        rows = [self._row(i) for i in range(len(self.timeline.moves))]
        rows.append(self._end_row())
        self.query_one(MoveList).set_rows(rows)

    def _row(self, index: int) -> Text:
        timeline = self.timeline
        move = timeline.moves[index]
        start = None if index and timeline.moves[index - 1].round == move.round else move.round
        return move_row(move.n, move.seat, timeline.header.bot_names[move.seat],
                        move.text(self.view), start)

    def _end_row(self) -> Text:
        end = self.timeline.end
        if end is None:
            return Text("     … the match goes on" if self.following else
                        "     (the log ends here)", style="dim")
        result = end.result
        if result.void:
            outcome = "void"
        elif result.winner is None:
            outcome = "draw"
        else:
            outcome = f"{self.timeline.header.bot_names[result.winner]} wins"
        return plain(f"     end: {outcome} {result.totals[0]}–{result.totals[1]} "
                     f"({result.termination})", "bold")

    def show_position(self) -> None:
        """Draw everything for the current position and view."""
        try:
            self._show_position()
        except NoMatches:  # a timer's last tick while the app closes: nothing to draw on
            if self.is_running and self.screen.is_attached:
                raise

    def _show_position(self) -> None:
        timeline, position, view = self.timeline, self.position, self.view
        header = timeline.header
        bots = header.bot_names
        board, note = timeline.board(position, view)
        self.query_one(BoardView).show(board, note)
        moves = self.query_one(MoveList)
        if moves.highlighted != position:
            with moves.prevent(OptionList.OptionHighlighted):  # only the viewer's picks seek
                moves.highlighted = position
        rounds = timeline.scores(position)
        shown = min(len(rounds), 9)  # its height changes with the rounds shown only
        self.query_one("#scores", Rendered).show(scores_table(bots, rounds),
                                                 layout=shown != self._rounds_shown)
        self._rounds_shown = shown
        self.query_one("#times", Rendered).show(times_table(bots, timeline.times(position, view)),
                                                layout=False)
        title = plain(f"{header.game} · {bots[0]} vs {bots[1]} · {header.match_id} · ")
        title.append(f"view: {view_name(view)}", style="bold")
        if len(timeline.views) > 1:
            title.append("  (Tab: " + ", ".join(view_name(v) for v in timeline.views) + ")",
                         style="dim")
        self.query_one("#title", Static).update(title, layout=False)
        self.query_one("#status", Static).update(self._status(), layout=False)

    def _status(self) -> Text:
        timeline, position = self.timeline, self.position
        bots = timeline.header.bot_names
        total = len(timeline.moves)
        status = Text()
        if position < total:
            move = timeline.moves[position]
            status.append(f"decision {move.n}/{total} · round {move.round + 1} · ")
            status.append_text(plain(f"{bots[move.seat]} (seat {move.seat})",
                                     SEAT_STYLES[move.seat]))
            status.append_text(plain(f" → {move.text(self.view)}"))
        elif timeline.end is not None:
            status.append_text(self._end_row())
        else:
            status.append(f"after decision {total}: the log goes no further yet", style="dim")
        state = "▶ playing" if self.playing else "❚❚ paused"
        status.append(f"   {state} {SPEEDS[self.speed]:g} s", style="dim")
        if self.following:
            status.append("   following" + (" (newest)" if self.pinned else ""),
                          style="bold green")
        if self.message:
            status.append_text(plain(f"   {self.message}", "bold red" if self.error
                                     else "bold yellow"))
        return status

    def say(self, message: str, *, error: bool = False) -> None:
        """A line in the status bar until the next move."""
        self.message, self.error = message, error
        self.query_one("#status", Static).update(self._status(), layout=False)

    def refresh_outputs(self) -> None:
        """Each bot's output tail beside the log; a view of one seat shows that seat's only."""
        tails = [self.timeline.output_tail(seat) for seat in (0, 1)]
        pane = self.query_one("#outputs")
        if not any(tails):  # no output file, or nothing in them: the room goes to the board
            pane.add_class("-hidden")
            return
        for seat, tail in enumerate(tails):
            widget = self.query_one(f"#output{seat}", OutputPane)
            shown = self.view is None or self.view == seat
            widget.display = shown
            if shown:
                widget.show("(no output file)" if tail is None else tail or "(no output)")

    # moving

    def seek(self, position: int, *, pin: bool = False) -> None:
        self.position = max(0, min(position, self.timeline.last))
        self.pinned = pin
        self.message = ""
        self.show_position()

    @on(OptionList.OptionHighlighted, "#moves")
    def _picked(self, event: OptionList.OptionHighlighted) -> None:
        if not self.is_running or not self.query(BoardView):
            return  # the list emptied as the app closes
        if event.option_index != self.position:
            self.seek(event.option_index)

    def action_step(self, delta: int) -> None:
        self.seek(self.position + delta)

    def action_round(self, step: int) -> None:
        self.seek(self.timeline.round_start(self.position, step))

    def action_first(self) -> None:
        self.seek(0)

    def action_last(self) -> None:
        self.seek(self.timeline.last, pin=self.following)

    def action_goto(self) -> None:
        box = self.query_one("#goto", Input)
        box.value = ""
        box.add_class("-shown")
        box.focus()

    @on(Input.Submitted, "#goto")
    def _goto(self, event: Input.Submitted) -> None:
        self._close_goto()
        total = len(self.timeline.moves)
        try:
            n = int(event.value)
        except ValueError:
            return
        if not 1 <= n <= total + 1:
            self.say(f"no decision {n}: this match has {total} (1 to {total}, or {total + 1} "
                     "for the end)", error=True)
            return
        self.seek(n - 1)

    def _close_goto(self) -> None:
        self.query_one("#goto", Input).remove_class("-shown")
        self.query_one(MoveList).focus()

    def on_key(self, event: object) -> None:
        key = getattr(event, "key", "")
        if key == "escape" and self.query_one("#goto", Input).has_class("-shown"):
            self._close_goto()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """While the "go to" box is open, keys go to it (digits, Enter, Esc)."""
        if action != "goto" and self.is_mounted_goto():
            return False
        return True

    def is_mounted_goto(self) -> bool:
        boxes = self.query("#goto")
        return bool(boxes) and boxes.first().has_class("-shown")

    # playing

    def action_toggle_play(self) -> None:
        if self.playing:
            self._pause()
            return
        if self.position >= self.timeline.last and not self.following:
            self.position = 0
        self.playing = True
        self._restart_timer()
        self.show_position()

    def _pause(self) -> None:
        self.playing = False
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        self.show_position()

    def _restart_timer(self) -> None:
        if self._timer is not None:
            self._timer.stop()
        self._timer = self.set_interval(SPEEDS[self.speed], self._tick)

    def _tick(self) -> None:
        if self.position < self.timeline.last:
            self.seek(self.position + 1, pin=self.pinned)
        elif not self.following:
            self._pause()

    def action_speed(self, step: int) -> None:
        self.speed = max(0, min(len(SPEEDS) - 1, self.speed + step))
        if self.playing:
            self._restart_timer()
        self.show_position()

    def action_next_view(self) -> None:
        views = self.timeline.views
        if len(views) == 1:
            self.say(f"this file holds only {view_name(views[0])}'s view")
            return
        self.view = views[(views.index(self.view) + 1) % len(views)]
        self._rebuild_rows()
        self.refresh_outputs()
        self.show_position()

    def action_outputs(self) -> None:
        self.query_one("#outputs").toggle_class("-hidden")

    # following

    def action_follow(self) -> None:
        """Follow the log as it grows (again: stop following)."""
        if self.following:
            self._stop.set()
            self._stop_following()
            return
        log, live = self.timeline.log, self._live
        self._stop = stop = threading.Event()
        if self.timeline.end is not None:
            self.say("the match is over: there is nothing more to follow")
            return
        if live is not None:
            self._live = None  # a stream is read once: following it again is not possible
            steps: Iterator[Arrival] = live
        elif log is None or self.timeline.seat_view:
            self.say("only a match log on this machine, or a match live from --referee or "
                     "--server, can be followed", error=True)
            return
        else:
            steps = self._log_steps(log, self.timeline.events, stop)
        self._arrivals = queue.Queue()
        self._follower = threading.Thread(
            target=self._follow, args=(steps, stop, self._arrivals),
            name="arena-watch-follow", daemon=True)
        self._follower.start()
        self.following = True
        self.pinned = self.position == self.timeline.last
        self._poller = self.set_interval(FOLLOW_POLL_S, self._take_arrivals)
        self._rebuild_rows()
        self.show_position()

    @staticmethod
    def _log_steps(log: Path, known: int, stop: threading.Event) -> Iterator[ReplayStep]:
        """The log replayed as it grows (every event checked by the rules engine), from the
        event after the ``known`` first; it ends when the match does, or when ``stop`` is
        set."""
        steps = replay_events(follow_events(log, poll_s=FOLLOW_POLL_S, stopped=stop.is_set))
        for index, step in enumerate(steps):
            if index >= known:
                yield step

    @staticmethod
    def _follow(steps: Iterator[Arrival], stop: threading.Event, out: Arrivals) -> None:
        """(A thread) queue each arrival as it comes; None when the match ends."""
        try:
            for step in steps:
                if stop.is_set():
                    return
                out.put(step)
                event = step.event if isinstance(step, ReplayStep) else step[0]
                if isinstance(event, MatchEndEvent):
                    break  # (a stream may stay open after it)
        except ArenaError as exc:
            out.put(exc)
        out.put(None)

    def _take_arrivals(self) -> None:
        changed = done = False
        while True:
            try:
                item = self._arrivals.get_nowait()
            except queue.Empty:
                break
            if isinstance(item, ReplayStep):
                self.timeline.add(item)
                changed = True
                continue
            if isinstance(item, tuple):
                self.timeline.add_seen(*item)
                changed = True
                continue
            if item is not None:
                self.message, self.error = plain_text(f"follow stopped: {item}"), True
            done = True
            break
        if changed:
            self._arrived()
        if done:
            self._stop_following()

    def _arrived(self) -> None:
        moves = self.query_one(MoveList)
        count = moves.option_count  # the moves shown and the end's row
        rows = [self._row(i) for i in range(count - 1, len(self.timeline.moves))]
        rows.append(self._end_row())
        moves.replace_option_prompt_at_index(count - 1, rows[0])
        moves.add_options(rows[1:])
        if self.pinned:
            self.position = self.timeline.last
        self.refresh_outputs()
        self.show_position()

    def _stop_following(self) -> None:
        self.following = False
        if self._poller is not None:
            self._poller.stop()
            self._poller = None
        self.query_one(MoveList).replace_option_prompt_at_index(
            len(self.timeline.moves), self._end_row())
        self.show_position()


def open_log(path: Path, *, wait: bool = False, poll_s: float = FOLLOW_POLL_S) -> Timeline:
    """The timeline of the match log at ``path`` as far as it is written, every event checked
    by the rules engine (``ArenaError``: what is wrong with it). With ``wait``, wait for the
    log to appear with its header first (a match about to start)."""
    while wait and not _has_header(path):
        time.sleep(poll_s)
    return Timeline.of_steps(replay_events(read_events(path)), log=path)


def _has_header(path: Path) -> bool:
    try:
        with path.open("rb") as f:
            return f.readline().endswith(b"\n")
    except OSError:
        return False


def open_live(events: Iterable[MatchEvent]) -> tuple[Timeline, Iterator[ReplayStep]]:
    """A match streamed live (``arena.serve.client.watch_on_referee``): its timeline from the
    header (waiting for it) and the steps still to come, each checked by the rules engine."""
    steps = replay_events(events)
    first = next(steps, None)
    if first is None:
        raise LogFormatError("the match stream ended before its header")
    return Timeline.of_steps([first]), steps


def open_records(records: Iterable[str]) -> tuple[Timeline, Iterator[Arrival]]:
    """A match as a competition server sends it to a watcher (``WatchFrame.record``, one JSON
    record each): the whole match log's records (every event checked by the rules engine as it
    comes), or one seat's view (its ``seat_header`` first: that seat's observations, the other
    seat's moves hidden). Its timeline from the first record and what is still to come."""
    iterator = iter(records)
    first = next(iterator, None)
    if first is None:
        raise LogFormatError("the match stream ended before its header")
    data = _record(first)
    if data.get("type") != SEAT_HEADER:
        return open_live(itertools.chain([_log_event(data)],
                                         (_log_event(_record(r)) for r in iterator)))
    try:
        header, seat = seat_header(data)
    except (KeyError, TypeError, ValueError) as exc:
        raise LogFormatError(f"the server sent a seat view header that is none: {exc}"
                             ) from None
    timeline = Timeline.of_seat_view(header, seat, (), HIDDEN_MOVE)
    return timeline, _seen(iterator, header, seat)


def _seen(records: Iterator[str], header: HeaderEvent, seat: int) -> Iterator[Seen]:
    for text in records:
        try:
            yield seat_record(_record(text), header, seat)
        except LogFormatError:
            raise
        except (KeyError, TypeError, ValueError, IndexError, json_format.ParseError) as exc:
            raise LogFormatError(f"the server sent a seat view record that is none "
                                 f"({type(exc).__name__}: {exc})") from None


def _record(text: str) -> dict[str, Any]:
    try:
        data = json.loads(text)
    except ValueError:
        data = None
    if not isinstance(data, dict):
        raise LogFormatError(f"the server sent a record that is no JSON object: "
                             f"{plain_text(text)[:80]!r}")
    return data


def _log_event(data: dict[str, Any]) -> MatchEvent:
    try:
        return event_from_json(data)
    except LogFormatError as exc:
        raise LogFormatError(f"the server sent a record that is none: {exc}") from None


def run_watch(timeline: Timeline, *, view: View = None, delay: float | None = None,
              follow: bool = False, live: Iterator[Arrival] | None = None) -> None:
    """Run the app on the terminal until the viewer quits."""
    WatchApp(timeline, view=view, delay=delay, follow=follow, live=live).run()
