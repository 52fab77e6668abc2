"""Old import paths of modules that moved out of ``arena.referee`` (:func:`arena._moved.moved`)."""

from __future__ import annotations

from arena._moved import moved

__all__ = ["moved"]
