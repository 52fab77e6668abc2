"""Arena benchmarks: prints one JSON object of figures (``--quick`` for a faster, rougher run).

Figures (targets in parentheses, see README):
  engine_rounds_per_s            Lost Cities uniform-random rounds per second, one core (>= 1000)
  decision_overhead_us_median    referee round trip per decision, real socket path, trivial bot
  decision_overhead_us_p99         (median <= 600 us, p99 <= 1000 us)
  match_wall_s_median            a 3-round match between two random process bots (<= 0.5 s)
  haggis_rounds_per_s            Haggis uniform-random rounds per second
  haggis_legal_actions_worst_ms  legal_actions for a 17-card hand with three wild cards (leading)
  portas_games_per_s             PORTAS uniform-random games per second
Sections that need something absent (e.g. a Docker engine) report null with a reason.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from arena.bots import load_bot_dir  # noqa: E402
from arena.games import get_game  # noqa: E402
from arena.model import MatchSpec, TimeControl  # noqa: E402
from arena.referee.log import read_events  # noqa: E402
from arena.referee.match import play_match  # noqa: E402

FIRST_BOT = ROOT / "benchmarks" / "bots" / "first"
LC_RANDOM = ROOT / "sample_bots" / "lost-cities" / "random"


def random_rounds_per_s(game_id: str, seconds: float) -> float:
    """Uniform-random playouts; counts finished rounds per second of CPU time."""
    game = get_game(game_id)
    rng = random.Random(1)
    rounds = 0
    started = time.process_time()
    seed = 0
    while time.process_time() - started < seconds:
        seed += 1
        state = game.new_match(seed)
        while game.to_move(state) is not None:
            state = game.apply(state, rng.choice(game.legal_actions(state)))
        rounds += len(game.finished_rounds(state))
    return rounds / (time.process_time() - started)


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def _match(bot_a: Path, bot_b: Path, seed: int, log_dir: Path, sandbox: str = "process",
           options: dict[str, Any] | None = None) -> tuple[Any, float]:
    spec = MatchSpec("lost-cities", seed, (load_bot_dir(bot_a), load_bot_dir(bot_b)),
                     dict(options or {}), TimeControl(1000, 0, 10_000))
    started = time.perf_counter()
    result = asyncio.run(play_match(spec, sandbox=sandbox, log_dir=log_dir))
    return result, time.perf_counter() - started


def decision_overhead(matches: int, log_dir: Path) -> dict[str, float]:
    """Per-decision round trips measured by the referee, from the match logs."""
    times: list[float] = []
    for seed in range(matches):
        result, _ = _match(FIRST_BOT, FIRST_BOT, seed, log_dir)
        times += [e["ms"] * 1000 for e in read_events(Path(result.log))
                  if e["type"] == "decision"]
    return {
        "decision_overhead_us_median": round(statistics.median(times), 1),
        "decision_overhead_us_p99": round(_percentile(times, 0.99), 1),
        "decision_overhead_samples": len(times),
    }


def match_wall(matches: int, log_dir: Path) -> dict[str, float]:
    walls = [_match(LC_RANDOM, LC_RANDOM, seed, log_dir)[1] for seed in range(matches)]
    return {"match_wall_s_median": round(statistics.median(walls), 3),
            "match_wall_s_max": round(max(walls), 3), "match_wall_samples": len(walls)}


def haggis_worst_legal_ms() -> dict[str, Any]:
    from arena.games import haggis

    worst = getattr(haggis, "worst_case_state", None)
    if worst is None:
        return {"haggis_legal_actions_worst_ms": None}
    state = worst()
    game = haggis.GAME
    started = time.perf_counter()
    repeats = 5
    for _ in range(repeats):
        actions = game.legal_actions(state)
    elapsed = (time.perf_counter() - started) / repeats
    return {"haggis_legal_actions_worst_ms": round(elapsed * 1000, 2),
            "haggis_legal_actions_worst_count": len(actions)}


def section(name: str, func: Callable[[], dict[str, Any]], out: dict[str, Any]) -> None:
    print(f"… {name}", file=sys.stderr, flush=True)
    try:
        out.update(func())
    except Exception as exc:  # noqa: BLE001 — report, keep measuring the rest
        out[f"{name}_error"] = repr(exc)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="fewer samples, rougher figures")
    args = parser.parse_args()
    seconds = 1.0 if args.quick else 5.0
    matches = 3 if args.quick else 11
    figures: dict[str, Any] = {"quick": args.quick}
    with tempfile.TemporaryDirectory() as tmp:
        log_dir = Path(tmp)
        section("engine", lambda: {"engine_rounds_per_s": round(
            random_rounds_per_s("lost-cities", seconds), 1)}, figures)
        section("overhead", lambda: decision_overhead(2 if args.quick else 6, log_dir), figures)
        section("match", lambda: match_wall(matches, log_dir), figures)
        section("haggis", lambda: {"haggis_rounds_per_s": round(
            random_rounds_per_s("haggis", seconds), 1)}, figures)
        section("haggis_worst", haggis_worst_legal_ms, figures)
        section("portas", lambda: {"portas_games_per_s": round(
            random_rounds_per_s("portas", seconds), 1)}, figures)
    print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
