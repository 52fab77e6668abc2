"""`arena watch`: render a match in the terminal, replayed from its log or followed live (from a
log being written, an `arena serve`, or a competition server: ``--server``, handed over to
``arena.cli.remote_cmds``).

A replay's pace is ``--delay`` seconds a move; by default (``replay_pace``) 0.3 s, faster for a
long match so that a replay takes about ``REPLAY_SECONDS`` (a 134-move Lost Cities match took
40 s at 0.3 s). On a terminal the line under the board says the pace and how to change it.
Frames are laid out for the console's width (the renderers fit 80 columns, piped or not)."""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console, Group, RenderableType
from rich.live import Live
from rich.text import Text

from arena.cli.common import console, err_console, handle_errors, help_of, notice
from arena.cli.remote_cmds import remote_requested, watch_remote
from arena.errors import ConfigError
from arena.games import get_game
from arena.model import DecisionEvent, HeaderEvent, MatchEvent
from arena.record.log import follow_events, read_events
from arena.record.replay import replay_events
from arena.render import renderer_for
from arena.render.html import ReplayPage, replay_page, seat_view_page
from arena.render.match import render_frame
from arena.render.seat_view import HIDDEN_MOVE, is_seat_view, read_seat_view, seat_view_frames
from arena.render.text import plain

DEFAULT_DELAY_S = 0.3
"""Seconds a move of a replay of a short match."""
REPLAY_SECONDS = 15.0
"""About how long a replay lasts at the default pace once a match has more than 50 moves."""
MIN_DELAY_S = 0.02
"""The default pace never goes below this (a match of thousands of moves takes longer)."""


def replay_pace(decisions: int | None) -> float:
    """The default seconds a move for a replay of ``decisions`` moves (None: not known
    beforehand, e.g. a competition server's frames: 0.1 s)."""
    if decisions is None:
        return 0.1
    return max(MIN_DELAY_S, min(DEFAULT_DELAY_S, REPLAY_SECONDS / max(decisions, 1)))


def register(app: typer.Typer) -> None:
    app.command("watch", help=help_of(watch))(watch)


@handle_errors
def watch(
    log: Annotated[Path | None, typer.Argument(help="A match log (.jsonl). Omit it with "
                                                    "--referee/--match.")] = None,
    follow: Annotated[bool, typer.Option("--follow", "-f", help="Follow a match that is still "
                                         "running, move by move, until it ends.")] = False,
    seat: Annotated[int | None, typer.Option(help="Show only what this seat (0 or 1) saw. "
                                             "Default: the omniscient view.", min=0, max=1)
                    ] = None,
    delay: Annotated[float | None, typer.Option(
        help="Seconds per move when replaying a finished log (0: show the final position at "
        "once). Default: 0.3, less for a long match, so a replay takes about 15 s.",
        min=0.0, show_default=False)] = None,
    referee: Annotated[str | None, typer.Option(help="Follow a match through a running "
                       "`arena serve` (unix:///path, 127.0.0.1:PORT, or `default`: the socket "
                       "`arena serve` listens on by default); needs --match.")] = None,
    match_id: Annotated[str | None, typer.Option("--match", help="The match id to follow "
                                                 "through --referee or --server.")] = None,
    html: Annotated[Path | None, typer.Option(
        "--html", dir_okay=False, help="Write the replay as ONE self-contained HTML file (the "
        "match data, the style and a small player inline; it opens offline in any browser) "
        "instead of showing it. With --seat the page holds only that seat's view.")] = None,
    server: Annotated[str | None, typer.Option("--server", help="Watch a match on a "
                      "competition server (a profile of `arena login`; may be left out when "
                      "ARENA_SERVER is set), live with --follow or replayed, as its visibility "
                      "setting allows; needs --match.")] = None,
    plain_output: Annotated[bool, typer.Option(
        "--plain", help="No interactive app on a terminal: replay the frames one after the "
        "other, as when piped (then only the final position is printed).")] = False,
) -> None:
    """Render a match: expeditions/hands/tricks, piles, scores and each move as it happens.

    On a terminal a match log (or a seat view from `arena logs`) opens in an interactive app:
    the board of each decision, the moves (select one to go there), the score by round, each
    seat's wall and CPU time and each bot's output. Keys: space play/pause, left/right one
    decision, [ ] (shift+left/right) a round, Home/End, `:` go to decision N, +/- speed, Tab the
    view (everything, seat 0, seat 1), f follow a log still being written, o the output pane,
    q quit (docs/cli.md).

    With --plain (or piped) a finished log is replayed at --delay seconds a move (by default
    0.3, faster for a long match: a replay takes about 15 s); --delay 0 shows the final position
    at once. Piped (or not on a terminal) only the final position is printed, fitted to the
    width (COLUMNS, 80 when piped).

    Every frame is rebuilt from the rules engine (the log is verified as it is read), so what you
    see is what the engine says. With --seat the board shows only that seat's observation.

    With --html OUT.html the replay goes to a web page instead: play/pause, step, jump to a move
    or a round, speed, keyboard shortcuts, and a view selector (everything, or exactly what
    seat 0 or seat 1 saw). A log cut short gives the complete moves and says the match is
    unfinished. A seat view that `arena logs` wrote (FILE.seat-view.jsonl) replays as that
    seat saw it, in the terminal or as a page, and nothing else.

    With --server NAME --match ID the match comes from a competition server (on a terminal in
    the app, following it as it is played): while it runs you see only your own bot's seat
    (--seat N), after it ends what the competition allows.
    """
    remote = _remote_match(log, referee, html, server, match_id)
    if remote is not None:
        watch_remote(server, remote, seat=seat, follow=follow,
                     delay=replay_pace(None) if delay is None else delay,
                     interactive=console.is_terminal and not plain_output)
        return
    interactive = console.is_terminal and not plain_output
    if log is not None and is_seat_view(log):
        play_seat_view(log, seat=seat, follow=follow, html=html, delay=delay,
                       interactive=interactive)
        return
    if html is not None:
        if follow or referee is not None:
            raise ConfigError("--html writes the replay of a match log; it cannot follow a "
                              "running match (drop --follow/--referee)")
        write_html(html, _source(log, False, None, None), seats=_seats(seat))
        return
    if interactive and referee is None and log is not None:
        watch_app(log, seat=seat, follow=follow, delay=delay)
        return
    if interactive and referee is not None:
        watch_live(_source(log, follow, referee, match_id), seat=seat, delay=delay)
        return
    events = _source(log, follow, referee, match_id)
    play(events, seat=seat, delay=0.0 if (follow or referee) else delay, out=console)


def _remote_match(log: Path | None, referee: str | None, html: Path | None,
                  server: str | None, match_id: str | None) -> str | None:
    """The match to watch on a competition server (--server given, or ARENA_SERVER set with a
    bare --match: no log, no --referee), or None to watch locally."""
    if server is None and (log is not None or referee is not None or match_id is None):
        return None
    if not remote_requested(server):
        return None
    if log is not None or referee is not None or html is not None:
        raise ConfigError("--server watches a match on a competition server: drop the log, "
                          "--referee and --html (download the log with `arena logs` first)")
    if match_id is None:
        raise ConfigError("--server needs --match MATCH_ID (see `arena matches --server`)")
    return match_id


def _source(log: Path | None, follow: bool, referee: str | None, match_id: str | None
            ) -> Iterable[MatchEvent]:
    if referee is not None:
        if match_id is None:
            raise ConfigError("--referee needs --match MATCH_ID (see `arena serve` output)")
        # start-up: `arena` imports it for this command only (a remote referee's client)
        from arena.serve.client import watch_on_referee

        return watch_on_referee(referee, match_id)
    if log is None:
        raise ConfigError("give a match log, or --referee ADDRESS --match MATCH_ID")
    if follow:
        if not log.exists():
            err_console.print(plain(f"waiting for {log} to appear (Ctrl-C stops)…"))
        return follow_events(log)
    if not log.is_file():
        raise ConfigError(f"no match log at {log}")
    return read_events(log)


def _seats(seat: int | None) -> tuple[int | None, ...]:
    return (None, 0, 1) if seat is None else (seat,)


def html_replay(events: Iterable[MatchEvent], seats: Sequence[int | None] = (None, 0, 1)
                ) -> ReplayPage:
    """The replay page of a match log's events: the frames rebuilt by the rules engine (the
    log verified as it is read, as for the terminal), every view in ``seats``."""
    return replay_page(((step.event, step.state) for step in replay_events(events)),
                       seats=seats)


def write_html(out: Path, events: Iterable[MatchEvent], seats: Sequence[int | None]) -> None:
    """Build the page (entirely, before writing anything) and write it to ``out``."""
    write_page(out, html_replay(events, seats))


def write_page(out: Path, page: ReplayPage) -> None:
    """Write a replay page to ``out`` and say what it holds."""
    try:
        out.write_text(page.html, encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"cannot write {out}: {exc.strerror}") from None
    console.print(plain(f"wrote {out}: {page.decisions} moves, "
                        f"{len(page.html) / 1024:.0f} KiB"), soft_wrap=True)  # the path whole
    if not page.finished:
        err_console.print(notice("note", "yellow", f"the log ends after move {page.decisions} "
                                 "without a match end: the page shows the complete moves and "
                                 "says the match is unfinished"))


def frames(events: Iterable[MatchEvent], seat: int | None
           ) -> Iterator[tuple[MatchEvent, RenderableType]]:
    """(event, frame) for every event, the board rebuilt by the rules engine."""
    seen: list[MatchEvent] = []
    header: HeaderEvent | None = None
    before: object = None  # the state before the event (the one its decision was made in)
    for step in replay_events(events):
        if isinstance(step.event, HeaderEvent):
            header = step.event
            game = get_game(header.game)
            renderer = renderer_for(header.game)
        assert header is not None, "replay_events starts with the header"
        seen.append(step.event if seat is None else seen_by(game, before, step.event, seat))
        before = step.state
        if seat is None:
            board = renderer.render_state(step.state)
        else:
            board = renderer.render_view(game.observation(step.state, seat))
        yield step.event, render_frame(board, seen, header, seat)


def seen_by(game: Any, state: Any, event: MatchEvent, seat: int) -> MatchEvent:
    """``event`` as ``seat`` saw it: the other seat's move in the text the game shows ``seat``
    (its optional ``action_text_for``; a simultaneous move, e.g. a Goofspiel bid, is hidden
    until revealed), every other event as it is."""
    shows = getattr(game, "action_text_for", None)
    if (shows is None or not isinstance(event, DecisionEvent) or event.seat == seat
            or event.fault is not None or event.action is None):
        return event
    return replace(event, action=shows(state, game.parse_action(event.action), seat))


def play(events: Iterable[MatchEvent], *, seat: int | None, delay: float | None,
         out: Console) -> None:
    """Show the frames: animated on a terminal (``delay`` seconds a move; None: the default
    pace for the match's length, ``replay_pace``), only the final frame otherwise."""
    last: RenderableType | None = None
    if not out.is_terminal:
        for _, frame in frames(events, seat):
            last = frame
        if last is not None:
            out.print(last)
        return
    if delay is None:
        events = list(events)
        delay = replay_pace(sum(isinstance(e, DecisionEvent) for e in events))
    footer = pace_line(delay)
    due = time.monotonic()  # when the next move is due: drawing a frame is part of its delay
    with Live(console=out, auto_refresh=False, transient=False) as live:
        for event, frame in frames(events, seat):
            live.update(frame if footer is None else Group(frame, footer), refresh=True)
            if delay and isinstance(event, DecisionEvent):
                due = max(due + delay, time.monotonic())
                time.sleep(max(0.0, due - time.monotonic()))


def watch_app(log: Path, *, seat: int | None, follow: bool, delay: float | None) -> None:
    """The interactive app (``arena.tui.watch``) on a local match log; with ``follow``, from
    its newest position as it grows (waiting for it to start)."""
    # start-up: `arena` imports it for this command only (Textual)
    from arena.tui.watch import open_log, run_watch

    if follow and not log.exists():
        err_console.print(plain(f"waiting for {log} to appear (Ctrl-C stops)…"))
    elif not log.is_file():
        raise ConfigError(f"no match log at {log}")
    timeline = open_log(log, wait=follow)
    if delay is None:
        delay = replay_pace(len(timeline.moves))
    run_watch(timeline, view=seat, delay=delay, follow=follow and timeline.end is None)


def watch_live(events: Iterable[MatchEvent], *, seat: int | None, delay: float | None
               ) -> None:
    """The interactive app on a match streamed live (``--referee``), following it."""
    # start-up: `arena` imports it for this command only (Textual)
    from arena.tui.watch import open_live, run_watch

    timeline, steps = open_live(events)
    run_watch(timeline, view=seat, delay=replay_pace(None) if delay is None else delay,
              live=steps)


def play_seat_view(path: Path, *, seat: int | None, follow: bool, html: Path | None,
                   delay: float | None, interactive: bool = False) -> None:
    """Replay a seat view that `arena logs` wrote (``arena.render.seat_view``), in the terminal
    (the app when ``interactive``) or as a page (``--html``), the board being that seat's
    observations."""
    if follow:
        raise ConfigError(f"{path} is one seat's view of a finished match: it cannot be "
                          "followed (drop --follow)")
    view = read_seat_view(path)
    if seat is not None and seat != view.seat:
        raise ConfigError(f"{path} holds only seat {view.seat}'s view (drop --seat, or give "
                          f"--seat {view.seat})")
    if html is not None:
        write_page(html, seat_view_page(view.header, view.seat, view.events))
        return
    if interactive:
        # start-up: `arena` imports these for this command only (Textual)
        from arena.tui.model import Timeline
        from arena.tui.watch import run_watch

        timeline = Timeline.of_seat_view(view.header, view.seat, view.events, HIDDEN_MOVE)
        run_watch(timeline, view=view.seat, delay=replay_pace(len(timeline.moves))
                  if delay is None else delay)
        return
    shown = list(seat_view_frames(view))
    if not console.is_terminal:
        console.print(shown[-1][1])
        return
    if delay is None:
        delay = replay_pace(sum(isinstance(e, DecisionEvent) for e, _ in shown))
    footer = pace_line(delay)
    with Live(console=console, auto_refresh=False, transient=False) as live:
        for event, frame in shown:
            live.update(frame if footer is None else Group(frame, footer), refresh=True)
            if delay and isinstance(event, DecisionEvent):
                time.sleep(delay)


def pace_line(delay: float) -> Text | None:
    """The line under a replay's board: its pace and how to change it (None: no pace)."""
    if not delay:
        return None
    return Text(f"{delay:.2g} s a move (--delay SECONDS changes it; 0: the final position at "
                "once)", style="dim")
