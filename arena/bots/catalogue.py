"""The catalogue of submitted bots: a small SQLite file under ``$ARENA_HOME`` (default
``~/.local/share/arena``).

A submitted bot is a pinned container image: name, version, game, image id (``sha256:...``) and
layer digest (the identity of its code). :func:`arena.bots.resolve_bot` calls :func:`lookup` for
references that are not directories, so a submitted bot can be used by name in matches and
ladders. (Not to be confused with the game registry, ``arena.games``, or a container registry:
the arena never uses one.)
"""

from __future__ import annotations

import contextlib
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from arena.bots.home import arena_home
from arena.bots.manifest import check_label
from arena.errors import ConfigError
from arena.model import BotSpec

DB_NAME = "catalogue.sqlite3"
"""The catalogue's file in the arena's data directory."""
LEGACY_DB_NAME = "registry.sqlite3"
"""The catalogue's former file name: adopted (renamed to :data:`DB_NAME`) on first open."""
_SQLITE_SIDE_FILES = ("-wal", "-shm")
"""Suffixes of the files SQLite keeps next to a database in WAL mode."""

_SCHEMA = """
CREATE TABLE IF NOT EXISTS bots (
    name TEXT NOT NULL,
    version TEXT NOT NULL,
    game TEXT NOT NULL,
    image TEXT NOT NULL,
    digest TEXT NOT NULL,
    created REAL NOT NULL,
    PRIMARY KEY (name, version)
)
"""


@dataclass(frozen=True)
class SubmittedBot:
    """One catalogued (name, version)."""

    name: str
    """The name the bot was submitted under."""
    version: str
    """Its version (several versions of a name can be catalogued)."""
    game: str
    """The game id it plays."""
    image: str
    """Pinned image id (``sha256:...``)."""
    digest: str
    """Layer digest of the image."""
    created: float
    """Submission time (seconds since the epoch)."""

    def spec(self) -> BotSpec:
        """The runnable spec of this bot (Docker sandbox only)."""
        return BotSpec(
            name=self.name,
            game=self.game,
            image=self.image,
            version=self.version,
            digest=self.digest,
        )


def _adopt_legacy(root: Path) -> None:
    """Rename a catalogue left under its former name (``registry.sqlite3``), unless one under
    the current name exists. The side files go first and the database last, so an interrupted
    adoption is completed by the next open."""
    current, legacy = root / DB_NAME, root / LEGACY_DB_NAME
    if current.exists() or not legacy.exists():
        return
    for suffix in _SQLITE_SIDE_FILES:
        with contextlib.suppress(FileNotFoundError):
            (root / f"{LEGACY_DB_NAME}{suffix}").rename(root / f"{DB_NAME}{suffix}")
    with contextlib.suppress(FileNotFoundError):  # another process adopted it meanwhile
        legacy.rename(current)


@contextmanager
def _connect(home: Path | None) -> Iterator[sqlite3.Connection]:
    root = home if home is not None else arena_home()
    root.mkdir(parents=True, exist_ok=True)
    _adopt_legacy(root)
    conn = sqlite3.connect(root / DB_NAME, timeout=10.0)
    try:
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute(_SCHEMA)
        yield conn
        conn.commit()
    finally:
        conn.close()


def _row(row: tuple[str, str, str, str, str, float]) -> SubmittedBot:
    return SubmittedBot(*row)


def add(
    name: str,
    version: str,
    game: str,
    image: str,
    digest: str,
    *,
    home: Path | None = None,
) -> SubmittedBot:
    """Enter (or replace) a submitted bot in the catalogue; raises ``ConfigError`` for an
    unusable name."""
    check_label("bot name", name, "the catalogue")
    check_label("bot version", version, "the catalogue")
    if not name or "@" in name or "/" in name or name != name.strip():
        raise ConfigError(f"bad bot name {name!r}: no '@', '/' or surrounding spaces")
    if "@" in version:
        raise ConfigError(f"bad bot version {version!r}: no '@'")
    bot = SubmittedBot(name, version, game, image, digest, time.time())
    with _connect(home) as conn:
        conn.execute(
            "INSERT OR REPLACE INTO bots VALUES (?, ?, ?, ?, ?, ?)",
            (bot.name, bot.version, bot.game, bot.image, bot.digest, bot.created),
        )
    return bot


def list_bots(*, home: Path | None = None) -> list[SubmittedBot]:
    """Every submitted bot in the catalogue, by name then newest first."""
    with _connect(home) as conn:
        rows = conn.execute(
            "SELECT name, version, game, image, digest, created FROM bots "
            "ORDER BY name, created DESC"
        ).fetchall()
    return [_row(r) for r in rows]


def find(name: str, version: str | None = None, *, home: Path | None = None) -> SubmittedBot | None:
    """The submitted bot ``name`` at ``version`` (None: the most recently submitted version)."""
    query = "SELECT name, version, game, image, digest, created FROM bots WHERE name = ?"
    params: tuple[str, ...] = (name,)
    if version is not None:
        query += " AND version = ?"
        params += (version,)
    with _connect(home) as conn:
        row = conn.execute(query + " ORDER BY created DESC LIMIT 1", params).fetchone()
    return None if row is None else _row(row)


def lookup(name: str, version: str | None = None, *, home: Path | None = None) -> BotSpec | None:
    """The runnable spec of a submitted bot, or None when the catalogue has no such bot."""
    bot = find(name, version, home=home)
    return None if bot is None else bot.spec()
