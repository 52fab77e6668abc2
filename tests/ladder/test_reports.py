"""The reports: one W/D/L tally behind the standings and the cross-table, and the loaders, which
read a ladder's store and never create one."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from arena.errors import ConfigError
from arena.ladder.config import LadderConfig, parse_ladder
from arena.ladder.reports import (
    Tally,
    crosstable_of,
    head_to_head,
    load_crosstable,
    load_matches,
    load_standings,
    match_json,
    open_store,
    standings_of,
)
from arena.ladder.runner import run_ladder
from arena.ladder.store import LadderStore
from tests.support.fakes import SAMPLE_MATCHES, FakePlayer, fake_resolve

pytestmark = pytest.mark.unit

MATCHES = SAMPLE_MATCHES


def test_head_to_head_counts_each_rated_match_once_per_side() -> None:
    cells = head_to_head(MATCHES)
    assert cells[("alpha", "beta")] == Tally(wins=1, draws=1, losses=0, points=42)
    assert cells[("beta", "alpha")] == Tally(wins=0, draws=1, losses=1, points=22)
    # the void m3 is left out: only m2 (a forfeit is a loss like any other) counts
    assert cells[("alpha", "gamma")] == Tally(losses=1, points=5)
    assert cells[("gamma", "alpha")] == Tally(wins=1, points=25)
    assert cells[("gamma", "beta")] == Tally(losses=1, points=8)
    assert len(cells) == 6


def test_tally_arithmetic() -> None:
    t = Tally(wins=2, draws=1, losses=1, points=30) + Tally(losses=1, points=5)
    assert t == Tally(2, 1, 2, 35) and t.games == 5
    assert t.score_rate == pytest.approx(0.5) and t.points_per_game == 7.0
    assert Tally().score_rate == 0.0 and Tally().points_per_game == 0.0


def test_standings_rows_are_the_head_to_head_summed_over_opponents() -> None:
    standings = standings_of("lad", MATCHES, live={"alpha": 1512.5})
    assert standings.rated == 4 and standings.void == 1
    cells = head_to_head(MATCHES)
    for row in standings.rows:
        mine = [t for (bot, _), t in cells.items() if bot == row.bot]
        total = sum(mine, Tally())
        assert (row.wins, row.draws, row.losses, row.matches) == \
            (total.wins, total.draws, total.losses, total.games)
        assert row.points_per_match == total.points / total.games
    alpha = next(r for r in standings.rows if r.bot == "alpha")
    assert (alpha.wins, alpha.draws, alpha.losses) == (1, 1, 1)
    assert alpha.points_per_match == pytest.approx(47 / 3)
    assert alpha.live_elo == 1512.5
    assert [r.live_elo for r in standings.rows if r.bot != "alpha"] == [None, None]
    assert [r.rank for r in standings.rows] == [1, 2, 3]


def test_crosstable_ranks_like_the_standings_and_shares_the_tally() -> None:
    cross = crosstable_of(MATCHES, prior=0.5)
    assert cross.order == tuple(r.bot for r in standings_of("x", MATCHES, prior=0.5).rows)
    assert dict(cross.cells) == head_to_head(MATCHES)
    only_void = crosstable_of([MATCHES[3]])
    assert only_void.order == () and dict(only_void.cells) == {}


def test_match_json() -> None:
    data = match_json(MATCHES[2])
    assert data == {
        "match_id": "m2", "encounter_id": "e1", "cycle": 0, "leg": 0, "game": "lost-cities",
        "game_version": 1, "seed": 7, "bots": ["alpha", "gamma"], "winner": 1,
        "termination": "normal", "faulty_seat": 0, "void": False, "rounds": [[5, 25]],
        "totals": [5, 25], "log": "/logs/m2.jsonl", "duration_s": 0.25,
        "versions": ["", ""], "identities": ["", ""],
    }


def _config(tmp_path: Path, extra: str = "") -> LadderConfig:
    path = tmp_path / "rep.toml"
    path.write_text(f'name = "rep"\ngame = "lost-cities"\nentrants = ["alpha", "beta"]\n{extra}')
    return parse_ladder(path.read_text(), source=path)


def test_reading_a_ladder_without_results_creates_nothing(tmp_path: Path) -> None:
    cfg = _config(tmp_path)
    assert load_matches(cfg, missing_ok=True) == []
    for load in (load_matches, load_standings, load_crosstable):
        with pytest.raises(ConfigError, match="has no results yet.*arena run-ladder"):
            load(cfg)
    assert cfg.sqlite_path is not None and not cfg.sqlite_path.exists()
    assert not cfg.state_dir.exists()


@pytest.mark.integration
def test_loaders_read_the_ladders_store(tmp_path: Path) -> None:
    cfg = _config(tmp_path, "[schedule]\ncycles = 3\n")
    asyncio.run(run_ladder(cfg, play=FakePlayer(), resolve=fake_resolve))
    found = load_matches(cfg, missing_ok=True)
    assert len(found) == 6 and found == load_matches(cfg)
    assert load_crosstable(cfg) == crosstable_of(found, prior=cfg.rating.prior)
    standings = load_standings(cfg)
    assert [r.matches for r in standings.rows] == [6, 6]
    assert all(r.live_elo is not None for r in standings.rows)


def test_a_given_store_is_used_and_left_open(tmp_path: Path) -> None:
    cfg = _config(tmp_path)  # its own SQLite file does not exist: the given store is read
    with LadderStore(f"sqlite:///{tmp_path / 'other.db'}") as db:
        with open_store(cfg, db) as opened:
            assert opened is db
        assert load_matches(cfg, db) == [] and db.recorded_ids("rep") == set()
    assert not cfg.state_dir.exists()
