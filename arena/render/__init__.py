"""Per-game renderers, found through the game registry (each game's plugin names its renderer)."""

from __future__ import annotations

from arena.games import game_part
from arena.render.api import GameRenderer


def renderer_for(game_id: str) -> GameRenderer:
    renderer: GameRenderer = game_part(game_id, "renderer")
    return renderer
