"""A competition server under load: a real `arena host` process on 127.0.0.1 (TLS), real clients.

  submission_to_rated_s_median   submission (upload start) to its first rated match, median of
  submission_stage_s_median        10 sequential submissions (Docker sandbox, embedded cluster;
                                   each a greedy copy with a file of its own, so a new image), and
                                   the median time to each stage
  api_standings_ms_p50/p99       the public calls with 100 bots and 100,000 matches in the
  api_matches_ms_p50/p99           store (recorded straight into its tables), 300 calls each
  api_matches_bot_ms_p50/p99       (ListMatches: newest 50; with --bot: one bot's newest 50)
  watch_matches_per_min_without  a continuous ladder's matches per minute (process sandbox,
  watch_matches_per_min_with       random vs greedy, two at a time) in alternating 60 s
  watch_ratio                      windows without and with 50 clients watching replays of
  watch_frames_per_s               recent matches over and over (each a WatchMatch stream of
                                   every frame), and the frames they received per second (the
                                   clients run in this process at nice 19: they stand for the
                                   contestants' own machines)

    python benchmarks/competition.py [--quick] [--only submit|api|watch]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import grpc  # noqa: E402
from sqlalchemy import insert  # noqa: E402

from arena.host.accounts import Accounts  # noqa: E402
from arena.host.client import _requests, payload  # noqa: E402
from arena.host.config import load_competition  # noqa: E402
from arena.ladder.store import LadderStore, bots_t, matches_t  # noqa: E402
from arena.v1 import competition_pb2 as pb  # noqa: E402
from tests.support.competition import make_server  # noqa: E402

GREEDY = ROOT / "sample_bots" / "lost-cities" / "greedy"
STAGE = pb.SubmissionStage.Name


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def submissions(tmp: Path, count: int) -> dict[str, Any]:
    """Submission to first rated match, ``count`` times in a row."""
    server = make_server(tmp / "submit", per_day=1000, active_bots=1000)
    server.start()
    totals: list[float] = []
    stages: dict[str, list[float]] = {}
    try:
        for number in range(count):
            bot = tmp / f"bot{number}"
            bot.mkdir()
            for item in GREEDY.iterdir():
                if item.is_file():
                    (bot / item.name).write_bytes(item.read_bytes())
            (bot / "notes.txt").write_text(f"submission {number}\n")
            with payload(bot, "directory") as made:
                start = pb.SubmitStart(name=f"bench{number}", kind="directory",
                                       size=made.size, sha256=made.sha256)
                began = time.time()
                for event in server.stub("alice").Submit(_requests(start, made.path, None),
                                                         timeout=900):
                    stages.setdefault(STAGE(event.stage), []).append(event.at - began)
                    if event.final:
                        break
            if STAGE(event.stage) != "RATED":
                raise RuntimeError(f"submission {number} ended {STAGE(event.stage)}: "
                                   f"{event.message} {event.detail}")
            totals.append(event.at - began)
    finally:
        server.stop()
    return {"submission_to_rated_s_median": round(statistics.median(totals), 1),
            "submission_to_rated_s_max": round(max(totals), 1),
            "submission_stage_s_median": {k: round(statistics.median(v), 1)
                                          for k, v in stages.items()},
            "submissions": count}


def _fill_store(url: str, ladder: str, bots: int, matches: int) -> None:
    """``matches`` Lost Cities results among ``bots`` bots, written straight into the store's
    tables (one transaction), strengths spread so the fit has an order to find."""
    store = LadderStore(url)
    rng = random.Random(7)
    strength = [rng.gauss(0, 1) for _ in range(bots)]
    now = time.time()
    with store.engine.begin() as conn:
        ids = []
        for number in range(bots):
            key = conn.execute(insert(bots_t).values(
                name=f"bot{number:03d}", version="s1", identity=f"sha256:{number:064x}",
                ref="", created_at=now)).inserted_primary_key
            assert key is not None
            ids.append(int(key[0]))
        rows = []
        for number in range(matches):
            a, b = rng.sample(range(bots), 2)
            p = 1 / (1 + 10 ** ((strength[b] - strength[a]) * 0.8))
            winner = 0 if rng.random() < p else 1
            rows.append(dict(
                match_id=f"bench-{number:06d}", ladder=ladder, encounter_id=f"e{number // 2}",
                cycle=0, leg=number % 2, game="lost-cities", game_version=1,
                seed=str(number), options={}, bot0_id=ids[a], bot1_id=ids[b],
                bot0=f"bot{a:03d}", bot1=f"bot{b:03d}", winner=winner, termination="normal",
                faulty_seat=None, void=False, detail="", rounds=[[10, 5]],
                total0=10 if winner == 0 else 5, total1=10 if winner == 1 else 5,
                log_path=None, duration_s=1.0, decisions=100, started_at=now - 1,
                finished_at=now - matches + number))
        conn.execute(insert(matches_t), rows)
    store.close()


def api_latency(tmp: Path, bots: int, matches: int, calls: int) -> dict[str, Any]:
    """p50/p99 of the public calls with a big store."""
    server = make_server(tmp / "api", sandbox="process")
    competition = load_competition(server.file)
    _fill_store(competition.database, competition.ladder_name("lost-cities"), bots, matches)
    server.start()
    try:
        stub = server.stub("bob")
        deadline = time.monotonic() + 600  # the first fit of the big store
        while time.monotonic() < deadline:
            standings = stub.Standings(pb.StandingsRequest(), timeout=60).games[0]
            if standings.matches >= matches:
                break
            time.sleep(1)
        figures: dict[str, Any] = {"api_store_matches": standings.matches,
                                   "api_store_bots": len(standings.rows)}
        requests = {
            "standings": lambda: stub.Standings(pb.StandingsRequest(), timeout=60),
            "matches": lambda: stub.ListMatches(pb.MatchesRequest(limit=50), timeout=60),
            "matches_bot": lambda: stub.ListMatches(pb.MatchesRequest(bot="bot042", limit=50),
                                                    timeout=60),
        }
        for name, call in requests.items():
            call()
            times = []
            for _ in range(calls):
                began = time.perf_counter()
                call()
                times.append((time.perf_counter() - began) * 1000)
            figures[f"api_{name}_ms_p50"] = round(_percentile(times, 0.5), 2)
            figures[f"api_{name}_ms_p99"] = round(_percentile(times, 0.99), 2)
    finally:
        server.stop()
    return figures


def watchers(tmp: Path, window_s: float, windows: int, count: int) -> dict[str, Any]:
    """Matches per minute with and without ``count`` clients watching."""
    server = make_server(tmp / "watch", sandbox="process", logs="public")
    text = server.file.read_text().replace('house = ["random"]', 'house = ["random", "greedy"]')
    server.file.write_text(text.replace("concurrency = 1", "concurrency = 2"))  # every core
    accounts = Accounts.open(load_competition(server.file).database)
    for number in range(count):  # each watcher a contestant of its own (8 streams each at most)
        server.tokens[f"watcher{number:02d}"] = accounts.add(f"watcher{number:02d}")
    server.start()
    stop = threading.Event()
    active = threading.Event()
    frames = [0]
    lock = threading.Lock()

    def watcher(number: int) -> None:
        stub = server.stub(f"watcher{number:02d}")
        rng = random.Random(number)
        while not stop.is_set():
            if not active.wait(0.5):
                continue
            try:
                recent = stub.ListMatches(pb.MatchesRequest(limit=20), timeout=30).matches
                if not recent:
                    time.sleep(0.5)
                    continue
                match = rng.choice(list(recent))
                seen = sum(1 for _ in stub.WatchMatch(
                    pb.WatchRequest(match_id=match.match_id, seat=-1), timeout=120))
                with lock:
                    frames[0] += seen
            except grpc.RpcError:
                time.sleep(0.5)

    def recorded() -> int:
        return server.stub("alice").Standings(pb.StandingsRequest(), timeout=60).games[0].matches

    # the watchers stand for contestants' own machines: on this host they run at the lowest
    # priority, so what is measured is what watching costs the server, not the clients
    os.nice(19)
    try:  # with autogroup scheduling a session competes as a whole: lower this one's too
        Path("/proc/self/autogroup").write_text("19")
    except OSError:
        pass
    threads = [threading.Thread(target=watcher, args=(n,), daemon=True) for n in range(count)]
    for thread in threads:
        thread.start()
    rates: dict[bool, list[float]] = {False: [], True: []}
    frame_rates = []
    try:
        deadline = time.monotonic() + 300
        while recorded() < 4 and time.monotonic() < deadline:  # the ladder is under way
            time.sleep(1)
        for number in range(2 * windows):
            watching = number % 2 == 1
            (active.set if watching else active.clear)()
            time.sleep(5)  # settle
            first, began, frames_before = recorded(), time.monotonic(), frames[0]
            time.sleep(window_s)
            elapsed = time.monotonic() - began
            rates[watching].append((recorded() - first) * 60 / elapsed)
            if watching:
                frame_rates.append((frames[0] - frames_before) / elapsed)
    finally:
        stop.set()
        active.set()
        server.stop()
    without = statistics.median(rates[False])
    with_ = statistics.median(rates[True])
    return {"watch_matches_per_min_without": round(without, 1),
            "watch_matches_per_min_with": round(with_, 1),
            "watch_ratio": round(with_ / without, 2) if without else None,
            "watch_frames_per_s": round(statistics.median(frame_rates), 1),
            "watchers": count, "watch_windows": windows, "watch_window_s": window_s}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="fewer samples, a smaller store")
    parser.add_argument("--only", choices=("submit", "api", "watch"))
    args = parser.parse_args()
    figures: dict[str, Any] = {"quick": args.quick}
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        if args.only in (None, "submit"):
            figures.update(submissions(tmp, 3 if args.quick else 10))
        if args.only in (None, "api"):
            figures.update(api_latency(tmp, 100, 10_000 if args.quick else 100_000,
                                       50 if args.quick else 300))
        if args.only in (None, "watch"):
            figures.update(watchers(tmp, 20 if args.quick else 60, 1 if args.quick else 3, 50))
    print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
