"""Presentation is one room (``arena/render``) on two floors: every module of the room has its
place in the import layers (``pyproject.toml``), so none escapes the contract unnoticed. (The
old paths of the views that moved in: tests/docs/test_moved_paths.py.)"""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parents[2]


def test_every_module_of_the_render_room_sits_in_a_layer() -> None:
    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    layers = next(c for c in contracts["contracts"] if c["id"] == "layers")["layers"]
    named = {m.strip() for layer in layers for m in layer.replace(":", "|").split("|")}
    room = ROOT / "arena" / "render"
    modules = {f"arena.render.{p.stem}" for p in room.glob("*.py") if p.stem != "__init__"}
    modules |= {f"arena.render.{p.name}" for p in room.iterdir()
                if (p / "__init__.py").is_file()}
    assert modules - named == set()
