"""Moved to ``arena.serve.server``; this path works for one release (a DeprecationWarning)."""

from arena.referee._moved import moved
from arena.serve.server import *  # noqa: F403 — the names, for type checkers

moved(__name__, "arena.serve.server")
