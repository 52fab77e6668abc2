"""kill -9 of a real `arena run-ladder` mid-knockout and mid-Swiss, then run it again: the
resumed tournament makes the same pairings and has the same results as one that was never
interrupted (deterministic bots: greedy, a copy of it and random (seeded by the match id); process
sandbox, one-round matches). Three players, the fewest that still give the knockout a bye and
the Swiss a bye a round and a second round that must avoid the rematch; with them, only one
encounter can be played at a time (the two legs of a deal never play together), so the runs
open one cluster worker. The knockout's final is between greedy and its copy: every encounter is
level (the same code on the same deal with the seats swapped), so the tie goes to its extra
encounters and then to the seed."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from arena.ladder.config import LadderConfig, load_ladder
from arena.ladder.reports import load_matches
from arena.ladder.runner import SECRET_FILE, default_play, run_ladder_blocking
from arena.ladder.schedules.knockout import Bracket
from arena.ladder.schedules.registry import schedule_status
from arena.ladder.schedules.sources import PLAYERS_FILE
from arena.ladder.schedules.swiss import SwissState
from arena.ladder.store import LadderStore
from arena.record.log import private_dir
from arena.record.replay import replay_log
from tests.support import crash
from tests.support.crash import kill_when, start

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_bots" / "lost-cities"


def copy_bot(source: Path, target: Path, name: str) -> Path:
    shutil.copytree(source, target)
    manifest = target / "bot.toml"
    text = manifest.read_text()
    manifest.write_text(text.replace(text.split("\n", 1)[0], f'name = "{name}"'))
    return target


def field(tmp_path: Path) -> list[Path]:
    """greedy, twin (a copy of greedy) and random, seeded in this order."""
    return [SAMPLES / "greedy", copy_bot(SAMPLES / "greedy", tmp_path / "bots" / "twin", "twin"),
            SAMPLES / "random"]


def tournament(directory: Path, entrants: list[Path], schedule: str) -> LadderConfig:
    directory.mkdir(parents=True)
    path = directory / "cup.toml"
    names = ", ".join(f'"{p}"' for p in entrants)
    path.write_text(f'name = "cup"\ngame = "lost-cities"\nentrants = [{names}]\n'
                    'concurrency = 1\nseed = 11\nsandbox = "process"\n[options]\nrounds = 1\n'
                    f"[schedule]\n{schedule}\n")
    cfg = load_ladder(path)
    private_dir(cfg.state_dir)
    (cfg.state_dir / SECRET_FILE).write_text("cd" * 16)  # both runs deal the same cards
    return cfg


def record(cfg: LadderConfig) -> list[tuple[Any, ...]]:
    matches = load_matches(cfg)
    assert len({m.match_id for m in matches}) == len(matches), "a match was recorded twice"
    for m in matches:
        assert m.termination == "normal", m.detail
        assert m.log_path and replay_log(Path(m.log_path)).finished
    return sorted((m.match_id, m.seed, m.bots, m.winner, m.totals) for m in matches)


def crash_and_resume(tmp_path: Path, entrants: list[Path], schedule: str, kill_at: int
                     ) -> tuple[LadderConfig, LadderConfig]:
    """The tournament run uninterrupted in this process (on the real referee, without the
    embedded cluster: the reference only has to be the same matches), and the same one killed
    (-9) in a subprocess (the real `arena run-ladder`, on its cluster) once ``kill_at`` matches
    are recorded and then run again to its end."""
    whole = tournament(tmp_path / "whole", entrants, schedule)
    run_ladder_blocking(whole, play=default_play())
    total = len(load_matches(whole))
    cut = tournament(tmp_path / "cut", entrants, schedule)
    assert cut.source is not None
    args = ["-m", "arena", "run-ladder", str(cut.source)]
    kill_when(start(args, tmp_path / "run1.log"), lambda: crash.recorded(cut) >= kill_at,
               timeout=180)
    assert kill_at <= crash.recorded(cut) < total, "the kill should land mid-tournament"
    rerun = start(args, tmp_path / "run2.log")
    assert rerun.wait(timeout=240) == 0, (tmp_path / "run2.log").read_text()
    assert (cut.state_dir / PLAYERS_FILE).read_text() == \
        (whole.state_dir / PLAYERS_FILE).read_text()
    assert record(cut) == record(whole)
    return whole, cut


def status(cfg: LadderConfig) -> Any:
    with LadderStore(cfg.database_url) as db:
        return schedule_status(cfg, db)


@pytest.mark.slow
def test_kill_9_mid_knockout_then_resume(tmp_path: Path) -> None:
    # the kill lands in the final (2 matches: twin against random; the final: 10), after its
    # first encounter
    whole, cut = crash_and_resume(tmp_path, field(tmp_path), 'type = "knockout"', 4)
    brackets = [status(whole), status(cut)]
    for bracket in brackets:
        assert isinstance(bracket, Bracket) and bracket.champion == "greedy"
        assert bracket.rounds[0][0].decided_by == "bye"
        final = bracket.rounds[-1][0]
        assert final.players == ("greedy", "twin")
        assert final.decided_by == "seed (level after 5 encounters)"
    assert [[(t.players, t.winner, t.decided_by) for t in r] for r in brackets[0].rounds] == \
        [[(t.players, t.winner, t.decided_by) for t in r] for r in brackets[1].rounds]


@pytest.mark.slow
def test_kill_9_mid_swiss_then_resume(tmp_path: Path) -> None:
    # an encounter a round (4 matches): the kill lands in the second round, its first leg
    # recorded
    whole, cut = crash_and_resume(tmp_path, field(tmp_path), 'type = "swiss"\nrounds = 2', 3)
    states = [status(whole), status(cut)]
    for state in states:
        assert isinstance(state, SwissState) and state.finished
        assert sorted(r.byes for r in state.table) == [0, 1, 1]  # odd field: a bye a round
        assert all(len(set(r.opponents)) == len(r.opponents) for r in state.table)
    assert [(r.pairings, r.bye, r.results) for r in states[0].rounds] == \
        [(r.pairings, r.bye, r.results) for r in states[1].rounds]
    assert [(r.player, r.score, r.buchholz) for r in states[0].table] == \
        [(r.player, r.score, r.buchholz) for r in states[1].table]
