"""Moved to ``arena.games.haggis.combos``; this path works for one
release (a DeprecationWarning)."""

from arena._moved import moved
from arena.games.haggis.combos import *  # noqa: F403 — the names, for type checkers

moved(__name__, "arena.games.haggis.combos")
