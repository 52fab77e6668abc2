"""A Python bot's start: process start -> its Hello on the seat's socket, wall and CPU.

The bot (``benchmarks/bots/first``: the SDK and nothing else) is started as the process sandbox
starts one (its command, environment and working directory: ``arena.sandbox.process``) but
without the sandbox's separation, so the figure is the bot's own: the interpreter, the SDK's
imports (gRPC, protobuf, the game's engine and codec), the warm-up and the channel. The seat is
the referee's own endpoint (``arena.referee.seat``); its CPU is read at the moment the Hello
arrives, from the scheduler's per-thread counters (``/proc/PID/task/*/schedstat``: ns, every
thread of the bot), so what the bot does after its Hello is not counted. The interpreter alone
(``python -c pass``, same environment) is measured the same way as the floor under it.

Run alone: ``python benchmarks/bot_startup.py [--samples N]`` prints the figures as JSON.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from arena.referee.seat import SeatEndpoint  # noqa: E402
from arena.sandbox.process import bot_environment  # noqa: E402

BOT = ROOT / "benchmarks" / "bots" / "first"
GAME = "lost-cities"


def _cpu_ns(pid: int) -> int:
    """CPU time so far of every thread of process ``pid`` (ns, the scheduler's count)."""
    total = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            total += int((task / "schedstat").read_text().split()[0])
        except (OSError, ValueError, IndexError):  # a thread that just ended
            continue
    return total


async def _one_start(socket_root: Path) -> tuple[float, float]:
    """Start the bot once; (wall ms, CPU ms) from its start to its Hello."""
    endpoint = SeatEndpoint(socket_root / "seat")
    await endpoint.start()
    env = bot_environment(endpoint.socket_dir, GAME)
    started = time.perf_counter()
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "bot.py", cwd=BOT, env=env,
        stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL)
    try:
        message = await asyncio.wait_for(endpoint.servicer.inbox.get(), timeout=60)
        wall = (time.perf_counter() - started) * 1000
        cpu = _cpu_ns(proc.pid) / 1e6
        if getattr(message, "WhichOneof", None) is None or message.WhichOneof("kind") != "hello":
            raise RuntimeError(f"the bot's first message was no Hello: {message!r}")
    finally:
        await endpoint.close(0)
        try:
            await asyncio.wait_for(proc.wait(), timeout=10)
        except TimeoutError:
            proc.kill()
            await proc.wait()
    return wall, cpu


def startup_figures(samples: int = 20) -> dict[str, Any]:
    """Medians over ``samples`` starts of the bot, and of the interpreter alone."""
    walls: list[float] = []
    cpus: list[float] = []
    bare_walls: list[float] = []
    bare_cpus: list[float] = []
    for _ in range(samples):
        with tempfile.TemporaryDirectory(prefix="startup-", dir="/tmp") as tmp:
            wall, cpu = asyncio.run(_one_start(Path(tmp)))
            walls.append(wall)
            cpus.append(cpu)
            wall, cpu = _bare(Path(tmp))
            bare_walls.append(wall)
            bare_cpus.append(cpu)
    return {
        "bot_startup_wall_ms_median": round(statistics.median(walls), 1),
        "bot_startup_cpu_ms_median": round(statistics.median(cpus), 1),
        "bot_startup_interpreter_wall_ms_median": round(statistics.median(bare_walls), 1),
        "bot_startup_interpreter_cpu_ms_median": round(statistics.median(bare_cpus), 1),
        "bot_startup_samples": samples,
    }


def _bare(socket_root: Path) -> tuple[float, float]:
    """The interpreter alone (``python -c pass``), reaped with its resource usage."""
    env = bot_environment(socket_root, GAME)
    started = time.perf_counter()
    pid = os.spawnve(os.P_NOWAIT, sys.executable, [sys.executable, "-c", "pass"], env)
    _, _, usage = os.wait4(pid, 0)
    return (time.perf_counter() - started) * 1000, (usage.ru_utime + usage.ru_stime) * 1000


PHASES = """
import time
P = time.process_time
marks = [P()]
import grpc
marks.append(P())
from arena.v1 import bot_pb2
marks.append(P())
from arena.games import get_game
get_game(GAME)
marks.append(P())
import arena.sdk.client
marks.append(P())
arena.sdk.client._warm_up(GAME)
marks.append(P())
print(" ".join(str(m) for m in marks))
"""
"""Run in the bot's environment: the CPU clock after each phase of the SDK's start."""
PHASE_NAMES = ("interpreter", "grpc", "protobuf", "engine", "sdk", "warm_up")
"""interpreter: to the first line of a script (``site`` included: the venv's .pth files);
grpc: ``import grpc``; protobuf: the arena.v1 messages (protobuf's runtime and every built-in
game's messages); engine: the registry and the game's engine; sdk: the rest of the SDK (the
wire codec, the policy calls); warm_up: one decision run through the SDK before connecting."""


def phase_figures(samples: int = 10) -> dict[str, float]:
    """Median CPU ms of each phase (``PHASE_NAMES``) over ``samples`` interpreters."""
    import subprocess

    script = PHASES.replace("GAME", repr(GAME))
    runs: list[list[float]] = []
    with tempfile.TemporaryDirectory(prefix="startup-", dir="/tmp") as tmp:
        env = bot_environment(Path(tmp), GAME)
        for _ in range(samples):
            done = subprocess.run([sys.executable, "-c", script], env=env, cwd=BOT,
                                  capture_output=True, text=True, check=True)
            marks = [float(v) * 1000 for v in done.stdout.split()]
            runs.append([marks[0]] + [b - a for a, b in zip(marks, marks[1:], strict=False)])
    return {f"bot_startup_phase_{name}_cpu_ms": round(statistics.median(r[i] for r in runs), 1)
            for i, name in enumerate(PHASE_NAMES)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--samples", type=int, default=20, help="starts measured")
    args = parser.parse_args()
    figures = startup_figures(args.samples)
    figures.update(phase_figures(args.samples))
    print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
