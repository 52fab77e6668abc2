"""The bot base image carries the installed game plugins: a wheel of every installed game
distribution that is not built in is packed from its installed files (generated protobuf
module, .proto and entry point included) and installed beside the arena, so a Goofspiel bot runs
on the stock base image; the wheels are part of the image's inputs key; an editable install is
refused with the fix."""

from __future__ import annotations

import json
import sys
import zipfile
from pathlib import Path
from typing import Any

import pytest

from arena.bots.images import inputs_key, installed_wheel, plugin_wheels
from arena.errors import ConfigError
from arena.games import plugin, registered
from arena.games.plugin import GamePlugin
from tests.support.goofspiel import goofspiel

pytestmark = pytest.mark.unit


def test_the_installed_plugin_is_packed_as_a_wheel(tmp_path: Path) -> None:
    goofspiel()
    wheels = plugin_wheels(tmp_path)
    assert [w.name for w in wheels] == ["arena_goofspiel-0.1.0-py3-none-any.whl"]
    names = set(zipfile.ZipFile(wheels[0]).namelist())
    for member in ("arena_goofspiel/__init__.py", "arena_goofspiel/engine.py",
                   "arena_goofspiel/goofspiel_pb2.py",
                   "arena_goofspiel/proto/goofspiel/v1/goofspiel.proto",
                   "arena_goofspiel-0.1.0.dist-info/entry_points.txt",
                   "arena_goofspiel-0.1.0.dist-info/METADATA",
                   "arena_goofspiel-0.1.0.dist-info/RECORD"):
        assert member in names
    assert not any(n.endswith(".pyc") or "direct_url" in n for n in names)
    again = plugin_wheels(tmp_path / "again")
    assert again[0].read_bytes() == wheels[0].read_bytes(), "the same files, the same wheel"


def test_the_plugin_wheels_are_inputs_of_the_base_image(tmp_path: Path) -> None:
    goofspiel()
    wheels = plugin_wheels(tmp_path)
    assert inputs_key("http://mirror", wheels) != inputs_key("http://mirror", [])


def _editable_dist(root: Path, name: str) -> None:
    """What ``pip install -e`` leaves in site-packages: a dist-info whose RECORD lists no
    package file (a finder module instead) and a direct_url.json saying editable."""
    info = root / f"{name.replace('-', '_')}-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
    (info / "direct_url.json").write_text(json.dumps(
        {"url": "file:///src/game", "dir_info": {"editable": True}}))
    finder = f"__editable___{name.replace('-', '_')}_1_0_finder.py"
    (root / finder).write_text("# finder\n")
    (info / "RECORD").write_text("\n".join([
        f"{info.name}/METADATA,,", f"{info.name}/direct_url.json,,", f"{info.name}/RECORD,,",
        f"{finder},,"]) + "\n")


def test_an_editable_game_install_is_refused_with_the_fix(tmp_path: Path,
                                                         monkeypatch: Any) -> None:
    _editable_dist(tmp_path / "site", "someones-game")
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    with pytest.raises(ConfigError) as refused:
        installed_wheel(tmp_path / "wheels", "someones-game")
    message = str(refused.value)
    assert "\n" not in message
    assert "editable install" in message and "without -e" in message
    assert not (tmp_path / "wheels").exists(), "nothing half-written"
    game = GamePlugin("someones-game", "someones_game.engine:GAME", "someones_game.wire:CODEC",
                      "someones_game.render:RENDERER", distribution="someones-game",
                      dist_version="1.0")
    with registered(game), pytest.raises(ConfigError, match="someones-game is an editable"):
        plugin_wheels(tmp_path / "wheels")
    assert sys.path[0] == str(tmp_path / "site")


@pytest.mark.integration
def test_arena_images_build_base_refuses_an_editable_game_in_one_line(tmp_path: Path) -> None:
    """The real command, with an editable game package on its path: exit 2, one line naming
    the package and the fix, before anything is downloaded or built."""
    import os
    import subprocess

    site = tmp_path / "site"
    _editable_dist(site, "someones-game")
    info = next(site.glob("*.dist-info"))
    (info / "entry_points.txt").write_text(
        "[arena.games]\nsomeones-game = someones_game:PLUGIN\n")
    (site / "someones_game.py").write_text(
        "from arena.games.plugin import GamePlugin\n"
        "PLUGIN = GamePlugin('someones-game', 'someones_game:E', 'someones_game:C',"
        " 'someones_game:R')\n")
    env = {**os.environ, "PYTHONPATH": str(site), "ARENA_HOME": str(tmp_path / "home")}
    proc = subprocess.run([sys.executable, "-m", "arena", "images", "build-base"],
                          capture_output=True, text=True, env=env, timeout=300, check=False)
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    message = " ".join(proc.stderr.split())
    assert "someones-game is an editable install" in message and "without -e" in message
    assert not (tmp_path / "home" / "cache").exists(), "nothing downloaded or built"


@pytest.mark.docker
def test_the_base_image_carries_the_installed_game(base_image: Any, docker_client: Any) -> None:
    """A container of the base image finds Goofspiel through its entry point and has its
    engine, codec and shipped .proto, and no more modules of it are imported by a bot than the
    engine and the codec."""
    goofspiel()
    script = (
        "import sys, json\n"
        "from arena.games import plugin, get_game\n"
        "from arena.wire import ObservationDecoder\n"
        "p = plugin('goofspiel'); get_game('goofspiel'); ObservationDecoder('goofspiel')\n"
        "mods = sorted(m for m in sys.modules if m.startswith('arena_goofspiel'))\n"
        "games = sorted(m for m in sys.modules if m.startswith('arena.games.')"
        " and m.count('.') == 2)\n"
        "print(json.dumps([p.distribution, p.dist_version, len(p.proto_text()), mods, games]))\n"
    )
    output = docker_client.containers.run(base_image.image_id, ["python3", "-c", script],
                                          network_mode="none", remove=True)
    dist, version, proto, modules, games = json.loads(output.decode().strip().splitlines()[-1])
    installed = plugin("goofspiel")
    assert (dist, version) == (installed.distribution, installed.dist_version)
    assert proto == len(installed.proto_text()) > 0
    assert modules == ["arena_goofspiel", "arena_goofspiel.engine",
                       "arena_goofspiel.goofspiel_pb2", "arena_goofspiel.wire"]
    assert not {"arena.games.lost_cities", "arena.games.haggis", "arena.games.portas"} & set(games)
