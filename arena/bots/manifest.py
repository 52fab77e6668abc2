"""Bot manifests: ``bot.toml`` in a bot directory, read into a :class:`~arena.model.BotSpec`.

Its ``name`` and ``version`` are identifiers (:mod:`arena.bots.names`): a bot controls them, the
other bot is sent its name, and they end up in tags, tables and logs."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from arena.bots.files import check_bot_directory
from arena.bots.images.build import DEFAULT_FLAVOR, FLAVORS
from arena.bots.names import check_name, check_version
from arena.errors import ConfigError
from arena.games import game_ids
from arena.model import BotSpec

MANIFEST = "bot.toml"
"""The manifest's file name in a bot directory."""
DEFAULT_COMMAND = ("python3", "bot.py")
"""The command a manifest without ``command`` runs."""


def load_bot_dir(path: str | Path) -> BotSpec:
    """Read ``<path>/bot.toml``; raise ``ConfigError`` saying what is wrong and where (also for
    a directory holding a symlink, FIFO, socket or device, or over its caps:
    :mod:`arena.bots.files`)."""
    directory = Path(path).resolve()
    manifest = directory / MANIFEST
    if not manifest.is_file():
        raise ConfigError(f"{directory} is not a bot directory: it has no {MANIFEST}")
    try:
        data = tomllib.loads(manifest.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{manifest}: {exc}") from None
    spec = _spec_from_manifest(data, directory, manifest)
    check_bot_directory(directory)
    return spec


def _spec_from_manifest(data: dict[str, Any], directory: Path, manifest: Path) -> BotSpec:
    name = data.get("name")
    if not isinstance(name, str) or not name.strip():
        raise ConfigError(f"{manifest}: 'name' must be a non-empty string")
    game = data.get("game")
    if game not in game_ids():
        raise ConfigError(f"{manifest}: 'game' must be one of {', '.join(game_ids())}, "
                          f"got {game!r}")
    command = data.get("command", list(DEFAULT_COMMAND))
    if (
        not isinstance(command, list)
        or not command
        or not all(isinstance(part, str) and part for part in command)
    ):
        raise ConfigError(f"{manifest}: 'command' must be a non-empty list of strings")
    version = data.get("version", "")
    if not isinstance(version, str | int | float) or isinstance(version, bool):
        raise ConfigError(f"{manifest}: 'version' must be a string")
    version = str(version)
    base = data.get("base", DEFAULT_FLAVOR)
    if base not in FLAVORS:
        raise ConfigError(f"{manifest}: 'base' must be one of {', '.join(FLAVORS)}, got {base!r}")
    return BotSpec(
        name=check_name("'name'", name.strip(), str(manifest)),
        game=game,
        directory=str(directory),
        command=tuple(command),
        version=check_version("'version'", version, str(manifest)) if version else "",
        base=base,
    )
