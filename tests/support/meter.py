"""Helpers of the meter tests: probe bot directories, a started sandbox seat, a counter that has
settled, and the cost of a reading."""

from __future__ import annotations

import shutil
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from arena.bots import load_bot_dir
from arena.sandbox.meter import Meter

PROBE = Path(__file__).resolve().parents[1] / "sandbox" / "bots" / "meter_probe" / "probe.py"
MS = 1_000_000
"""Nanoseconds in a millisecond."""
BURN_RANGE_MS = (200.0, 800.0)
"""What a probe that burns 300 ms of its own CPU reads (its interpreter's start-up included;
the counter is CPU, so load on the machine stretches only the wall time)."""


def script_bot(root: Path, name: str, script: Path, args: list[str]) -> Path:
    """A Lost Cities bot directory ``root/name`` whose command runs ``script`` (copied in)
    with ``args``, readable by any bot user (the process sandbox's and a container's)."""
    directory = root / name
    directory.mkdir(parents=True)
    shutil.copy(script, directory / script.name)
    command = ", ".join(f'"{part}"' for part in ["python3", script.name, *args])
    (directory / "bot.toml").write_text(
        f'name = "{name}"\ngame = "lost-cities"\nversion = "1"\ncommand = [{command}]\n',
        encoding="utf-8")
    for path in (root, directory, directory / script.name, directory / "bot.toml"):
        path.chmod(0o755)
    return directory


def probe_dir(root: Path, mode: str) -> Path:
    """A bot directory whose command runs ``probe.py MODE``."""
    return script_bot(root, f"probe-{mode}", PROBE, [mode])


async def start_probe(sandbox: Any, root: Path, mode: str, seat: int = 0) -> tuple[Any, Path]:
    """``probe.py MODE`` started in ``sandbox`` (returns the running bot, its socket dir)."""
    socket_dir = Path(tempfile.mkdtemp(prefix="m", dir="/tmp"))
    socket_dir.chmod(0o755)
    bot = load_bot_dir(probe_dir(root, mode))
    running = await sandbox.start(bot, socket_dir, f"meter-{mode}-{time.time_ns()}", seat)
    return running, socket_dir


def settled(meter: Meter, minimum_ms: float = 0.0, quiet_s: float = 1.0,
            timeout_s: float = 90.0) -> float:
    """The meter's CPU (ms) once it reads at least ``minimum_ms`` and has moved less than
    10 ms over ``quiet_s`` (the probe has done its work and sleeps)."""
    deadline = time.monotonic() + timeout_s
    before = meter.cpu_ns()
    while time.monotonic() < deadline:
        time.sleep(quiet_s)
        now = meter.cpu_ns()
        if now >= minimum_ms * MS and now - before < 10 * MS:
            return now / MS
        before = now
    raise AssertionError(f"the meter did not settle: {meter.cpu_ns() / MS:.1f} ms")


def wait_for(condition: Callable[[], bool], timeout_s: float = 60.0) -> None:
    """Wait until ``condition()`` holds (AssertionError after ``timeout_s``)."""
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.1)


def reading_cost_us(meter: Meter, reads: int = 1000) -> float:
    """The median cost of one ``cpu_ns()`` in microseconds over ``reads`` readings (printed)."""
    costs = []
    for _ in range(reads):
        start = time.perf_counter_ns()
        meter.cpu_ns()
        costs.append(time.perf_counter_ns() - start)
    median = statistics.median(costs) / 1000
    print(f"\n{meter.kind}: cpu_ns() median {median:.1f} us over {reads} reads")
    return median
