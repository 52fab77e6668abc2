"""A plugin's identity: what the gate's verdict on it depends on (its fields, versions, and the
bytes of its packages' files)."""

from __future__ import annotations

import hashlib
import importlib.util
from pathlib import Path

import arena
from arena.games.plugin import GamePlugin
from arena.gate.report import GATE_VERSION, canonical_json


def plugin_identity(plugin: GamePlugin) -> str:
    """A sha256 of what the gate's verdict depends on: the plugin's fields, its distribution
    version, the gate's and the arena's version, and the bytes of every file of the packages
    its parts live in."""
    digest = hashlib.sha256()
    fields = (GATE_VERSION, arena.__version__, plugin.id, plugin.engine, plugin.codec,
              plugin.renderer, plugin.board, plugin.proto, plugin.observation_type,
              plugin.action_type, plugin.distribution, plugin.dist_version)
    digest.update(canonical_json(list(fields)).encode())
    for root in sorted({package_root(locator) for locator in
                        (plugin.engine, plugin.codec, plugin.renderer, plugin.board)
                        if locator} - {None}, key=str):
        assert root is not None
        for path in _files(root):
            digest.update(f"\0{path.relative_to(root.parent)}\0".encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()


def package_root(locator: str) -> Path | None:
    """The directory of the top-level package a ``module:attr`` lives in (a single-module
    top level: its file); None when it cannot be found."""
    top = locator.partition(":")[0].strip().split(".")[0]
    try:
        spec = importlib.util.find_spec(top)
    except (ImportError, ValueError):
        return None
    if spec is None:
        return None
    if spec.submodule_search_locations:
        return Path(next(iter(spec.submodule_search_locations)))
    return Path(spec.origin) if spec.origin else None


def _files(root: Path) -> list[Path]:
    if root.is_file():
        return [root]
    return sorted(p for p in root.rglob("*")
                  if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc")
