"""Adaptive ladders: information-driven pairing within a budget, until the order is known. With
the fast in-process player (decisions, ids, seeds, resume, a crash between legs), and real
ladders (process sandbox, sample bots, one-round matches) that stop on separation and on their
budget."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any

import pytest

from arena.errors import ConfigError
from arena.ladder.config import LadderConfig, load_ladder
from arena.ladder.reports import load_matches
from arena.ladder.runner import LadderEvent, LadderEventKind, RunSummary, default_play, run_ladder
from arena.ladder.schedules.registry import schedule_status
from arena.ladder.schedules.sources import PAIRINGS_FILE, PLAYERS_FILE, tournament_players
from arena.ladder.schedules.status import AdaptiveStatus
from arena.ladder.store import LadderStore
from arena.model import MatchSpec
from tests.support.fakes import FakePlayer, fake_resolve, fake_result

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_bots" / "lost-cities"


def ladder(tmp_path: Path, entrants: str = '"alpha", "beta", "gamma", "delta"',
           schedule: str = "encounters = 12", concurrency: int = 1, extra: str = ""
           ) -> LadderConfig:
    path = tmp_path / "adaptive.toml"
    tmp_path.mkdir(parents=True, exist_ok=True)
    path.write_text(f'name = "adapt"\ngame = "lost-cities"\nentrants = [{entrants}]\n'
                    f"concurrency = {concurrency}\n{extra}"
                    f'[schedule]\ntype = "adaptive"\n{schedule}\n')
    return load_ladder(path)


def run(cfg: LadderConfig, player: FakePlayer | None = None, **kwargs: Any) -> RunSummary:
    return asyncio.run(run_ladder(cfg, play=player or FakePlayer(), resolve=fake_resolve,
                                  **kwargs))


def played(cfg: LadderConfig) -> list[tuple[str, int, tuple[str, str]]]:
    return [(m.match_id, m.seed, m.bots) for m in load_matches(cfg)]


def test_an_adaptive_ladder_plays_its_budget_in_duplicate_encounters(tmp_path: Path) -> None:
    cfg = ladder(tmp_path)
    events: list[LadderEvent] = []
    summary = run(cfg, on_event=events.append)
    assert summary.played == 24 and summary.stopped == "the budget of 12 encounters is spent"
    assert summary.remaining == 0 and not summary.interrupted
    matches = load_matches(cfg)
    encounters: dict[str, list[Any]] = {}
    for m in matches:
        assert re.fullmatch(r"adapt-a\d{6}-[0-9a-f]{10}-l[01]", m.match_id), m.match_id
        encounters.setdefault(m.encounter_id, []).append(m)
    assert len(encounters) == 12
    for legs in encounters.values():  # one deal, the seats swapped
        assert [m.leg for m in legs] == [0, 1] and legs[0].seed == legs[1].seed
        assert legs[0].bots == legs[1].bots[::-1]
    numbers = sorted(int(e.split("-a")[1][:6]) for e in encounters)
    assert numbers == list(range(12))
    # every decision is logged with its rule and reason, and the status keeps the latest
    lines = [json.loads(line) for line in
             (cfg.state_dir / PAIRINGS_FILE).read_text().splitlines()]
    assert [line["encounter"] for line in lines] == list(encounters)
    assert all(line["rule"] in ("placement", "fairness", "information") and line["reason"]
               for line in lines)
    status = events[-1].progress.schedule
    assert isinstance(status, AdaptiveStatus) and status.kind == "adaptive"
    assert status.budget == 12 and status.encounters == 12
    assert status.stopped == summary.stopped
    assert [d.encounter_id for d in status.decisions] == [ln["encounter"] for ln in lines][::-1][
        :len(status.decisions)]
    assert {p.player for p in status.players} == {"alpha", "beta", "gamma", "delta"}
    assert sum(p.encounters for p in status.players) == 24
    # every event of the run carried the status; a second run has nothing to play
    assert all(isinstance(e.progress.schedule, AdaptiveStatus) for e in events)
    again = run(cfg)
    assert again.played == 0 and again.stopped == summary.stopped


def test_the_status_of_a_ladder_at_rest_is_the_last_one_of_its_run(tmp_path: Path) -> None:
    cfg = ladder(tmp_path)
    assert tournament_players(cfg) is None
    events: list[LadderEvent] = []
    run(cfg, on_event=events.append)
    assert tournament_players(cfg) == ("alpha", "beta", "gamma", "delta")
    with LadderStore(cfg.database_url) as db:
        rest = schedule_status(cfg, db)
    live = events[-1].progress.schedule
    assert isinstance(rest, AdaptiveStatus) and isinstance(live, AdaptiveStatus)
    assert rest.decisions == live.decisions and rest.stopped == live.stopped
    assert rest.encounters == live.encounters and rest.separated == live.separated
    assert [(p.player, p.encounters) for p in rest.players] == \
        [(p.player, p.encounters) for p in live.players]


def test_a_resumed_run_pairs_as_an_uninterrupted_one(tmp_path: Path) -> None:
    whole = ladder(tmp_path / "whole")
    run(whole)
    cut = ladder(tmp_path / "cut")
    first = run(cut, max_matches=6)
    assert first.played == 6 and first.stopped == ""
    run(cut, max_matches=8)
    events: list[LadderEvent] = []
    run(cut, on_event=events.append)
    assert played(cut) == played(whole)
    # the live status of a resumed run lists the decisions of every run, newest first
    live = events[-1].progress.schedule
    with LadderStore(whole.database_url) as db:
        rest = schedule_status(whole, db)
    assert isinstance(live, AdaptiveStatus) and isinstance(rest, AdaptiveStatus)
    assert [(d.encounter_id, d.reason) for d in live.decisions] == \
        [(d.encounter_id, d.reason) for d in rest.decisions]


def test_an_encounter_cut_between_its_legs_is_completed_first(tmp_path: Path) -> None:
    cfg = ladder(tmp_path)
    stop = asyncio.Event()

    def cut_after_first_leg(spec: MatchSpec) -> None:
        if spec.match_id.endswith("-l1"):
            stop.set()  # the second leg is in flight: dropped, never recorded

    first = run(cfg, FakePlayer(delay=0.05, hook=cut_after_first_leg), stop=stop)
    assert first.interrupted and first.played == 1
    [leg0] = load_matches(cfg)
    player = FakePlayer()
    run(cfg, player)
    resumed = player.calls[0]
    assert resumed.match_id == leg0.match_id.replace("-l0", "-l1")
    assert resumed.seed == leg0.seed
    assert (resumed.bots[0].name, resumed.bots[1].name) == leg0.bots[::-1]
    assert len(load_matches(cfg)) == 24


def test_an_encounter_whose_second_leg_landed_first_is_completed_with_its_first(
        tmp_path: Path) -> None:
    """A store where an encounter's second leg was recorded and its first was not (a store of
    an arena that played the legs at once): the next run completes it with its first leg."""
    cfg = ladder(tmp_path)
    stop = asyncio.Event()

    def stop_at_once(spec: MatchSpec) -> None:
        stop.set()  # the first leg in flight: dropped, never recorded

    probe = FakePlayer(delay=0.5, hook=stop_at_once)
    first = run(cfg, probe, stop=stop)
    assert first.interrupted and first.played == 0
    leg0 = probe.calls[0]
    second = MatchSpec(leg0.game, leg0.seed, leg0.bots[::-1], leg0.options, leg0.time_control,
                       leg0.match_id.replace("-l0", "-l1"))
    assert leg0.slot is not None
    with LadderStore(cfg.database_url) as db:
        db.record_match(cfg.name, fake_result(second), second.bots,
                        encounter_id=leg0.slot.encounter_id, cycle=leg0.slot.cycle, leg=1)
    [leg1] = load_matches(cfg)
    assert leg1.leg == 1
    player = FakePlayer()
    run(cfg, player)
    resumed = player.calls[0]
    assert resumed.match_id == leg1.match_id.replace("-l1", "-l0") and resumed.seed == leg1.seed
    assert (resumed.bots[0].name, resumed.bots[1].name) == leg1.bots[::-1]


def test_the_players_are_frozen_at_the_first_run(tmp_path: Path) -> None:
    cfg = ladder(tmp_path)
    run(cfg, max_matches=2)
    assert json.loads((cfg.state_dir / PLAYERS_FILE).read_text())["players"] == [
        "alpha", "beta", "gamma", "delta"]
    changed = ladder(tmp_path, entrants='"alpha", "beta", "gamma", "omega"')
    player = FakePlayer()
    with pytest.raises(ConfigError, match="lack delta and add omega") as info:
        run(changed, player)
    assert "\n" not in str(info.value) and player.calls == []


@pytest.mark.unit
def test_cycles_are_refused_for_an_adaptive_ladder(tmp_path: Path) -> None:
    player = FakePlayer()
    with pytest.raises(ConfigError, match="--cycles is for a round robin"):
        run(ladder(tmp_path), player, cycles=2)
    assert player.calls == []


def test_concurrent_encounters_are_distinct_pairs(tmp_path: Path) -> None:
    cfg = ladder(tmp_path, concurrency=4, schedule="encounters = 16")
    player = FakePlayer(delay=0.02)
    summary = run(cfg, player)
    assert summary.played == 32 and player.max_active > 2
    matches = load_matches(cfg)
    assert len({m.match_id for m in matches}) == 32


# --- real ladders ---------------------------------------------------------------------------
IN_PROCESS = default_play()
"""The real referee in this process: what these ladders prove is the adaptive schedule on real
matches, not the cluster (opening its embedded one cost more than their matches)."""


def real(tmp_path: Path, entrants: list[Path], schedule: str) -> LadderConfig:
    path = tmp_path / "real.toml"
    names = ", ".join(f'"{p}"' for p in entrants)
    path.write_text(f'name = "real"\ngame = "lost-cities"\nentrants = [{names}]\n'
                    'concurrency = 2\nseed = 5\nsandbox = "process"\n[options]\nrounds = 1\n'
                    f'[schedule]\ntype = "adaptive"\n{schedule}\n')
    return load_ladder(path)


@pytest.mark.slow
def test_a_real_adaptive_ladder_stops_once_the_order_is_known(tmp_path: Path) -> None:
    cfg = real(tmp_path, [SAMPLES / "random", SAMPLES / "greedy"],
               "encounters = 30\nconfidence = 0.9")
    events: list[LadderEventKind] = []
    summary = asyncio.run(run_ladder(cfg, play=IN_PROCESS,
                                     on_event=lambda e: events.append(e.kind)))
    assert summary.stopped == "every adjacent pair is separated at 90%", summary
    assert 0 < summary.played < 60 and summary.remaining == 0
    with LadderStore(cfg.database_url) as db:
        status = schedule_status(cfg, db)
    assert isinstance(status, AdaptiveStatus)
    assert status.separated == status.adjacent == 1
    assert [p.player for p in status.players] == ["greedy", "random"]
    for m in load_matches(cfg):
        assert m.termination == "normal", m.detail


@pytest.mark.slow
def test_a_real_adaptive_ladder_of_equal_bots_stops_on_its_budget(tmp_path: Path) -> None:
    import shutil

    twin = tmp_path / "twin"
    shutil.copytree(SAMPLES / "greedy", twin)
    manifest = twin / "bot.toml"
    manifest.write_text(manifest.read_text().replace('name = "greedy"', 'name = "twin"'))
    cfg = real(tmp_path, [SAMPLES / "greedy", twin], "encounters = 3")
    summary = asyncio.run(run_ladder(cfg, play=IN_PROCESS))
    assert summary.stopped == "the budget of 3 encounters is spent"
    assert summary.played == 6
