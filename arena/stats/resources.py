"""Per-bot resource statistics from match logs (pure: events in, figures out).

For each bot of a match, and folded over every match of a ladder: the decisions it played, the
CPU and the wall time per decision (median, p95, max), the gap wall − CPU per decision (what
the host and the transport cost it, not its own thinking), its start-up time (sandbox start to
Hello), its peak memory and its use of the time bank (the least it had left, what it drew in
total).

Only played decisions count in the per-decision figures (a fault's time is how long it took to
be cut off, not a decision). CPU figures exist from log format 5 on, where the sandbox could
read a CPU counter; start-up time and peak memory from the match end's ``seat_stats``; an older
log gives its decisions and wall times only, and the missing figures are None (shown as "-").

The bank is re-run from the recorded figures with the referee's own ``Clock``: each played
decision is charged its CPU time on the CPU clock, its wall time on the wall clock.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from arena.model import (
    DecisionEvent,
    HeaderEvent,
    MatchEndEvent,
    MatchEvent,
    SeatStats,
)
from arena.record.clock import Clock


@dataclass(frozen=True)
class Spread:
    """Median, 95th percentile (nearest rank) and maximum of some figures."""

    median: float
    """The middle value (the mean of the two middle ones for an even count)."""
    p95: float
    """The smallest value at least 95% of the figures do not exceed."""
    max: float
    """The largest value."""

    @classmethod
    def of(cls, values: Sequence[float]) -> Spread | None:
        """The spread of ``values``; None for none."""
        if not values:
            return None
        ordered = sorted(values)
        n = len(ordered)
        middle = (ordered[(n - 1) // 2] + ordered[n // 2]) / 2
        return cls(middle, ordered[max(math.ceil(0.95 * n) - 1, 0)], ordered[-1])

    def to_json(self) -> dict[str, float]:
        """The three figures, rounded to µs (ms units) like a log."""
        return {"median": round(self.median, 3), "p95": round(self.p95, 3),
                "max": round(self.max, 3)}


@dataclass
class _Sample:
    """What one bot's decisions and seat records held (one match, or folded over many)."""

    matches: int = 0
    wall_ms: list[float] = field(default_factory=list)
    cpu_ms: list[float] = field(default_factory=list)
    gap_ms: list[float] = field(default_factory=list)
    startup_ms: list[float] = field(default_factory=list)
    match_cpu_ms: list[float] = field(default_factory=list)
    peak_memory: list[int] = field(default_factory=list)
    bank_total_ms: float = 0.0
    bank_drawn_ms: float = 0.0
    bank_left_ms: list[float] = field(default_factory=list)
    meters: set[str] = field(default_factory=set)
    clocks: set[str] = field(default_factory=set)

    def add(self, other: _Sample) -> None:
        """Fold ``other`` in."""
        self.matches += other.matches
        for name in ("wall_ms", "cpu_ms", "gap_ms", "startup_ms", "match_cpu_ms",
                     "peak_memory", "bank_left_ms"):
            getattr(self, name).extend(getattr(other, name))
        self.bank_total_ms += other.bank_total_ms
        self.bank_drawn_ms += other.bank_drawn_ms
        self.meters |= other.meters
        self.clocks |= other.clocks


@dataclass(frozen=True)
class BotStats:
    """One bot's resource statistics, over one match or a ladder's matches."""

    bot: str
    """The bot's name as the logs' headers record it."""
    matches: int
    """Matches it played (the logs read)."""
    decisions: int
    """Decisions it played (faults not counted)."""
    cpu_ms: Spread | None
    """CPU per decision; None: no CPU figure recorded."""
    wall_ms: Spread | None
    """Wall time per decision (request out to answer in)."""
    gap_ms: Spread | None
    """Wall − CPU per decision, where both were recorded: what the host cost it."""
    startup_ms: Spread | None
    """Start-up time per match (sandbox start to Hello)."""
    match_cpu_ms: float | None
    """CPU over its matches in total (pondering and start-up included)."""
    peak_memory_bytes: int | None
    """The highest peak memory of its matches."""
    bank_left_ms: float | None
    """The least time bank it had left at the end of a match (None: no bank)."""
    bank_drawn_ms: float
    """Time bank drawn in total (what decisions took beyond the move time)."""
    bank_total_ms: float
    """Time bank it was given in total (the bank of each match, summed)."""
    meter: str = ""
    """How CPU and memory were read (``cgroup-v1``, ``cgroup-v2``, ``proc``; several joined by
    "+"; empty: no meter)."""
    clock: str = ""
    """The clock model its matches were charged on (``wall``, ``cpu``; "+"-joined if mixed)."""

    def to_json(self) -> dict[str, Any]:
        """As ``arena ladder stats --format json`` prints it."""
        def spread(s: Spread | None) -> dict[str, float] | None:
            return None if s is None else s.to_json()

        return {
            "bot": self.bot, "matches": self.matches, "decisions": self.decisions,
            "cpu_ms": spread(self.cpu_ms), "wall_ms": spread(self.wall_ms),
            "gap_ms": spread(self.gap_ms), "startup_ms": spread(self.startup_ms),
            "match_cpu_ms": _rounded(self.match_cpu_ms),
            "peak_memory_bytes": self.peak_memory_bytes,
            "bank_left_ms": _rounded(self.bank_left_ms),
            "bank_drawn_ms": round(self.bank_drawn_ms, 3),
            "bank_total_ms": round(self.bank_total_ms, 3),
            "meter": self.meter, "clock": self.clock,
        }


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value, 3)


def _summary(bot: str, s: _Sample) -> BotStats:
    return BotStats(
        bot=bot, matches=s.matches, decisions=len(s.wall_ms), cpu_ms=Spread.of(s.cpu_ms),
        wall_ms=Spread.of(s.wall_ms), gap_ms=Spread.of(s.gap_ms),
        startup_ms=Spread.of(s.startup_ms),
        match_cpu_ms=sum(s.match_cpu_ms) if s.match_cpu_ms else None,
        peak_memory_bytes=max(s.peak_memory) if s.peak_memory else None,
        bank_left_ms=min(s.bank_left_ms) if s.bank_left_ms else None,
        bank_drawn_ms=s.bank_drawn_ms, bank_total_ms=s.bank_total_ms,
        meter="+".join(sorted(s.meters)), clock="+".join(sorted(s.clocks)))


def _seat_samples(events: Iterable[MatchEvent]) -> tuple[HeaderEvent, tuple[_Sample, _Sample]]:
    """Each seat's sample of one match's events (a header first)."""
    iterator = iter(events)
    header = next(iterator, None)
    if not isinstance(header, HeaderEvent):
        raise ValueError("a match log begins with its header")
    tc = header.time_control
    samples = (_Sample(matches=1), _Sample(matches=1))
    clocks = (Clock.of(tc), Clock.of(tc))
    for s in samples:
        s.clocks.add(tc.clock)
        s.bank_total_ms = float(tc.time_bank_ms)
    for event in iterator:
        if isinstance(event, DecisionEvent) and event.fault is None:
            _decision(samples[event.seat], clocks[event.seat], event)
        elif isinstance(event, MatchEndEvent) and event.seat_stats is not None:
            for sample, stats in zip(samples, event.seat_stats, strict=True):
                _seat_record(sample, stats)
    for sample, clock in zip(samples, clocks, strict=True):
        sample.bank_drawn_ms = tc.time_bank_ms - clock.bank_ms
        if tc.time_bank_ms:
            sample.bank_left_ms.append(clock.bank_ms)
    return header, samples


def _decision(sample: _Sample, clock: Clock, event: DecisionEvent) -> None:
    sample.wall_ms.append(event.ms)
    if event.cpu_ms is not None:
        sample.cpu_ms.append(event.cpu_ms)
        sample.gap_ms.append(event.ms - event.cpu_ms)
    clock.charge(event.ms, event.cpu_ms)


def _seat_record(sample: _Sample, stats: SeatStats) -> None:
    if stats.startup_ms is not None:
        sample.startup_ms.append(stats.startup_ms)
    if stats.cpu_ms is not None:
        sample.match_cpu_ms.append(stats.cpu_ms)
    if stats.peak_memory_bytes is not None:
        sample.peak_memory.append(stats.peak_memory_bytes)
    if stats.meter:
        sample.meters.add(stats.meter)


@dataclass(frozen=True)
class MatchStats:
    """Both seats' statistics of one match."""

    match_id: str
    seats: tuple[BotStats, BotStats]
    """Seat 0's bot, seat 1's bot."""

    def to_json(self) -> dict[str, Any]:
        """The match id and each seat's figures."""
        return {"match_id": self.match_id, "seats": [s.to_json() for s in self.seats]}


def match_stats(events: Iterable[MatchEvent]) -> MatchStats:
    """The statistics of one match's events (a log read whole, or as far as it goes). Raises
    ``ValueError`` when they do not begin with a header."""
    header, samples = _seat_samples(events)
    return MatchStats(header.match_id,
                      (_summary(header.bots[0].name, samples[0]),
                       _summary(header.bots[1].name, samples[1])))


def ladder_stats(matches: Iterable[Iterable[MatchEvent]]) -> list[BotStats]:
    """Each bot's statistics folded over ``matches`` (each one match's events), by bot name,
    in the order the bots first appear. Raises ``ValueError`` for a match without a header."""
    folded: dict[str, _Sample] = {}
    for events in matches:
        header, samples = _seat_samples(events)
        for bot, sample in zip(header.bots, samples, strict=True):
            folded.setdefault(bot.name, _Sample()).add(sample)
    return [_summary(name, sample) for name, sample in folded.items()]


def stats_json(bots: Sequence[BotStats], ladder: str = "") -> dict[str, Any]:
    """The JSON document of ``arena ladder stats --format json``."""
    return {"ladder": ladder, "bots": [b.to_json() for b in bots]}
