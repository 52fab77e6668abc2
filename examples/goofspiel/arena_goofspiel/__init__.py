"""Goofspiel for the arena, as a game plugin (README.md: the rules, the package's layout).

Only the plugin object lives here (strings: loading it imports nothing of the game); the arena
imports each part when it needs it, so a bot process imports the engine and the codec alone.
"""

from __future__ import annotations

from arena.games.plugin import GamePlugin

PLUGIN = GamePlugin(
    id="goofspiel",
    engine="arena_goofspiel.engine:GAME",
    codec="arena_goofspiel.wire:CODEC",
    renderer="arena_goofspiel.render:RENDERER",
    board="arena_goofspiel.board:BOARD",
    proto="arena_goofspiel:proto/goofspiel/v1/goofspiel.proto",
    observation_type="goofspiel.v1.Observation",
    action_type="goofspiel.v1.Action",
    reference_bot="arena_goofspiel:bots/random",
)
"""The plugin the ``arena.games`` entry point ``goofspiel`` names."""
