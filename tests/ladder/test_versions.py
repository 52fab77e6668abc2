"""Versions made visible: a continuous ladder rates each version as a player of its own and shows
each bot at its current version; `arena standings --versions` lists them all; the match
list names each seat's version and code identity. Other ladders rate names exactly as before.
Stores are filled through the store's own ``record_match``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.ladder.reports import (
    load_matches,
    load_standings,
    standings_of,
    versions_of,
)
from arena.ladder.store import LadderStore
from arena.render.ladder import render_standings, render_versions
from arena.stats.rating import GameRecord, fit
from tests.support.fakes import ladder_app
from tests.support.terminal import console_width
from tests.support.versioned import A1, A2, B1, bot, record_encounters, versioned_ladder
from tests.support.views import row_of, text_of

pytestmark = pytest.mark.integration

runner = CliRunner()


@pytest.fixture(autouse=True)
def wide_console(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tables as wide as they like (no folded cells) unless a test narrows them."""
    console_width(monkeypatch, 200)


def _invoke(*args: str) -> str:
    out = runner.invoke(ladder_app(), list(args))
    assert out.exit_code == 0, out.output
    return out.output


def test_a_continuous_ladder_shows_each_bot_at_its_current_version(tmp_path: Path) -> None:
    config = versioned_ladder(tmp_path)
    standings = load_standings(config)
    assert standings.by_version and standings.retired == 1
    assert sorted(r.bot for r in standings.rows) == ["alpha@2", "beta@1", "gamma@1"]
    assert [r.rank for r in standings.rows] == [1, 2, 3]
    # each row is its version's own rating and interval in the fit over every version
    ratings = standings.fit.by_name()
    assert set(ratings) == {"alpha@1", "alpha@2", "beta@1", "gamma@1"}
    for row in standings.rows:
        assert (row.rating, row.ci95) == (ratings[row.bot].rating, ratings[row.bot].ci95)
        assert row.bot == f"{row.name}@{row.version}" and row.live_elo is None
    alpha = next(r for r in standings.rows if r.name == "alpha")
    assert alpha.matches == 10  # alpha 2's matches only: alpha 1's stay with alpha 1
    data = standings.to_json()
    assert data["rated_by"] == "version" and data["retired_versions"] == 1
    assert {r["bot"]: (r["name"], r["version"]) for r in data["standings"]}["alpha@2"] == \
        ("alpha", "2")
    table = text_of(render_standings(standings))
    assert "alpha@2" in table and "alpha@1" not in table
    assert "each bot at its current version, 1 retired version (--versions lists them)" in \
        " ".join(table.split())


def test_other_ladders_rate_names_exactly_as_before(tmp_path: Path) -> None:
    config = versioned_ladder(tmp_path, kind="round-robin")
    matches = load_matches(config)
    standings = load_standings(config)
    assert not standings.by_version and standings.retired == 0
    # the fit a name-rated ladder always made: every match of a name, whatever its version
    records = [GameRecord(m.bots[0], m.bots[1], m.score0, m.encounter_id, leg=m.leg)
               for m in matches]
    expected = fit(records, prior=config.rating.prior).ratings
    assert [(r.bot, r.rating, r.ci95) for r in standings.rows] == \
        [(r.name, r.rating, r.ci95) for r in expected]
    assert all(r.live_elo is not None for r in standings.rows)
    assert standings.to_json()["standings"][0].keys() >= {"bot", "rating", "live_elo"}
    assert "name" not in standings.to_json()["standings"][0]


def test_standings_versions_lists_every_version(tmp_path: Path) -> None:
    config = versioned_ladder(tmp_path)
    assert config.source is not None
    rows = versions_of(load_matches(config), prior=config.rating.prior)
    # bots in the order of their current versions' ratings, each bot's versions oldest first
    assert [r.player for r in rows] == ["alpha@1", "alpha@2", "beta@1", "gamma@1"]
    by_key = {r.player: r for r in rows}
    assert not by_key["alpha@1"].current and by_key["alpha@2"].current
    assert (by_key["alpha@1"].encounters, by_key["alpha@2"].encounters) == (4, 5)
    assert by_key["alpha@1"].last_played <= by_key["alpha@2"].first_played
    ratings = standings_of("vers", load_matches(config), versions=True).fit.by_name()
    assert by_key["alpha@1"].rating == ratings["alpha@1"].rating
    human = _invoke("standings", str(config.source), "--versions")
    assert row_of(human, "alpha@1")[-1] == "retired"
    assert row_of(human, "alpha@2")[-1] == "current"
    assert row_of(human, "alpha@2")[1] == A2.digest.removeprefix("sha256:")[:8]
    versions = [json.loads(line) for line in _invoke(  # a version a line
        "standings", str(config.source), "--versions", "--format", "json").splitlines()]
    assert [(v["player"], v["current"]) for v in versions][:2] == \
        [("alpha@1", False), ("alpha@2", True)]
    assert versions[0]["identity"] == A1.digest
    assert versions[0]["first_played"].endswith("Z")


def test_the_match_list_names_each_seats_version(tmp_path: Path) -> None:
    config = versioned_ladder(tmp_path)
    assert config.source is not None
    human = _invoke("matches", str(config.source))
    assert "1 · " + A1.digest.removeprefix("sha256:")[:8] in human
    assert "2 · " + A2.digest.removeprefix("sha256:")[:8] in human
    rows = [json.loads(line) for line in
            _invoke("matches", str(config.source), "--format", "json").splitlines()]
    assert rows[0]["versions"] == ["1", "1"] and rows[0]["identities"] == [A1.digest, B1.digest]
    assert rows[-1]["versions"] == ["1", "2"]  # the last encounter's second leg: beta, alpha 2


def test_versions_a_bot_controls_are_shown_literally(tmp_path: Path) -> None:
    """A version string or name from an old catalogue row: never markup, never a crash."""
    config = versioned_ladder(tmp_path)
    assert config.source is not None
    odd = bot("[bold]x[/]", "[/]", identity="dir:sha256:" + "ab" * 32)
    long = bot("l" * 64, "v" * 64)
    with LadderStore(config.database_url) as store:
        record_encounters(store, config.name, [(odd, B1), (long, odd)], first=100)
    human = _invoke("matches", str(config.source))
    assert "[bold]x[/]" in human and "[/] · abababab" in human
    listed = _invoke("standings", str(config.source), "--versions")
    assert "[bold]x[/]@[/]" in listed
    standings = _invoke("standings", str(config.source))
    assert "[bold]x[/]@[/]" in standings
    narrow = text_of(render_versions(versions_of(load_matches(config))), width=100)
    assert max(len(line) for line in narrow.splitlines()) <= 100
    assert "l" * 24 in narrow and "[bold]x[/]@[/]" in narrow
