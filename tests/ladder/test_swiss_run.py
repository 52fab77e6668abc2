"""Swiss tournaments run by the ladder: rounds paired from the recorded results once the round
before is complete, byes, no rematch, resume. With the fast in-process player; the real one
(process sandbox, kill -9 mid-Swiss) is in test_schedule_crash.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.ladder.config import LadderConfig
from arena.ladder.reports import load_matches
from arena.ladder.runner import LadderEvent
from arena.ladder.schedules.sources import tournament_players
from arena.ladder.schedules.swiss import SwissState
from arena.ladder.store import LadderStore
from arena.model import MatchSpec
from tests.support.fakes import FakePlayer
from tests.support.schedules import run, state, tournament

pytestmark = pytest.mark.integration

FIELD = '"alpha", "beta", "gamma", "delta", "epsilon"'


def ladder(tmp_path: Path, rounds: int = 3, concurrency: int = 2) -> LadderConfig:
    return tournament(tmp_path, "open", FIELD, f'type = "swiss"\nrounds = {rounds}', concurrency)


def rest(cfg: LadderConfig) -> SwissState:
    return state(cfg, SwissState)


def test_a_swiss_plays_its_rounds_with_byes_and_no_rematch(tmp_path: Path) -> None:
    cfg = ladder(tmp_path)
    events: list[LadderEvent] = []
    summary = run(cfg, on_event=events.append)
    assert summary.stopped == "all 3 rounds are played" and summary.remaining == 0
    assert summary.played == 3 * 2 * 2  # three rounds of two encounters (a bye each)
    state = rest(cfg)
    assert state.finished and len(state.rounds) == 3
    byes = [r.bye for r in state.rounds]
    assert None not in byes and len(set(byes)) == 3  # at most one bye per bot
    met = [frozenset(p) for r in state.rounds for p in r.pairings]
    assert len(met) == len(set(met)) == 6
    assert tournament_players(cfg) == ("alpha", "beta", "gamma", "delta", "epsilon")
    assert isinstance(events[-1].progress.schedule, SwissState)
    assert events[-1].progress.schedule.table == state.table
    assert run(cfg).played == 0


def test_a_round_is_paired_only_once_the_round_before_is_complete(tmp_path: Path) -> None:
    cfg = ladder(tmp_path, concurrency=4)
    started: list[str] = []
    recorded: list[set[str]] = []

    def hook(spec: MatchSpec) -> None:
        with LadderStore(cfg.database_url) as db:
            recorded.append(db.recorded_ids(cfg.name))
        started.append(spec.match_id)

    run(cfg, FakePlayer(delay=0.02, hook=hook))
    encounters = {m.match_id: m.encounter_id for m in load_matches(cfg)}
    state = rest(cfg)
    from arena.ladder.schedules.swiss import encounter_id

    round_of = {encounter_id("open", r.index, a, b): r.index
                for r in state.rounds for a, b in r.pairings}
    for match_id, done in zip(started, recorded, strict=True):
        current = round_of[encounters[match_id]]
        earlier = {m for m, e in encounters.items() if round_of[e] < current}
        assert earlier <= done, f"{match_id} started before round {current - 1} was complete"


def test_a_resumed_swiss_pairs_as_an_uninterrupted_one(tmp_path: Path) -> None:
    whole = ladder(tmp_path / "whole")
    run(whole)
    cut = ladder(tmp_path / "cut")
    for _ in range(5):
        assert run(cut, max_matches=2).played == 2
    run(cut)
    assert sorted((m.match_id, m.seed, m.bots, m.winner) for m in load_matches(cut)) == \
        sorted((m.match_id, m.seed, m.bots, m.winner) for m in load_matches(whole))
    assert [(r.pairings, r.bye, r.results) for r in rest(cut).rounds] == \
        [(r.pairings, r.bye, r.results) for r in rest(whole).rounds]
