"""PORTAS, one package like a game plugin: ``rules`` (the pure engine: the standard library and the
game protocol only), ``codec`` (the protobuf messages of ``proto/arena/v1``), ``terminal`` (the
rich renderer) and ``board`` (the HTML board); the arena registers it by name
(:mod:`arena.games.builtin`), so nothing of the core imports it. The rules are in
``docs/games/portas.md``.

This package is the game's public face: its names are the rules' (the engine ``GAME``, the
state, view and action types, the helpers for bots that search), as ``arena.games.portas`` was a
module before; importing it loads neither the codec nor the renderers.
"""

from __future__ import annotations

from arena.games.portas.rules import (
    GAME,
    HAND_SIZE,
    NO_LAST_ACTIONS,
    PASS,
    PORT_DECK,
    SALT,
    TREASURES,
    Action,
    Cards,
    Chest,
    Deal,
    GameFields,
    HistoryEntry,
    LastActions,
    LegalEntry,
    Move,
    OpenChest,
    Pair,
    Pass,
    Play,
    PortasGame,
    State,
    Taken,
    TakenChest,
    Turn,
    View,
    determinize,
    starter,
    unseen_deck,
)

__all__ = [
    "PORT_DECK",
    "TREASURES",
    "HAND_SIZE",
    "SALT",
    "Cards",
    "Pair",
    "HistoryEntry",
    "Deal",
    "Play",
    "Pass",
    "Action",
    "PASS",
    "Move",
    "LegalEntry",
    "LastActions",
    "NO_LAST_ACTIONS",
    "Chest",
    "OpenChest",
    "Taken",
    "Turn",
    "GameFields",
    "TakenChest",
    "State",
    "View",
    "unseen_deck",
    "starter",
    "PortasGame",
    "GAME",
    "determinize",
]
