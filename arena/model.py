"""Plain data shared by the referee, the ladder and the CLI: terminations, match specs and
results. No I/O."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any


class Termination(enum.StrEnum):
    """How a match ended. Everything but NORMAL names a fault (or a void match)."""

    NORMAL = "normal"
    TIMEOUT = "timeout"
    ILLEGAL_ACTION = "illegal_action"
    INVALID_ACTION = "invalid_action"
    CRASH = "crash"
    PROTOCOL_VIOLATION = "protocol_violation"
    OVERSIZED_MESSAGE = "oversized_message"
    NO_START = "no_start"
    MEMORY = "memory"
    INTERNAL = "internal"
    CANCELLED = "cancelled"

    @property
    def is_void(self) -> bool:
        """A void match (the arena's fault or cancelled) is recorded but never rated."""
        return self in (Termination.INTERNAL, Termination.CANCELLED)

    @property
    def is_fault(self) -> bool:
        return self not in (Termination.NORMAL, Termination.INTERNAL, Termination.CANCELLED)


@dataclass(frozen=True)
class TimeControl:
    move_time_ms: int = 1000
    """Per-decision limit measured by the referee."""
    time_bank_ms: int = 0
    """Extra time for the whole match; overruns of move_time_ms are taken from it."""
    startup_ms: int = 10_000
    """How long a bot has to connect to its socket."""


@dataclass(frozen=True)
class BotSpec:
    """A runnable bot: a directory with a bot.toml manifest, or a submitted image."""

    name: str
    """Display name (from the manifest or the submission)."""
    game: str
    """The game id the bot plays."""
    directory: str | None = None
    """The bot directory (process sandbox, or building an image)."""
    command: tuple[str, ...] = ()
    """Command line run inside the directory (process sandbox) or the container."""
    image: str | None = None
    """Pinned image id (sha256:...) for the Docker sandbox."""
    version: str = ""
    digest: str = ""
    """Layer digest of a submitted image (identity of the code)."""
    base: str = "python"
    """The local base image flavor a bot directory's image is built on (``python``, ``node``)."""


@dataclass(frozen=True)
class MatchSpec:
    """Everything needed to play (and replay) one match."""

    game: str
    seed: int
    bots: tuple[BotSpec, BotSpec]
    options: dict[str, Any] = field(default_factory=dict)
    time_control: TimeControl = TimeControl()
    match_id: str = ""
    """Empty: the referee makes one. Ladders give deterministic ids (idempotent results)."""


@dataclass(frozen=True)
class MatchResult:
    """The recorded result of one match (what `arena match --format json` prints)."""

    match_id: str
    game: str
    game_version: int
    seed: int
    options: dict[str, Any]
    bots: tuple[str, str]
    rounds: tuple[tuple[int, int], ...]
    totals: tuple[int, int]
    winner: int | None
    """Winning seat; None for a draw or a void match."""
    termination: Termination
    faulty_seat: int | None
    detail: str
    log: str | None
    duration_s: float
    decisions: int

    @property
    def void(self) -> bool:
        """Void matches are recorded but never rated: the arena's fault, a cancellation, or a
        fault by both bots (nothing learned about their relative strength)."""
        return self.termination.is_void or (
            self.termination.is_fault and self.faulty_seat is None
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "match_id": self.match_id,
            "game": self.game,
            "game_version": self.game_version,
            "seed": self.seed,
            "options": self.options,
            "bots": list(self.bots),
            "rounds": [list(r) for r in self.rounds],
            "totals": list(self.totals),
            "winner": self.winner,
            "termination": str(self.termination),
            "faulty_seat": self.faulty_seat,
            "void": self.void,
            "detail": self.detail,
            "log": self.log,
            "duration_s": round(self.duration_s, 4),
            "decisions": self.decisions,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> MatchResult:
        return cls(
            match_id=data["match_id"],
            game=data["game"],
            game_version=int(data["game_version"]),
            seed=int(data["seed"]),
            options=dict(data.get("options") or {}),
            bots=(data["bots"][0], data["bots"][1]),
            rounds=tuple((int(a), int(b)) for a, b in data["rounds"]),
            totals=(int(data["totals"][0]), int(data["totals"][1])),
            winner=data["winner"],
            termination=Termination(data["termination"]),
            faulty_seat=data["faulty_seat"],
            detail=data.get("detail", ""),
            log=data.get("log"),
            duration_s=float(data.get("duration_s", 0.0)),
            decisions=int(data.get("decisions", 0)),
        )
