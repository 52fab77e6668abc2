"""The registry of games: an explicit tuple, never directory scanning.

Games are imported on first use, so a bot process pays only for the game it plays.
"""

from __future__ import annotations

import importlib
from typing import Any

from arena.errors import UnknownGameError
from arena.games.api import Game

REGISTRY: tuple[tuple[str, str], ...] = (
    ("lost-cities", "arena.games.lost_cities"),
    ("haggis", "arena.games.haggis"),
    ("portas", "arena.games.portas"),
)
"""(game id, module) of every game; each module exports ``GAME``."""
GAME_IDS: tuple[str, ...] = tuple(game_id for game_id, _ in REGISTRY)


def get_game(game_id: str) -> Game[Any, Any, Any]:
    """The registered game with this id; raises ``UnknownGameError`` naming the known ids."""
    for known, module in REGISTRY:
        if known == game_id:
            game: Game[Any, Any, Any] = importlib.import_module(module).GAME
            return game
    raise UnknownGameError(f"unknown game {game_id!r}; known games: {', '.join(GAME_IDS)}")


def all_games() -> tuple[Game[Any, Any, Any], ...]:
    """Every registered game, in registry order."""
    return tuple(get_game(game_id) for game_id in GAME_IDS)
