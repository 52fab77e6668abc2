"""Moved to ``arena.games.haggis.cards``; this path works for one
release (a DeprecationWarning)."""

from arena._moved import moved
from arena.games.haggis.cards import *  # noqa: F403 — the names, for type checkers

moved(__name__, "arena.games.haggis.cards")
