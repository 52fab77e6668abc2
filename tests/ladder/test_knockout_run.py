"""Knockouts run by the ladder: seeds frozen at the first run (the entrant order, or another
ladder's standings), byes, ties decided by score, margin or seed, resume. With the fast
in-process player; the real ones (process sandbox) are in test_schedule_crash.py."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from arena.errors import ConfigError
from arena.ladder.config import LadderConfig, load_ladder
from arena.ladder.reports import load_matches
from arena.ladder.runner import LadderEvent
from arena.ladder.schedules.knockout import Bracket
from arena.ladder.schedules.sources import tournament_players
from arena.ladder.store import LadderStore
from tests.support.fakes import FakePlayer
from tests.support.schedules import run, state, tournament

pytestmark = pytest.mark.integration


def ladder(tmp_path: Path, entrants: str, schedule: str = "", concurrency: int = 2,
           name: str = "cup") -> LadderConfig:
    return tournament(tmp_path, name, entrants, f'type = "knockout"\n{schedule}', concurrency)


def rest(cfg: LadderConfig) -> Bracket:
    return state(cfg, Bracket)


def test_a_knockout_of_three_gives_the_top_seed_a_bye(tmp_path: Path) -> None:
    cfg = ladder(tmp_path, '"alpha", "gamma", "delta"')
    events: list[LadderEvent] = []
    summary = run(cfg, on_event=events.append)
    bracket = rest(cfg)
    first, final = bracket.rounds
    bye = next(t for t in first if t.decided_by == "bye")
    assert bye.winner == "alpha" and bye.results == ()
    assert summary.stopped == f"{bracket.champion} won the knockout"
    assert summary.remaining == 0 and bracket.champion is not None
    ids = sorted({m.encounter_id for m in load_matches(cfg)})
    assert ids[0].startswith("cup-k00-s") and ids[-1].startswith("cup-k01-s000-e")
    assert final[0].players[0] == "alpha"
    assert isinstance(events[-1].progress.schedule, Bracket)
    assert events[-1].progress.schedule == bracket
    assert run(cfg).played == 0


def test_a_level_tie_gets_extra_encounters_then_the_seed_goes_through(tmp_path: Path) -> None:
    # two bots of the same strength: each wins the leg it has the deal's luck in, by the same
    # margin, so every encounter is level: the tie goes on to the seed rule
    cfg = ladder(tmp_path, '"gamma", "epsilon"', "encounters = 1")
    summary = run(cfg)
    [[tie]] = rest(cfg).rounds
    assert tie.winner == "gamma" and tie.decided_by == "seed (level after 5 encounters)"
    assert tie.needed == 5 and len(tie.results) == 5 and summary.played == 10


def test_ties_of_several_encounters_are_played_in_parallel(tmp_path: Path) -> None:
    cfg = ladder(tmp_path, '"alpha", "beta", "gamma", "delta"', "encounters = 2",
                 concurrency=4)
    player = FakePlayer(delay=0.02)
    run(cfg, player)
    assert player.max_active == 4  # both first-round ties at once
    bracket = rest(cfg)
    assert all(t.decided for r in bracket.rounds for t in r)
    assert [t.players for t in bracket.rounds[0]] == [("alpha", "delta"), ("beta", "gamma")]


def test_a_resumed_knockout_plays_what_an_uninterrupted_one_did(tmp_path: Path) -> None:
    whole = ladder(tmp_path / "whole", '"alpha", "beta", "gamma", "delta", "epsilon"')
    run(whole)
    cut = ladder(tmp_path / "cut", '"alpha", "beta", "gamma", "delta", "epsilon"')
    for _ in range(3):  # one encounter a run
        assert run(cut, max_matches=2).played == 2
        assert rest(cut).champion is None
    run(cut)

    def record(cfg: LadderConfig) -> list[tuple[str, int, tuple[str, str], int | None]]:
        return sorted((m.match_id, m.seed, m.bots, m.winner) for m in load_matches(cfg))

    assert record(cut) == record(whole)

    def ties(bracket: Bracket) -> list[tuple[Any, ...]]:
        return [(t.players, t.winner, t.decided_by, t.needed) for r in bracket.rounds for t in r]

    assert ties(rest(cut)) == ties(rest(whole))


def test_seeds_come_from_another_ladders_standings_and_stay_frozen(tmp_path: Path) -> None:
    league = tmp_path / "league.toml"
    league.write_text('name = "league"\ngame = "lost-cities"\n'
                      'entrants = ["delta", "gamma", "beta"]\n[schedule]\ncycles = 4\n')
    run(load_ladder(league))  # the fake strengths: beta > gamma > delta
    cfg = ladder(tmp_path, '"alpha", "delta", "gamma", "beta"', 'seed_from = "league.toml"')
    run(cfg, max_matches=2)
    assert tournament_players(cfg) == ("beta", "gamma", "delta", "alpha")
    # the seeding ladder plays on and its order changes: a running bracket is not reshuffled
    with LadderStore(load_ladder(league).database_url) as db:
        assert len(db.matches("league")) == 24
    league.write_text(league.read_text().replace('"beta"]', '"beta", "alpha"]'))
    run(load_ladder(league))
    run(cfg)
    assert rest(cfg).seeds == ("beta", "gamma", "delta", "alpha")


def test_a_knockout_of_other_bots_than_it_began_with_is_refused(tmp_path: Path) -> None:
    run(ladder(tmp_path, '"alpha", "beta", "gamma"'), max_matches=2)
    player = FakePlayer()
    with pytest.raises(ConfigError, match="began with alpha, beta, gamma; its entrants now "
                                          "lack gamma"):
        run(ladder(tmp_path, '"alpha", "beta"'), player)
    assert player.calls == []
