"""Moved to ``arena.gate``; this path works for one release (a DeprecationWarning)."""

from arena.gate import *  # noqa: F403 — the names, for type checkers
from arena.referee._moved import moved

moved(__name__, "arena.gate")
