"""The CPU clock (issue 22), with real bot processes and real containers: a decision is charged
the CPU its bot's whole sandbox used, so a busy host no longer turns into forfeits.

* a compute-bound bot (100 ms of CPU a decision, move time 200 ms) with three CPU hogs on every
  core while it thinks passes on the CPU clock and times out on the wall clock, in the same test
  (process sandbox and containers);
* a bot that burns twice its limit is a ``timeout`` on both clocks, on the CPU clock as soon as
  the polled meter shows it (long before the guard);
* a sleeping bot is a ``wall_timeout`` on the CPU clock (after its guard) and a ``timeout`` on
  the wall clock;
* a bot that forks a helper to do its thinking is charged the helper's CPU (the attack: a bot
  that hides its CPU in a child to think past its limit);
* the logs of both clocks replay, forged figures do not, logs of formats 3 and 4 still replay,
  and the new fields validate against docs/schema/match-log.schema.json;
* ``resolve_clock``: ``cpu`` that cannot be metered is one line (nothing played), ``auto`` falls
  back to ``wall`` with a note.

Margins are wide: what must pass uses half its allowance in CPU and has a guard of seconds;
what must fail fails by a factor of two or more.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from arena.bots import load_bot_dir
from arena.bots.images import BaseImage
from arena.errors import ConfigError, ReplayMismatchError
from arena.model import (
    LOG_FORMAT,
    DecisionEvent,
    HeaderEvent,
    MatchEndEvent,
    MatchResult,
    MatchSpec,
    SeatStats,
    Termination,
    TimeControl,
)
from arena.record.log import read_events
from arena.record.replay import replay_log
from arena.referee.match import play_match
from arena.referee.service import resolve_clock
from arena.wire.admin import event_from_proto, event_to_proto, time_control_to_proto
from tests.support.meter import script_bot
from tests.support.paths import RANDOM_BOT, ROOT, TEST_BOTS

pytestmark = pytest.mark.integration

CPU_BOT = TEST_BOTS / "cpu_bot.py"
DATA = Path(__file__).resolve().parent / "data"
MOVE_MS = 200
BURN_MS = 100
"""Half the move time in CPU: passes on the CPU clock with room to spare."""
HOGS_PER_CORE = 3
"""Busy loops pinned to every core, each in a session of its own: a bot sharing its core with
three of them gets about a quarter of it, so 100 ms of CPU takes about 400 ms of wall time (twice
the 200 ms move time)."""
BURNS = 3
"""The compute-bound bot's burning decisions, each under the hogs."""
PASSING_GUARD = 20.0
"""The wall guard where a decision must pass under load (20 × 200 ms + 100 ms: 4.1 s)."""


def bot_dir(root: Path, mode: str, ms: float, count: int = 5) -> Path:
    """A bot directory running ``cpu_bot.py`` (the same in a container)."""
    return script_bot(root, f"cpu-{mode}", CPU_BOT, [mode, f"{ms:g}", str(count)])


def play(bot: Path, log_dir: Path, socket_root: Path, clock: str, *, sandbox: Any = "process",
         wall_guard: float = 4.0, seed: int = 3,
         on_event: Callable[[Any], None] | None = None) -> MatchResult:
    """One round of Lost Cities: ``bot`` in seat 0 against the random bot."""
    spec = MatchSpec("lost-cities", seed, (load_bot_dir(bot), load_bot_dir(RANDOM_BOT)),
                     {"rounds": 1}, TimeControl(MOVE_MS, 0, 60_000, clock, wall_guard))
    return asyncio.run(play_match(spec, sandbox=sandbox, log_dir=log_dir, on_event=on_event,
                                  socket_root=socket_root))


def decisions(result: MatchResult, seat: int = 0) -> list[DecisionEvent]:
    assert result.log is not None
    return [e for e in read_events(Path(result.log))
            if isinstance(e, DecisionEvent) and e.seat == seat]


class Hogs:
    """``HOGS_PER_CORE`` busy-loop processes pinned to every core (nice 0), started stopped:
    they spin only between ``resume`` and ``pause``, while the decisions under test are played
    (a whole match under them burnt both cores for its every decision and both bots' start)."""

    def __init__(self) -> None:
        loop = "import os, sys; os.sched_setaffinity(0, {int(sys.argv[1])})\nwhile True: pass"
        cores = sorted(os.sched_getaffinity(0))
        # Each in a session of its own: with autogroup scheduling (Linux's default) a session's
        # processes share one slice, so hogs in the test's session would cost the bot (in a
        # session of its own) only half of its core.
        self.started = [subprocess.Popen([sys.executable, "-c", f"import os, signal; "
                                          f"os.kill(os.getpid(), signal.SIGSTOP)\n{loop}",
                                          str(core)], start_new_session=True)
                        for core in cores for _ in range(HOGS_PER_CORE)]
        self.running = False

    def _signal(self, signal_number: int) -> None:
        for hog in self.started:
            hog.send_signal(signal_number)

    def resume(self) -> None:
        self._stopped()
        self._signal(signal.SIGCONT)
        self.running = True

    def pause(self) -> None:
        self._signal(signal.SIGSTOP)
        self.running = False

    def _stopped(self) -> None:
        """Wait until every hog stopped itself (each does so first thing, at its start)."""
        for hog in self.started:
            deadline = time.monotonic() + 60
            while Path(f"/proc/{hog.pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "T":
                assert time.monotonic() < deadline, "a CPU hog never stopped itself"
                time.sleep(0.01)

    def close(self) -> None:
        for hog in self.started:
            hog.kill()
            hog.wait()


@pytest.fixture
def hogs() -> Iterator[Hogs]:
    """CPU hogs, stopped until a test resumes them, killed after."""
    started = Hogs()
    try:
        yield started
    finally:
        started.close()


def under_hogs(hogs: Hogs, burns: int) -> Callable[[object], None]:
    """An event sink that resumes ``hogs`` once both bots started (the header) and pauses them
    after seat 0's ``burns``-th decision: every burning decision runs under them."""
    seen = [0]

    def sink(event: object) -> None:
        if isinstance(event, HeaderEvent):
            hogs.resume()
        elif isinstance(event, DecisionEvent) and event.seat == 0:
            seen[0] += 1
            if seen[0] == burns and hogs.running:
                hogs.pause()
    return sink


def _compute_bound_under_load(tmp_path: Path, socket_root: Path, sandbox: Any,
                              hogs: Hogs) -> None:
    bot = bot_dir(tmp_path / "bots", "burn", BURN_MS, count=BURNS)
    fair = play(bot, tmp_path / "cpu", socket_root, "cpu", sandbox=sandbox,
                wall_guard=PASSING_GUARD, on_event=under_hogs(hogs, BURNS))
    assert not hogs.running  # seat 0's burning decisions all ran under the hogs
    wall = play(bot, tmp_path / "wall", socket_root, "wall", sandbox=sandbox,
                on_event=under_hogs(hogs, 1))
    burnt = decisions(fair)[:BURNS]
    print(f"\nCPU clock: {[(d.ms, d.cpu_ms) for d in burnt]}")
    print(f"wall clock: {wall.termination} {wall.detail}")
    assert fair.termination is Termination.NORMAL, fair.detail
    assert all(d.cpu_ms is not None and BURN_MS * 0.9 <= d.cpu_ms < MOVE_MS for d in burnt)
    assert (wall.termination, wall.faulty_seat) == (Termination.TIMEOUT, 0), wall.detail
    for result in (fair, wall):
        assert result.log is not None
        assert replay_log(Path(result.log)).finished


def test_a_compute_bound_bot_under_cpu_hogs_passes_on_the_cpu_clock_only(
        tmp_path: Path, socket_root: Path, hogs: Hogs) -> None:
    _compute_bound_under_load(tmp_path, socket_root, "process", hogs)


@pytest.mark.docker
def test_in_containers_a_compute_bound_bot_under_cpu_hogs_passes_on_the_cpu_clock_only(
        tmp_path: Path, socket_root: Path, base_image: BaseImage, docker_client: Any,
        hogs: Hogs) -> None:
    from arena.sandbox.docker import DockerSandbox

    box = DockerSandbox(client=docker_client)
    assert box.cpu_meter_problem() is None
    _compute_bound_under_load(tmp_path, socket_root, box, hogs)


@pytest.mark.parametrize("clock", ["cpu", "wall"])
def test_a_bot_burning_twice_its_limit_is_a_timeout_on_both_clocks(
        tmp_path: Path, socket_root: Path, clock: str) -> None:
    bot = bot_dir(tmp_path / "bots", "burn", 2 * MOVE_MS, count=1)
    result = play(bot, tmp_path / "logs", socket_root, clock, wall_guard=PASSING_GUARD)
    assert (result.termination, result.faulty_seat) == (Termination.TIMEOUT, 0), result.detail
    last = decisions(result)[-1]
    assert last.fault is Termination.TIMEOUT and last.cpu_ms is not None
    if clock == "cpu":  # ended by the polled meter, long before the 4.1 s guard
        assert "of CPU" in result.detail and last.cpu_ms > MOVE_MS
        assert last.ms < PASSING_GUARD * MOVE_MS
    assert result.log is not None and replay_log(Path(result.log)).finished


def test_a_sleeping_bot_is_a_wall_timeout_on_the_cpu_clock_and_a_timeout_on_the_wall_clock(
        tmp_path: Path, socket_root: Path) -> None:
    bot = bot_dir(tmp_path / "bots", "sleep", 0)
    on_cpu = play(bot, tmp_path / "cpu", socket_root, "cpu")
    on_wall = play(bot, tmp_path / "wall", socket_root, "wall")
    assert (on_cpu.termination, on_cpu.faulty_seat) == (Termination.WALL_TIMEOUT, 0)
    assert "wall time" in on_cpu.detail and "guard" in on_cpu.detail
    slept = decisions(on_cpu)[-1]
    guard = TimeControl(MOVE_MS).guard_ms(MOVE_MS)
    assert slept.fault is Termination.WALL_TIMEOUT and slept.ms >= guard
    assert slept.cpu_ms is not None and slept.cpu_ms < MOVE_MS
    assert (on_wall.termination, on_wall.faulty_seat) == (Termination.TIMEOUT, 0)
    for result in (on_cpu, on_wall):
        assert result.log is not None and replay_log(Path(result.log)).finished


def test_a_forked_helpers_cpu_is_charged_to_its_bot(tmp_path: Path, socket_root: Path) -> None:
    """The attack: the bot sleeps in waitpid while a child does its thinking. Its own process
    uses no CPU; its sandbox does, and that is what the CPU clock charges."""
    fair = play(bot_dir(tmp_path / "fair", "fork", BURN_MS, count=3), tmp_path / "a",
                socket_root, "cpu", wall_guard=PASSING_GUARD)
    assert fair.termination is Termination.NORMAL, fair.detail
    helped = decisions(fair)[:3]
    assert all(d.cpu_ms is not None and d.cpu_ms >= BURN_MS * 0.9 for d in helped), helped
    cheat = play(bot_dir(tmp_path / "cheat", "fork", 2 * MOVE_MS, count=1), tmp_path / "b",
                 socket_root, "cpu", wall_guard=PASSING_GUARD)
    assert (cheat.termination, cheat.faulty_seat) == (Termination.TIMEOUT, 0), cheat.detail
    assert "of CPU" in cheat.detail


# --- what is recorded, replay and the schema --------------------------------------------------
@pytest.fixture(scope="module")
def cpu_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished CPU-clock log of random against random (process sandbox)."""
    root = tmp_path_factory.mktemp("cpu-log")
    sockets = Path(__import__("tempfile").mkdtemp(prefix="t", dir="/tmp"))
    try:
        spec = MatchSpec("lost-cities", 5, (load_bot_dir(RANDOM_BOT), load_bot_dir(RANDOM_BOT)),
                         {"rounds": 1}, TimeControl(MOVE_MS, 1000, 60_000, "cpu", 10.0))
        result = asyncio.run(play_match(spec, sandbox="process", log_dir=root,
                                        socket_root=sockets))
    finally:
        shutil.rmtree(sockets, ignore_errors=True)
    assert result.termination is Termination.NORMAL and result.log is not None
    return Path(result.log)


def _records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def _write(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


@pytest.mark.integration
def test_a_cpu_clock_log_records_both_times_and_the_seats_statistics(cpu_log: Path) -> None:
    events = list(read_events(cpu_log))
    header, end = events[0], events[-1]
    assert isinstance(header, HeaderEvent) and isinstance(end, MatchEndEvent)
    assert header.log_format == LOG_FORMAT == 5
    assert (header.time_control.clock, header.time_control.wall_guard) == ("cpu", 10.0)
    played = [e for e in events if isinstance(e, DecisionEvent)]
    assert played and all(d.cpu_ms is not None and d.cpu_ms >= 0 for d in played)
    assert end.seat_stats is not None
    for stats in end.seat_stats:
        assert stats.meter in ("cgroup-v1", "cgroup-v2", "proc")
        assert stats.startup_ms is not None and 0 < stats.startup_ms < 60_000
        assert stats.cpu_ms is not None and stats.cpu_ms > 0
        assert stats.peak_memory_bytes is not None and stats.peak_memory_bytes > 1_000_000
    report = replay_log(cpu_log)
    assert report.finished and report.log_format == 5


@pytest.mark.integration
def test_forged_cpu_figures_do_not_replay(cpu_log: Path, tmp_path: Path) -> None:
    records = _records(cpu_log)
    first = next(i for i, r in enumerate(records) if r["type"] == "decision")

    def forged(change: dict[str, Any], drop: str = "") -> Path:
        copy = [dict(r) for r in records]
        copy[first].update(change)
        copy[first].pop(drop, None)
        return _write(tmp_path / "forged.jsonl", copy)

    with pytest.raises(ReplayMismatchError, match="allowance: that decision was a timeout"):
        replay_log(forged({"cpu_ms": 1500.0}))  # over move time + bank in CPU
    with pytest.raises(ReplayMismatchError, match="without its CPU time"):
        replay_log(forged({}, drop="cpu_ms"))
    with pytest.raises(ReplayMismatchError, match="wall guard: that decision was a wall_"):
        replay_log(forged({"ms": 99_999.0}))
    # a wall_timeout must have waited out its guard; a timeout must be over in CPU
    end = dict(records[-1])
    end["result"] = {**end["result"], "termination": "wall_timeout", "faulty_seat":
                     records[first]["seat"], "winner": 1 - records[first]["seat"],
                     "rounds": [], "totals": [0, 0], "decisions": 1}
    cut = [*records[:first], {**records[first], "fault": "wall_timeout", "ms": 500.0}, end]
    with pytest.raises(ReplayMismatchError, match="before its guard"):
        replay_log(_write(tmp_path / "early.jsonl", cut))
    cut[first] = {**records[first], "fault": "timeout", "ms": 5000.0, "cpu_ms": 3.0}
    end["result"]["termination"] = "timeout"
    with pytest.raises(ReplayMismatchError, match="within the allowance"):
        replay_log(_write(tmp_path / "slow.jsonl", cut))
    cut[first] = {**records[first], "fault": "wall_timeout", "ms": 99_999.0}
    end["result"]["termination"] = "wall_timeout"
    assert replay_log(_write(tmp_path / "honest.jsonl", cut)).finished
    wall_header = {**records[0], "time_control": {**records[0]["time_control"],
                                                  "clock": "wall"}}
    with pytest.raises(ReplayMismatchError, match="on the wall clock"):
        replay_log(_write(tmp_path / "wall.jsonl", [wall_header, *cut[1:]]))


@pytest.mark.unit
@pytest.mark.parametrize("log", sorted((DATA / "format4").glob("*.jsonl"))
                         + sorted((DATA / "format3").glob("*.jsonl")), ids=lambda p: p.name)
def test_logs_written_before_format_5_still_replay_on_the_wall_clock(log: Path) -> None:
    header = next(iter(read_events(log)))
    assert isinstance(header, HeaderEvent) and header.log_format < 5
    assert header.time_control.clock == "wall"
    assert replay_log(log).finished


@pytest.mark.integration
def test_the_new_fields_validate_against_the_schema(cpu_log: Path) -> None:
    from jsonschema import Draft202012Validator

    schema = json.loads((ROOT / "docs" / "schema" / "match-log.schema.json").read_text())
    validator = Draft202012Validator(schema)
    records = _records(cpu_log)
    for log in [cpu_log, *sorted((DATA / "format4").glob("*.jsonl"))]:
        for number, record in enumerate(_records(log), start=1):
            errors = sorted(validator.iter_errors(record), key=str)
            assert not errors, f"{log.name}:{number}: {errors[0].message[:300]}"
    header, decision, end = records[0], records[2], records[-1]
    tc = header["time_control"]
    for broken in ({**header, "time_control": {**tc, "clock": "sundial"}},
                   {**header, "time_control": {k: v for k, v in tc.items() if k != "clock"}},
                   {**decision, "cpu_ms": -1}, {**end, "seat_stats": end["seat_stats"][:1]},
                   {**end, "seat_stats": [{**end["seat_stats"][0], "meter": "guess"}] * 2}):
        assert list(validator.iter_errors(broken)), broken


@pytest.mark.integration
def test_the_admin_wire_carries_the_new_fields(cpu_log: Path) -> None:
    for event in read_events(cpu_log):
        assert event_from_proto(event_to_proto(event)) == event
    end = MatchEndEvent(next(e for e in read_events(cpu_log)
                             if isinstance(e, MatchEndEvent)).result, (None, None), "",
                        (SeatStats(), SeatStats(1.5, None, 7, "proc")))
    assert event_from_proto(event_to_proto(end)) == end
    assert time_control_to_proto(TimeControl(clock="cpu", wall_guard=6.0)).clock == "cpu"


# --- the clock a caller asked for -------------------------------------------------------------
class _Unmetered:
    """A sandbox that says it cannot meter CPU here (what resolve_clock reads of a sandbox)."""

    name = "process"

    def cpu_meter_problem(self) -> str:
        return "no cgroup and no /proc here"


@pytest.mark.unit
def test_resolve_clock() -> None:
    assert resolve_clock("auto", "process") == ("cpu", "")
    assert resolve_clock("wall", _Unmetered()) == ("wall", "")  # type: ignore[arg-type]
    clock, note = resolve_clock("auto", _Unmetered())  # type: ignore[arg-type]
    assert clock == "wall" and "no cgroup" in note and "\n" not in note
    with pytest.raises(ConfigError, match="cannot meter CPU") as refused:
        resolve_clock("cpu", _Unmetered())  # type: ignore[arg-type]
    assert "\n" not in str(refused.value)
    with pytest.raises(ConfigError, match="one of auto, wall, cpu"):
        resolve_clock("sundial", "process")
