"""The catalogue's schema before it gained columns (a catalogue a former arena left)."""

from __future__ import annotations

LEGACY_SCHEMA = """
CREATE TABLE bots (
    name TEXT NOT NULL, version TEXT NOT NULL, game TEXT NOT NULL, image TEXT NOT NULL,
    digest TEXT NOT NULL, created REAL NOT NULL, PRIMARY KEY (name, version)
)
"""
