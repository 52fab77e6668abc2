"""The games: the game protocol (:mod:`arena.games.api`), the plugin entry points
(:mod:`arena.games.plugin`), the registry (:mod:`arena.games.registry`, whose names are these)
and the arena's own games, each one package like a plugin's (``arena.games.lost_cities``,
``arena.games.haggis``, ``arena.games.portas``: ``rules``, ``codec``, ``terminal``, ``board``),
registered by name (:mod:`arena.games.builtin`): importing this package imports no game.
"""

from __future__ import annotations

from arena.games.registry import (
    all_games,
    game_ids,
    game_part,
    get_game,
    load_plugin,
    plugin,
    plugin_problems,
    plugins,
    registered,
)

__all__ = ["all_games", "game_ids", "game_part", "get_game", "load_plugin", "plugin",
           "plugin_problems", "plugins", "registered"]
