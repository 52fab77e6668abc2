"""What a contestant may see of a match, and the views the server sends them.

The rule (``sight``) is one pure function of the competition's ``logs`` setting, the seats the
caller's bots played and whether the match still runs:

* while a match runs, a contestant sees only the seats their own bots play, each from that
  seat's own view (what its bot is told): never the deal, the seed or the other hand;
* after it ends, ``public`` shows the whole match to anyone, ``participants`` the whole match to
  the owners of the bots that played it and nothing to others, ``own-seat`` each owner their own
  seat's view and nothing to others;
* a bot's output tail is its owner's only (and the operator's, on the host).

A seat's view is built from ``game.observation(state, seat)`` alone (``seat_frames``,
``seat_view_lines``): the engine decides what a seat sees, so no hidden card can slip through a
caption or a header (the seed, which determines every deal, is never in a seat's view; the
opponent's moves are captioned "moved", the board shows what of them the seat saw).
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from google.protobuf import json_format
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
from arena.referee.replay import replay_events
from arena.render import renderer_for
from arena.wire import encode_observation

OWN_SEAT, PARTICIPANTS, PUBLIC = "own-seat", "participants", "public"
BOARD_WIDTH = 78
"""Columns of a rendered board (it fits an 80-column terminal as it is)."""


@dataclass(frozen=True)
class Sight:
    """What a caller may see of one match."""

    seats: frozenset[int]
    """The seats whose own view they may see."""
    full: bool
    """The whole match: the omniscient log and board."""

    @property
    def nothing(self) -> bool:
        """They may see nothing of it."""
        return not self.seats and not self.full


def sight(setting: str, own_seats: Iterable[int], running: bool) -> Sight:
    """What a caller whose bots played ``own_seats`` may see of a match (module doc)."""
    own = frozenset(own_seats)
    if running:
        return Sight(own, False)
    if setting == PUBLIC:
        return Sight(frozenset((0, 1)), True)
    if setting == PARTICIPANTS:
        return Sight(frozenset((0, 1)), True) if own else Sight(frozenset(), False)
    return Sight(own, False)


@dataclass(frozen=True)
class Frame:
    """One screen of a watched match, as plain text."""

    board: str
    """A title line (game, bots, point of view, totals), then the board."""
    caption: str
    seat: int | None
    """The seat it is seen from; None: the whole board."""
    final: bool


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
    header: HeaderEvent | None = None
    renderer: Any = None
    game: Any = None
    totals = (0, 0)
    for number, step in enumerate(replay_events(events)):
        event = step.event
        if isinstance(event, HeaderEvent):
            header, game, renderer = event, get_game(event.game), renderer_for(event.game)
        assert header is not None, "replay_events starts with the header"
        if isinstance(event, RoundEndEvent):
            totals = event.totals
        if number < start:
            continue
        if seat is None:
            board = renderer.render_state(step.state)
        else:
            board = renderer.render_view(game.observation(step.state, seat))
        caption = _caption(event, header, seat)
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


def seat_view_lines(events: Iterable[MatchEvent], seat: int) -> Iterator[bytes]:
    """A finished match as one seat saw it, JSON lines: a header without the seed, every
    observation that seat was given before its decisions (the wire's JSON form) with the action
    it took, each round's scores and the result (no seed, no head paths; a fault's detail, the
    faulty bot's last output, only for the seat's own fault)."""
    header: HeaderEvent | None = None
    game: Any = None
    before: Any = None
    for step in replay_events(events):
        event = step.event
        if isinstance(event, HeaderEvent):
            header, game = event, get_game(event.game)
            data = event.to_json()
            data.pop("seed", None)
            data.update(type="seat_header", seat=seat)
            yield _line(data)
        elif isinstance(event, DecisionEvent) and event.seat == seat and before is not None:
            message = encode_observation(header.game, game.observation(before, seat))  # type: ignore[union-attr]
            yield _line({"type": "observation", "n": event.n, "round": event.round,
                         "observation": json_format.MessageToDict(message),
                         "action": event.action, "ms": event.ms,
                         "fault": None if event.fault is None else str(event.fault)})
        elif isinstance(event, DecisionEvent):
            yield _line({"type": "opponent_moved", "n": event.n, "round": event.round})
        elif isinstance(event, RoundEndEvent):  # the scores; the game's account may tell more
            yield _line({"type": event.type, "round": event.round,
                         "scores": list(event.scores), "totals": list(event.totals)})
        elif isinstance(event, MatchEndEvent):
            result = event.result
            yield _line({"type": event.type, "result": {
                "winner": result.winner, "totals": list(result.totals),
                "rounds": [list(r) for r in result.rounds],
                "termination": str(result.termination), "faulty_seat": result.faulty_seat,
                "void": result.void,
                "detail": plain_text(result.detail) if result.faulty_seat == seat else ""}})
        before = step.state


def _line(data: dict[str, Any]) -> bytes:
    return (json.dumps(data, separators=(",", ":")) + "\n").encode()
