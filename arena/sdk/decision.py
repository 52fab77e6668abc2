"""What a bot's policy receives: pure data, independent of gRPC."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


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


@dataclass(frozen=True)
class Decision:
    """One decision to make: the seat's observation and every legal action."""

    match: MatchInfo
    round: int
    observation: Any
    """The game's observation (view) dataclass for this seat, e.g. ``lost_cities.View``."""
    legal_actions: tuple[Any, ...]
    """Every legal action as the game's action value (the game's stable order)."""
    time_left_ms: int
    decision_id: int = 0
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def seat(self) -> int:
        return self.match.seat
