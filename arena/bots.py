"""Bot manifests (``bot.toml``) and resolving a bot reference (directory or submitted name)."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from arena.errors import ConfigError
from arena.model import BotSpec

MANIFEST = "bot.toml"
DEFAULT_COMMAND = ("python3", "bot.py")


def load_bot_dir(path: str | Path) -> BotSpec:
    """Read ``<path>/bot.toml``; raise ``ConfigError`` saying what is wrong and where."""
    directory = Path(path).resolve()
    manifest = directory / MANIFEST
    if not manifest.is_file():
        raise ConfigError(f"{directory} is not a bot directory: it has no {MANIFEST}")
    try:
        data = tomllib.loads(manifest.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{manifest}: {exc}") from None
    return _spec_from_manifest(data, directory, manifest)


def _spec_from_manifest(data: dict[str, Any], directory: Path, manifest: Path) -> BotSpec:
    from arena.games import GAME_IDS

    name = data.get("name")
    if not isinstance(name, str) or not name.strip():
        raise ConfigError(f"{manifest}: 'name' must be a non-empty string")
    game = data.get("game")
    if game not in GAME_IDS:
        raise ConfigError(f"{manifest}: 'game' must be one of {', '.join(GAME_IDS)}, got {game!r}")
    command = data.get("command", list(DEFAULT_COMMAND))
    if (
        not isinstance(command, list)
        or not command
        or not all(isinstance(part, str) and part for part in command)
    ):
        raise ConfigError(f"{manifest}: 'command' must be a non-empty list of strings")
    version = data.get("version", "")
    if not isinstance(version, str | int | float):
        raise ConfigError(f"{manifest}: 'version' must be a string")
    from arena.images import DEFAULT_FLAVOR, FLAVORS

    base = data.get("base", DEFAULT_FLAVOR)
    if base not in FLAVORS:
        raise ConfigError(f"{manifest}: 'base' must be one of {', '.join(FLAVORS)}, got {base!r}")
    return BotSpec(
        name=name.strip(),
        game=game,
        directory=str(directory),
        command=tuple(command),
        version=str(version),
        base=base,
    )


def resolve_bot(ref: str, *, base_dir: Path | None = None) -> BotSpec:
    """A bot directory (holding bot.toml) or a submitted bot (``name`` or ``name@version``)."""
    candidate = Path(ref)
    if base_dir is not None and not candidate.is_absolute():
        candidate = base_dir / candidate
    if candidate.is_dir():
        return load_bot_dir(candidate)
    name, _, version = ref.partition("@")
    spec = _lookup_submitted(name, version or None)
    if spec is None:
        raise ConfigError(
            f"no bot {ref!r}: not a directory with a {MANIFEST}, and no submitted bot of that "
            "name (see `arena bots list`; submit one with `arena submit`)"
        )
    return spec


def _lookup_submitted(name: str, version: str | None) -> BotSpec | None:
    try:
        from arena import registry
    except ImportError:  # the registry module is optional in a source checkout
        return None
    return registry.lookup(name, version)


def resolve_match_bots(refs: tuple[str, str], game: str | None) -> tuple[str, BotSpec, BotSpec]:
    """Resolve both seats' bots and the game (default: the bots' own); ``ConfigError`` when a
    bot plays another game."""
    if game is not None:
        from arena.games import get_game

        get_game(game)  # UnknownGameError names the known games
    bots = (resolve_bot(refs[0]), resolve_bot(refs[1]))
    game_id = game or bots[0].game
    for bot in bots:
        if bot.game != game_id:
            raise ConfigError(f"bot {bot.name} plays {bot.game}, not {game_id}")
    return game_id, bots[0], bots[1]
