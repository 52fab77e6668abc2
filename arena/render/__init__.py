"""Per-game renderers, found through the game registry (``arena.render.<name>.RENDERER``)."""

from __future__ import annotations

from arena.games import game_module
from arena.render.api import GameRenderer


def renderer_for(game_id: str) -> GameRenderer:
    renderer: GameRenderer = game_module("render", game_id).RENDERER
    return renderer
