"""Moved to ``arena.games.haggis.board``; this path works for one
release (a DeprecationWarning)."""

from arena._moved import moved
from arena.games.haggis.board import *  # noqa: F403 — the names, for type checkers

moved(__name__, "arena.games.haggis.board")
