"""The frames of the bot conversation (arena.v1 ``Hello``, ``MatchStart``, ``RoundEnd``,
``MatchEnd``), built and read here once, for both ends: the referee
(``arena.referee.remote``) writes what the SDK (``arena.sdk.client``) reads, and the SDK's
``Hello`` is what the referee checks. The decisions themselves (observations, actions, legal
lists) are the codecs' (``arena.wire``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import arena
from arena.games import get_game
from arena.games.api import validate_options
from arena.model import MatchResult, TimeControl
from arena.v1 import bot_pb2
from arena.wire.admin import time_control_from_proto, time_control_to_proto


@dataclass(frozen=True)
class SeatStart:
    """What a seat is told when the match starts (arena.v1 ``MatchStart``)."""

    match_id: str
    game: str
    game_version: int
    options: dict[str, Any]
    """The complete rules options (defaults filled in)."""
    seat: int
    time_control: TimeControl
    bot_names: tuple[str, ...]


@dataclass(frozen=True)
class MatchEnding:
    """What a seat is told at the end (arena.v1 ``MatchEnd``), in words."""

    result: str
    """``MATCH_RESULT_WIN``, ``_LOSS``, ``_DRAW`` or ``_VOID`` (the seat's own outcome)."""
    termination: str
    """``TERMINATION_NORMAL``, ``TERMINATION_TIMEOUT``, ..."""
    totals: tuple[int, ...]
    detail: str
    faulty_seat: int | None


DETAIL_CHARS = 1000
"""The most characters of a match's detail a seat is sent."""


def hello(name: str, version: str) -> bot_pb2.BotMessage:
    """A bot's first message."""
    return bot_pb2.BotMessage(hello=bot_pb2.Hello(bot_name=name, bot_version=version,
                                                   protocol_version=arena.PROTOCOL_VERSION))


def _option_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def match_start(start: SeatStart) -> bot_pb2.RefereeMessage:
    """The ``MatchStart`` frame of ``start`` (options as text, as the protocol carries them)."""
    return bot_pb2.RefereeMessage(match_start=bot_pb2.MatchStart(
        match_id=start.match_id,
        game=start.game,
        game_version=start.game_version,
        options={k: _option_text(v) for k, v in start.options.items()},
        seat=start.seat,
        time_control=time_control_to_proto(start.time_control),
        protocol_version=arena.PROTOCOL_VERSION,
        bot_names=list(start.bot_names),
    ))


def seat_start(message: bot_pb2.MatchStart) -> SeatStart:
    """A ``MatchStart`` read back: the options typed as the game declares them (defaults filled
    in; ``OptionsError`` for a bad one), the time control as the referee set it."""
    game = get_game(message.game)
    return SeatStart(
        match_id=message.match_id,
        game=message.game,
        game_version=message.game_version,
        options=validate_options(game.option_specs, dict(message.options)),
        seat=message.seat,
        time_control=time_control_from_proto(message.time_control),
        bot_names=tuple(message.bot_names),
    )


def round_end(round_index: int, scores: tuple[int, int], totals: tuple[int, int]
              ) -> bot_pb2.RefereeMessage:
    """The ``RoundEnd`` frame: the round's scores and the totals so far."""
    return bot_pb2.RefereeMessage(round_end=bot_pb2.RoundEnd(round=round_index, scores=scores,
                                                             totals=totals))


def match_end(result: MatchResult, seat: int) -> bot_pb2.RefereeMessage:
    """The ``MatchEnd`` frame a seat receives: its own outcome, the termination, the totals."""
    return bot_pb2.RefereeMessage(match_end=bot_pb2.MatchEnd(
        result=bot_pb2.MatchResult.Value(f"MATCH_RESULT_{result.outcome_for(seat).name}"),
        termination=bot_pb2.Termination.Value(f"TERMINATION_{result.termination.name}"),
        totals=result.totals,
        faulty_seat=-1 if result.faulty_seat is None else result.faulty_seat,
        detail=result.detail[:DETAIL_CHARS],
    ))


def match_ending(message: bot_pb2.MatchEnd) -> MatchEnding:
    """A ``MatchEnd`` read back."""
    return MatchEnding(
        result=bot_pb2.MatchResult.Name(message.result),
        termination=bot_pb2.Termination.Name(message.termination),
        totals=tuple(message.totals),
        detail=message.detail,
        faulty_seat=None if message.faulty_seat < 0 else message.faulty_seat,
    )
