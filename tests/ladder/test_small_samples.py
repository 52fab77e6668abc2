"""Honest small-sample statistics (issue 20, point 6), as a user sees them: where the results
cannot support a variance ratio of pairing, the terminal, the JSON and the report say "not
enough ... to estimate" and why, never a number.

The issue's case is played for real: the quick start's gauntlet with a copy of greedy as
"mybot" against random and greedy, 2 cycles of duplicate encounters (4 encounters), in-process
sample policies, the real match loop and store."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from arena.cli.main import app as main_app
from arena.ladder.config import load_ladder
from arena.ladder.reports import crosstable_of, ratio_note, standings_of
from arena.ladder.runner import run_ladder
from arena.model import BotSpec, MatchResult, MatchSpec
from arena.referee.local import LocalPlayer
from arena.referee.match import Match
from arena.render.ladder import render_pairing
from arena.site.report_page import ReportData, report_page
from tests.support.fakes import ladder_app, stored
from tests.support.pages import random_policy, sample_policy
from tests.support.terminal import console_width
from tests.support.views import text_of

pytestmark = pytest.mark.integration

runner = CliRunner()


@pytest.fixture(scope="module")
def quickstart(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The README's quick start with "mybot" a copy of greedy (one round a match)."""
    path = tmp_path_factory.mktemp("quick") / "quickstart.toml"
    path.write_text('name = "quickstart"\ngame = "lost-cities"\n'
                    'entrants = ["mybot", "random", "greedy"]\nseed = 14\n'
                    '[options]\nrounds = 1\n[schedule]\ntype = "gauntlet"\n'
                    'challenger = "mybot"\ncycles = 2\n')
    config = load_ladder(path)
    greedy = sample_policy("lost-cities", "greedy")

    async def play(spec: MatchSpec, *, sandbox: str = "process", log_dir: Path,
                   on_event: Any = None) -> MatchResult:
        match = Match(spec, sandbox_name="in-process", log_dir=log_dir)
        seats = [random_policy(spec.seed % 1000) if b.name == "random" else greedy
                 for b in spec.bots]
        return await match.run((LocalPlayer(0, seats[0]), LocalPlayer(1, seats[1])))

    def resolve(ref: str, base_dir: Path) -> BotSpec:
        return BotSpec(name=ref, game="lost-cities", command=("true",), version="1",
                       digest=f"test:{ref}")

    asyncio.run(run_ladder(config, play=play, resolve=resolve))
    return path


def test_the_quickstart_case_claims_no_ratio(quickstart: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    console_width(monkeypatch, 200)
    out = runner.invoke(ladder_app(), ["standings", str(quickstart)])
    assert out.exit_code == 0, out.output
    said = " ".join(out.output.split())
    assert "duplicate deals: 4 complete encounters" in said
    assert "point margin: not enough encounters to estimate (4 of the 20 needed)" in said
    assert "score (W/D/L): not enough encounters to estimate (4 of the 20 needed)" in said
    assert "paired variance" not in said and "worth" not in said
    data = json.loads(runner.invoke(ladder_app(), ["standings", str(quickstart),
                                             "--format", "json"]).output)["duplicate_deals"]
    assert data["margin_variance_ratio"] is None and data["score_variance_ratio"] is None
    assert data["margin_variance_note"] == "not enough encounters to estimate (4 of the 20 needed)"
    assert data["score_variance_note"] == data["margin_variance_note"]


def test_the_quickstart_report_claims_no_ratio(quickstart: Path, tmp_path: Path) -> None:
    site = tmp_path / "site"
    out = runner.invoke(main_app, ["ladder", "report", str(quickstart), "--out", str(site)])
    assert out.exit_code == 0, out.output
    index = (site / "index.html").read_text(encoding="utf-8")
    lines = re.findall(r'<p data-ratio="none">([^<]+)</p>', index)
    assert lines == ["score (W/D/L): not enough encounters to estimate (4 of the 20 needed)",
                     "point margin: not enough encounters to estimate (4 of the 20 needed)"]
    assert "paired variance" not in index


def _mirror(encounters: int) -> list[Any]:
    """Greedy against its copy: each deal won by whoever holds seat 0, by the same margin both
    times (every paired difference 0), the margins varying from deal to deal."""
    matches = []
    for k in range(encounters):
        margin = 10 + 3 * k
        matches += [
            stored(f"e{k}-l0", ("greedy", "mybot"), (20 + margin, 20), winner=0,
                   encounter=f"e{k}", leg=0),
            stored(f"e{k}-l1", ("mybot", "greedy"), (20 + margin, 20), winner=0,
                   encounter=f"e{k}", leg=1),
        ]
    return matches


@pytest.mark.unit
def test_a_degenerate_variance_is_named_not_divided() -> None:
    matches = _mirror(24)
    standings = standings_of("mirror", matches)
    said = " ".join(text_of(render_pairing(standings)).split())
    assert "point margin: not enough to estimate (every paired difference is the same: " \
           "nothing to estimate)" in said
    data = standings.to_json()["duplicate_deals"]
    assert data["margin_variance_ratio"] is None
    assert data["margin_variance_note"].startswith("not enough to estimate (every paired")
    page = report_page(ReportData("mirror", "lost-cities", standings, crosstable_of(matches),
                                  matches, []))
    assert "point margin: not enough to estimate (every paired difference" in page


@pytest.mark.unit
def test_a_ratio_with_enough_encounters_is_still_a_figure() -> None:
    matches = []
    for k in range(24):  # leg results that do not mirror each other
        matches += [
            stored(f"e{k}-l0", ("ann", "ben"), (30 + k % 5, 20), winner=0, encounter=f"e{k}",
                   leg=0),
            stored(f"e{k}-l1", ("ben", "ann"), (25 + k % 3, 20 + k % 7), winner=0,
                   encounter=f"e{k}", leg=1),
        ]
    standings = standings_of("ok", matches)
    assert standings.pairing.margin_ratio is not None
    said = " ".join(text_of(render_pairing(standings)).split())
    assert f"point margin: paired variance = {standings.pairing.margin_ratio:.2f} x" in said
    assert standings.to_json()["duplicate_deals"]["margin_variance_note"] is None


def test_the_sprt_calculator_says_so_too(monkeypatch: pytest.MonkeyPatch) -> None:
    console_width(monkeypatch, 200)  # the one console of every command
    out = runner.invoke(main_app, ["sprt", "llr", "--pentanomial", "0,0,4,0,0", "--elo0", "0",
                                   "--elo1", "50"])
    assert out.exit_code == 0, out.output
    said = " ".join(out.output.split())
    assert "variance ratio: not enough pairs to estimate (4 of the 20 needed)" in said
    assert "two draws: not enough pairs to estimate" in said
    assert "a pair worth" not in said
    many = runner.invoke(main_app, ["sprt", "llr", "--pentanomial", "0,0,40,0,0", "--elo0",
                                    "0", "--elo1", "50"])
    assert "variance ratio: not enough to estimate (every pair scored the same" in \
        " ".join(many.output.split())


@pytest.mark.unit
def test_ratio_note() -> None:
    assert ratio_note("") == "not enough to estimate"
    assert ratio_note("not enough pairs to estimate (3 of the 20 needed)") == \
        "not enough pairs to estimate (3 of the 20 needed)"
    assert ratio_note("every game scored the same: nothing to estimate") == \
        "not enough to estimate (every game scored the same: nothing to estimate)"
