"""What a bot's policy receives: pure data, independent of gRPC."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, fields
from functools import cached_property
from typing import Any

from arena.games import get_game


@dataclass(frozen=True)
class MatchInfo:
    """What a bot learns at the start of a match (arena.v1 MatchStart)."""

    match_id: str
    game: str
    game_version: int
    seat: int
    options: dict[str, Any]
    """Rules options with defaults filled in (values typed as the game declares them)."""
    move_time_ms: int
    time_bank_ms: int
    bot_names: tuple[str, ...] = ()
    clock: str = "wall"
    """What a decision is charged: ``wall`` (request to answer) or ``cpu`` (the CPU your
    sandbox used meanwhile; thinking between decisions is not charged). docs/protocol.md."""
    wall_guard: float = 0.0
    """CPU clock only: no answer after this multiple of the allowance (plus 100 ms) of wall time
    forfeits the match (``wall_timeout``)."""


@dataclass(frozen=True)
class Decision:
    """One decision to make: the seat's observation and every legal action."""

    match: MatchInfo
    """The match this decision belongs to (the same object for every decision of it)."""
    round: int
    """The round being played, from 0 (PORTAS: the game of the match)."""
    observation: Any
    """The game's observation (view) dataclass for this seat, e.g. ``lost_cities.View``."""
    legal_texts: tuple[str, ...]
    """Every legal action in the game's text grammar (the game's stable order): the strings an
    answer is checked against. Answering one of them verbatim is never illegal. Always the
    whole list: when the referee sends a large list compact (docs/protocol.md "Legal
    actions"), the SDK expands it."""
    time_left_ms: int
    """How long this answer may take, in ms: the move time plus what is left of the time bank
    (on the CPU clock, CPU time; see ``match.clock``)."""
    decision_id: int = 0
    """The referee's number of this decision (the SDK answers with it)."""
    parsed_actions: tuple[Any, ...] | None = field(default=None, repr=False, compare=False)
    """The legal actions as values when the caller has them already (in-process play)."""

    @property
    def seat(self) -> int:
        """This bot's seat (0 or 1): ``match.seat``."""
        return self.match.seat

    @cached_property
    def legal_actions(self) -> tuple[Any, ...]:
        """Every legal action as the game's action value, parsed on first use (a Haggis lead
        can offer ~19,000 actions: a bot that never looks does not pay for parsing them)."""
        if self.parsed_actions is not None:
            return self.parsed_actions
        game = get_game(self.match.game)
        return tuple(game.parse_action(text) for text in self.legal_texts)


class LazyDecision(Decision):
    """A ``Decision`` some of whose fields a subclass makes on first read (cached properties);
    it prints, compares and copies as the plain ``Decision`` of the same values (the SDK's
    received decisions, the lab evaluator's)."""

    def _plain(self) -> Decision:
        """The same decision as a plain ``Decision`` (the observation decoded)."""
        return Decision(**{f.name: getattr(self, f.name) for f in fields(Decision)})

    def __repr__(self) -> str:
        return repr(self._plain())

    def __eq__(self, other: object) -> bool:
        return self._plain() == other

    __hash__ = Decision.__hash__

    def __reduce__(self) -> str | tuple[Any, ...]:
        return self._plain().__reduce__()


class _Received(LazyDecision):
    """A ``Decision`` as the SDK receives it: its ``observation`` is decoded from the request on
    first read, then kept (as ``legal_actions`` is parsed on first use). A bot that never looks
    at it (one that only picks among the legal actions) does not pay for decoding it: 50-140 µs
    of a decision's round trip, measured in matches on a quiet machine. Built by ``received``;
    it prints, compares and copies as the plain ``Decision`` of the same values."""

    @cached_property
    def observation(self) -> Any:
        """The game's observation (view) dataclass for this seat, decoded now."""
        decode, message = self.__dict__["_encoded_observation"]
        return decode(message)


def received(decode: Callable[[Any], Any], message: Any, **values: Any) -> Decision:
    """The decision of a request whose observation ``message`` is decoded by ``decode`` when the
    bot first reads ``observation`` (``values``: every other field of ``Decision``)."""
    decision = object.__new__(_Received)
    decision.__dict__.update(values, _encoded_observation=(decode, message))
    return decision
