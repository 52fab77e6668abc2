"""Pairing simulation: how many encounters a ladder needs to know its order, round robin against
information-driven pairing. Pure simulation, no match is played. Prints one JSON object of
figures on stdout and a small table on stderr.

    python benchmarks/pairing_sim.py            # fields of 8, 16 and 32 bots, 20 repetitions
    python benchmarks/pairing_sim.py --quick    # 8 and 16 bots, 5 repetitions

The field: N bots whose true strengths are spread like a real field. Walking down from the
best, each gap to the next bot is drawn (uniformly) from one of three tiers: N/8 of the gaps
(at least one) are close neighbours, 20 to 30 Elo apart; N/8 are wide gaps of 150 to 300 Elo
(a much weaker bot, a random one); the rest 35 to 120 Elo. Fixed seeds: the r-th repetition of
a field of N uses ``random.Random(1000 * N + r)`` for the field and the games, the same for
both schedules, whatever ``--jobs`` says.

The games: every encounter is a duplicate pair, two games on one deal with the seats swapped.
The deal favours a seat: a luck of δ ~ N(0, 150 Elo), drawn once per encounter, is added to
seat 0's strength in both games (so whoever holds seat 0 in the second game has it too). The two
legs are thus correlated, as deals make them: from one bot's side a deal that helped it in the
first leg helps its opponent in the second, and the pair's score varies less than two
independent games' (the variance ratio is printed). Game i: seat 0 wins with the
Bradley–Terry probability 1 / (1 + 10^(−(s0 − s1 + δ) / 400)); no draws.

The schedules:

* round robin: cycles of every pair once (the circle method), the order checked after each
  complete cycle (as a round-robin ladder would be extended one cycle at a time);
* adaptive: ``arena.ladder.schedules.pairing.choose`` with no placement, its default fairness
  (K = 2N) and confidence, as a ladder playing ``--concurrency`` encounters at a time (4 by
  default) whose results land together: that many choices, each with the ones before it in
  flight, then their results, the order checked after every batch (an adaptive ladder checks
  after every result; a batch is at most 3 encounters late).

Both use ``arena.ladder.schedules.pairing.separation`` (the ladder's Bradley–Terry fit, prior
1): the order is *separated* when every adjacent pair is ordered at 95%. Figures per field and
schedule (medians over the repetitions, and the worst):

* ``encounters_to_stop``: encounters when the ladder's stop rule first holds (separated);
* ``wrong_at_stop``: how often the order at that moment is not the true one;
* ``encounters_to_truth``: encounters until the order is separated AND the true one (the
  schedule goes on past a wrong stop); a run is given up after 200 round-robin cycles' worth
  of encounters or 50 000, whichever is more (``not_within_cap`` counts them; they count as
  more than any other in the median, and the max is then null);
* ``min_share``: the smallest share of the encounters any bot got (by then), against the
  target 1/(2N);
* ``choose_ms``: the time of one ``choose`` for the biggest field.

Targets (issue 20): for 16 bots, adaptive needs at most half the encounters of round robin for
the same accuracy; no bot gets less than 1/(2N) of the encounters.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import math
import os
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from arena.ladder.schedules.pairing import (  # noqa: E402
    DEFAULT_CONFIDENCE,
    PairingInput,
    choose,
    separation,
)
from arena.ladder.schedules.schedule import pairings  # noqa: E402
from arena.stats.encounters import Leg  # noqa: E402
from arena.stats.rating import GameRecord, pairing_stats  # noqa: E402

CLOSE = (20.0, 30.0)
"""Elo gap of close neighbours."""
WIDE = (150.0, 300.0)
"""Elo gap of a much weaker bot."""
USUAL = (35.0, 120.0)
"""Elo gap of the others."""
DEAL_LUCK = 150.0
"""The standard deviation of a deal's advantage to seat 0, in Elo."""
CAP_CYCLES = 200
"""A schedule is given up after this many round-robin cycles' worth of encounters ..."""
CAP_ENCOUNTERS = 50_000
"""... or this many encounters, whichever is more."""


@dataclass(frozen=True)
class Run:
    """One schedule on one field."""

    to_stop: int
    """Encounters when every adjacent pair was first separated."""
    wrong_at_stop: bool
    to_truth: int | None
    """Encounters until separated and true (None: not within the cap)."""
    min_share: float
    """The smallest share of encounters any bot had at ``to_truth`` (or the cap)."""


def field(n: int, rng: random.Random) -> list[float]:
    """True strengths, best first (see the module doc)."""
    gaps = list(range(n - 1))
    rng.shuffle(gaps)
    tiers = max(1, n // 8)
    close, wide = set(gaps[:tiers]), set(gaps[tiers:2 * tiers])
    strengths = [0.0]
    for k in range(n - 1):
        low, high = CLOSE if k in close else WIDE if k in wide else USUAL
        strengths.append(strengths[-1] - rng.uniform(low, high))
    return strengths


class Games:
    """Duplicate pairs drawn from the model (see the module doc)."""

    def __init__(self, players: Sequence[str], strengths: Sequence[float],
                 rng: random.Random) -> None:
        self.strength = dict(zip(players, strengths, strict=True))
        self.rng = rng
        self.legs: list[Leg] = []
        self.count = dict.fromkeys(players, 0)
        self.encounters = 0

    def play(self, pair: tuple[str, str]) -> None:
        luck = self.rng.gauss(0.0, DEAL_LUCK)
        encounter = f"e{self.encounters}"
        for leg, (x, y) in enumerate((pair, (pair[1], pair[0]))):
            edge = self.strength[x] - self.strength[y] + luck
            seat0_wins = self.rng.random() < 1.0 / (1.0 + 10.0 ** (-edge / 400.0))
            winner = 0 if seat0_wins else 1
            self.legs.append(Leg(encounter, leg, (x, y), winner,
                                 (1, 0) if seat0_wins else (0, 1), False, 0.0))
        self.encounters += 1
        for player in pair:
            self.count[player] += 1

    def min_share(self) -> float:
        return min(self.count.values()) / max(self.encounters, 1)


def simulate(n: int, repetition: int, schedule: str, concurrency: int = 4) -> Run:
    """One schedule ("round-robin" or "adaptive") on the repetition's field."""
    rng = random.Random(1000 * n + repetition)
    players = tuple(f"bot{k:02d}" for k in range(n))
    strengths = field(n, rng)
    order = list(players)
    rng.shuffle(order)  # the ladder does not know the true order
    games = Games(players, strengths, random.Random(rng.random()))
    steps = (_rounds(order, games) if schedule == "round-robin"
             else _adaptive(order, games, concurrency))
    cap = max(CAP_CYCLES * n * (n - 1) // 2, CAP_ENCOUNTERS)
    to_stop: int | None = None
    wrong = False
    while games.encounters < cap:
        steps()
        sep = separation(order, games.legs)
        if not sep.all_separated(DEFAULT_CONFIDENCE):
            continue
        right = list(sep.order) == list(players)
        if to_stop is None:
            to_stop, wrong = games.encounters, not right
        if right:
            return Run(to_stop, wrong, games.encounters, games.min_share())
    return Run(to_stop if to_stop is not None else cap, wrong, None, games.min_share())


def _rounds(order: Sequence[str], games: Games) -> Callable[[], None]:
    cycle = [(order[a], order[b]) for a, b in pairings(len(order))]

    def step() -> None:
        for pair in cycle:
            games.play(pair)
    return step


def _adaptive(order: Sequence[str], games: Games, concurrency: int) -> Callable[[], None]:
    players = tuple(order)

    def step() -> None:
        legs = tuple(games.legs)
        batch: list[tuple[str, str]] = []
        for _ in range(concurrency):
            choice = choose(PairingInput(players, legs, in_flight=tuple(batch)))
            if choice is None:
                break
            batch.append(choice.pair)
        for pair in batch:
            games.play(pair)
    return step


def summary(runs: Sequence[Run], n: int) -> dict[str, Any]:
    """The figures of one schedule on one field size. A run that did not get there within the
    cap counts as more than any that did (a median that falls on one is null)."""
    truth = sorted(math.inf if r.to_truth is None else r.to_truth for r in runs)
    median = statistics.median(truth)
    return {
        "repetitions": len(runs),
        "encounters_to_stop_median": statistics.median(r.to_stop for r in runs),
        "wrong_at_stop": sum(r.wrong_at_stop for r in runs) / len(runs),
        "encounters_to_truth_median": None if math.isinf(median) else median,
        "encounters_to_truth_max": None if math.isinf(truth[-1]) else truth[-1],
        "not_within_cap": sum(r.to_truth is None for r in runs),
        "min_share": min(r.min_share for r in runs),
        "min_share_target": 1.0 / (2 * n),
    }


def deal_variance_ratio(repetitions: int = 2000) -> float | None:
    """The variance ratio of pairing the model gives two equal bots (as the standings
    measure it)."""
    rng = random.Random(7)
    records = []
    for e in range(repetitions):
        luck = rng.gauss(0.0, DEAL_LUCK)
        for leg, (x, y) in enumerate((("a", "b"), ("b", "a"))):
            won = rng.random() < 1.0 / (1.0 + 10.0 ** (-luck / 400.0))
            records.append(GameRecord(x, y, 1.0 if won else 0.0, f"e{e}", 0.0, leg))
    return pairing_stats(records).score_ratio


def choose_ms(n: int = 32, encounters: int = 2000) -> dict[str, float]:
    """The time of one ``choose`` for ``n`` players and ``encounters`` recorded encounters:
    from nothing (a restarted ladder) and with the legs of the call before plus one encounter
    (a running one)."""
    rng = random.Random(5)
    players = tuple(f"bot{k:02d}" for k in range(n))
    games = Games(players, field(n, rng), rng)
    for _ in range(encounters):
        games.play(tuple(rng.sample(players, 2)))  # type: ignore[arg-type]
    from arena.ladder.schedules import pairing

    timings = []
    for _ in range(5):
        pairing._LAST.clear()
        pairing._cached_fit.cache_clear()
        started = time.perf_counter()
        choose(PairingInput(players, tuple(games.legs)))
        timings.append(time.perf_counter() - started)
    running = []
    for _ in range(20):
        games.play(tuple(rng.sample(players, 2)))  # type: ignore[arg-type]
        started = time.perf_counter()
        choose(PairingInput(players, tuple(games.legs)))
        running.append(time.perf_counter() - started)
    return {"choose_ms_from_nothing": 1000 * statistics.median(timings),
            "choose_ms_running": 1000 * statistics.median(running)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="8 and 16 bots, 5 repetitions")
    parser.add_argument("--sizes", type=int, nargs="*", help="field sizes (default 8 16 32)")
    parser.add_argument("--repetitions", type=int, help="repetitions per field (default 20)")
    parser.add_argument("--concurrency", type=int, default=4,
                        help="encounters the adaptive ladder plays at a time (default 4)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                        help="processes (default: one per core; the figures do not depend on it)")
    args = parser.parse_args()
    sizes = args.sizes or ([8, 16] if args.quick else [8, 16, 32])
    repetitions = args.repetitions or (5 if args.quick else 20)
    started = time.perf_counter()
    figures: dict[str, Any] = {"repetitions": repetitions, "concurrency": args.concurrency,
                               "deal_luck_elo": DEAL_LUCK,
                               "pair_variance_ratio_equal_bots": deal_variance_ratio()}
    jobs = [(n, r, schedule, args.concurrency) for n in sizes
            for schedule in ("round-robin", "adaptive") for r in range(repetitions)]
    with concurrent.futures.ProcessPoolExecutor(max(1, args.jobs)) as pool:
        runs = dict(zip(jobs, pool.map(_simulate, jobs), strict=True))
    for n in sizes:
        for schedule in ("round-robin", "adaptive"):
            figures[f"{schedule}_{n}"] = summary(
                [runs[(n, r, schedule, args.concurrency)] for r in range(repetitions)], n)
        rr = figures[f"round-robin_{n}"]["encounters_to_truth_median"]
        ad = figures[f"adaptive_{n}"]["encounters_to_truth_median"]
        figures[f"adaptive_over_round_robin_{n}"] = (ad / rr if ad and rr else None)
    figures.update(choose_ms())
    figures["wall_s"] = time.perf_counter() - started
    print(json.dumps(figures, indent=2))
    print(table(figures, sizes), file=sys.stderr)


def _simulate(job: tuple[int, int, str, int]) -> Run:
    return simulate(*job)


def table(figures: dict[str, Any], sizes: Sequence[int]) -> str:
    """The figures as a small text table."""
    lines = [f"{'field':>5} {'schedule':<12} {'to stop':>8} {'wrong':>6} {'to truth':>9} "
             f"{'min share':>10} {'target':>7}"]
    for n in sizes:
        for schedule in ("round-robin", "adaptive"):
            f = figures[f"{schedule}_{n}"]
            lines.append(f"{n:>5} {schedule:<12} {f['encounters_to_stop_median']:>8.0f} "
                         f"{f['wrong_at_stop']:>6.0%} {f['encounters_to_truth_median'] or 0:>9.0f} "
                         f"{f['min_share']:>10.4f} {f['min_share_target']:>7.4f}")
    return "\n".join(lines)


if __name__ == "__main__":
    main()
