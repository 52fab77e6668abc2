"""Moved to ``arena.record.replay``; this path works for one release (a DeprecationWarning)."""

from arena.record.replay import *  # noqa: F403 — the names, for type checkers
from arena.referee._moved import moved

moved(__name__, "arena.record.replay")
