"""Registry of per-game renderers."""

from __future__ import annotations

from arena.errors import UnknownGameError
from arena.render.api import GameRenderer


def renderer_for(game_id: str) -> GameRenderer:
    if game_id == "lost-cities":
        from arena.render.lost_cities import RENDERER as LC

        return LC
    if game_id == "haggis":
        from arena.render.haggis import RENDERER as HG

        return HG
    if game_id == "portas":
        from arena.render.portas import RENDERER as PT

        return PT
    raise UnknownGameError(f"no renderer for game {game_id!r}")
