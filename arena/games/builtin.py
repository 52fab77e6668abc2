"""The arena's three games as plugins, registered by the arena's own distribution through the
``arena.games`` entry points (pyproject.toml), exactly as a game package registers its game:
each is one package, ``arena.games.<name>`` (``rules``, ``codec``, ``terminal``, ``board``),
named here by strings, so the core never imports a game's modules."""

from __future__ import annotations

from arena.games.plugin import GamePlugin


def _builtin(game_id: str, name: str, message: str) -> GamePlugin:
    return GamePlugin(
        id=game_id,
        engine=f"arena.games.{name}.rules:GAME",
        codec=f"arena.games.{name}.codec:CODEC",
        renderer=f"arena.games.{name}.terminal:RENDERER",
        board=f"arena.games.{name}.board:BOARD",
        proto=f"arena.v1:{name}.proto",
        observation_type=f"arena.v1.{message}Observation",
        action_type=f"arena.v1.{message}Action",
    )


LOST_CITIES = _builtin("lost-cities", "lost_cities", "LostCities")
"""Lost Cities (docs/games/lost-cities.md)."""
HAGGIS = _builtin("haggis", "haggis", "Haggis")
"""Haggis for two (docs/games/haggis.md)."""
PORTAS = _builtin("portas", "portas", "Portas")
"""PORTAS (docs/games/portas.md)."""

BUILTIN_ORDER = ("lost-cities", "haggis", "portas")
"""The built-in games' ids in the order the arena lists them (plugins follow, sorted)."""
