"""Replaying a seat view: the file `arena logs` writes for one seat of a competition's match
(a ``seat_header`` without the seed, each observation that seat was given with the action it
took, an ``opponent_moved`` marker for each of the other seat's moves, the round ends, the
result, then the referee's signed statement).

There is no deal to rebuild the game from, so the board of each frame is what the file holds:
the seat's own observation before each of its decisions, decoded by the game's codec and drawn
by the game's renderer, as its bot was shown it. Every record is checked as it is read; a bad
one is a ``LogFormatError`` naming its line.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from google.protobuf import json_format
from rich.console import RenderableType
from rich.text import Text

from arena.errors import LogFormatError
from arena.games import get_game
from arena.model import (
    DecisionEvent,
    HeaderEvent,
    MatchEndEvent,
    MatchEvent,
    MatchResult,
    RoundEndEvent,
    Termination,
)
from arena.record.log import SIGNATURE_TYPE, STATEMENT_TYPE
from arena.render import renderer_for
from arena.render.match import render_frame
from arena.v1 import bot_pb2
from arena.wire import decode_observation

SEAT_HEADER = "seat_header"
HIDDEN_MOVE = "(not in this view)"
"""The action shown for the other seat's moves (a seat view records only that they happened)."""
MAX_LINE_BYTES = 4 << 20
"""A longer line is refused (an observation is a few kilobytes)."""


def is_seat_view(path: Path) -> bool:
    """Whether ``path`` starts like a seat view (its first line a ``seat_header``)."""
    try:
        with path.open("rb") as f:
            first = f.readline(MAX_LINE_BYTES)
        data = json.loads(first)
    except (OSError, ValueError):
        return False
    return isinstance(data, dict) and data.get("type") == SEAT_HEADER


@dataclass(frozen=True)
class SeatView:
    """A seat view read back: its header (no seed), its seat, and its events, each with the
    seat's observation (decoded) when the event is one of the seat's own decisions."""

    header: HeaderEvent
    seat: int
    events: tuple[tuple[MatchEvent, Any], ...]


def read_seat_view(path: Path) -> SeatView:
    """The seat view in ``path`` (``LogFormatError``: what is wrong and on which line)."""
    try:
        lines = path.read_bytes().splitlines()
    except OSError as exc:
        raise LogFormatError(f"{path}: cannot read it: {exc.strerror or exc}") from None
    header: HeaderEvent | None = None
    seat = 0
    events: list[tuple[MatchEvent, Any]] = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            if len(line) > MAX_LINE_BYTES:
                raise LogFormatError(f"a line over {MAX_LINE_BYTES >> 20} MiB")
            data = json.loads(line)
            if not isinstance(data, dict):
                raise LogFormatError("not a JSON object")
            kind = data.get("type")
            if header is None:
                if kind != SEAT_HEADER:
                    raise LogFormatError("a seat view starts with its seat_header")
                header, seat = seat_header(data)
            elif kind in (SIGNATURE_TYPE, STATEMENT_TYPE):
                continue  # checked by `arena verify FILE --key referee.pub`
            else:
                events.append(seat_record(data, header, seat))
        except LogFormatError as exc:
            raise LogFormatError(f"{path}, line {number}: {exc}") from None
        except (KeyError, TypeError, ValueError, IndexError, json_format.ParseError) as exc:
            raise LogFormatError(f"{path}, line {number}: not a seat view record "
                                 f"({type(exc).__name__}: {exc})") from None
    if header is None:
        raise LogFormatError(f"{path}: empty (a seat view starts with its seat_header)")
    return SeatView(header, seat, tuple(events))


def seat_header(data: dict[str, Any]) -> tuple[HeaderEvent, int]:
    """A seat view's ``seat_header`` record (decoded JSON): the match's header, no seed, and the
    seat (``LogFormatError``, ``KeyError``, ``TypeError``, ``ValueError``: not one)."""
    seat = data["seat"]
    if seat not in (0, 1):
        raise LogFormatError(f"seat {seat!r} is not 0 or 1")
    fields = {k: v for k, v in data.items() if k not in ("type", "seat")}
    fields.setdefault("seed_commitment", "(a seat view holds no seed)")
    header = HeaderEvent.from_json(fields)
    get_game(header.game)  # an unknown game: one line saying which
    return header, seat


def seat_record(data: dict[str, Any], header: HeaderEvent, seat: int) -> tuple[MatchEvent, Any]:
    """One record of a seat view after its header, as an event with the seat's observation
    (decoded) when it is one of the seat's own decisions, else None (``LogFormatError``,
    ``KeyError``, ``TypeError``, ``ValueError``, ``IndexError``, protobuf's ``ParseError``: not
    one)."""
    kind = data.get("type")
    if kind == "observation":
        message = json_format.ParseDict(data["observation"], bot_pb2.Observation())
        view = decode_observation(header.game, message)
        fault = data.get("fault")
        return DecisionEvent(int(data["n"]), int(data["round"]), seat, data.get("action"),
                             float(data.get("ms", 0.0)),
                             None if fault is None else Termination(fault)), view
    if kind == "opponent_moved":
        return DecisionEvent(int(data["n"]), int(data["round"]), 1 - seat, HIDDEN_MOVE,
                             0.0), None
    if kind == "round_end":
        scores, totals = data["scores"], data["totals"]
        return RoundEndEvent(int(data["round"]), (int(scores[0]), int(scores[1])),
                             (int(totals[0]), int(totals[1]))), None
    if kind == "match_end":
        r = data["result"]
        winner, faulty = r.get("winner"), r.get("faulty_seat")
        rounds = tuple((int(a), int(b)) for a, b in r.get("rounds", []))
        result = MatchResult(
            match_id=header.match_id, game=header.game, game_version=header.game_version,
            seed=0, options=header.options, bots=header.bot_names, rounds=rounds,
            totals=(int(r["totals"][0]), int(r["totals"][1])),
            winner=None if winner is None else int(winner),
            termination=Termination(r["termination"]),
            faulty_seat=None if faulty is None else int(faulty),
            detail=str(r.get("detail", "")), log=None, duration_s=0.0,
            decisions=0)
        return MatchEndEvent(result), None
    raise LogFormatError(f"unknown record type {kind!r} in a seat view")


def seat_view_frames(view: SeatView) -> Iterator[tuple[MatchEvent, RenderableType]]:
    """(event, frame) for the header and every event: the seat's latest observation as the
    board, the moves so far (the other seat's hidden), the scores and the ending."""
    renderer = renderer_for(view.header.game)
    board: RenderableType = Text("(this seat's first view comes with its first decision)",
                                 style="dim")
    seen: list[MatchEvent] = [view.header]
    yield view.header, render_frame(board, seen, view.header, view.seat)
    for event, observation in view.events:
        if observation is not None:
            board = renderer.render_view(observation)
        seen.append(event)
        yield event, render_frame(board, seen, view.header, view.seat)
