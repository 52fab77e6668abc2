"""Plain data shared by the referee, the ladder and the CLI: terminations, match specs and
results. No I/O."""

from __future__ import annotations

import enum
import hashlib
from dataclasses import dataclass, field
from typing import Any, ClassVar

from arena.errors import LogFormatError


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
    WALL_TIMEOUT = "wall_timeout"
    """CPU clock only: no answer within the wall-clock guard (a bot that sleeps or deadlocks),
    as opposed to ``timeout``, thinking longer than its allowance."""

    @property
    def is_void(self) -> bool:
        """A void match (the arena's fault or cancelled) is recorded but never rated."""
        return self in (Termination.INTERNAL, Termination.CANCELLED)

    @property
    def is_fault(self) -> bool:
        return self not in (Termination.NORMAL, Termination.INTERNAL, Termination.CANCELLED)


LABEL_MAX_CHARS = 64
"""The longest name or version a bot may give itself (bot.toml, Hello)."""


def label_problem(value: str) -> str | None:
    """What is wrong with a bot-controlled label (a name, a version), or None: at most
    ``LABEL_MAX_CHARS`` printable characters. A bot controls these strings, and the referee sends
    the names to the other bot: they must not be able to enlarge its messages."""
    if len(value) > LABEL_MAX_CHARS:
        return f"is {len(value)} characters long (at most {LABEL_MAX_CHARS})"
    if not value.isprintable():
        return "holds non-printable characters"
    return None


_BIDI_CONTROLS = (0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A))
_UNSAFE_CHARS = dict.fromkeys(
    [*(c for c in range(0x20) if c not in (0x09, 0x0A)), 0x7F, *range(0x80, 0xA0),
     *_BIDI_CONTROLS]
)
"""C0 controls but tab and newline, DEL, C1 controls, and the Unicode bidirectional controls
(which reorder what a terminal shows): mapped to nothing by :func:`plain_text`."""


def plain_text(value: str) -> str:
    """``value`` without the characters a terminal would act on instead of showing: C0 and C1
    control characters (escape sequences start with ESC or CSI) except newline and tab, DEL,
    and the bidirectional controls. What a bot or its author controls (its output, an answer it
    gave, a refusal quoting its files) passes through this before it is recorded or shown."""
    if value.isprintable():  # every character stripped is non-printable: the common case
        return value
    return value.translate(_UNSAFE_CHARS)


class SeatOutcome(enum.StrEnum):
    """How a match ended for one seat."""

    WIN = "win"
    LOSS = "loss"
    DRAW = "draw"
    VOID = "void"


@dataclass(frozen=True)
class TimeControl:
    move_time_ms: int = 1000
    """Per-decision limit measured by the referee."""
    time_bank_ms: int = 0
    """Extra time for the whole match; overruns of move_time_ms are taken from it."""
    startup_ms: int = 10_000
    """How long a bot has to connect to its socket."""
    clock: str = "wall"
    """What a decision is charged (``CLOCKS``): ``wall``, the time from the request going out
    to the answer arriving; ``cpu``, the CPU time the bot's whole sandbox used in that span
    (with a wall-clock guard, ``wall_guard``)."""
    wall_guard: float = 4.0
    """CPU clock only: a decision with no answer after this multiple of its allowance (plus
    ``WALL_GUARD_SLACK_MS``) of wall time ends the match as ``wall_timeout``."""

    LIMITS: ClassVar[dict[str, tuple[int, int]]] = {
        "move_time_ms": (1, 600_000),
        "time_bank_ms": (0, 3_600_000),
        "startup_ms": (100, 300_000),
    }
    """The accepted range of each field (ms): a decision of up to 10 minutes, a bank of up to an
    hour, 0.1 s to 5 minutes to start."""
    GUARD_RANGE: ClassVar[tuple[float, float]] = (1.5, 100.0)
    """The accepted range of ``wall_guard``."""

    def problem(self) -> tuple[str, str] | None:
        """(field, what is wrong) for the first field outside its range, else None."""
        for name, (low, high) in self.LIMITS.items():
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
                return name, f"must be an integer from {low} to {high} ms, got {value!r}"
        if self.clock not in CLOCKS:
            return "clock", f"must be one of {', '.join(CLOCKS)}, got {self.clock!r}"
        low_g, high_g = self.GUARD_RANGE
        guard = self.wall_guard
        if isinstance(guard, bool) or not isinstance(guard, int | float) or not (
                low_g <= guard <= high_g):
            return "wall_guard", f"must be a number from {low_g} to {high_g}, got {guard!r}"
        return None

    def guard_ms(self, allowance_ms: float) -> float:
        """The wall-clock guard of a decision whose allowance is ``allowance_ms`` (CPU clock)."""
        return self.wall_guard * allowance_ms + WALL_GUARD_SLACK_MS

    def to_json(self) -> dict[str, Any]:
        """As a log header records it (the clock fields from log format 5 on)."""
        return {"move_time_ms": self.move_time_ms, "time_bank_ms": self.time_bank_ms,
                "startup_ms": self.startup_ms, "clock": self.clock,
                "wall_guard": self.wall_guard}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TimeControl:
        """A header's time control; a log before format 5 ran on the wall clock."""
        return cls(_int(data.get("move_time_ms", 1000)), _int(data.get("time_bank_ms", 0)),
                   _int(data.get("startup_ms", 10_000)), _text(data.get("clock", "wall")),
                   _float(data.get("wall_guard", 4.0)))


HUMAN_PREFIX = "human:"
"""How a seat a person plays (`arena play`) is named in a match: ``human:<user>``. A bot name
cannot hold ``:`` (``arena.bots.names``), so no bot is ever taken for a human, nor a human for
a bot; a ladder never rates a match with a human seat (``has_human``)."""


def is_human(name: str) -> bool:
    """Whether ``name`` is a human seat's (``HUMAN_PREFIX``)."""
    return name.startswith(HUMAN_PREFIX)


def has_human(names: tuple[str, str] | list[str]) -> bool:
    """Whether a match between ``names`` had a human seat: such a match is logged like any
    other but never rated."""
    return any(is_human(n) for n in names)


@dataclass(frozen=True)
class HumanSeat:
    """A seat a person plays (`arena play`), as the match spec and the log's header record it:
    its own clock, since a person has none by default while the bot keeps the match's."""

    seat: int
    time_control: TimeControl | None = None
    """The person's time control (always the wall clock: no sandbox meters a person); None:
    untimed."""

    def to_json(self) -> dict[str, Any]:
        tc = self.time_control
        return {"seat": self.seat, "time_control": None if tc is None else tc.to_json()}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> HumanSeat:
        tc = data.get("time_control")
        return cls(_seat(data["seat"]), None if tc is None else TimeControl.from_json(_dict(tc)))


CLOCKS = ("wall", "cpu")
"""The clock models a match can be played on (``TimeControl.clock``)."""
WALL_GUARD_SLACK_MS = 100.0
"""Added to the guard's multiple of the allowance: the floor of the guard for very short moves
(a decision of 1 ms must not be cut by scheduling jitter)."""


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
    """The identity of the code (``arena.bots.identity``): a submitted image's id (a catalogue
    row written before image ids were identities keeps its layer digest), or a directory's
    content hash."""
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
    slot: LadderSlot | None = None
    """Where a ladder placed the match (its log's header records it); None for other matches."""
    humans: tuple[HumanSeat, ...] = ()
    """The seats a person plays (`arena play`), each with its own clock; () for bots only."""


@dataclass(frozen=True)
class LadderSlot:
    """A ladder match's place: which ladder, encounter, cycle and leg (a signed log binds it, so
    a published log cannot be passed off as another ladder's or another encounter's)."""

    name: str
    encounter_id: str = ""
    cycle: int = 0
    leg: int = 0

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "encounter_id": self.encounter_id, "cycle": self.cycle,
                "leg": self.leg}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> LadderSlot:
        return cls(_text(data["name"]), _text(data.get("encounter_id", "")),
                   _int(data.get("cycle", 0)), _int(data.get("leg", 0)))


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

    def outcome_for(self, seat: int) -> SeatOutcome:
        """The match's outcome from ``seat``'s side."""
        if self.void:
            return SeatOutcome.VOID
        if self.winner is None:
            return SeatOutcome.DRAW
        return SeatOutcome.WIN if self.winner == seat else SeatOutcome.LOSS

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


# --- match events: the records of a match log (one JSON object per line) ------------------------
LOG_FORMAT = 5
"""The match log format this arena writes (docs/log-format.md). 2: a decision that forfeits the
match is recorded (``DecisionEvent.fault``). 3: a round's end carries the game's account of
what decided it (``RoundEndEvent.summary``). 4: the header commits to the seed instead of
stating it (``seed_commitment``; the match end reveals the salt, the result the seed), names its
ladder slot, and a signed log ends with a signature record. 5: the header's time control names
its clock model and wall guard (``TimeControl.clock``, ``wall_guard``), a decision records its
CPU time beside its wall time (``DecisionEvent.cpu_ms``) and the match end what each seat's bot
cost (``MatchEndEvent.seat_stats``). Readers accept every earlier format (before 5: the wall
clock)."""

SEED_SALT_HEX = 32
"""How many hex digits a seed commitment's salt has (128 random bits)."""


def seed_commitment(seed: int, salt: str) -> str:
    """The commitment a format-4 header holds: the SHA-256 (hex) of
    ``arena-seed-v1:<salt>:<seed>``. The salt hides the seed while the match runs (seeds are
    small integers: without it a watcher could try them all)."""
    return hashlib.sha256(f"arena-seed-v1:{salt}:{seed}".encode()).hexdigest()


@dataclass(frozen=True)
class BotRecord:
    """A bot as a match log's header records it."""

    name: str
    version: str = ""
    digest: str = ""
    """The code identity (a submitted image's id, or the layer digest a legacy catalogue row
    recorded; a directory's content hash)."""
    image: str | None = None
    """The image id that ran (Docker sandbox), else None."""

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "version": self.version, "digest": self.digest,
                "image": self.image}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> BotRecord:
        image = data.get("image")
        return cls(_text(data["name"]), _text(data.get("version", "")),
                   _text(data.get("digest", "")), None if image is None else _text(image))


@dataclass(frozen=True)
class HeaderEvent:
    """The first record: what was played, by whom, under which rules and limits."""

    match_id: str
    game: str
    game_version: int
    options: dict[str, Any]
    """The complete options the match ran with (defaults filled in)."""
    seed: int | None
    """The deal seed. A format-4 header does not state it (``seed_commitment``): read from a
    file, it is filled in from the match end's reveal (``arena.record.log.read_events``), else
    None."""
    bots: tuple[BotRecord, BotRecord]
    time_control: TimeControl
    sandbox: str
    arena_version: str
    started_at: str
    """UTC, ``YYYY-MM-DDTHH:MM:SSZ``."""
    log_format: int = 1
    """The log format version (``LOG_FORMAT``); 1 when the header has none."""
    seed_commitment: str = ""
    """``seed_commitment(seed, salt)`` (format 4); empty: the header states its seed."""
    slot: LadderSlot | None = None
    """The ladder slot the match was played in (format 4), None outside ladders."""
    humans: tuple[HumanSeat, ...] = ()
    """The seats a person played (`arena play`) and their clocks; recorded only when there is
    one (``humans``), so a log of bots only is as before."""
    type: ClassVar[str] = "header"

    def to_json(self) -> dict[str, Any]:
        """The header record; a committed header leaves the seed out (the match end reveals
        it)."""
        tc = self.time_control
        data: dict[str, Any] = {
            "type": self.type, "match_id": self.match_id, "game": self.game,
            "game_version": self.game_version, "options": self.options,
        }
        if self.seed_commitment:
            data["seed_commitment"] = self.seed_commitment
        else:
            data["seed"] = self.seed
        data.update({
            "bots": [b.to_json() for b in self.bots],
            "time_control": tc.to_json() if self.log_format >= 5 else {
                "move_time_ms": tc.move_time_ms, "time_bank_ms": tc.time_bank_ms,
                "startup_ms": tc.startup_ms},
            "sandbox": self.sandbox, "arena_version": self.arena_version,
            "started_at": self.started_at, "log_format": self.log_format,
        })
        if self.log_format >= 4:
            data["ladder"] = None if self.slot is None else self.slot.to_json()
        if self.humans:
            data["humans"] = [h.to_json() for h in self.humans]
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> HeaderEvent:
        tc = data.get("time_control") or {}
        bots = data["bots"]
        commitment = _text(data.get("seed_commitment", ""))
        slot = data.get("ladder")
        return cls(
            match_id=_text(data["match_id"]), game=_text(data["game"]),
            game_version=_int(data["game_version"]), options=_dict(data.get("options") or {}),
            seed=_int(data["seed"]) if not commitment or data.get("seed") is not None else None,
            bots=(BotRecord.from_json(bots[0]), BotRecord.from_json(bots[1])),
            time_control=TimeControl.from_json(_dict(tc)),
            sandbox=_text(data.get("sandbox", "")),
            arena_version=_text(data.get("arena_version", "")),
            started_at=_text(data.get("started_at", "")),
            log_format=_int(data.get("log_format", 1)),
            seed_commitment=commitment,
            slot=None if slot is None else LadderSlot.from_json(_dict(slot)),
            humans=tuple(HumanSeat.from_json(_dict(h)) for h in _list(data.get("humans"))),
        )

    @property
    def bot_names(self) -> tuple[str, str]:
        return (self.bots[0].name, self.bots[1].name)


@dataclass(frozen=True)
class DealEvent:
    """A round's full deal (hidden cards included: logs are omniscient)."""

    round: int
    deal: dict[str, Any]
    """The game's deal record (``Game.deal_record``)."""
    type: ClassVar[str] = "deal"

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type, "round": self.round, "deal": self.deal}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> DealEvent:
        return cls(_int(data["round"]), _dict(data["deal"]))


@dataclass(frozen=True)
class DecisionEvent:
    """One decision: who acted, the action, the time the referee measured. A decision that
    forfeited the match is recorded too, with its ``fault``: the action as the bot sent it (an
    illegal action's canonical text, an unparseable answer's raw text) or None when there was
    no answer (a timeout, a crash)."""

    n: int
    """1-based decision number within the match."""
    round: int
    seat: int
    action: str | None
    """The canonical action text; for a fault, what the bot answered (None: no answer)."""
    ms: float
    """Wall time from the request going out to the answer arriving (rounded to µs)."""
    fault: Termination | None = None
    """The termination this decision earned; None for a decision that was played."""
    cpu_ms: float | None = None
    """CPU time the bot's sandbox used in the same span (log format 5, rounded to µs); None
    where no CPU counter was read."""
    type: ClassVar[str] = "decision"

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"type": self.type, "n": self.n, "round": self.round,
                                "seat": self.seat, "action": self.action, "ms": self.ms}
        if self.cpu_ms is not None:
            data["cpu_ms"] = self.cpu_ms
        if self.fault is not None:
            data["fault"] = str(self.fault)
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> DecisionEvent:
        fault = data.get("fault")
        action = data["action"]
        cpu = data.get("cpu_ms")
        if fault is None and action is None:
            raise ValueError("a played decision without an action")
        return cls(_int(data["n"]), _int(data["round"]), _seat(data["seat"]),
                   _optional_text(action), _float(data["ms"]),
                   None if fault is None else Termination(_text(fault)),
                   None if cpu is None else _float(cpu))


@dataclass(frozen=True)
class RoundEndEvent:
    """A finished round: its scores, the running totals and what decided it."""

    round: int
    scores: tuple[int, int]
    totals: tuple[int, int]
    summary: dict[str, Any] | None = None
    """The game's account of the round (``Game.round_summary``: who went out, bets, why a
    game ended...); None in logs of format 1 and 2, which have none."""
    type: ClassVar[str] = "round_end"

    def to_json(self) -> dict[str, Any]:
        data = {"type": self.type, "round": self.round, "scores": list(self.scores),
                "totals": list(self.totals)}
        if self.summary is not None:
            data["summary"] = self.summary
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> RoundEndEvent:
        summary = data.get("summary")
        return cls(_int(data["round"]), _pair(data["scores"]), _pair(data["totals"]),
                   None if summary is None else _dict(summary))


@dataclass(frozen=True)
class SeatStats:
    """What one seat's bot cost over its match, as its sandbox measured it (log format 5)."""

    startup_ms: float | None = None
    """Wall time from starting the bot to its Hello."""
    cpu_ms: float | None = None
    """CPU time of the bot's sandbox over the whole match (start-up and pondering included)."""
    peak_memory_bytes: int | None = None
    """The sandbox's peak memory (cgroup ``memory.max_usage_in_bytes`` / ``memory.peak``, or the
    process tree's peak RSS)."""
    meter: str = ""
    """How CPU and memory were read: ``cgroup-v1``, ``cgroup-v2``, ``proc`` or empty (none)."""

    def to_json(self) -> dict[str, Any]:
        return {"startup_ms": self.startup_ms, "cpu_ms": self.cpu_ms,
                "peak_memory_bytes": self.peak_memory_bytes, "meter": self.meter}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> SeatStats:
        def number(key: str) -> float | None:
            value = data.get(key)
            return None if value is None else _float(value)

        memory = data.get("peak_memory_bytes")
        return cls(number("startup_ms"), number("cpu_ms"),
                   None if memory is None else _int(memory), _text(data.get("meter", "")))


@dataclass(frozen=True)
class MatchEndEvent:
    """The last record: the result, and where the bots' output tails were saved."""

    result: MatchResult
    bot_logs: tuple[str | None, str | None] = (None, None)
    seed_salt: str = ""
    """The salt of the header's seed commitment (format 4): with the result's seed, anyone
    checks ``seed_commitment(result.seed, seed_salt)`` against the header."""
    seat_stats: tuple[SeatStats, SeatStats] | None = None
    """What each seat's bot cost (format 5); None in older logs."""
    type: ClassVar[str] = "match_end"

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"type": self.type, "result": self.result.to_json(),
                                "bot_logs": list(self.bot_logs)}
        if self.seed_salt:
            data["seed_salt"] = self.seed_salt
        if self.seat_stats is not None:
            data["seat_stats"] = [s.to_json() for s in self.seat_stats]
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> MatchEndEvent:
        logs = list(data.get("bot_logs") or [None, None]) + [None, None]
        stats = data.get("seat_stats")
        return cls(MatchResult.from_json(_dict(data["result"])),
                   (_optional_text(logs[0]), _optional_text(logs[1])),
                   _text(data.get("seed_salt", "")),
                   None if stats is None else (SeatStats.from_json(_dict(stats[0])),
                                               SeatStats.from_json(_dict(stats[1]))))


MatchEvent = HeaderEvent | DealEvent | DecisionEvent | RoundEndEvent | MatchEndEvent
"""One record of a match log (and of a live match's event stream)."""

EVENT_TYPES: dict[str, type[MatchEvent]] = {
    kind.type: kind
    for kind in (HeaderEvent, DealEvent, DecisionEvent, RoundEndEvent, MatchEndEvent)
}
"""The record kinds by their ``type`` field."""


def event_from_json(data: Any) -> MatchEvent:
    """The typed event of one decoded JSON record; ``LogFormatError`` saying what is wrong (the
    caller adds where it was)."""
    if not isinstance(data, dict):
        raise LogFormatError("not a JSON object")
    kind = EVENT_TYPES.get(data.get("type"))  # type: ignore[arg-type]
    if kind is None:
        raise LogFormatError(f"unknown record type {data.get('type')!r}")
    try:
        return kind.from_json(data)
    except KeyError as exc:
        raise LogFormatError(f"a {kind.type} record without {exc.args[0]!r}") from None
    except (TypeError, ValueError, IndexError) as exc:
        raise LogFormatError(f"a malformed {kind.type} record: {exc}") from None


def _text(value: Any) -> str:
    if not isinstance(value, str):
        raise TypeError(f"expected a string, got {value!r}"[:200])
    return value


def _optional_text(value: Any) -> str | None:
    return None if value is None else _text(value)


def _int(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"expected an integer, got {value!r}"[:200])
    return value


def _float(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError(f"expected a number, got {value!r}"[:200])
    return float(value)


def _seat(value: Any) -> int:
    seat = _int(value)
    if seat not in (0, 1):
        raise ValueError(f"seat {seat} is neither 0 nor 1")
    return seat


def _pair(value: Any) -> tuple[int, int]:
    if not isinstance(value, list) or len(value) != 2:
        raise TypeError(f"expected a pair, got {value!r}"[:200])
    return (_int(value[0]), _int(value[1]))


def _list(value: Any) -> list[Any]:
    """A list; an absent key (None) is empty."""
    if value is None:
        return []
    if not isinstance(value, list):
        raise TypeError(f"expected a list, got {value!r}"[:200])
    return value


def _dict(value: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise TypeError(f"expected an object, got {value!r}"[:200])
    return value
