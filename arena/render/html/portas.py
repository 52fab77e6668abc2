"""Moved to ``arena.games.portas.board``; this path works for one
release (a DeprecationWarning)."""

from arena._moved import moved
from arena.games.portas.board import *  # noqa: F403 — the names, for type checkers

moved(__name__, "arena.games.portas.board")
