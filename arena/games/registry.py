"""The registry of games (its names are :mod:`arena.games`'s): every installed distribution's
``arena.games`` entry points (:mod:`arena.games.plugin`), the arena's own three games included,
never directory scanning.

Discovery happens once per process, on first use, and imports no game: a part (engine, codec,
renderer, board) is imported when it is asked for, so a bot process pays only for the game it
plays. An entry point that cannot be loaded, has a bad id or repeats an id is not a game: it is
one line of :func:`plugin_problems` (``arena games list`` shows them).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from arena.errors import ConfigError, UnknownGameError
from arena.games.api import Game
from arena.games.plugin import (
    GamePlugin,
    checked,
    iter_entry_points,
    load_object,
    plugin_of,
)

_lock = threading.Lock()
_found: dict[str, GamePlugin] | None = None
_problems: list[str] = []
_extra: dict[str, GamePlugin] = {}
"""Plugins made visible by :func:`registered` (not installed: the gate's broken copies)."""


def _discover() -> dict[str, GamePlugin]:
    global _found
    with _lock:
        if _found is None:
            from arena.games.builtin import BUILTIN_ORDER

            found: dict[str, GamePlugin] = {}
            for entry in iter_entry_points():
                where = f"{entry.distribution} {entry.version}: entry point {entry.name}"
                try:
                    plugin = plugin_of(entry)
                except Exception as exc:  # a broken package must not break the arena
                    _problems.append(f"{where}: {type(exc).__name__}: {exc}")
                    continue
                if plugin.id in found:
                    _problems.append(f"{where}: game {plugin.id!r} is already registered by "
                                     f"{found[plugin.id].distribution}")
                    continue
                found[plugin.id] = plugin
            order = {game_id: index for index, game_id in enumerate(BUILTIN_ORDER)}
            _found = dict(sorted(found.items(), key=lambda kv: (order.get(kv[0], 99), kv[0])))
        return _found


_early: dict[str, GamePlugin] = {}
"""Games found by :func:`_first` before a full discovery."""


def _first(game_id: str) -> GamePlugin | None:
    """The game as a full discovery would keep it, reading only as far as needed."""
    if _found is not None:
        return _found.get(game_id)
    if game_id not in _early:
        entry = next((e for e in iter_entry_points() if e.name == game_id), None)
        try:
            if entry is None:
                return None
            _early[game_id] = plugin_of(entry)
        except Exception:  # noqa: BLE001 — the full discovery records why
            return _discover().get(game_id)
    return _early[game_id]


def plugins() -> tuple[GamePlugin, ...]:
    """Every installed game (built-ins first, then the others by id), then any registered in
    this process by :func:`registered`."""
    return tuple({**_discover(), **_extra}.values())


def game_ids() -> tuple[str, ...]:
    """The ids of every installed game, in :func:`plugins` order."""
    return tuple(p.id for p in plugins())


def plugin_problems() -> tuple[str, ...]:
    """One line per ``arena.games`` entry point that is not a game, and why."""
    _discover()
    return tuple(_problems)


def plugin(game_id: str) -> GamePlugin:
    """The installed game with this id; ``UnknownGameError`` naming the known ids. Before
    anything lists the games, the distributions are read only up to the first that registers
    ``game_id`` (it is the one a full discovery keeps: a bot asks for one game)."""
    found = _extra.get(game_id) or _first(game_id)
    if found is None:
        raise UnknownGameError(f"unknown game {game_id!r}; known games: {', '.join(game_ids())}")
    return found


def game_part(game_id: str, part: str) -> Any:
    """One part of a game (``engine``, ``codec``, ``renderer``, ``board``), imported now;
    ``UnknownGameError`` when the game is unknown or its part cannot be loaded."""
    found = plugin(game_id)
    try:
        return found.load(part)
    except (ImportError, AttributeError) as exc:
        raise UnknownGameError(f"game {game_id!r} ({found.distribution or found.entry_point}): "
                               f"its {part} cannot be loaded: {exc}") from exc


def get_game(game_id: str) -> Game[Any, Any, Any]:
    """The installed game with this id; raises ``UnknownGameError`` naming the known ids."""
    game: Game[Any, Any, Any] = game_part(game_id, "engine")
    return game


def all_games() -> tuple[Game[Any, Any, Any], ...]:
    """Every installed game, in :func:`plugins` order."""
    return tuple(get_game(game_id) for game_id in game_ids())


def load_plugin(locator: str) -> GamePlugin:
    """The game a locator names: an installed game id, an installed distribution's one game, a
    module (its ``PLUGIN``) or ``module:attr``; ``ConfigError`` saying what was tried."""
    for candidate in plugins():
        if locator in (candidate.id, candidate.distribution):
            return candidate
    if not all(part.isidentifier() for part in locator.replace(":", ".").split(".")):
        raise ConfigError(f"{locator!r} is neither an installed game or distribution nor a "
                          "module path (module or module:attr)")
    target = locator if ":" in locator else f"{locator}:PLUGIN"
    try:
        value = load_object(target)
    except (ImportError, AttributeError) as exc:
        raise ConfigError(f"no game {locator!r}: not an installed game or distribution, and "
                          f"{target} cannot be loaded ({exc})") from None
    if not isinstance(value, GamePlugin):
        raise ConfigError(f"{target} is a {type(value).__name__}, not an arena GamePlugin")
    try:
        return checked(value)
    except ValueError as exc:
        raise ConfigError(str(exc)) from None


@contextmanager
def registered(extra: GamePlugin) -> Iterator[GamePlugin]:
    """Make a plugin that is not installed a game of this process while the block runs (the
    conformance gate checks an uninstalled package this way); it hides an installed game of
    the same id meanwhile."""
    checked(extra)
    previous = _extra.get(extra.id)
    _extra[extra.id] = extra
    try:
        yield extra
    finally:
        if previous is None:
            _extra.pop(extra.id, None)
        else:
            _extra[extra.id] = previous
