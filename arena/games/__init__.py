"""The registry of games: an explicit tuple, never directory scanning."""

from __future__ import annotations

from typing import Any

from arena.errors import UnknownGameError
from arena.games.api import Game


def _load() -> tuple[Game[Any, Any, Any], ...]:
    from arena.games.haggis import GAME as HAGGIS
    from arena.games.lost_cities import GAME as LOST_CITIES
    from arena.games.portas import GAME as PORTAS

    return (LOST_CITIES, HAGGIS, PORTAS)


GAMES: tuple[Game[Any, Any, Any], ...] = _load()
GAME_IDS: tuple[str, ...] = tuple(g.id for g in GAMES)


def get_game(game_id: str) -> Game[Any, Any, Any]:
    """The registered game with this id; raises ``UnknownGameError`` naming the known ids."""
    for game in GAMES:
        if game.id == game_id:
            return game
    raise UnknownGameError(f"unknown game {game_id!r}; known games: {', '.join(GAME_IDS)}")
