"""The Goofspiel package as the arena finds it: through its ``arena.games`` entry point (not a
line in the arena), with its distribution and version, its shipped .proto, its parts loaded one
at a time (a bot process imports the engine and the codec only, and no other game), and listed
by ``arena games list``."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from arena.cli.main import app
from arena.games import game_ids, plugin
from tests.support.goofspiel import goofspiel

pytestmark = pytest.mark.integration


@pytest.mark.unit
def test_the_plugin_is_found_through_its_entry_point() -> None:
    goofspiel()
    found = plugin("goofspiel")
    assert found.distribution == "arena-goofspiel" and found.dist_version == "0.1.0"
    assert found.entry_point == "arena_goofspiel:PLUGIN" and not found.builtin
    assert game_ids()[-1] == "goofspiel" and game_ids()[:3] == ("lost-cities", "haggis", "portas")
    assert (found.observation_type, found.action_type) == ("goofspiel.v1.Observation",
                                                           "goofspiel.v1.Action")
    proto = found.proto_text()
    assert "package goofspiel.v1;" in proto and "message Observation" in proto
    assert found.load("engine").id == found.load("codec").game_id == "goofspiel"
    assert found.load("renderer").game_id == found.load("board").game_id == "goofspiel"


def test_a_bot_process_imports_only_the_engine_and_codec_of_its_game() -> None:
    goofspiel()
    script = (
        "import sys, json\n"
        "from arena.sdk import run\n"
        "from arena.wire import ObservationDecoder\n"
        "from arena.games import get_game\n"
        "ObservationDecoder('goofspiel'); get_game('goofspiel')\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.startswith(('arena_goofspiel',"
        " 'arena.games.', 'arena.wire.', 'arena.render', 'rich')))))\n")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         check=True, timeout=60)
    modules = set(json.loads(out.stdout))
    assert {"arena_goofspiel.engine", "arena_goofspiel.wire"} <= modules
    assert not {"arena_goofspiel.render", "arena_goofspiel.board"} & modules
    assert not {"arena.games.lost_cities", "arena.games.haggis", "arena.games.portas"} & modules
    assert not any(m.startswith(("arena.render", "rich")) for m in modules)


def test_arena_games_list_shows_the_package() -> None:
    goofspiel()
    out = CliRunner().invoke(app, ["games", "list", "--format", "json"])
    assert out.exit_code == 0, out.output
    listed = {g["id"]: g for g in map(json.loads, out.stdout.splitlines())}
    assert list(listed)[:3] == ["lost-cities", "haggis", "portas"]
    game = listed["goofspiel"]
    assert (game["title"], game["distribution"], game["dist_version"], game["entry_point"]) == (
        "Goofspiel", "arena-goofspiel", "0.1.0", "arena_goofspiel:PLUGIN")
    assert "arena_goofspiel" in game["source"]
