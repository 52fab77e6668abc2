"""What the host's deal epochs cost (``arena.sandbox.epochs``), measured in one run.

* ``epoch_switch_ms_*``: closing an epoch nobody else is in (a second leg arriving on a quiet
  host): the drain is instant, so this is the drop of the page cache, dentries and inodes plus
  the state files, with the page cache first filled again by reading the Python library and the
  arena (what a host that plays matches keeps cached).
* ``epoch_enter_us_median``: a match entering an open epoch (no conflict): the cost every
  separated match pays.
* ``*_start_to_first_decision_ms_warm`` / ``_cold``: a match of two random bots from its start
  to its first decision, after the caches were dropped (the first match of an epoch) or not,
  alternating, in the process sandbox (as root) and in containers: what a bot's start-up pays
  for the drop.

    python benchmarks/epochs.py [--quick]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import sysconfig
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from arena.model import DecisionEvent, MatchEvent, TimeControl  # noqa: E402
from arena.referee.match import play_match  # noqa: E402
from arena.referee.service import prepare_match  # noqa: E402
from arena.sandbox.epochs import Epochs, drop_caches, takes_part  # noqa: E402

LC_RANDOM = ROOT / "sample_bots" / "lost-cities" / "random"


def _fill_cache() -> int:
    """Read the Python library and the arena (their pages cached again); the bytes read."""
    total = 0
    for top in (Path(sysconfig.get_paths()["stdlib"]), ROOT / "arena"):
        for path in top.rglob("*"):
            if path.is_file() and not path.is_symlink():
                try:
                    total += len(path.read_bytes())
                except OSError:
                    pass
    return total


def switch_cost(samples: int) -> dict[str, Any]:
    """The epoch switch on a quiet host, with a filled page cache each time."""
    if drop_caches() is not None:
        return {"epoch_error": "dropping the kernel's caches needs root"}
    switches: list[float] = []
    enters: list[float] = []
    cached = 0
    with tempfile.TemporaryDirectory() as tmp:
        epochs = Epochs(Path(tmp) / "epochs")

        async def one(seed: int) -> None:
            first = await epochs.enter(seed)
            first.release()
            started = time.perf_counter()
            again = await epochs.enter(seed)  # the same deal: the epoch closes first
            switches.append((time.perf_counter() - started) * 1000)
            again.release()
            for other in range(20):
                started = time.perf_counter()
                ticket = await epochs.enter(seed * 100 + other + 1)
                enters.append((time.perf_counter() - started) * 1e6)
                ticket.release()

        for seed in range(samples):
            cached = _fill_cache()
            asyncio.run(one(seed + 1))
    return {
        "epoch_switch_ms_median": round(statistics.median(switches), 1),
        "epoch_switch_ms_max": round(max(switches), 1),
        "epoch_switch_cached_mb": round(cached / 2**20, 1),
        "epoch_enter_us_median": round(statistics.median(enters), 1),
        "epoch_samples": samples,
    }


def _first_decision_ms(sandbox: str, seed: int, log_dir: Path) -> float:
    spec, box = prepare_match((str(LC_RANDOM), str(LC_RANDOM)), sandbox=sandbox, seed=seed,
                              options={"rounds": 1},
                              time_control=TimeControl(1000, 0, 20_000, clock="wall"))
    marks: list[float] = []

    def on_event(event: MatchEvent) -> None:
        if isinstance(event, DecisionEvent) and not marks:
            marks.append(time.perf_counter())

    started = time.perf_counter()
    asyncio.run(play_match(spec, sandbox=box, log_dir=log_dir, on_event=on_event))
    return (marks[0] - started) * 1000


def cold_start(sandbox: str, samples: int) -> dict[str, Any]:
    """Start -> first decision after a drop of the caches (cold) or not (warm), alternating."""
    if not takes_part(sandbox):
        return {f"{sandbox}_cold_error": f"the {sandbox} sandbox does not separate bots here"}
    if sandbox == "docker":
        from arena.sandbox.docker import docker_available

        if not docker_available():
            return {"docker_cold_error": "no Docker engine answers"}
    warm: list[float] = []
    cold: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        _first_decision_ms(sandbox, 0, Path(tmp))  # images built, everything cached
        for seed in range(1, 2 * samples + 1):
            dropped = seed % 2 == 0
            if dropped:
                drop_caches()
            (cold if dropped else warm).append(_first_decision_ms(sandbox, seed, Path(tmp)))
    return {
        f"{sandbox}_start_to_first_decision_ms_warm": round(statistics.median(warm), 1),
        f"{sandbox}_start_to_first_decision_ms_cold": round(statistics.median(cold), 1),
        f"{sandbox}_cold_samples": samples,
    }


def epochs(quick: bool) -> dict[str, Any]:
    samples = 3 if quick else 15
    figures = switch_cost(samples)
    for sandbox in ("process", "docker"):
        figures.update(cold_start(sandbox, samples))
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="fewer samples")
    args = parser.parse_args()
    figures = {"load_avg_at_start": round(os.getloadavg()[0], 2), **epochs(args.quick)}
    print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
