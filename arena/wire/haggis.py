"""Moved to ``arena.games.haggis.codec``; this path works for one
release (a DeprecationWarning)."""

from arena._moved import moved
from arena.games.haggis.codec import *  # noqa: F403 — the names, for type checkers

moved(__name__, "arena.games.haggis.codec")
