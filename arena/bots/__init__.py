"""Bots: everything about a bot's code before it plays.

* :mod:`~arena.bots.manifest` — ``bot.toml`` in a bot directory;
* :mod:`~arena.bots.identity` — THE identity of a bot's code (image digest or content hash);
* :mod:`~arena.bots.catalogue` — the catalogue of submitted bots under ``$ARENA_HOME``
  (:mod:`~arena.bots.home`);
* :mod:`~arena.bots.resolve` — a bot reference (directory or ``name[@version]``) to a spec;
* :mod:`~arena.bots.images` — the local base images and bot images (Docker);
* :mod:`~arena.bots.submit` — the submission workflow behind ``arena submit``.

This package sits below the referee and the sandboxes and never imports them. Importing it is
cheap: the common entry points below load no Docker SDK (``arena.bots.images`` imports it only
when an engine is used).
"""

from __future__ import annotations

from arena.bots.identity import bot_identity, directory_hash
from arena.bots.manifest import DEFAULT_COMMAND, MANIFEST, load_bot_dir
from arena.bots.resolve import resolve_bot, resolve_match_bots

__all__ = [
    "DEFAULT_COMMAND",
    "MANIFEST",
    "bot_identity",
    "directory_hash",
    "load_bot_dir",
    "resolve_bot",
    "resolve_match_bots",
]
