"""Per-bot resource statistics (``arena.stats.resources``) over match events built from the model:
figures of a known log, the bank re-run on either clock, old logs without CPU figures, a ladder
folded by bot."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arena.model import (
    BotRecord,
    DecisionEvent,
    HeaderEvent,
    MatchEndEvent,
    MatchEvent,
    MatchResult,
    SeatStats,
    Termination,
    TimeControl,
)
from arena.stats.resources import Spread, ladder_stats, match_stats, stats_json

pytestmark = pytest.mark.unit


def header(tc: TimeControl, bots: tuple[str, str] = ("a", "b"), match_id: str = "m1"
           ) -> HeaderEvent:
    return HeaderEvent(match_id, "lost-cities", 1, {}, 7, (BotRecord(bots[0]), BotRecord(bots[1])),
                       tc, "process", "test", "2026-12-01T00:00:00Z", log_format=5)


def end(stats: tuple[SeatStats, SeatStats] | None, bots: tuple[str, str] = ("a", "b")
        ) -> MatchEndEvent:
    result = MatchResult("m1", "lost-cities", 1, 7, {}, bots, (), (0, 0), None,
                         Termination.NORMAL, None, "", None, 1.0, 0)
    return MatchEndEvent(result, (None, None), "", stats)


def decisions(seat: int, figures: list[tuple[float, float | None]], start: int = 0
              ) -> list[MatchEvent]:
    return [DecisionEvent(start + i, 0, seat, "x", ms, None, cpu)
            for i, (ms, cpu) in enumerate(figures)]


def test_spread_median_p95_max() -> None:
    s = Spread.of([float(v) for v in range(1, 101)])
    assert s == Spread(50.5, 95.0, 100.0)
    assert Spread.of([3.0]) == Spread(3.0, 3.0, 3.0)
    assert Spread.of([]) is None


def test_known_match_figures() -> None:
    tc = TimeControl(move_time_ms=50, time_bank_ms=100, clock="cpu")
    events: list[MatchEvent] = [header(tc)]
    events += decisions(0, [(45.0, 40.0), (60.0, 55.0), (48.0, 41.0)])
    events += decisions(1, [(10.0, None), (12.0, None)], start=10)
    events.append(DecisionEvent(20, 0, 1, None, 500.0, Termination.TIMEOUT, 480.0))
    events.append(end((SeatStats(120.0, 300.0, 50_000_000, "proc"), SeatStats(80.0))))
    stats = match_stats(events)
    a, b = stats.seats
    assert (a.bot, a.decisions, a.matches) == ("a", 3, 1)
    assert a.cpu_ms == Spread(41.0, 55.0, 55.0)
    assert a.wall_ms == Spread(48.0, 60.0, 60.0)
    assert a.gap_ms == Spread(5.0, 7.0, 7.0)
    assert a.startup_ms == Spread(120.0, 120.0, 120.0)
    assert (a.match_cpu_ms, a.peak_memory_bytes, a.meter, a.clock) == (
        300.0, 50_000_000, "proc", "cpu")
    # the CPU clock charged 55 ms: 5 ms of bank drawn (the wall clock would have drawn 10)
    assert (a.bank_drawn_ms, a.bank_left_ms, a.bank_total_ms) == (5.0, 95.0, 100.0)
    # the fault is no decision; seat 1 has no CPU figures: None, not zero
    assert (b.decisions, b.cpu_ms, b.gap_ms, b.peak_memory_bytes) == (2, None, None, None)
    assert b.startup_ms == Spread(80.0, 80.0, 80.0)
    doc = stats.to_json()
    json.dumps(doc)
    assert doc["seats"][0]["cpu_ms"] == {"median": 41.0, "p95": 55.0, "max": 55.0}


def test_bank_follows_the_clock_model() -> None:
    wall = TimeControl(move_time_ms=50, time_bank_ms=100, clock="wall")
    cpu = TimeControl(move_time_ms=50, time_bank_ms=100, clock="cpu")
    d = DecisionEvent(0, 0, 0, "x", 70.0, None, 60.0)
    a = match_stats([header(wall), d, end(None)]).seats[0]
    assert (a.bank_drawn_ms, a.bank_left_ms, a.clock) == (20.0, 80.0, "wall")
    a = match_stats([header(cpu), d, end(None)]).seats[0]
    assert (a.bank_drawn_ms, a.bank_left_ms, a.clock) == (10.0, 90.0, "cpu")


def test_old_log_without_cpu_or_seat_stats() -> None:
    tc = TimeControl(move_time_ms=1000)  # no bank: nothing to say about it
    events = [header(tc), *decisions(0, [(5.0, None)]), end(None)]
    a = match_stats(events).seats[0]
    assert (a.decisions, a.wall_ms, a.cpu_ms, a.startup_ms, a.bank_left_ms, a.meter) == (
        1, Spread(5.0, 5.0, 5.0), None, None, None, "")


def test_not_a_log() -> None:
    with pytest.raises(ValueError):
        match_stats([])


def test_ladder_folds_by_bot() -> None:
    tc = TimeControl(move_time_ms=50, time_bank_ms=100, clock="cpu")
    m1 = [header(tc, ("a", "b")), *decisions(0, [(10.0, 8.0)]), *decisions(1, [(20.0, 18.0)]),
          end((SeatStats(100.0, 10.0, 1000, "cgroup-v1"), SeatStats(200.0, 20.0, 2000, "proc")))]
    m2 = [header(tc, ("b", "a"), "m2"), *decisions(0, [(70.0, 60.0)]),
          *decisions(1, [(30.0, 28.0)]),
          end((SeatStats(300.0, 60.0, 3000, "proc"), SeatStats(50.0, 30.0, 500, "proc")))]
    a, b = ladder_stats([m1, m2])
    assert (a.bot, a.matches, a.decisions) == ("a", 2, 2)
    assert a.cpu_ms == Spread(18.0, 28.0, 28.0)
    assert a.startup_ms == Spread(75.0, 100.0, 100.0)
    assert (a.peak_memory_bytes, a.match_cpu_ms, a.meter) == (1000, 40.0, "cgroup-v1+proc")
    assert (b.bot, b.bank_drawn_ms, b.bank_left_ms, b.bank_total_ms) == ("b", 10.0, 90.0, 200.0)
    doc = stats_json([a, b], "demo")
    assert [x["bot"] for x in doc["bots"]] == ["a", "b"]


def test_real_format3_log_reads() -> None:
    """A log written by an older arena (format 3, no CPU figures) gives its wall figures."""
    from arena.record.log import read_events

    logs = sorted(Path("tests/referee/data").rglob("*.jsonl"))
    assert logs, "the committed old logs are there"
    stats = match_stats(read_events(logs[0]))
    assert all(s.cpu_ms is None and s.wall_ms is not None for s in stats.seats)
