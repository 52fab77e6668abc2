"""Moved to ``arena.games.lost_cities.board``; this path works for one
release (a DeprecationWarning)."""

from arena._moved import moved
from arena.games.lost_cities.board import *  # noqa: F403 — the names, for type checkers

moved(__name__, "arena.games.lost_cities.board")
