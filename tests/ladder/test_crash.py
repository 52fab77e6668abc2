"""Crash safety: kill -9 a running ladder process, run it again, and check the record."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest

from arena.ladder.config import LadderConfig, load_ladder
from arena.ladder.reports import load_matches
from arena.ladder.runner import ladder_schedule
from arena.ladder.store import LadderStore, StoredMatch
from arena.record.replay import replay_log
from tests.support import crash
from tests.support.crash import driver_args, kill_when, start

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_bots" / "lost-cities"


def _check_complete(cfg: LadderConfig, before: dict[str, StoredMatch]) -> None:
    schedule = {m.match_id: m.seed for e in ladder_schedule(cfg) for m in e.matches}
    after = load_matches(cfg)
    ids = [m.match_id for m in after]
    assert len(ids) == len(set(ids)), "a match was recorded twice"
    assert {m.match_id: m.seed for m in after} == schedule, "schedule not completed exactly"
    now = {m.match_id: m for m in after}
    for match_id, row in before.items():
        assert now[match_id] == row, f"finished match {match_id} was lost or rewritten"
    with LadderStore(cfg.database_url) as db:
        history = db.elo_history(cfg.name)
    rated = [m for m in after if not m.void]
    assert len(history) == 2 * len(rated), "live Elo applied more or less than once per match"


def test_kill_9_then_rerun_with_a_fake_player(tmp_path: Path) -> None:
    path = tmp_path / "crash.toml"
    path.write_text('name = "crash"\ngame = "lost-cities"\n'
                    'entrants = ["alpha", "beta", "gamma", "delta"]\nconcurrency = 2\n'
                    "[schedule]\ncycles = 2\n")
    cfg = load_ladder(path)
    markers = tmp_path / "markers"
    args = driver_args("ladder", path, markers)
    proc = start(args, tmp_path / "run1.log")
    kill_when(proc, lambda: crash.recorded(cfg) >= 5, timeout=60)
    before = {m.match_id: m for m in load_matches(cfg)}
    started = [line.split() for line in (markers / "started.txt").read_text().splitlines()]
    in_flight = {mid: int(seed) for mid, seed in started if mid not in before}
    assert 5 <= len(before) < 24 and in_flight, "the kill should land mid-run"
    (markers / "started.txt").unlink()

    rerun = start(args, tmp_path / "run2.log")
    assert rerun.wait(timeout=60) == 0, (tmp_path / "run2.log").read_text()
    replayed = dict(line.split() for line in (markers / "started.txt").read_text().splitlines())
    assert not set(replayed) & set(before), "a finished match was played again"
    for match_id, seed in in_flight.items():
        assert int(replayed[match_id]) == seed, "in-flight match not replayed with its seed"
    _check_complete(cfg, before)


@pytest.mark.slow
def test_kill_9_of_arena_run_ladder_then_rerun(tmp_path: Path) -> None:
    path = tmp_path / "real.toml"
    path.write_text(
        'name = "real"\ngame = "lost-cities"\n'
        f'entrants = ["{SAMPLES / "random"}", "{SAMPLES / "greedy"}"]\n'
        # the process sandbox, as the tier says (the default, auto, would take containers
        # where an engine answers)
        'concurrency = 2\nsandbox = "process"\n[options]\nrounds = 1\n[schedule]\ncycles = 3\n'
    )
    cfg = load_ladder(path)
    args = ["-m", "arena", "run-ladder", str(path)]
    proc = start(args, tmp_path / "run1.log")
    kill_when(proc, lambda: crash.recorded(cfg) >= 3, timeout=120)
    before = {m.match_id: m for m in load_matches(cfg)}
    assert 3 <= len(before) < 6, "the kill should land mid-run"
    logs = cfg.match_log_dir
    in_flight = {p.name.removesuffix(".jsonl") for p in logs.glob("*.jsonl")} - set(before)
    rerun = start(args, tmp_path / "run2.log")
    assert rerun.wait(timeout=180) == 0, (tmp_path / "run2.log").read_text()
    _check_complete(cfg, before)
    seeds = {m.match_id: m.seed for e in ladder_schedule(cfg) for m in e.matches}
    replayed = {m.match_id: m.seed for m in load_matches(cfg) if m.match_id in in_flight}
    assert replayed == {mid: seeds[mid] for mid in in_flight}
    for m in load_matches(cfg):
        assert m.log_path and Path(m.log_path).exists()
        # every recorded log (replayed in-flight ones included) is whole and verifies
        assert replay_log(Path(m.log_path)).finished


def test_sigterm_stops_cleanly_and_keeps_what_finished(tmp_path: Path) -> None:
    path = tmp_path / "term.toml"
    path.write_text('name = "term"\ngame = "lost-cities"\n'
                    'entrants = ["alpha", "beta", "gamma"]\nconcurrency = 2\n'
                    "[schedule]\ncycles = 4\n")
    cfg = load_ladder(path)
    markers = tmp_path / "markers"
    proc = start(driver_args("ladder", path, markers),
                  tmp_path / "run.log")
    try:
        deadline = time.monotonic() + 60
        while crash.recorded(cfg) < 3:
            assert proc.poll() is None and time.monotonic() < deadline
            time.sleep(0.05)
        os.kill(proc.pid, signal.SIGTERM)
        assert proc.wait(timeout=20) == 0, (tmp_path / "run.log").read_text()
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    recorded = load_matches(cfg)
    assert 3 <= len(recorded) < 24
    started = {line.split()[0] for line in (markers / "started.txt").read_text().splitlines()}
    assert {m.match_id for m in recorded} <= started
