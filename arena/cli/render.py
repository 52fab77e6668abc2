"""Moved to ``arena.render.match``; this path works for one release (a DeprecationWarning)."""

from arena._moved import moved
from arena.render.match import *  # noqa: F403 — the names, for type checkers

moved(__name__, "arena.render.match")
