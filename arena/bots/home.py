"""The arena's data directory: the catalogue of submitted bots, the base image's build cache and
the submissions' smoke match logs live under it."""

from __future__ import annotations

import os
from pathlib import Path

HOME_ENV = "ARENA_HOME"
"""Environment variable naming the arena's data directory."""


def arena_home() -> Path:
    """The arena's data directory: ``$ARENA_HOME`` or ``~/.local/share/arena``."""
    value = os.environ.get(HOME_ENV)
    return Path(value).expanduser() if value else Path.home() / ".local" / "share" / "arena"
