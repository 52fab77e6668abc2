"""Presentation is one room (``arena/render``): the views that lived in the CLI, the site and
the competition server moved there; their old paths keep working for one release as the moved
module itself (one warning naming the new path), and every module of the room has its place in
the import layers (``pyproject.toml``), so none escapes the contract unnoticed."""

from __future__ import annotations

import importlib
import sys
import tomllib
from pathlib import Path

import pytest

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parents[2]

MOVED = {
    "arena.cli.render": "arena.render.match",
    "arena.cli.ladder_view": "arena.render.ladder",
    "arena.cli.schedule_view": "arena.render.schedule",
    "arena.cli.seat_view": "arena.render.seat_view",
    "arena.site.status_text": "arena.render.status_text",
}


@pytest.mark.parametrize(("old", "new"), sorted(MOVED.items()))
def test_an_old_view_path_still_imports_and_warns(old: str, new: str,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delitem(sys.modules, old, raising=False)  # as a fresh process imports it
    with pytest.warns(DeprecationWarning, match=f"{old} moved to {new}") as warned:
        __import__(old)
    assert len(warned) == 1 and warned[0].filename == __file__
    assert sys.modules[old] is importlib.import_module(new)


@pytest.mark.parametrize("name", ["Frame", "seat_frames", "BOARD_WIDTH"])
def test_the_servers_frames_are_still_found_in_host_views(name: str) -> None:
    from arena.host import views
    from arena.render import frames

    with pytest.warns(DeprecationWarning, match=rf"views\.{name} is deprecated: import "
                                                rf"arena\.render\.frames\.{name}"):
        found = getattr(views, name)
    assert found is getattr(frames, name)
    with pytest.raises(AttributeError):
        views.no_such_name  # noqa: B018


def test_every_module_of_the_render_room_sits_in_a_layer() -> None:
    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    layers = next(c for c in contracts["contracts"] if c["id"] == "layers")["layers"]
    named = {m.strip() for layer in layers for m in layer.replace(":", "|").split("|")}
    room = ROOT / "arena" / "render"
    modules = {f"arena.render.{p.stem}" for p in room.glob("*.py") if p.stem != "__init__"}
    modules |= {f"arena.render.{p.name}" for p in room.iterdir()
                if (p / "__init__.py").is_file()}
    assert modules - named == set()
