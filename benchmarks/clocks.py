"""The CPU clock against the wall clock (issue 22): spurious time losses under load, agreement on a
quiet host, the cost of the counters, the guard. Real bot processes and real containers, the
real referee (``play_match``); every figure is read back from the match logs
(``arena.stats.resources``).

The bot (``benchmarks/bots/clock``, mode ``burn``): every decision it spins until its own
process used ``--burn-ms`` (40) ms of CPU, 80% of the 50 ms move time, then answers; it plays
seat 0 of 3-round Lost Cities matches (time bank 500 ms) against a bot that answers at once,
match after match until it made ``--decisions`` (500) decisions or ``--max-matches`` matches
were played (a wall-clock cell under load forfeits its matches early). Each cell is a sandbox
(process, docker), a load and a clock:

  quiet      nothing else runs
  hogs       one busy loop pinned to every core (nice 0)
  matches    two other matches of burning bots at once (separate processes, the same sandbox)

Per cell (``cells``): matches, decisions, time_forfeits (matches the bot lost on time:
timeout or wall_timeout), spurious_forfeits (of those, the ones whose last decision used less
CPU than the move time: the host's fault, not the bot's), bank_drawn_ms_per_match,
cpu_ms_median, wall_ms_median, gap_ms_median (wall − CPU), wall_ms_p95.

Then:

  agreement_<sandbox>_abs_gap_ms_median   quiet host, CPU clock: median |wall − CPU| per
                                          decision of the compute-bound bot
  counter_read_us_median_<meter>          one ``cpu_ns()`` (a cgroup counter by a kept-open
                                          descriptor; the /proc process tree), median of 1000
  decision_overhead_us_median_<clock>     the referee's round trip per decision with a bot that
                                          answers at once (process sandbox), median, each clock
  guard_excess_ms_<sandbox>_max           a bot that sleeps: how long after its guard
                                          (4 × 50 ms + 100 ms) the referee ended it
                                          ``wall_timeout`` (target: under 100 ms)

    python benchmarks/clocks.py [--decisions N] [--sandbox process|docker|both]
                                [--load-match DIR]    # prints one JSON object
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from arena.bots import load_bot_dir  # noqa: E402
from arena.model import (  # noqa: E402
    DecisionEvent,
    MatchEvent,
    MatchResult,
    MatchSpec,
    Termination,
    TimeControl,
)
from arena.record.log import read_events  # noqa: E402
from arena.referee.match import play_match  # noqa: E402
from arena.sandbox import get_sandbox  # noqa: E402
from arena.stats.resources import ladder_stats  # noqa: E402

CLOCK_BOT = ROOT / "benchmarks" / "bots" / "clock"
MOVE_MS = 50
BANK_MS = 500
LOADS = ("quiet", "hogs", "matches")
TIME_LOSSES = (Termination.TIMEOUT, Termination.WALL_TIMEOUT)


def bot_dir(root: Path, mode: str, ms: float = 0) -> Path:
    """The clock bot in ``mode`` (its own directory, named after the mode)."""
    directory = root / mode
    if not directory.exists():
        directory.mkdir(parents=True)
        shutil.copy(CLOCK_BOT / "bot.py", directory / "bot.py")
        (directory / "bot.toml").write_text(
            f'name = "{mode}"\ngame = "lost-cities"\nversion = "1"\n'
            f'command = ["python3", "bot.py", "{mode}", "{ms:g}"]\n', encoding="utf-8")
        for path in (root, directory, directory / "bot.py", directory / "bot.toml"):
            path.chmod(0o755)
    return directory


def play(bot_a: Path, bot_b: Path, seed: int, log_dir: Path, tc: TimeControl, sandbox: Any
         ) -> MatchResult:
    spec = MatchSpec("lost-cities", seed, (load_bot_dir(bot_a), load_bot_dir(bot_b)),
                     {"rounds": 3}, tc, match_id=f"m{seed}-{tc.clock}-{time.monotonic_ns()}")
    return asyncio.run(play_match(spec, sandbox=sandbox, log_dir=log_dir))


def events_of(result: MatchResult) -> list[MatchEvent]:
    assert result.log is not None
    return list(read_events(Path(result.log)))


@contextlib.contextmanager
def hogs() -> Iterator[None]:
    """One busy loop pinned to every core, killed after."""
    loop = "import os, sys; os.sched_setaffinity(0, {int(sys.argv[1])})\nwhile True: pass"
    started = [subprocess.Popen([sys.executable, "-c", loop, str(core)])
               for core in sorted(os.sched_getaffinity(0))]
    try:
        yield
    finally:
        for hog in started:
            hog.kill()
            hog.wait()


@contextlib.contextmanager
def other_matches(root: Path, sandbox: str, count: int = 2) -> Iterator[None]:
    """``count`` processes each playing matches of burning bots back to back, killed after."""
    started = [subprocess.Popen([sys.executable, __file__, "--load-match", str(root / f"l{i}"),
                                 "--sandbox", sandbox],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                start_new_session=True)
               for i in range(count)]
    time.sleep(3)  # their bots started
    try:
        yield
    finally:
        for proc in started:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, 9)
            proc.wait()


def load_matches(root: Path, sandbox: str, burn_ms: float) -> None:
    """Play matches of two burning bots back to back until killed (the ``matches`` load)."""
    bot = bot_dir(root / "bots", "burn", burn_ms)
    box = get_sandbox(sandbox)
    tc = TimeControl(10_000, 0, 60_000, "wall")
    seed = 0
    while True:
        seed += 1
        play(bot, bot, seed, root / "logs", tc, box)
        shutil.rmtree(root / "logs", ignore_errors=True)


def cell(root: Path, sandbox: str, clock: str, args: argparse.Namespace) -> dict[str, Any]:
    """Matches of the burning bot on ``clock`` until the decision target or the match cap."""
    burn = bot_dir(root / "bots", "burn", args.burn_ms)
    first = bot_dir(root / "bots", "first")
    box = get_sandbox(sandbox)
    tc = TimeControl(MOVE_MS, BANK_MS, 60_000, clock, 4.0)
    logs: list[list[MatchEvent]] = []
    forfeits = spurious = decisions = 0
    for seed in range(1, args.max_matches + 1):
        result = play(burn, first, seed, root / f"logs-{clock}", tc, box)
        events = events_of(result)
        logs.append(events)
        mine = [e for e in events if isinstance(e, DecisionEvent) and e.seat == 0]
        decisions += sum(1 for e in mine if e.fault is None)
        if result.termination in TIME_LOSSES and result.faulty_seat == 0:
            forfeits += 1
            last = mine[-1]
            spurious += int(last.cpu_ms is not None and last.cpu_ms < MOVE_MS)
        elif result.void or result.termination.is_fault:
            raise SystemExit(f"unexpected end: {result.termination} {result.detail}")
        if decisions >= args.decisions:
            break
    stats = next(s for s in ladder_stats(logs) if s.bot == "burn")
    return {
        "matches": len(logs), "decisions": decisions, "time_forfeits": forfeits,
        "spurious_forfeits": spurious,
        "bank_drawn_ms_per_match": round(stats.bank_drawn_ms / len(logs), 1),
        "cpu_ms_median": None if stats.cpu_ms is None else round(stats.cpu_ms.median, 2),
        "wall_ms_median": None if stats.wall_ms is None else round(stats.wall_ms.median, 2),
        "wall_ms_p95": None if stats.wall_ms is None else round(stats.wall_ms.p95, 2),
        "gap_ms_median": None if stats.gap_ms is None else round(stats.gap_ms.median, 2),
    }


def agreement(cell_logs_root: Path, sandbox: str, args: argparse.Namespace) -> dict[str, Any]:
    """Quiet host, CPU clock: median |wall − CPU| per decision of the burning bot."""
    burn = bot_dir(cell_logs_root / "bots", "burn", args.burn_ms)
    first = bot_dir(cell_logs_root / "bots", "first")
    box = get_sandbox(sandbox)
    tc = TimeControl(MOVE_MS, BANK_MS, 60_000, "cpu", 4.0)
    gaps: list[float] = []
    for seed in range(1, 4):
        result = play(burn, first, seed, cell_logs_root / "agree", tc, box)
        gaps += [abs(e.ms - e.cpu_ms) for e in events_of(result)
                 if isinstance(e, DecisionEvent) and e.seat == 0 and e.cpu_ms is not None
                 and e.fault is None]
    return {f"agreement_{sandbox}_abs_gap_ms_median": round(statistics.median(gaps), 3),
            f"agreement_{sandbox}_decisions": len(gaps)}


def counter_cost() -> dict[str, Any]:
    """The cost of one ``cpu_ns()``: a cgroup meter (this process's cgroup, a kept-open
    descriptor) and the /proc process-tree meter, median of 1000 reads each."""
    from arena.sandbox.meter import ProcMeter, process_meter

    figures: dict[str, Any] = {}
    meters = {"cgroup": process_meter(os.getpid()), "proc": ProcMeter(os.getpid())}
    for name, meter in meters.items():
        if meter is None:
            figures[f"counter_read_us_median_{name}"] = None
            continue
        times = []
        for _ in range(1000):
            started = time.perf_counter_ns()
            meter.cpu_ns()
            times.append((time.perf_counter_ns() - started) / 1000)
        meter.close()
        figures[f"counter_read_us_median_{name}"] = round(statistics.median(times), 2)
        if name == "cgroup":
            figures["counter_meter_kind"] = meter.kind
    return figures


def decision_overhead(root: Path, matches: int = 3) -> dict[str, Any]:
    """The referee's round trip per decision with bots that answer at once, per clock."""
    first = bot_dir(root / "bots", "first")
    figures: dict[str, Any] = {}
    for clock in ("wall", "cpu"):
        times: list[float] = []
        for seed in range(matches):
            result = play(first, first, seed, root / "overhead", TimeControl(1000, 0, 60_000,
                                                                             clock), "process")
            times += [e.ms * 1000 for e in events_of(result) if isinstance(e, DecisionEvent)]
        figures[f"decision_overhead_us_median_{clock}"] = round(statistics.median(times), 1)
    return figures


def guard(root: Path, sandbox: str, repeat: int = 3) -> dict[str, Any]:
    """A sleeping bot on the CPU clock: how long after its guard it was ended."""
    sleeper = bot_dir(root / "bots", "sleep")
    first = bot_dir(root / "bots", "first")
    tc = TimeControl(MOVE_MS, 0, 60_000, "cpu", 4.0)
    limit = tc.guard_ms(MOVE_MS)
    excess: list[float] = []
    for seed in range(repeat):
        result = play(sleeper, first, seed, root / "guard", tc, get_sandbox(sandbox))
        if result.termination is not Termination.WALL_TIMEOUT:
            raise SystemExit(f"the sleeper ended {result.termination}: {result.detail}")
        last = [e for e in events_of(result) if isinstance(e, DecisionEvent)][-1]
        excess.append(last.ms - limit)
    return {f"guard_ms_{sandbox}": limit,
            f"guard_excess_ms_{sandbox}_max": round(max(excess), 1),
            f"guard_excess_ms_{sandbox}_median": round(statistics.median(excess), 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--decisions", type=int, default=500)
    parser.add_argument("--max-matches", type=int, default=12)
    parser.add_argument("--burn-ms", type=float, default=0.8 * MOVE_MS)
    parser.add_argument("--sandbox", choices=("process", "docker", "both"), default="both")
    parser.add_argument("--load-match", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.load_match is not None:
        load_matches(args.load_match, args.sandbox, args.burn_ms)
        return
    sandboxes = ["process", "docker"] if args.sandbox == "both" else [args.sandbox]
    started = time.monotonic()
    out: dict[str, Any] = {"move_time_ms": MOVE_MS, "time_bank_ms": BANK_MS,
                           "burn_ms": args.burn_ms, "cores": len(os.sched_getaffinity(0))}
    with tempfile.TemporaryDirectory(prefix="clocks-", dir="/tmp") as tmp:
        root = Path(tmp)
        out.update(counter_cost())
        out.update(decision_overhead(root))
        cells: dict[str, Any] = {}
        for sandbox in sandboxes:
            out.update(agreement(root, sandbox, args))
            out.update(guard(root, sandbox))
            for load in LOADS[1:]:
                context = hogs() if load == "hogs" else other_matches(root / "load", sandbox)
                with context:
                    for clock in ("cpu", "wall"):
                        cells[f"{sandbox}/{load}/{clock}"] = cell(
                            root / f"{sandbox}-{load}", sandbox, clock, args)
        out["cells"] = cells
    out["elapsed_s"] = round(time.monotonic() - started, 1)
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
