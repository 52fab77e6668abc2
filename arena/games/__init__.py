"""The registry of games: an explicit tuple, never directory scanning.

Games are imported on first use, so a bot process pays only for the game it plays.
"""

from __future__ import annotations

import importlib
from typing import Any

from arena.errors import UnknownGameError
from arena.games.api import Game

REGISTRY: tuple[tuple[str, str], ...] = (
    ("lost-cities", "lost_cities"),
    ("haggis", "haggis"),
    ("portas", "portas"),
)
"""(game id, module name) of every game. The engine is ``arena.games.<name>`` (exports
``GAME``), its codec ``arena.wire.<name>`` (``CODEC``), its renderer ``arena.render.<name>``
(``RENDERER``)."""
GAME_IDS: tuple[str, ...] = tuple(game_id for game_id, _ in REGISTRY)


def game_module(layer: str, game_id: str) -> Any:
    """Import ``arena.<layer>.<name>`` of a registered game; ``UnknownGameError`` otherwise."""
    for known, name in REGISTRY:
        if known == game_id:
            return importlib.import_module(f"arena.{layer}.{name}")
    raise UnknownGameError(f"unknown game {game_id!r}; known games: {', '.join(GAME_IDS)}")


def get_game(game_id: str) -> Game[Any, Any, Any]:
    """The registered game with this id; raises ``UnknownGameError`` naming the known ids."""
    game: Game[Any, Any, Any] = game_module("games", game_id).GAME
    return game


def all_games() -> tuple[Game[Any, Any, Any], ...]:
    """Every registered game, in registry order."""
    return tuple(get_game(game_id) for game_id in GAME_IDS)
