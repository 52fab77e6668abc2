"""A game as a plugin: what a game package registers, and how the arena finds it.

A game reaches the arena through the entry point group ``arena.games`` of an installed
distribution: the entry point's name is the game id and its value a :class:`GamePlugin`, an
object of strings naming where the game's parts live (``module:attribute``). Loading the object
imports nothing else: a bot process imports the engine and codec of the game it plays and no
other game's code, and a listing of the installed games imports no engine at all. The three
built-in games are registered the same way by the arena's own distribution
(``arena.games.builtin``).

Discovery reads the ``entry_points.txt`` of every distribution on ``sys.path`` directly instead
of going through ``importlib.metadata``, whose import alone costs a bot's start-up about 45 ms
(measured); the first distribution on the path that names a group entry wins, as with
``importlib.metadata``.
"""

from __future__ import annotations

import importlib
import os
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

GROUP = "arena.games"
"""The entry point group games register in."""

GAME_ID = re.compile(r"[a-z][a-z0-9-]{1,31}\Z")
"""What a game id looks like (it names files, URLs and config keys)."""

PARTS = ("engine", "codec", "renderer", "board")
"""The parts of a game :meth:`GamePlugin.load` imports."""


@dataclass(frozen=True)
class GamePlugin:
    """One game, as its package registers it: where its parts live, each as ``module:attr``."""

    id: str
    """The game id (``[a-z][a-z0-9-]{1,31}``), the entry point's name."""
    engine: str
    """``module:attr`` of the rules engine (a ``Game``, arena/games/api.py)."""
    codec: str
    """``module:attr`` of the wire codec (a ``GameCodec``, arena/wire/api.py)."""
    renderer: str
    """``module:attr`` of the terminal renderer (a ``GameRenderer``, arena/render/api.py)."""
    board: str = ""
    """``module:attr`` of the HTML board (an ``HtmlBoard``); empty: the generic text board."""
    proto: str = ""
    """``package:relative/path.proto``: the game's ``.proto``, shipped as package data for bot
    authors who generate typed code; empty for a game without one."""
    observation_type: str = ""
    """Full protobuf name of the game's observation message (``goofspiel.v1.Observation``)."""
    action_type: str = ""
    """Full protobuf name of the game's action message."""
    reference_bot: str = ""
    """``package:relative/dir``: a bot directory (bot.toml, Dockerfile, its files) shipped as
    package data, the game's reference bot: ``arena submit`` plays every submitted bot's smoke
    match against it. Empty: the game declares none, and its bots cannot be submitted (the
    built-in games use their ``sample_bots/<game>/random`` instead)."""
    distribution: str = ""
    """The distribution that registered the game (``arena`` for the built-ins); discovery
    fills it in."""
    dist_version: str = ""
    """That distribution's version (discovery fills it in)."""
    entry_point: str = ""
    """The entry point's value, ``module:attr`` of this object (discovery fills it in)."""

    @property
    def builtin(self) -> bool:
        """Whether this is one of the arena's own games."""
        return self.distribution == "arena"

    def load(self, part: str) -> Any:
        """Import one part (``engine``, ``codec``, ``renderer``, ``board``) and return it;
        ``LookupError`` for an empty part, ``ImportError``/``AttributeError`` as raised."""
        if part not in PARTS:
            raise ValueError(f"unknown part {part!r}; parts: {', '.join(PARTS)}")
        locator: str = getattr(self, part)
        if not locator:
            raise LookupError(f"game {self.id} has no {part}")
        return load_object(locator)

    def proto_text(self) -> str:
        """The game's shipped ``.proto`` (empty when it ships none)."""
        if not self.proto:
            return ""
        from importlib import resources

        package, _, path = self.proto.partition(":")
        return resources.files(package).joinpath(path).read_text(encoding="utf-8")


    def reference_bot_dir(self) -> Path | None:
        """The directory of the declared reference bot (None when none is declared), where the
        installed package has it; it may not exist (the package does not ship it)."""
        if not self.reference_bot:
            return None
        from importlib import resources

        package, _, path = self.reference_bot.partition(":")
        return Path(str(resources.files(package).joinpath(path)))


def load_object(locator: str) -> Any:
    """The object ``module:attr`` names (``module`` alone: the module)."""
    module_name, _, attr = locator.partition(":")
    value: Any = importlib.import_module(module_name.strip())
    for name in filter(None, attr.strip().split(".")):
        value = getattr(value, name)
    return value


@dataclass(frozen=True)
class EntryPoint:
    """One ``arena.games`` entry of an installed distribution."""

    name: str
    value: str
    distribution: str
    version: str


def iter_entry_points(path: list[str] | None = None) -> Iterator[EntryPoint]:
    """Every ``arena.games`` entry point of the distributions on ``path`` (``sys.path``), first
    distribution of a name first, one at a time (a caller looking for one game stops early)."""
    seen: set[str] = set()
    for directory in path if path is not None else sys.path:
        for info in _dist_infos(directory or "."):
            dist, version = _dist_name(os.path.basename(info))
            if dist.lower() in seen:
                continue
            seen.add(dist.lower())
            entries = list(_group_entries(info, dist, version))
            if entries and not version:  # an egg-info of a source tree: PKG-INFO says it
                version = _metadata_version(info)
                entries = [replace(entry, version=version) for entry in entries]
            yield from entries


def _dist_infos(directory: str) -> Iterator[str]:
    try:
        entries = sorted(os.scandir(directory), key=lambda entry: entry.name)
    except OSError:
        return
    for entry in entries:
        if entry.name.endswith((".dist-info", ".egg-info")) and entry.is_dir():
            yield entry.path


def _dist_name(info_dir: str) -> tuple[str, str]:
    stem = info_dir.removesuffix(".dist-info").removesuffix(".egg-info")
    name, _, version = stem.partition("-")
    return name.replace("_", "-"), version


def _metadata_version(info: str) -> str:
    for name in ("METADATA", "PKG-INFO"):
        try:
            with open(os.path.join(info, name), encoding="utf-8") as file:
                for line in file:
                    if line.startswith("Version:"):
                        return line.partition(":")[2].strip()
                    if not line.strip():
                        break
        except OSError:
            continue
    return ""


def _group_entries(info: str, dist: str, version: str) -> Iterator[EntryPoint]:
    try:
        with open(os.path.join(info, "entry_points.txt"), encoding="utf-8") as file:
            text = file.read()
    except OSError:
        return
    section = ""
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("[") and line.endswith("]"):
            section = line[1:-1].strip()
        elif section == GROUP and "=" in line:
            name, _, value = line.partition("=")
            yield EntryPoint(name.strip(), value.strip(), dist, version)


def plugin_of(entry: EntryPoint) -> GamePlugin:
    """Load an entry point's object and check it; ``ValueError``/``ImportError`` say why not."""
    value = load_object(entry.value)
    if not isinstance(value, GamePlugin):
        raise ValueError(f"{entry.value} is a {type(value).__name__}, not a GamePlugin")
    if value.id != entry.name:
        raise ValueError(f"entry point {entry.name!r} names a plugin of game {value.id!r}")
    return checked(replace(value, distribution=entry.distribution, dist_version=entry.version,
                           entry_point=entry.value))


def checked(plugin: GamePlugin) -> GamePlugin:
    """``plugin`` when its id and parts are well formed; ``ValueError`` saying what is not."""
    if not GAME_ID.match(plugin.id):
        raise ValueError(f"game id {plugin.id!r} is not [a-z][a-z0-9-]{{1,31}}")
    for part in ("engine", "codec", "renderer"):
        if ":" not in getattr(plugin, part):
            raise ValueError(f"game {plugin.id}: {part} must be 'module:attribute'")
    if plugin.reference_bot and ":" not in plugin.reference_bot:
        raise ValueError(f"game {plugin.id}: reference_bot must be 'package:relative/dir'")
    return plugin
