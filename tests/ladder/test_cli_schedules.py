"""`arena standings` and `arena run-ladder` for the schedule types that decide as they go:
a knockout's bracket, a Swiss's table, an adaptive ladder's pairing and why it stopped, in the
terminal and the JSON. The ladders are run by the real runner and sources over a real SQLite
store (a fast in-process player), and once for real by `arena run-ladder` (process sandbox)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli.main import app as main_app
from arena.ladder.config import load_ladder
from arena.ladder.runner import RunSummary, run_ladder
from arena.render.ladder import render_summary
from tests.support.fakes import FakePlayer, fake_resolve, ladder_app
from tests.support.statuses import adaptive, bracket
from tests.support.terminal import console_width
from tests.support.views import text_of

pytestmark = pytest.mark.integration

runner = CliRunner()
FIELD = '["alpha", "beta", "gamma", "delta", "eps"]'
SAMPLES = Path(__file__).resolve().parents[2] / "sample_bots" / "lost-cities"


@pytest.fixture(autouse=True)
def wide_console(monkeypatch: pytest.MonkeyPatch) -> None:
    console_width(monkeypatch, 120)


def _played(tmp_path: Path, kind: str, keys: str) -> tuple[Path, RunSummary]:
    path = tmp_path / f"{kind}.toml"
    path.write_text(f'name = "{kind}"\ngame = "lost-cities"\nentrants = {FIELD}\n'
                    f'[schedule]\ntype = "{kind}"\n{keys}\n')
    summary = asyncio.run(run_ladder(load_ladder(path), play=FakePlayer(), resolve=fake_resolve))
    return path, summary


def _standings(path: Path) -> tuple[str, dict[str, object]]:
    human = runner.invoke(ladder_app(), ["standings", str(path)])
    assert human.exit_code == 0, human.output
    data = runner.invoke(ladder_app(), ["standings", str(path), "--format", "json"])
    assert data.exit_code == 0, data.output
    return human.output, json.loads(data.output)


def test_a_knockouts_standings_open_with_its_bracket(tmp_path: Path) -> None:
    path, summary = _played(tmp_path, "knockout", "encounters = 1")
    champion = summary.stopped.removesuffix(" won the knockout")
    assert champion in ("alpha", "beta", "gamma", "delta", "eps")
    human, data = _standings(path)
    assert human.splitlines()[0] == \
        f"knockout: 5 seeds, 1 encounter per tie · champion: {champion}"
    assert human.index("final: (1)") < human.index("Ladder knockout:")
    assert "quarter-final 1: (1) alpha: bye" in human
    assert "quarter-final 2: (4) delta vs (5) eps" in human
    schedule = data["schedule"]
    assert isinstance(schedule, dict)
    assert schedule["type"] == "knockout" and schedule["champion"] == champion
    assert schedule["seeds"] == ["alpha", "beta", "gamma", "delta", "eps"]
    final = schedule["rounds"][-1][0]
    assert final["winner"] == champion and final["decided_by"]


def test_a_swiss_standings_open_with_its_table(tmp_path: Path) -> None:
    path, summary = _played(tmp_path, "swiss", "rounds = 3")
    assert summary.stopped
    human, data = _standings(path)
    assert human.splitlines()[0] == "swiss: finished after 3 rounds, 5 players"
    assert "Swiss standings after 3 of 3 rounds" in human
    assert human.index("Buchholz") < human.index("Ladder swiss:")
    schedule = data["schedule"]
    assert isinstance(schedule, dict)
    assert schedule["type"] == "swiss" and schedule["finished"] is True
    table = schedule["table"]
    assert [row["rank"] for row in table] == [1, 2, 3, 4, 5]
    assert sum(row["byes"] for row in table) == 3  # one a round, five players
    assert all(len(set(row["opponents"])) == len(row["opponents"]) for row in table)


def test_an_adaptive_ladder_says_why_it_stopped(tmp_path: Path) -> None:
    path, summary = _played(tmp_path, "adaptive", "encounters = 6")
    assert summary.stopped
    human, data = _standings(path)
    assert human.index("Ladder adaptive:") < human.index("adaptive: ")
    assert f"stopped: {summary.stopped}" in " ".join(human.split())
    schedule = data["schedule"]
    assert isinstance(schedule, dict)
    assert schedule["type"] == schedule["kind"] == "adaptive"
    assert schedule["stopped"] == summary.stopped and schedule["budget"] == 6
    assert schedule["decisions"] and all(d["reason"] for d in schedule["decisions"])
    said = text_of(render_summary(summary))
    assert f"finished: {summary.stopped}" in said


def test_a_round_robin_has_no_schedule_state(tmp_path: Path) -> None:
    path = tmp_path / "rr.toml"
    path.write_text('name = "rr"\ngame = "lost-cities"\nentrants = ["alpha", "beta"]\n')
    asyncio.run(run_ladder(load_ladder(path), play=FakePlayer(), resolve=fake_resolve))
    human, data = _standings(path)
    assert "schedule" not in data and human.startswith("Ladder rr:")


@pytest.mark.unit
def test_the_end_of_a_run_for_each_type() -> None:
    stopped = RunSummary(played=3, skipped=9, remaining=0, void=0, interrupted=True,
                         duration_s=61.0)
    said = " ".join(text_of(render_summary(stopped, adaptive())).split())
    assert said == ("stopped early: 3 matches played in 1:01 (0 void), 9 already "
                            "recorded; a continuous ladder runs until stopped: run it again "
                            "to carry on")
    done = RunSummary(4, 0, 0, 0, False, 2.0, stopped="alpha won the knockout")
    assert text_of(render_summary(done, bracket())).splitlines() == [
        "done: 4 matches played in 0:02 (0 void), 0 already recorded, 0 still to play",
        "finished: alpha won the knockout"]


def test_the_help_explains_each_schedule_type() -> None:
    out = runner.invoke(main_app, ["run-ladder", "--help"], terminal_width=200)
    said = " ".join(out.output.replace("│", " ").split())
    for words in ("adaptive: each encounter is chosen to learn the most",
                  "continuous: runs until you stop it (Ctrl-C)", "knockout: single elimination",
                  "swiss: N rounds", "The other schedule types have no cycles"):
        assert words in said, words
    out = runner.invoke(main_app, ["ladder", "history", "--help"], terminal_width=200)
    assert "csv" in out.output and "json" in out.output


@pytest.mark.slow
def test_run_ladder_ends_a_knockout_with_its_champion(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """A real knockout (process sandbox, the deterministic greedy sample bot, one round a
    match) through `arena run-ladder`: it says who won and draws the bracket. One tie, whose
    legs never play at once: one cluster worker."""
    path = tmp_path / "cup.toml"
    path.write_text(
        'name = "cup"\ngame = "lost-cities"\n'
        f'entrants = ["{SAMPLES / "greedy"}", "{SAMPLES / "random"}"]\n'
        'sandbox = "process"\nconcurrency = 1\nseed = 5\n[options]\nrounds = 1\n'
        '[schedule]\ntype = "knockout"\nencounters = 1\n')
    out = runner.invoke(main_app, ["run-ladder", str(path)])
    assert out.exit_code == 0, out.output
    said = " ".join(out.output.split())
    assert "finished: greedy won the knockout" in said
    assert "knockout: 2 seeds, 1 encounter per tie · champion: greedy" in said
    assert "final: (1) greedy vs (2) random" in said
    # Other entrants for the same tournament: refused in one line, before any live view.
    path.write_text(path.read_text().replace(f'"{SAMPLES / "random"}"',
                                             f'"{SAMPLES / "strong"}"'))
    again = runner.invoke(main_app, ["run-ladder", str(path)], env={"COLUMNS": "400"})
    assert again.exit_code == 2, again.output
    warning, error = " ".join(again.output.split()).split(" error: ")
    assert warning.startswith("warning: playing in the process sandbox") and "Ladder" not in warning
    assert error.startswith("ladder 'cup': the knockout began with greedy, random; its "
                            "entrants now lack random and add strong")
