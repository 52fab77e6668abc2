"""What a running schedule shows: the state of an adaptive or continuous ladder, a knockout's
bracket, a Swiss. Plain data, made by the match sources (``arena.ladder.schedules.sources``) and
read by the live view and the reports. PURE.

A round robin, a gauntlet and an SPRT test have no status here (None).
"""

from __future__ import annotations

from dataclasses import dataclass

from arena.ladder.schedules.knockout import Bracket
from arena.ladder.schedules.swiss import SwissState


@dataclass(frozen=True)
class PlayerActivity:
    """One player of an adaptive or continuous ladder now."""

    player: str
    """Its key (``name@version`` in a continuous ladder, the name in an adaptive one)."""
    name: str
    version: str
    state: str
    """"placement 2/4", "playing", "retired (replaced by name@3)", "refused: <why>"."""
    encounters: int
    """Its encounters recorded so far."""
    matches_last_hour: int
    last_match_at: float | None
    """When its last match was recorded (seconds since the epoch); None: never."""


@dataclass(frozen=True)
class Decision:
    """One pairing decision."""

    encounter_id: str
    pair: tuple[str, str]
    reason: str
    """One line, e.g. "greedy@1 vs strong@2: intervals overlap 38%"."""
    at: float
    """When it was taken (seconds since the epoch)."""


@dataclass(frozen=True)
class AdaptiveStatus:
    """An adaptive or continuous ladder now."""

    kind: str
    """"adaptive" or "continuous"."""
    encounters: int
    """Encounters handed out so far (all runs of the ladder)."""
    budget: int | None
    """An adaptive ladder's budget of encounters; None for a continuous one."""
    decisions: tuple[Decision, ...]
    """The latest decisions, newest first (at most ``MAX_DECISIONS``)."""
    players: tuple[PlayerActivity, ...]
    """Current players first (by rating), then retired and refused ones."""
    separated: int
    """Adjacent pairs of current players ordered at ``confidence``."""
    adjacent: int
    """Adjacent pairs of current players."""
    confidence: float
    stopped: str = ""
    """Why it stopped, in words ("every adjacent pair is separated at 95%", "the budget of 40
    encounters is spent"); "" while it runs."""
    notice: str = ""
    """Something the operator should know that is no pairing decision ("the ladder file does
    not parse: the last good entrant list stays"); "" when there is none."""


MAX_DECISIONS = 10
"""How many decisions a status keeps."""

ScheduleStatus = AdaptiveStatus | Bracket | SwissState
"""What a schedule type shows (the runner's ``Progress.schedule``; None for the others)."""
