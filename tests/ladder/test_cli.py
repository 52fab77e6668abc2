"""`arena ladder ...` commands over a store filled by the fake player, and the renderers."""

from __future__ import annotations

import asyncio
import inspect
import io
import json
from pathlib import Path

import pytest
import typer
from rich.console import Console
from typer.core import TyperGroup
from typer.testing import CliRunner

from arena.cli import common, ladder_cmds
from arena.ladder.config import load_ladder
from arena.ladder.reports import load_standings
from arena.ladder.runner import Progress, ladder_schedule, run_ladder
from arena.render import ladder as ladder_view
from tests.support.fakes import GIVEN_UP, FakePlayer, fake_resolve, ladder_app
from tests.support.terminal import console_width

pytestmark = pytest.mark.integration


def _ladder(tmp_path: Path) -> Path:
    path = tmp_path / "cli.toml"
    path.write_text('name = "cli"\ngame = "lost-cities"\n'
                    'entrants = ["alpha", "beta", "gamma"]\n[schedule]\ncycles = 4\n')
    cfg = load_ladder(path)
    asyncio.run(run_ladder(cfg, play=FakePlayer(), resolve=fake_resolve))
    return path


def test_standings_json(tmp_path: Path) -> None:
    path = _ladder(tmp_path)
    out = CliRunner().invoke(ladder_app(), ["standings", str(path), "--format", "json"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.output)
    assert [r["bot"] for r in data["standings"]] == ["alpha", "beta", "gamma"]
    top = data["standings"][0]
    assert top["rank"] == 1 and top["matches"] == 16
    assert top["low"] < top["rating"] < top["high"]
    assert data["duplicate_deals"]["encounters"] == 12


def test_human_commands(tmp_path: Path) -> None:
    path = _ladder(tmp_path)
    runner = CliRunner()
    for args in (["standings"], ["ladder", "crosstable"], ["matches"]):
        out = runner.invoke(ladder_app(), [*args, str(path)])
        assert out.exit_code == 0, out.output
        assert "alpha" in out.output
    out = runner.invoke(ladder_app(), ["matches", str(path), "--format", "json"])
    rows = [json.loads(line) for line in out.stdout.splitlines()]  # a match a line
    assert len(rows) == 24 and all(r["log"] for r in rows)


def test_matches_the_cluster_gave_up_on_are_counted_and_listed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "lost.toml"
    path.write_text('name = "lost"\ngame = "lost-cities"\nentrants = ["alpha", "beta"]\n')
    cfg = load_ladder(path)
    lost = ladder_schedule(cfg)[0].matches[1].match_id
    asyncio.run(run_ladder(cfg, play=FakePlayer(given_up_ids={lost}), resolve=fake_resolve))
    console_width(monkeypatch, 200)  # no folded cells
    runner = CliRunner()
    out = runner.invoke(ladder_app(), ["standings", str(path)])
    assert out.exit_code == 0, out.output
    assert "1 match was given up by the cluster (void: never rated, played again)" in out.output
    data = json.loads(runner.invoke(ladder_app(), ["standings", str(path), "--format",
                                             "json"]).output)
    assert (data["rated_matches"], data["void_matches"], data["given_up_matches"]) == (1, 0, 1)
    out = runner.invoke(ladder_app(), ["matches", str(path)])
    assert out.exit_code == 0, out.output
    recorded, given_up = out.output.split("1 match was given up by the cluster")
    assert lost not in recorded and "1 matches" in recorded
    assert lost in given_up and GIVEN_UP in given_up and " UTC " in given_up
    rows = [json.loads(line) for line in runner.invoke(  # a match a line
        ladder_app(), ["matches", str(path), "--format", "json"]).stdout.splitlines()]
    assert [r["match_id"] for r in rows] == [ladder_schedule(cfg)[0].matches[0].match_id]


def test_the_old_spellings_still_work_with_a_deprecation_line(tmp_path: Path) -> None:
    path = _ladder(tmp_path)
    runner = CliRunner()
    for verb in ("standings", "matches"):
        new = runner.invoke(ladder_app(), [verb, str(path), "--format", "json"])
        old = runner.invoke(ladder_app(), ["ladder", verb, str(path), "--format", "json"])
        assert old.exit_code == new.exit_code == 0, old.output
        assert old.stdout == new.stdout and [json.loads(x) for x in old.stdout.splitlines()]
        assert old.stderr.split() == (f"deprecated: `arena ladder {verb} FILE` is now `arena "
                                      f"{verb} FILE`; the old spelling goes in the next "
                                      "release").split()
    listed = runner.invoke(ladder_app(), ["ladder", "--help"]).output
    assert "crosstable" in listed and "standings" not in listed.split("Commands")[-1]


def test_a_ladder_or_a_server_not_both_nor_the_other_s_options(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _ladder(tmp_path)
    monkeypatch.delenv("ARENA_SERVER", raising=False)
    monkeypatch.chdir(tmp_path)  # no ladder/demo.toml here
    runner = CliRunner()
    cases = {
        ("standings", str(path), "--server", "x"): "name a ladder file or a server",
        ("matches", str(path), "--mine"): "--mine only works with a competition server",
        ("standings", str(path), "--game", "portas"): "--game only works with a competition",
        ("standings", "--server", "x", "--versions"): "--versions only works with a ladder",
        ("standings",): "name a ladder file (`arena standings LADDER.toml`) or a competition",
    }
    for args, words in cases.items():
        out = runner.invoke(ladder_app(), list(args))
        assert out.exit_code == 2, (args, out.output)
        assert " ".join(out.stderr.split()).startswith(f"error: {words}"), (args, out.stderr)
        assert not out.stdout


@pytest.mark.unit
def test_missing_results_are_one_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "empty.toml"
    path.write_text('name = "empty"\ngame = "lost-cities"\nentrants = ["a", "b"]\n')
    out = CliRunner().invoke(ladder_app(), ["standings", str(path)])
    assert out.exit_code == 2
    bad = tmp_path / "bad.toml"
    bad.write_text('name = "bad"\ngame = "lost-cities"\nentrants = ["a", "b"]\n[schedule]\n'
                   "cycles = -1\n")
    out = CliRunner().invoke(ladder_app(), ["standings", str(bad)])
    assert out.exit_code == 2


def test_live_view_renders_a_snapshot(tmp_path: Path) -> None:
    path = _ladder(tmp_path)
    standings = load_standings(load_ladder(path))
    progress = Progress(ladder="cli", scheduled=24, already=4, planned=20, done=10,
                        in_flight=(), elo={"alpha": 1550.0}, started=0.0)
    console = Console(file=io.StringIO(), width=120, color_system=None)
    console.print(ladder_view.render_live("cli", progress, standings, now=50.0))
    text = console.file.getvalue()  # type: ignore[attr-defined]
    assert "10/20 matches this run" in text and "14/24 of the schedule" in text
    assert "ETA 0:50" in text  # 10 matches in 50 s, 10 to go
    assert "alpha" in text and "95% CI" in text and "live Elo" in text
    bar_line = next(line for line in text.splitlines() if "━" in line and "┃" not in line)
    assert "In flight" not in bar_line, "the progress bar must end its own line"


@pytest.mark.unit
def test_each_help_text_is_the_commands_docstring() -> None:
    root = typer.main.get_command(ladder_app())
    assert isinstance(root, TyperGroup)
    ladder = root.commands["ladder"]
    assert isinstance(ladder, TyperGroup)
    commands = {"run-ladder": (root.commands["run-ladder"], ladder_cmds.run_ladder)} | {
        name: (ladder.commands[name], getattr(ladder_cmds, name))
        for name in ("standings", "crosstable", "matches", "history")
    }
    for name, (command, func) in commands.items():
        doc = inspect.getdoc(func) or ""
        assert command.help == common.help_of(func), name
        paragraphs = command.help.split("\n\n")
        assert len(paragraphs) == doc.count("\n\n") + 1 >= 2, name
        assert all("\n" not in p for p in paragraphs), "the terminal wraps, not the source"
        assert " ".join(command.help.split()) == " ".join(doc.split())
