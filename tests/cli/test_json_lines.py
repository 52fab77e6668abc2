"""`--format json`: a command that prints one thing prints one JSON object on one line; one
that prints several (games, matches, versions, bots, submissions) prints one object per line
(JSON Lines), so runs can be appended to a file and read as a stream (docs/cli.md)."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from arena.cli.main import app

pytestmark = pytest.mark.unit

runner = CliRunner()


def _objects(stdout: str) -> list[dict[str, object]]:
    """Each line of ``stdout`` as a JSON object (any other line fails the test)."""
    objects = [json.loads(line) for line in stdout.splitlines()]
    assert all(isinstance(o, dict) for o in objects), stdout
    return objects


def test_one_thing_is_one_line() -> None:
    out = runner.invoke(app, ["sprt", "llr", "--pentanomial", "2,5,20,30,43", "--elo0", "0",
                              "--elo1", "100", "--format", "json"])
    assert out.exit_code == 0, out.output
    assert len(_objects(out.stdout)) == 1


def test_the_installed_games_are_a_game_a_line() -> None:
    out = runner.invoke(app, ["games", "list", "--format", "json"])
    assert out.exit_code == 0, out.output
    games = _objects(out.stdout)
    assert [g["id"] for g in games][:3] == ["lost-cities", "haggis", "portas"]
    twice = out.stdout + out.stdout  # appended runs read back as one stream
    assert len(_objects(twice)) == 2 * len(games)
