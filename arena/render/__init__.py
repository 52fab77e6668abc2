"""Registry of per-game renderers: an explicit tuple, imported on first use."""

from __future__ import annotations

import importlib

from arena.errors import UnknownGameError
from arena.render.api import GameRenderer

RENDERER_MODULES: tuple[tuple[str, str], ...] = (
    ("lost-cities", "arena.render.lost_cities"),
    ("haggis", "arena.render.haggis"),
    ("portas", "arena.render.portas"),
)
"""(game id, module) of every renderer; each module exports ``RENDERER``."""


def renderer_for(game_id: str) -> GameRenderer:
    for known, module in RENDERER_MODULES:
        if known == game_id:
            renderer: GameRenderer = importlib.import_module(module).RENDERER
            return renderer
    raise UnknownGameError(f"no renderer for game {game_id!r}")
