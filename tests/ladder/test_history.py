"""`arena ladder history`: every player's official rating and interval after each complete
encounter, recomputed from the store; each step checked against a direct fit of the encounters
complete by then."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.ladder.reports import (
    by_version,
    history_csv,
    history_json,
    load_matches,
    load_standings,
    rating_history,
    records_of,
)
from arena.ladder.store import LadderStore
from arena.model import Termination
from arena.stats.rating import fit
from tests.support.fakes import ladder_app, stored
from tests.support.versioned import B1, bot, record_encounters, versioned_ladder

pytestmark = pytest.mark.integration

runner = CliRunner()


def test_each_step_is_the_fit_of_the_encounters_complete_by_then(tmp_path: Path) -> None:
    config = versioned_ladder(tmp_path)
    matches = by_version(load_matches(config))
    points = rating_history(matches, prior=config.rating.prior)
    steps = sorted({p.step for p in points})
    assert steps == list(range(1, 13))  # twelve encounters, both legs of each recorded
    for step in steps:
        prefix = matches[:2 * step]  # encounter by encounter, two legs each
        expected = fit(records_of(prefix), prior=config.rating.prior).ratings
        got = [p for p in points if p.step == step]
        assert [(p.player, p.rating, p.ci95) for p in got] == \
            [(r.name, r.rating, r.ci95) for r in expected]
        assert {p.encounter_id for p in got} == {prefix[-1].encounter_id}
        assert {p.at for p in got} == {prefix[-1].finished_at}
    # the last step is the standings, version by version
    standings = load_standings(config)
    last = {p.player: p.rating for p in points if p.step == 12}
    assert last == {r.name: r.rating for r in standings.fit.ratings}


@pytest.mark.unit
def test_a_step_waits_for_the_encounters_second_leg_and_ignores_void_ones() -> None:
    matches = [
        stored("e0-l0", ("ann", "ben"), (30, 10), winner=0, encounter="e0", leg=0),
        stored("e1-l0", ("ben", "cy"), (5, 9), winner=1, encounter="e1", leg=0),
        stored("e0-l1", ("ben", "ann"), (12, 20), winner=1, encounter="e0", leg=1),
        stored("e1-l1", ("cy", "ben"), (0, 0), termination=Termination.INTERNAL,
               encounter="e1", leg=1),
        stored("e2-l0", ("ann", "cy"), (0, 0), termination=Termination.INTERNAL,
               encounter="e2", leg=0),
        stored("e2-l1", ("cy", "ann"), (0, 0), termination=Termination.INTERNAL,
               encounter="e2", leg=1),
        stored("e1-l1-r1", ("cy", "ben"), (8, 3), winner=0, encounter="e1", leg=1),
    ]
    points = rating_history(matches)
    made = [(p.step, p.encounter_id) for p in points]
    # e0 completes with its second leg; e1 with a void one (its first leg counts), then its
    # replayed leg makes another step; e2 has no rated match: no step
    assert sorted(set(made)) == [(1, "e0"), (2, "e1"), (3, "e1")]
    assert {p.player for p in points if p.step == 1} == {"ann", "ben"}
    third = {p.player: p.rating for p in points if p.step == 3}
    rated = [m for m in matches if m.encounter_id in ("e0", "e1")]
    assert third == {r.name: r.rating for r in fit(records_of(rated)).ratings}
    single = rating_history(matches[:1], legs=1)  # without duplicate deals a leg is enough
    assert [p.step for p in single] == [1, 1]


@pytest.mark.unit
def test_a_step_without_a_fit_is_left_out() -> None:
    """With prior 0 a perfect record has no maximum-likelihood estimate: no step, no crash."""
    matches = [stored("a", ("ann", "ben"), (9, 1), winner=0, encounter="e0", leg=0),
               stored("b", ("ben", "ann"), (1, 9), winner=1, encounter="e0", leg=1),
               stored("c", ("ann", "ben"), (1, 9), winner=1, encounter="e1", leg=0),
               stored("d", ("ben", "ann"), (9, 1), winner=0, encounter="e1", leg=1)]
    points = rating_history(matches, prior=0.0)
    assert sorted({p.step for p in points}) == [2]


def test_history_csv_and_json_from_the_cli(tmp_path: Path) -> None:
    config = versioned_ladder(tmp_path)
    assert config.source is not None
    out = runner.invoke(ladder_app(), ["ladder", "history", str(config.source)])
    assert out.exit_code == 0, out.output
    rows = list(csv.DictReader(io.StringIO(out.output)))
    assert list(rows[0]) == ["step", "encounter_id", "time", "player", "rating", "ci95", "low",
                             "high"]
    points = rating_history(by_version(load_matches(config)), prior=config.rating.prior)
    assert len(rows) == len(points)
    for row, point in zip(rows, points, strict=True):
        assert (int(row["step"]), row["player"]) == (point.step, point.player)
        assert float(row["rating"]) == pytest.approx(point.rating, abs=0.05)
        assert float(row["low"]) == pytest.approx(point.rating - point.ci95, abs=0.1)
        assert row["time"].endswith("Z") and "T" in row["time"]
    assert {row["player"] for row in rows} == {"alpha@1", "alpha@2", "beta@1", "gamma@1"}
    out = runner.invoke(ladder_app(), ["ladder", "history", str(config.source), "--format", "json"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.output)
    assert data["ladder"] == "vers" and data["rated_by"] == "version"
    assert [s["step"] for s in data["steps"]] == list(range(1, 13))
    last = data["steps"][-1]
    standings = load_standings(config)
    assert {r["player"]: r["rating"] for r in last["ratings"]} == \
        {r.name: round(r.rating, 1) for r in standings.fit.ratings}
    bad = runner.invoke(ladder_app(), ["ladder", "history", str(config.source), "--format", "xml"])
    assert bad.exit_code == 2


@pytest.mark.unit
def test_a_ladder_rating_names_exports_names(tmp_path: Path) -> None:
    config = versioned_ladder(tmp_path, kind="round-robin")
    assert config.source is not None
    data = json.loads(runner.invoke(ladder_app(), ["ladder", "history", str(config.source),
                                             "--format", "json"]).output)
    assert data["rated_by"] == "name"
    assert {r["player"] for r in data["steps"][-1]["ratings"]} == {"alpha", "beta", "gamma"}


def test_names_a_spreadsheet_would_run_are_defused(tmp_path: Path) -> None:
    """An old catalogue row's name like ``=HYPERLINK(...)``: data, never a formula."""
    config = versioned_ladder(tmp_path)
    evil = bot('=HYPERLINK("http://x","y")', "1")
    with LadderStore(config.database_url) as store:
        record_encounters(store, config.name, [(evil, B1)], first=50)
    text = history_csv(rating_history(by_version(load_matches(config))))
    cells = [row[3] for row in csv.reader(io.StringIO(text))][1:]
    assert "'=HYPERLINK(\"http://x\",\"y\")@1" in cells
    assert not any(c.startswith(("=", "+", "-", "@")) for c in cells)
    data = history_json("vers", rating_history(by_version(load_matches(config))))
    assert any(r["player"].startswith("=HYPERLINK") for r in data["steps"][-1]["ratings"])

