"""Arena benchmarks: prints one JSON object of figures (``--quick`` for a faster, rougher run).

Figures (targets in parentheses; the last runs: benchmarks/README.md):
  engine_rounds_per_s            Lost Cities uniform-random rounds per second, one core (>= 1000)
  yardstick_rounds_per_s         the same for a minimal playout of the same rules, measured in
                                 alternating slices with the engine (yardstick_lost_cities.py)
  engine_vs_yardstick            engine_rounds_per_s / yardstick_rounds_per_s (>= 0.75)
  decision_overhead_us_median    referee round trip per decision, real socket path, trivial bot
  decision_overhead_us_p99         (median <= 600 us, p99 <= 1000 us)
  decision_overhead_cpu_clock_us_median   the same in matches on the CPU clock (the meter read
                                 around each decision, polled while the bot thinks)
  floor_stream_us_median/_p99    the floor: a bare grpc.aio bidirectional stream, 200-byte
                                 ping-pong over a Unix socket between two processes, no arena
                                 code (benchmarks/floor_stream.py), measured between the matches
  turn_floor_us_median/_p99      the same floor in a match's rhythm: two client processes taken
                                 in turn, each sleeping through the other's round trip
  paced_floor_us_median          the same floor idling before each round trip as long as the
  paced_floor_pause_us             match's median decision (a seat idles through the other's)
  decision_overhead_vs_floor     the decision round trip's median over the floor's (<= 1.6; and
  decision_overhead_vs_turn_floor  over the turn floor's and the paced floor's;
  decision_overhead_vs_paced_floor  decision_overhead_p99_vs_median <= 2)
  bot_startup_*                  a Python bot (the SDK alone) from process start to its Hello:
                                 wall and CPU, the interpreter alone, and the CPU of each phase
                                 (benchmarks/bot_startup.py)
  match_wall_s_median            a 3-round match between two random process bots (<= 0.5 s)
  haggis_rounds_per_s            Haggis uniform-random rounds per second, and
  haggis_yardstick_rounds_per_s    the same for a minimal playout of the same rules
  haggis_vs_yardstick              (yardstick_haggis.py), in alternating slices: their ratio
  haggis_legal_actions_worst_ms  legal_actions for a 17-card hand with three wild cards (leading),
                                 from empty caches (what meeting the position first costs);
                                 _again_ms: asked again for the same position
  portas_games_per_s             PORTAS uniform-random games per second, and
  portas_yardstick_games_per_s     the same for a minimal playout of the same rules
  portas_vs_yardstick              (yardstick_portas.py), in alternating slices: their ratio
  ratings_fit_100_bots_100k_matches_s   Bradley-Terry fit with intervals (<= 2 s)
  evaluator_<game>_*             the lab's in-process evaluator (arena/lab/evaluate.py), one
                                 process, matches per second of CPU: _engine_random, the bare
                                 engine's uniform-random playouts; _uniform, the evaluator with a
                                 uniform-random policy (the same playout through the evaluator);
                                 _random and _greedy, the sample bots against themselves;
                                 _vs_engine, _uniform / _engine_random (>= 0.5)
  search_<game>_*_us             the search API's costs (docs/bots.md "Searching"), µs per call
                                 at positions of random matches: new_match, legal_actions, apply,
                                 observation, determinize, seeding a random.Random from text
  ladder_matches_per_min_*       real ladder throughput, process/docker, concurrency 1 and 2
                                 (3 for docker), on the embedded cluster and (_in_process) the
                                 old path: every referee in the benchmark's own process
  container_start_N_at_once_ms   the engine starting N hardened containers at once
  process_match_cpu_*_s          CPU seconds per process match: the referee, the two bots
  container_match_cpu_*_s        CPU seconds per container match: the referee process, the two
                                 containers (cgroup), dockerd/containerd; and the cores busy
  container_lifecycle_machine_cpu_s   CPU seconds the whole machine spends to run, wait for and
                                 remove one hardened container that runs `true`
  cluster_*                      the embedded cluster: start, a no-op task's round trip, and what
                                 it adds to a trivial match (on the cluster minus in-process);
                                 the head's CPU to verify a returned 3-round match (replay)
  container_*                    Docker sandbox: start -> first decision, decision round trip,
                                 a 3-round match between random container bots (<= 1.2 s)
  site_*                         the ladder's static site with 10k matches in the store (1k with
                                 --quick): a refresh after one new result, what it wrote, the
                                 bytes per match before/after the shared player and packed data
                                 (benchmarks/site_refresh.py)
  clocks                         the CPU clock against the wall clock: time losses under load,
                                 agreement, counter cost, the guard (benchmarks/clocks.py)
  sign_* / verify_* / publish_*  signing a 3-round Lost Cities log, checking its signature (and
                                 replaying it), and `arena verify` of a published ladder of 1,000
                                 matches (100 with --quick) (benchmarks/signing.py)
  watch_*                        the interactive `arena watch` on the longest log made (a Haggis
                                 game to 10 000, 1,252 decisions) and its first 500: open, seek,
                                 memory (benchmarks/watch_app.py)
  epoch_* / *_first_decision_*   the host's deal epochs: an epoch switch (the drop of the page
                                 cache), entering an open epoch, and a match's start to its first
                                 decision after a drop or not (benchmarks/epochs.py)
  lab_<game>_*_steps_per_s       the lab's bridges (arena/lab): uniform-random steps per CPU
  lab_<game>_*_cost_x              second through the bare engine, OpenSpiel (the engine's own
  lab_yardstick_*                  matches; the floor of any python game; chance sampled) and
                                 PettingZoo, and the engine's rate over each (<= 2 a step;
                                 match_cost_x: of whole matches, the deal included);
                                 OpenSpiel's C++ goofspiel and python kuhn_poker through the
                                 sampled loop (benchmarks/lab_rates.py)
Sections that need something absent (e.g. a Docker engine) report null with a reason.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from arena.games import get_game  # noqa: E402
from arena.model import DecisionEvent, MatchEvent, MatchSpec, TimeControl  # noqa: E402
from arena.record.log import read_events  # noqa: E402
from arena.referee.match import play_match  # noqa: E402
from arena.referee.service import prepare_match  # noqa: E402

FIRST_BOT = ROOT / "benchmarks" / "bots" / "first"
LC_RANDOM = ROOT / "sample_bots" / "lost-cities" / "random"


def random_match(game: Any, seed: int, rng: random.Random) -> int:
    """One uniform-random match through the engine's API; returns its number of rounds."""
    state = game.new_match(seed)
    while game.to_move(state) is not None:
        state = game.apply(state, rng.choice(game.legal_actions(state)))
    return len(game.finished_rounds(state))


def engine_vs_yardstick(seconds: float) -> dict[str, float]:
    """The Lost Cities engine against the yardstick (benchmarks/yardstick_lost_cities.py, a
    minimal playout of the same rules), uniform-random rounds per second of CPU time, measured
    in alternating slices (engine, yardstick, engine, ...) so that a noisy host moves both."""
    from benchmarks.yardstick_lost_cities import play_round

    game = get_game("lost-cities")
    engine_rng, yardstick_rng = random.Random(1), random.Random(1)
    seeds = iter(range(1, 10**9))

    def engine() -> int:
        return random_match(game, next(seeds), engine_rng)

    def plain() -> int:
        play_round(yardstick_rng)
        return 1

    engine_rate, yardstick_rate = alternating((engine, plain), seconds, 20)
    return {"engine_rounds_per_s": round(engine_rate, 1),
            "yardstick_rounds_per_s": round(yardstick_rate, 1),
            "engine_vs_yardstick": round(engine_rate / yardstick_rate, 3)}


def alternating(steps: tuple[Callable[[], int], Callable[[], int]], seconds: float,
                slices: int) -> tuple[float, float]:
    """Units per second of CPU time of two workloads run in alternating slices (first, second,
    first, ...), so that a noisy host moves both; a step returns the units it played."""
    units, cpu = [0, 0], [0.0, 0.0]
    for _ in range(slices):
        for side in (0, 1):
            started = time.process_time()
            while time.process_time() - started < seconds / slices:
                units[side] += steps[side]()
            cpu[side] += time.process_time() - started
    return units[0] / cpu[0], units[1] / cpu[1]


def versus_yardstick(game_id: str, unit: str, seconds: float) -> dict[str, float]:
    """Haggis or PORTAS against its yardstick (``benchmarks/yardstick_<game>.py``, a minimal
    playout of the same rules): uniform-random rounds (PORTAS: games) per second of CPU time,
    whole matches through the engine's API, measured in alternating slices."""
    import importlib

    game = get_game(game_id)
    yardstick = importlib.import_module(f"benchmarks.yardstick_{game_id}")
    engine_rng, yardstick_rng = random.Random(1), random.Random(1)
    seeds = iter(range(1, 10**9))

    def engine() -> int:
        return random_match(game, next(seeds), engine_rng)

    def plain() -> int:
        if game_id == "haggis":
            return len(yardstick.play_match(yardstick_rng))
        yardstick.play_game(yardstick_rng)
        return 1

    rates = alternating((engine, plain), seconds, 10)
    return {f"{game_id}_{unit}_per_s": round(rates[0], 1),
            f"{game_id}_yardstick_{unit}_per_s": round(rates[1], 1),
            f"{game_id}_vs_yardstick": round(rates[0] / rates[1], 3)}


def lab_throughput(seconds: float) -> dict[str, float]:
    """The lab's evaluator against the bare engine, per game (module doc: ``evaluator_*``):
    the bare playout and the evaluator with a uniform-random policy in alternating slices, then
    the sample bots against themselves through the evaluator."""
    from arena.games import game_ids
    from arena.lab.evaluate import load_policy, play_in_process

    figures: dict[str, float] = {}
    for game_id in game_ids():
        game = get_game(game_id)
        engine_rng, policy_rng = random.Random(1), random.Random(1)
        seeds = iter(range(1, 10**9))

        def uniform(decision: Any, rng: random.Random = policy_rng) -> Any:
            return rng.choice(decision.legal_actions)

        def bare(game: Any = game, seeds: Any = seeds, rng: random.Random = engine_rng) -> int:
            random_match(game, next(seeds), rng)
            return 1

        def evaluated(game_id: str = game_id, uniform: Any = uniform, seeds: Any = seeds) -> int:
            play_in_process(game_id, (uniform, uniform), next(seeds))
            return 1

        key = f"evaluator_{game_id.replace('-', '_')}"
        engine_rate, uniform_rate = alternating((bare, evaluated), seconds, 10)
        figures[f"{key}_engine_random"] = round(engine_rate, 1)
        figures[f"{key}_uniform"] = round(uniform_rate, 1)
        figures[f"{key}_vs_engine"] = round(uniform_rate / engine_rate, 3)
        for name in ("random", "greedy"):
            try:
                policy = load_policy(name, game_id)
            except Exception:  # noqa: BLE001 — a game without this sample bot
                continue
            played, started = 0, time.process_time()
            while time.process_time() - started < seconds / 2 or played < 2:
                play_in_process(game_id, (policy, policy), next(seeds))
                played += 1
            figures[f"{key}_{name}"] = round(played / (time.process_time() - started), 1)
    return figures


def search_costs(positions: int = 300, repeat: int = 5) -> dict[str, float]:
    """What the search API costs per call (docs/bots.md "Searching"): µs of CPU per call, the
    least of ``repeat`` runs (the one a busy host disturbed least), at ``positions`` positions
    of uniform-random matches of each game (the seat to move's view): ``new_match``,
    ``legal_actions``, ``apply`` (the first legal action), ``observation``, ``determinize`` and
    ``random.Random(text)`` (seeding a search's own generator from the match id and the
    decision)."""
    from arena.games import game_ids

    figures: dict[str, float] = {}
    for game_id in game_ids():
        game = get_game(game_id)
        rng = random.Random(3)
        states: list[Any] = []
        seed = 0
        while len(states) < positions:
            seed += 1
            state = game.new_match(seed)
            while game.to_move(state) is not None and len(states) < positions:
                if rng.random() < 0.2:
                    states.append(state)
                state = game.apply(state, rng.choice(game.legal_actions(state)))
        views = [game.observation(s, game.to_move(s)) for s in states]
        firsts = [game.legal_actions(s)[0] for s in states]
        draw = random.Random(5)

        def fresh(states: list[Any] = states, firsts: list[Any] = firsts,
                  game: Any = game) -> list[Any]:
            """New state objects (nothing cached on them yet): one action on."""
            after = (game.apply(s, a) for s, a in zip(states, firsts, strict=True))
            return [s for s in after if game.to_move(s) is not None]

        calls: dict[str, Callable[[Any], Any]] = {
            "new_match": lambda i, game=game: game.new_match(i),
            "legal_actions": lambda s, game=game: game.legal_actions(s),
            "apply": lambda i, game=game, states=states, firsts=firsts:
                game.apply(states[i], firsts[i]),
            "observation": lambda s, game=game: game.observation(s, game.to_move(s)),
            "determinize": lambda i, game=game, views=views, draw=draw:
                game.determinize(views[i], draw),
            "seed_rng": lambda i: random.Random(f"match-id:{i}"),
        }
        key = f"search_{game_id.replace('-', '_')}"
        for name, call in calls.items():
            runs = []
            for _ in range(repeat):
                inputs = fresh() if name in ("legal_actions", "observation") \
                    else list(range(len(states)))
                started = time.process_time()
                for item in inputs:
                    call(item)
                runs.append((time.process_time() - started) / len(inputs) * 1e6)
            figures[f"{key}_{name}_us"] = round(min(runs), 1)
    return figures


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def _spec(bot_a: Path, bot_b: Path, seed: int, sandbox: str = "process",
          options: dict[str, Any] | None = None, clock: str = "wall") -> tuple[MatchSpec, Any]:
    """A Lost Cities match prepared by the match service (as every caller does)."""
    return prepare_match((str(bot_a), str(bot_b)), sandbox=sandbox, seed=seed, options=options,
                         time_control=TimeControl(1000, 0, 10_000, clock=clock))


def _match(bot_a: Path, bot_b: Path, seed: int, log_dir: Path, sandbox: str = "process",
           options: dict[str, Any] | None = None, clock: str = "wall") -> tuple[Any, float]:
    spec, box = _spec(bot_a, bot_b, seed, sandbox, options, clock)
    started = time.perf_counter()
    result = asyncio.run(play_match(spec, sandbox=box, log_dir=log_dir))
    return result, time.perf_counter() - started


def decision_floor(pings: int) -> dict[str, float]:
    """The bare-stream floors: a grpc.aio bidirectional stream of 200-byte messages over a Unix
    socket between two processes, ping-pong, no arena code; and the same with two client
    processes taken in turn, a match's rhythm (``benchmarks/floor_stream.py``)."""
    from benchmarks.floor_stream import floor_figures, turn_floor_figures

    return {**floor_figures(pings), **turn_floor_figures(pings)}


def paced_floor(pause_us: int) -> dict[str, float]:
    """The bare stream idling ``pause_us`` before each round trip, as a seat idles through the
    other seat's decision in a match (``decision_overhead`` passes the median decision of the
    match just played): what the floor costs when the processes sleep between round trips."""
    from benchmarks.floor_stream import floor_figures

    figures = floor_figures(500, pause_us=pause_us)
    return {"paced_floor_us_median": figures["floor_stream_us_median"],
            "paced_floor_pause_us": pause_us}


def _decision_times(result: Any) -> tuple[list[float], list[float]]:
    """Every decision's round trip (µs) in a match's log, and those after each bot's first."""
    times: list[float] = []
    steady: list[float] = []  # without each bot's first decision (its cold start)
    seen: set[int] = set()
    for event in read_events(Path(result.log)):
        if not isinstance(event, DecisionEvent):
            continue
        times.append(event.ms * 1000)
        if event.seat in seen:
            steady.append(event.ms * 1000)
        seen.add(event.seat)
    return times, steady


def decision_overhead(matches: int, log_dir: Path) -> dict[str, float]:
    """Per-decision round trips measured by the referee, from the match logs (the wall clock,
    and the CPU clock in matches between them), and the floors (``decision_floor``) measured
    between the matches: ``decision_overhead_vs_floor`` is the median round trip over the
    median of the floors of the same minutes, ``_vs_turn_floor`` over the turn-taking floor,
    ``_vs_paced_floor`` over the floor idling as long as a decision before each round trip
    (``paced_floor``)."""
    times: list[float] = []
    steady: list[float] = []
    cpu_times: list[float] = []
    floors: list[dict[str, float]] = []
    paced: list[dict[str, float]] = []
    for seed in range(matches):
        floors.append(decision_floor(500))
        result, _ = _match(FIRST_BOT, FIRST_BOT, seed, log_dir)
        all_times, after_first = _decision_times(result)
        times += all_times
        steady += after_first
        paced.append(paced_floor(round(statistics.median(all_times))))
        result, _ = _match(FIRST_BOT, FIRST_BOT, seed, log_dir, clock="cpu")
        cpu_times += _decision_times(result)[0]
    floors.append(decision_floor(500))

    def pooled(name: str, measured: list[dict[str, float]] = floors) -> float:
        return statistics.median(f[name] for f in measured)

    floor, turn_floor, median = (pooled("floor_stream_us_median"),
                                 pooled("turn_floor_us_median"), statistics.median(times))
    paced_floor_median = pooled("paced_floor_us_median", paced)
    return {
        "decision_overhead_us_median": round(median, 1),
        "decision_overhead_us_p99": round(_percentile(times, 0.99), 1),
        "decision_overhead_us_p99_after_first": round(_percentile(steady, 0.99), 1),
        "decision_overhead_samples": len(times),
        "decision_overhead_cpu_clock_us_median": round(statistics.median(cpu_times), 1),
        "floor_stream_us_median": round(floor, 1),
        "floor_stream_us_p99": round(pooled("floor_stream_us_p99"), 1),
        "turn_floor_us_median": round(turn_floor, 1),
        "turn_floor_us_p99": round(pooled("turn_floor_us_p99"), 1),
        "decision_overhead_vs_floor": round(median / floor, 2),
        "paced_floor_us_median": round(paced_floor_median, 1),
        "paced_floor_pause_us": round(pooled("paced_floor_pause_us", paced)),
        "decision_overhead_vs_turn_floor": round(median / turn_floor, 2),
        "decision_overhead_vs_paced_floor": round(median / paced_floor_median, 2),
        "decision_overhead_p99_vs_median": round(_percentile(times, 0.99) / median, 2),
    }


def bot_startup(quick: bool) -> dict[str, Any]:
    """A Python bot's start, process start -> Hello, wall and CPU, and the CPU of each phase of
    it (``benchmarks/bot_startup.py``)."""
    from benchmarks.bot_startup import phase_figures, startup_figures

    samples = 6 if quick else 20
    return {**startup_figures(samples), **phase_figures(samples)}


def match_wall(matches: int, log_dir: Path) -> dict[str, float]:
    walls = [_match(LC_RANDOM, LC_RANDOM, seed, log_dir)[1] for seed in range(matches)]
    return {"match_wall_s_median": round(statistics.median(walls), 3),
            "match_wall_s_max": round(max(walls), 3), "match_wall_samples": len(walls)}


def haggis_worst_legal_ms() -> dict[str, Any]:
    """legal_actions when leading with the worst 17-card hand found (runs of pairs 4..10 in two
    suits plus J, Q, K: 6,342 combinations, each offered with the three bets): from empty caches
    every time (the engine's ``clear_caches``; before it had one, its enumeration's
    ``lru_cache``), and asked again for the same position."""
    import dataclasses

    from arena.games import haggis

    hand = [f"{rank}{suit}" for rank in range(4, 11) for suit in "GB"] + ["J", "Q", "K"]
    game = haggis.GAME
    state = game.new_match(1)
    leader = game.to_move(state)
    hands = list(state.hands)
    hands[leader] = haggis.mask_of(haggis.parse_card(c) for c in hand)
    state = dataclasses.replace(state, hands=(hands[0], hands[1]))
    clear = getattr(haggis, "clear_caches", None) or haggis.lead_combos.cache_clear
    cold, again = [], []
    for _ in range(5):
        clear()
        started = time.process_time()
        actions = game.legal_actions(state)
        cold.append(time.process_time() - started)
        started = time.process_time()
        game.legal_actions(state)
        again.append(time.process_time() - started)
    texts = [game.format_action(a) for a in actions]
    request_bytes, encode_s = _worst_request(texts)
    return {"haggis_legal_actions_worst_ms": round(statistics.median(cold) * 1000, 2),
            "haggis_legal_actions_worst_again_ms": round(statistics.median(again) * 1000, 3),
            "haggis_legal_actions_worst_count": len(actions),
            "haggis_legal_actions_worst_text_bytes": sum(len(t) for t in texts),
            "haggis_worst_request_bytes": request_bytes,
            "haggis_worst_request_encode_ms": round(encode_s * 1000, 2)}


def _worst_request(texts: list[str]) -> tuple[int, float]:
    """The DecisionRequest carrying these legal actions as the referee fills it (compact past
    32 kB of text; the code before that, run for a before/after, sent every text): its bytes
    on the wire and the median time to fill and serialize it."""
    from arena.v1 import bot_pb2

    try:
        from arena.wire.legal import fill_legal_actions
    except ImportError:  # the code before compact legal actions: every text, always

        def fill_legal_actions(request: Any, texts: Sequence[str]) -> None:
            request.legal_actions.extend(texts)

    times, data = [], b""
    for _ in range(5):
        started = time.process_time()
        message = bot_pb2.RefereeMessage()
        fill_legal_actions(message.decision, texts)
        data = message.SerializeToString()
        times.append(time.process_time() - started)
    return len(data), statistics.median(times)


def container_figures(matches: int, log_dir: Path) -> dict[str, Any]:
    """Container start -> first decision, per-decision round trip, and a whole 3-round match
    between two random bots, all in the hardened Docker sandbox."""
    from arena.sandbox.docker import docker_available

    if not docker_available():
        return {"container_error": "no Docker engine answers (run .ci/docker-setup.sh)"}
    _match(LC_RANDOM, LC_RANDOM, 0, log_dir, sandbox="docker")  # builds/reuses the images
    firsts: list[float] = []
    walls: list[float] = []
    times: list[float] = []
    for seed in range(matches):
        marks: list[float] = []
        spec, box = _spec(LC_RANDOM, LC_RANDOM, seed, "docker")
        started = time.perf_counter()

        def on_event(event: MatchEvent, marks: list[float] = marks) -> None:
            if isinstance(event, DecisionEvent) and not marks:
                marks.append(time.perf_counter())

        result = asyncio.run(play_match(spec, sandbox=box, log_dir=log_dir,
                                        on_event=on_event))
        walls.append(time.perf_counter() - started)
        firsts.append((marks[0] - started) * 1000)
        times += [e.ms * 1000 for e in read_events(Path(result.log))
                  if isinstance(e, DecisionEvent)]
    return {
        "container_start_to_first_decision_ms_median": round(statistics.median(firsts), 1),
        "container_decision_overhead_us_median": round(statistics.median(times), 1),
        "container_decision_overhead_us_p99": round(_percentile(times, 0.99), 1),
        "container_match_wall_s_median": round(statistics.median(walls), 3),
        "container_matches": matches,
    }


DOCKER_CPUACCT = Path("/sys/fs/cgroup/cpuacct/docker/cpuacct.usage")
"""CPU time (ns) of every container so far (cgroup v1, cgroupfs driver; removed containers'
time stays in the parent's count)."""


def _engine_cpu_s() -> float:
    """CPU seconds used so far by dockerd and containerd (and the shims still running)."""
    total = 0.0
    tick = os.sysconf("SC_CLK_TCK")
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if (entry / "comm").read_text().strip() not in ("dockerd", "containerd",
                                                            "containerd-shim"):
                continue
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += (int(fields[11]) + int(fields[12])) / tick
    return total


def _machine_busy_s() -> float:
    """CPU seconds the whole machine has been busy (every core, every process, the kernel)."""
    with open("/proc/stat") as stat:
        ticks = [int(v) for v in stat.readline().split()[1:9]]
    return (sum(ticks) - ticks[3] - ticks[4]) / os.sysconf("SC_CLK_TCK")  # minus idle, iowait


def _own_cpu_s() -> float:
    import resource

    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def process_costs(matches: int, log_dir: Path) -> dict[str, Any]:
    """The CPU a process-sandbox match (random vs greedy, 3 rounds) costs, one at a time: the
    referee (this process) and the two bots (children: start-up included)."""
    import resource

    def children() -> float:
        usage = resource.getrusage(resource.RUSAGE_CHILDREN)
        return usage.ru_utime + usage.ru_stime

    own, bots = _own_cpu_s(), children()
    started = time.perf_counter()
    greedy = ROOT / "sample_bots" / "lost-cities" / "greedy"
    for seed in range(matches):
        _match(LC_RANDOM, greedy, seed, log_dir)
    wall = (time.perf_counter() - started) / matches
    referee = (_own_cpu_s() - own) / matches
    bot_cpu = (children() - bots) / matches
    return {
        "process_match_wall_s": round(wall, 3),
        "process_match_cpu_referee_s": round(referee, 3),
        "process_match_cpu_bots_s": round(bot_cpu, 3),
        "process_match_cpu_cores_busy": round((referee + bot_cpu) / wall, 2),
    }


def container_costs(matches: int, log_dir: Path) -> dict[str, Any]:
    """Why two container matches in one process ran no faster than one: how long the engine
    takes to start 1, 2 and 4 hardened containers at once (is dockerd serial?), and the CPU a
    container match costs, one match at a time: the referee (this process), the containers
    (their cgroup: the bots, their Python start-up included) and the engine."""
    from arena.sandbox import get_sandbox
    from arena.sandbox.docker import DockerSandbox, docker_available

    if not docker_available():
        return {"container_costs_error": "no Docker engine answers"}
    box = get_sandbox("docker")
    assert isinstance(box, DockerSandbox)
    base = box._base_id("python")
    figures: dict[str, Any] = {}
    for count in (1, 2, 4):
        walls = []
        for _ in range(3):
            def one(seat: int) -> Any:
                return box.create_container(base, ["sleep", "5"], {}, f"bench-start-{seat}",
                                            seat, seat % 2)

            import concurrent.futures

            started = time.perf_counter()
            with concurrent.futures.ThreadPoolExecutor(count) as pool:
                made = list(pool.map(one, range(count)))
            walls.append(time.perf_counter() - started)
            for container in made:
                container.remove(force=True)
        figures[f"container_start_{count}_at_once_ms_median"] = round(
            statistics.median(walls) * 1000, 1)
    busy = _machine_busy_s()
    for index in range(10):  # what the engine, runc, the shim and the kernel spend on one
        container = box.create_container(base, ["true"], {}, f"bench-life-{index}", 0, 0)
        container.wait()
        container.remove(force=True)
    figures["container_lifecycle_machine_cpu_s"] = round((_machine_busy_s() - busy) / 10, 3)
    if not DOCKER_CPUACCT.exists():
        return figures
    own, engine = _own_cpu_s(), _engine_cpu_s()
    containers = int(DOCKER_CPUACCT.read_text())
    started = time.perf_counter()
    for seed in range(matches):
        _match(LC_RANDOM, LC_RANDOM, seed, log_dir, sandbox="docker")
    wall = (time.perf_counter() - started) / matches
    referee = (_own_cpu_s() - own) / matches
    bots = (int(DOCKER_CPUACCT.read_text()) - containers) / 1e9 / matches
    dockerd = (_engine_cpu_s() - engine) / matches
    figures.update({
        "container_match_wall_s": round(wall, 3),
        "container_match_cpu_referee_s": round(referee, 3),
        "container_match_cpu_containers_s": round(bots, 3),
        "container_match_cpu_engine_s": round(dockerd, 3),
        "container_match_cpu_cores_busy": round((referee + bots + dockerd) / wall, 2),
    })
    return figures


def ratings_fit(bots: int = 100, matches: int = 100_000) -> dict[str, Any]:
    """The Bradley-Terry fit (with intervals) over 100 bots and 100,000 paired matches."""
    from arena.stats.rating import GameRecord, fit

    rng = random.Random(5)
    strength = [rng.gauss(0, 200) for _ in range(bots)]
    records = []
    for index in range(matches // 2):
        a, b = rng.sample(range(bots), 2)
        expected = 1 / (1 + 10 ** ((strength[b] - strength[a]) / 400))
        for leg, (x, y) in enumerate(((a, b), (b, a))):
            p = expected if x == a else 1 - expected
            roll = rng.random()
            score = 1.0 if roll < p * 0.95 else 0.5 if roll < p * 0.95 + 0.05 else 0.0
            records.append(GameRecord(f"bot{x}", f"bot{y}", score, f"e{index}", 0.0, leg))
    started = time.perf_counter()
    fitted = fit(records)
    elapsed = time.perf_counter() - started
    assert fitted is not None
    return {"ratings_fit_100_bots_100k_matches_s": round(elapsed, 3)}


def ladder_throughput(matches: int, concurrency: int, sandbox: str, tmp: Path,
                      in_process: bool = False) -> dict[str, Any]:
    """Matches per minute of a real ladder run (random vs greedy Lost Cities, 3 rounds): on the
    embedded cluster (the default path; the run's time includes starting and stopping it), or
    with ``in_process`` every referee in this process (the path before the cluster)."""
    from arena.ladder.config import load_ladder
    from arena.ladder.runner import run_ladder_blocking

    mode = "_in_process" if in_process else ""
    name = f"bench-{sandbox}-{concurrency}{mode}"
    tmp.mkdir(parents=True, exist_ok=True)
    path = tmp / f"{name}.toml"
    bots = ROOT / "sample_bots" / "lost-cities"
    path.write_text(
        f'name = "{name}"\ngame = "lost-cities"\n'
        f'entrants = ["{bots / "random"}", "{bots / "greedy"}"]\n'
        f'sandbox = "{sandbox}"\nstate_dir = "{tmp / f"state-{name}"}"\n'
        f"[schedule]\ncycles = {max(1, matches // 2)}\n"
    )
    started = time.perf_counter()
    summary = run_ladder_blocking(load_ladder(path), concurrency=concurrency,
                                  play=play_match if in_process else None)
    wall = time.perf_counter() - started
    key = f"ladder_matches_per_min_{sandbox}_c{concurrency}{mode}"
    return {key: round(summary.played / wall * 60, 1)}


def cluster_overhead(matches: int, log_dir: Path) -> dict[str, Any]:
    """What the cluster adds per match: a no-op task's round trip through an embedded cluster
    of one worker, and the same trivial match (1 round, two first-legal-action bots) played on
    the cluster minus played in this process; plus starting and stopping the cluster."""
    from arena.cluster.session import open_cluster

    def noop() -> None:
        return None

    async def measure() -> dict[str, Any]:
        started = time.perf_counter()
        async with open_cluster(None, workers=1) as session:
            ready = time.perf_counter() - started
            trips = []
            for index in range(matches * 4):
                begin = time.perf_counter()
                await session.client.submit(noop, key=f"noop-{index}", pure=False)
                trips.append(time.perf_counter() - begin)
            extra = []
            for seed in range(matches):
                spec, box = _spec(FIRST_BOT, FIRST_BOT, seed, options={"rounds": 1})
                spec = replace(spec, match_id=f"overhead-{seed}-l0")
                begin = time.perf_counter()
                await session.player(spec, sandbox=box, log_dir=log_dir)
                on_cluster = time.perf_counter() - begin
                begin = time.perf_counter()
                await play_match(replace(spec, match_id=f"local-{seed}"), sandbox=box,
                                 log_dir=log_dir)
                extra.append(on_cluster - (time.perf_counter() - begin))
            closing = time.perf_counter()
        return {
            "cluster_start_s": round(ready, 2),
            "cluster_stop_s": round(time.perf_counter() - closing, 2),
            "cluster_task_round_trip_ms_median": round(statistics.median(trips) * 1000, 1),
            "cluster_match_overhead_ms_median": round(statistics.median(extra) * 1000, 1),
        }

    figures = asyncio.run(measure())
    figures["cluster_verify_cpu_ms_median"] = verify_cpu_ms(matches, log_dir)
    return figures


def verify_cpu_ms(matches: int, log_dir: Path) -> float:
    """The head's CPU to check one match a worker returned (``arena.cluster.verify``: inflate
    the log, check it is the spec's match, replay it through the rules and the clocks): a
    3-round Lost Cities match between two random process bots."""
    import zlib

    from arena.cluster.task import MatchOutput
    from arena.cluster.verify import check_output

    spec, box = _spec(LC_RANDOM, LC_RANDOM, 11)
    spec = replace(spec, match_id="verify-l0")
    result = asyncio.run(play_match(spec, sandbox=box, log_dir=log_dir))
    packed = zlib.compress(Path(result.log or "").read_bytes(), 6)
    output = MatchOutput(result, packed, (None, None), "tls://127.0.0.1:1", "host")
    costs = []
    for _ in range(max(matches, 10)):
        begin = time.process_time()
        check_output(output, spec)
        costs.append(time.process_time() - begin)
    return round(statistics.median(costs) * 1000, 1)


def ladder(quick: bool, tmp: Path, sandbox: str, out: dict[str, Any]) -> None:
    """Ladder throughput at concurrency 1 and 2 (and 3 for containers), on the cluster and,
    for comparison, in-process: the best of 3 interleaved runs each (1 with --quick), since
    other work on the machine only ever slows a run down."""
    matches = 6 if quick else (30 if sandbox == "docker" else 40)
    levels = (1, 2, 3) if sandbox == "docker" else (1, 2)
    runs: dict[str, list[float]] = {}
    for repeat in range(1 if quick else 3):
        for in_process in (False, True):
            for concurrency in levels:
                mode = "_in_process" if in_process else ""
                found: dict[str, Any] = {}
                section(f"ladder_{sandbox}_c{concurrency}{mode}",
                        lambda c=concurrency, i=in_process, r=repeat, f=found: f.update(
                            ladder_throughput(matches, c, sandbox, tmp / f"r{r}", i)) or {},
                        out)
                for key, value in found.items():
                    runs.setdefault(key, []).append(value)
    out.update({key: max(values) for key, values in runs.items()})
    out[f"ladder_{sandbox}_runs"] = runs


def epochs(quick: bool) -> dict[str, Any]:
    from benchmarks.epochs import epochs as measure

    return measure(quick)


def site(quick: bool, tmp: Path) -> dict[str, Any]:
    """The ladder's site as it grows (``benchmarks/site_refresh.py``)."""
    from benchmarks.site_refresh import site_figures

    tmp.mkdir()
    return site_figures(1_000 if quick else 10_000, tmp)


def signing(quick: bool, tmp: Path) -> dict[str, Any]:
    """Signed logs and a published ladder (``benchmarks/signing.py``)."""
    from benchmarks.signing import signing_figures

    tmp.mkdir()
    return signing_figures(tmp, matches=100 if quick else 1_000, repeat=11 if quick else 51)


def watch(tmp: Path) -> dict[str, Any]:
    """The interactive `arena watch` (``benchmarks/watch_app.py``)."""
    from benchmarks.watch_app import watch_figures

    tmp.mkdir()
    return {f"watch_{key}": value for key, value in watch_figures(tmp).items()}


def clocks(quick: bool) -> dict[str, Any]:
    """The CPU clock against the wall clock under load (``benchmarks/clocks.py``, run as its
    own process: it starts CPU hogs and other matches around the measured one)."""
    import subprocess

    command = [sys.executable, str(Path(__file__).with_name("clocks.py"))]
    if quick:
        command += ["--decisions", "100", "--max-matches", "4"]
    done = subprocess.run(command, capture_output=True, text=True, check=True,
                          cwd=Path(__file__).resolve().parent.parent)
    return {"clocks": json.loads(done.stdout)}


ONLY: list[str] = []
"""``--only``: run just the sections whose names contain this text."""


def lab(seconds: float) -> dict[str, Any]:
    """The lab's step rates (``benchmarks/lab_rates.py``; needs the extra ``lab``)."""
    from benchmarks.lab_rates import step_rates

    return step_rates(seconds)


def section(name: str, func: Callable[[], dict[str, Any]], out: dict[str, Any]) -> None:
    if ONLY and ONLY[0] not in name:
        return
    print(f"… {name}", file=sys.stderr, flush=True)
    try:
        out.update(func())
    except Exception as exc:  # noqa: BLE001 — report, keep measuring the rest
        out[f"{name}_error"] = repr(exc)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="fewer samples, rougher figures")
    parser.add_argument("--only", help="run only the sections whose name contains this")
    args = parser.parse_args()
    if args.only:
        ONLY.append(args.only)
    seconds = 1.0 if args.quick else 5.0
    matches = 3 if args.quick else 11
    figures: dict[str, Any] = {"quick": args.quick,
                               "load_avg_at_start": round(os.getloadavg()[0], 2)}
    with tempfile.TemporaryDirectory() as tmp:
        log_dir = Path(tmp)
        section("engine", lambda: engine_vs_yardstick(2 * seconds), figures)
        section("overhead", lambda: decision_overhead(2 if args.quick else 6, log_dir), figures)
        section("bot_startup", lambda: bot_startup(args.quick), figures)
        section("match", lambda: match_wall(matches, log_dir), figures)
        section("haggis", lambda: versus_yardstick("haggis", "rounds", 2 * seconds), figures)
        section("haggis_worst", haggis_worst_legal_ms, figures)
        section("portas", lambda: versus_yardstick("portas", "games", 2 * seconds), figures)
        section("ratings", ratings_fit, figures)
        section("lab", lambda: lab(seconds / 2), figures)
        section("evaluator", lambda: lab_throughput(seconds), figures)
        section("search", search_costs, figures)
        section("site", lambda: site(args.quick, log_dir / "site"), figures)
        section("signing", lambda: signing(args.quick, log_dir / "signing"), figures)
        section("watch", lambda: watch(log_dir / "watch"), figures)
        section("process_costs", lambda: process_costs(3 if args.quick else 20, log_dir),
                figures)
        ladder(args.quick, log_dir, "process", figures)
        section("cluster", lambda: cluster_overhead(3 if args.quick else 10, log_dir), figures)
        section("container", lambda: container_figures(3 if args.quick else 9, log_dir), figures)
        section("container_costs", lambda: container_costs(3 if args.quick else 10, log_dir),
                figures)
        section("clocks", lambda: clocks(args.quick), figures)
        section("epochs", lambda: epochs(args.quick), figures)
        if "container_error" not in figures:
            ladder(args.quick, log_dir, "docker", figures)
    print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
