"""Moved to ``arena.render.status_text``; this path works for one release (a DeprecationWarning)."""

from arena._moved import moved
from arena.render.status_text import *  # noqa: F403 — the names, for type checkers

moved(__name__, "arena.render.status_text")
