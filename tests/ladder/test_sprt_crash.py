"""Crash safety of an SPRT test: kill -9 the process mid-test, run it again, check the record."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.ladder.config import load_ladder
from arena.ladder.reports import load_matches
from arena.ladder.runner import SECRET_FILE
from arena.sprt.plan import PairPlan
from arena.stats.sprt_pairs import PairBook
from tests.support import crash
from tests.support.crash import driver_args, kill_when, start

pytestmark = pytest.mark.integration

TEST = """\
name = "crash"
game = "lost-cities"
concurrency = 2
[sprt]
candidate = "beta"
baseline = "gamma"
elo0 = 0
elo1 = 50
max_pairs = 10
"""


def test_kill_9_mid_test_then_run_again(tmp_path: Path) -> None:
    path = tmp_path / "crash.toml"
    path.write_text(TEST)
    cfg = load_ladder(path)
    markers = tmp_path / "markers"
    args = driver_args("sprt", path, markers)
    proc = start(args, tmp_path / "run1.log")
    kill_when(proc, lambda: crash.recorded(cfg) >= 5, timeout=60)
    before = {m.match_id: m for m in load_matches(cfg)}
    started = [line.split() for line in (markers / "started.txt").read_text().splitlines()]
    in_flight = {mid: int(seed) for mid, seed in started if mid not in before}
    assert 5 <= len(before) < 20 and in_flight, "the kill should land mid-test"
    (markers / "started.txt").unlink()

    rerun = start(args, tmp_path / "run2.log")
    assert rerun.wait(timeout=60) == 0, (tmp_path / "run2.log").read_text()
    assert (tmp_path / "run2.log").read_text().split() == ["inconclusive", "10"]
    replayed = dict(line.split() for line in (markers / "started.txt").read_text().splitlines())
    assert not set(replayed) & set(before), "a recorded match was played again"
    for match_id, seed in in_flight.items():
        assert int(replayed[match_id]) == seed, "an in-flight leg not replayed with its seed"

    after = load_matches(cfg)
    ids = [m.match_id for m in after]
    assert len(ids) == len(set(ids)) == 20, "every leg of the 10 pairs, each once"
    now = {m.match_id: m for m in after}
    for match_id, row in before.items():
        assert now[match_id] == row, f"recorded match {match_id} was lost or rewritten"
    book = PairBook.of(after)
    assert book.counts.pairs == 10 and book.missing_legs() == []
    plan = PairPlan.of("crash", ("beta", "gamma"),
                       secret=(cfg.state_dir / SECRET_FILE).read_text().strip())
    assert {m.match_id: m.seed for m in after} == {
        plan.leg(p, leg).match_id: plan.leg(p, leg).seed for p in range(10) for leg in (0, 1)}
