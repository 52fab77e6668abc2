"""`arena games list` and `arena games check`, run in-process with typer's runner: the installed
games with their gate status (not run, then passed), entry points that are not games; a check
that passes (exit 0), one that fails (exit 1, the failed check and its detail in the table, as
JSON too), a locator that names no game (one line, exit 2), a game's hostile text printed
literally."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

import arena.games.registry
from arena.cli.main import app
from arena.gate import CHECKS, cache, identity

pytestmark = pytest.mark.integration

runner = CliRunner()


@pytest.fixture(autouse=True)
def arena_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    monkeypatch.setenv("ARENA_HOME", str(home))
    monkeypatch.setattr(cache, "_memo", {})
    return home


@pytest.fixture(autouse=True)
def stable_identity(monkeypatch: pytest.MonkeyPatch) -> None:
    """Identities from the plugins' fields alone: a verdict stored by one command is found by
    the next even while files under arena/ change meanwhile (a shared working tree)."""
    monkeypatch.setattr(identity, "package_root", lambda locator: None)


def _flat(text: str) -> str:
    """The words of an output, table borders left out (a cell's text wraps at 80 columns; the
    other cells of its continuation lines are empty)."""
    return " ".join(text.replace("│", " ").split())


def _games(output: str) -> dict[str, dict[str, object]]:
    return {row["id"]: row for row in map(json.loads, output.splitlines())}  # a game a line


def test_list_shows_the_installed_games_and_their_gate_status() -> None:
    out = runner.invoke(app, ["games", "list", "--format", "json"])
    assert out.exit_code == 0, out.output
    games = _games(out.stdout)
    for game_id in ("lost-cities", "haggis", "portas"):
        assert games[game_id]["distribution"] == "arena"
        assert games[game_id]["gate"] == "not run"
    assert games["lost-cities"]["title"] == "Lost Cities"
    checked = runner.invoke(app, ["games", "check", "portas", "--matches", "1"])
    assert checked.exit_code == 0, checked.output
    assert _games(runner.invoke(app, ["games", "list", "--format", "json"]).stdout)[
        "portas"]["gate"] == "passed"
    human = runner.invoke(app, ["games", "list"])
    assert human.exit_code == 0
    assert "portas" in human.stdout and "passed" in human.stdout and "not run" in human.stdout


@pytest.mark.unit
def test_list_shows_entry_points_that_are_not_games(monkeypatch: pytest.MonkeyPatch) -> None:
    arena.games.plugin_problems()  # discovery done, then one bad entry point added
    monkeypatch.setattr(arena.games.registry, "_problems",
                        ["arena-broken 1.0: entry point broken: ImportError: no module x"])
    out = runner.invoke(app, ["games", "list"])
    assert out.exit_code == 0
    assert "not a game: arena-broken 1.0: entry point broken" in _flat(out.stderr)
    listed = runner.invoke(app, ["games", "list", "--format", "json"])
    assert "not a game: arena-broken 1.0: entry point broken" in _flat(listed.stderr)
    assert "arena-broken" not in listed.stdout and "lost-cities" in _games(listed.stdout)


def test_check_of_a_builtin_passes_with_every_check_in_the_table() -> None:
    out = runner.invoke(app, ["games", "check", "portas", "--matches", "1"])
    assert out.exit_code == 0, out.output
    flat = _flat(out.stdout)
    assert "arena games check portas: passed" in flat
    assert all(name in flat for name in CHECKS)
    assert "FAILED" not in flat


def test_check_of_a_leaking_package_fails_with_exit_1() -> None:
    out = runner.invoke(app, ["games", "check", "tests.support.broken_games:LEAKY_PLUGIN",
                              "--matches", "1"])
    assert out.exit_code == 1, out.output
    flat = _flat(out.stdout)
    assert "FAILED: leak" in flat and "observation bytes change" in flat


def test_check_as_json() -> None:
    out = runner.invoke(app, ["games", "check", "tests.support.broken_games:LEAKY_PLUGIN",
                              "--matches", "1", "--format", "json"])
    assert out.exit_code == 1
    data = json.loads(out.stdout)
    assert data["game"] == "leaky-lost-cities" and data["passed"] is False
    assert [c["name"] for c in data["checks"]] == list(CHECKS)
    assert [c["name"] for c in data["checks"] if not c["passed"]] == ["leak"]


@pytest.mark.unit
@pytest.mark.parametrize("locator", ["no_such_game_package", "tests.support.broken_games:LEAKY",
                                     "not a module!"])
def test_a_locator_that_names_no_game_is_one_line_and_exit_2(locator: str) -> None:
    out = runner.invoke(app, ["games", "check", locator])
    assert out.exit_code == 2, out.output
    flat = _flat(out.stderr)
    assert flat.startswith("error:") and flat.count("error:") == 1
    assert out.stdout == ""


def test_a_games_hostile_text_is_printed_literally() -> None:
    out = runner.invoke(app, ["games", "check", "tests.support.broken_games:HOSTILE_PLUGIN",
                              "--matches", "1"])
    assert out.exit_code == 1
    assert "\x1b" not in out.stdout and "\x07" not in out.stdout
    assert "[bold red]owned[/]" in _flat(out.stdout)


def test_run_ladder_of_a_leaking_game_is_one_line_exit_2_and_nothing_made(tmp_path: Path
                                                                          ) -> None:
    from arena.games import registered
    from tests.support.broken_games import LEAKY_PLUGIN

    ladder = tmp_path / "leaky.toml"
    ladder.write_text('name = "leaky"\ngame = "leaky-lost-cities"\nentrants = ["a", "b"]\n'
                      'sandbox = "process"\n[schedule]\ncycles = 1\n')
    with registered(LEAKY_PLUGIN):
        out = runner.invoke(app, ["run-ladder", str(ladder)])
    assert out.exit_code == 2, out.output
    flat = _flat(out.stderr)
    assert "error: game 'leaky-lost-cities' fails the conformance gate (leak;" in flat
    assert flat.count("error:") == 1 and "arena games check leaky-lost-cities" in flat
    state = tmp_path / "state" / "leaky"
    assert not (state / "ladder.db").exists() and not (state / "matches").exists()


def test_check_by_module_path_of_an_installed_game_is_its_verdict() -> None:
    out = runner.invoke(app, ["games", "check", "arena.games.builtin:PORTAS", "--matches", "1"])
    assert out.exit_code == 0, out.output
    listed = runner.invoke(app, ["games", "list", "--format", "json"])
    assert _games(listed.stdout)["portas"]["gate"] == "passed"
