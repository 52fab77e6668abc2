"""A watched match as plain-text frames: what the competition server sends a watcher
(`arena watch --server`), one frame after each event, from the whole board or one seat.

A seat's frame is drawn from ``game.observation(state, seat)`` alone: the engine decides what a
seat sees, so no hidden card can slip through a caption or a header (the seed, which determines
every deal, is never in a seat's frame; the opponent's moves are captioned "moved", the board
shows what of them the seat saw). Who may watch which seat is the server's rule
(``arena.host.views.sight``); the server's feeds (``arena.host.feeds``) share one rendering per
watched view. Pure but for the rules engine's replay of the events it is given.
"""

from __future__ import annotations

import io
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from rich.console import Console

from arena.games import get_game
from arena.model import (
    DecisionEvent,
    HeaderEvent,
    MatchEndEvent,
    MatchEvent,
    RoundEndEvent,
    plain_text,
)
from arena.record.replay import ReplayStep, replay_events
from arena.render import renderer_for

BOARD_WIDTH = 78
"""Columns of a rendered board (it fits an 80-column terminal as it is)."""


@dataclass(frozen=True)
class Frame:
    """One screen of a watched match, as plain text."""

    board: str
    """A title line (game, bots, point of view, totals), then the board."""
    caption: str
    seat: int | None
    """The seat it is seen from; None: the whole board."""
    final: bool
    record: str = ""
    """The event as a record the watcher may have (the competition server's feeds fill it in:
    ``arena.host.views.watch_records``); empty: none."""


def _text(renderable: Any) -> str:
    """``renderable`` drawn as plain text (no colours, no escape sequences)."""
    out = io.StringIO()
    Console(file=out, width=BOARD_WIDTH, color_system=None, force_terminal=False,
            legacy_windows=False, emoji=False, highlight=False).print(renderable)
    return plain_text(out.getvalue())


def seat_frames(events: Iterable[MatchEvent], seat: int | None, start: int = 0
                ) -> Iterator[Frame]:
    """A frame after every event of a match log from the ``start``-th on, seen from ``seat``
    (None: the whole board), the log verified by the rules engine as it is read (from the
    first event: a replay is cheap, a drawing is not, so only the frames asked for are drawn)."""
    return step_frames(replay_events(events), seat, start)


def step_frames(steps: Iterable[ReplayStep], seat: int | None, start: int = 0, *,
                boards: bool = True) -> Iterator[Frame]:
    """``seat_frames`` of a replay's steps (``replay_events``), all of them from the header;
    without ``boards``, each frame's board left empty (nothing drawn: the caption only)."""
    header: HeaderEvent | None = None
    renderer: Any = None
    game: Any = None
    totals = (0, 0)
    for number, step in enumerate(steps):
        event = step.event
        if isinstance(event, HeaderEvent):
            header, game, renderer = event, get_game(event.game), renderer_for(event.game)
        assert header is not None, "replay_events starts with the header"
        if isinstance(event, RoundEndEvent):
            totals = event.totals
        if number < start:
            continue
        caption = _caption(event, header, seat)
        if not boards:
            yield Frame("", caption, seat, isinstance(event, MatchEndEvent))
            continue
        if seat is None:
            board = renderer.render_state(step.state)
        else:
            board = renderer.render_view(game.observation(step.state, seat))
        names = header.bot_names
        title = (f"{header.game} · {names[0]} vs {names[1]} · "
                 + ("whole board" if seat is None else f"seat {seat} view ({names[seat]})")
                 + f" · totals {list(totals)}")
        yield Frame(plain_text(title) + "\n" + _text(board), caption, seat,
                    isinstance(event, MatchEndEvent))


def _caption(event: MatchEvent, header: HeaderEvent, seat: int | None) -> str:
    names = header.bot_names
    if isinstance(event, HeaderEvent):
        return "match start"
    if isinstance(event, DecisionEvent):
        who = f"seat {event.seat} ({names[event.seat]})"
        if seat is not None and event.seat != seat:
            return f"move {event.n}: {who} moved" + (" and forfeited" if event.fault else "")
        if event.fault is not None:
            return f"move {event.n}: {who} forfeited ({event.fault})"
        return f"move {event.n}: {who} plays {event.action}"
    if isinstance(event, RoundEndEvent):
        return f"round {event.round + 1} over: scores {list(event.scores)}"
    if isinstance(event, MatchEndEvent):
        result = event.result
        if result.void:
            return f"match over: void ({result.termination})"
        winner = "a draw" if result.winner is None else f"{names[result.winner]} wins"
        return f"match over: {winner} · totals {list(result.totals)} · {result.termination}"
    return f"round {getattr(event, 'round', 0) + 1} dealt"
