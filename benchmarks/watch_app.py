"""The interactive `arena watch` (arena/tui/): opening a log, seeking, memory.

The longest real log this arena makes: a Haggis game to 10 000 between two sample `random` bots
(in-process, on the real match loop), which ends at the 40-round cap (1,252 decisions; `random`
against `greedy` ends there too, in 772). Its first 500
decisions make the 500-decision log (a log still being written: its seed in the sidecar).
Measured:

  open_500_ms / open_long_ms      reading, verifying (the rules engine replays every event) and
                                  indexing a log (``arena.tui.watch.open_log``), median of 5
  app_ready_500_ms                the app on a 120x40 screen (headless) from start to its first
                                  frame drawn
  seek_ms_median / _max           the app: a jump to a random decision, the board drawn and the
                                  screen refreshed (``seek`` and Textual's refresh), 40 jumps;
                                  seek_cpu_ms_*: the process's CPU time for the same (what the
                                  jump costs, whatever else the machine runs)
  seek_last_ms / seek_first_ms    End and Home from the middle (and their _cpu_ms)
  board_ms_median / _max          the model alone: the state rebuilt from its keyframe and the
                                  board rendered to text (100 columns), 40 random positions
  board_no_keyframes_ms           the same for the last decision but one with no keyframe but
                                  the start (every action applied again)
  timeline_mib / _every_state_mib the memory the timeline keeps (tracemalloc), keyframes every
                                  16 decisions / every state kept
  rss_app_mib                     the process's resident memory with the app open on the long
                                  log

    python benchmarks/watch_app.py            # one JSON object
"""

from __future__ import annotations

import asyncio
import io
import json
import os
import random
import statistics
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rich.console import Console  # noqa: E402

from arena.model import BotSpec, MatchSpec, TimeControl  # noqa: E402
from arena.record.log import read_events, write_seed_sidecar  # noqa: E402
from arena.record.replay import replay_events  # noqa: E402
from arena.referee.local import LocalPlayer  # noqa: E402
from arena.referee.match import Match  # noqa: E402
from arena.tui.model import Timeline  # noqa: E402
from arena.tui.watch import WatchApp, open_log  # noqa: E402
from tests.support.pages import sample_policy  # noqa: E402

SEED = 1
TARGET = 10_000


def long_haggis(log_dir: Path) -> Path:
    """A Haggis game to 10 000 between two sample random bots: the 40-round cap."""
    bots = (BotSpec("random", "haggis"), BotSpec("random-too", "haggis"))
    spec = MatchSpec("haggis", SEED, bots, {"target": TARGET},
                     TimeControl(move_time_ms=60_000, startup_ms=60_000),
                     match_id="watch-long-haggis")
    players = (LocalPlayer(0, sample_policy("haggis", "random")),
               LocalPlayer(1, sample_policy("haggis", "random")))
    asyncio.run(Match(spec, sandbox_name="in-process", log_dir=log_dir).run(players))
    return log_dir / "watch-long-haggis.jsonl"


def prefix(log: Path, decisions: int, out: Path) -> Path:
    """The log as it was after ``decisions`` decisions (a running match: the seed sidecar)."""
    lines, seen = [], 0
    for line in log.read_text().splitlines(keepends=True):
        if json.loads(line)["type"] == "decision":
            if seen == decisions:
                break
            seen += 1
        lines.append(line)
    out.write_text("".join(lines))
    end = json.loads(log.read_text().splitlines()[-1])
    write_seed_sidecar(out, end["result"]["seed"])
    return out


def _ms(seconds: float) -> float:
    return round(1000 * seconds, 2)


def open_ms(log: Path, repeat: int = 5) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        open_log(log)
        times.append(time.perf_counter() - started)
    return _ms(statistics.median(times))


def board_ms(timeline: Timeline, positions: list[int]) -> list[float]:
    """The model: each position's state from its keyframe, its board rendered to text."""
    console = Console(file=io.StringIO(), width=100)
    times = []
    for position in positions:
        timeline._cache = None  # a jump: nothing to step on from
        started = time.perf_counter()
        board, _ = timeline.board(position, None)
        console.print(board)
        times.append(time.perf_counter() - started)
    return times


def memory_mib(log: Path, keyframe_every: int) -> float:
    steps = replay_events(read_events(log))
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        timeline = Timeline.of_steps(steps, log=log, keyframe_every=keyframe_every)
        kept = tracemalloc.get_traced_memory()[0] - base
    finally:
        tracemalloc.stop()
    del timeline
    return round(kept / 2**20, 2)


def rss_mib() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return round(int(line.split()[1]) / 1024, 1)
    return float("nan")


def app_figures(log: Path, positions: list[int]) -> dict[str, Any]:
    """The app headless (Textual's pilot) on a 120x40 screen."""
    figures: dict[str, Any] = {}
    timeline = open_log(log)

    async def run() -> None:
        started = time.perf_counter()
        app = WatchApp(timeline)
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.pause()
            figures["app_ready_long_ms"] = _ms(time.perf_counter() - started)
            times, cpu = [], []
            for position in positions:
                started, used = time.perf_counter(), time.process_time()
                app.seek(position)
                await pilot.pause()
                times.append(time.perf_counter() - started)
                cpu.append(time.process_time() - used)
            figures["seek_ms_median"] = _ms(statistics.median(times))
            figures["seek_ms_max"] = _ms(max(times))
            figures["seek_cpu_ms_median"] = _ms(statistics.median(cpu))
            figures["seek_cpu_ms_max"] = _ms(max(cpu))
            for key, name in (("end", "seek_last"), ("home", "seek_first")):
                app.seek(timeline.last // 2)
                await pilot.pause()
                started, used = time.perf_counter(), time.process_time()
                await pilot.press(key)
                await pilot.pause()
                figures[f"{name}_ms"] = _ms(time.perf_counter() - started)
                figures[f"{name}_cpu_ms"] = _ms(time.process_time() - used)
            figures["rss_app_mib"] = rss_mib()

    asyncio.run(run())
    return figures


def app_ready_ms(log: Path) -> float:
    timeline = open_log(log)

    async def run() -> float:
        started = time.perf_counter()
        app = WatchApp(timeline)
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.pause()
            return time.perf_counter() - started

    return _ms(asyncio.run(run()))


def watch_figures(work: Path) -> dict[str, Any]:
    long = long_haggis(work)
    short = prefix(long, 500, work / "watch-500.jsonl")
    timeline = open_log(long)
    rng = random.Random(1)
    positions = [rng.randrange(timeline.last + 1) for _ in range(40)]
    boards = board_ms(timeline, positions)
    bare = Timeline.of_steps(replay_events(read_events(long)), keyframe_every=10**9)
    figures: dict[str, Any] = {
        "load_avg_at_start": round(os.getloadavg()[0], 2),
        "long_log_decisions": timeline.last,
        "long_log_rounds": len(timeline.round_ends),
        "long_log_kib": round(long.stat().st_size / 1024, 1),
        "open_500_ms": open_ms(short),
        "open_long_ms": open_ms(long),
        "app_ready_500_ms": app_ready_ms(short),
        "board_ms_median": _ms(statistics.median(boards)),
        "board_ms_max": _ms(max(boards)),
        "board_no_keyframes_ms": _ms(board_ms(bare, [bare.last - 1])[0]),
        "timeline_mib": memory_mib(long, 16),
        "timeline_every_state_mib": memory_mib(long, 1),
    }
    figures.update(app_figures(long, positions))
    return figures


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        print(json.dumps(watch_figures(Path(tmp)), indent=2))


if __name__ == "__main__":
    main()
