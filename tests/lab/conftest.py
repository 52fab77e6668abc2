"""What the lab's tests share: small rules options that keep a whole match short."""

from __future__ import annotations

SMALL = {"lost-cities": {"rounds": 1}, "haggis": {"target": 50}, "portas": {"games": 1},
         "goofspiel": {"rounds": 1}}
"""One short match of each game the arena ships (a game not listed plays with its defaults)."""
