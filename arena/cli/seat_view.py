"""Moved to ``arena.render.seat_view``; this path works for one release (a DeprecationWarning)."""

from arena._moved import moved
from arena.render.seat_view import *  # noqa: F403 — the names, for type checkers

moved(__name__, "arena.render.seat_view")
