"""The catalogue of submitted bots: a small SQLite file under ``$ARENA_HOME`` (default
``~/.local/share/arena``).

A submitted bot is a pinned container image: name, version, game, image id (``sha256:...``) and
the identity of its code (column ``digest``: the image id, so a changed CMD, ENTRYPOINT or ENV is
a new identity; rows written before that keep the layer digest they were rated under).

A submission cannot take another's place: an existing (name, version) is replaced only when
asked (``replace``, ``arena submit --replace``), a name another bot holds ignoring case is
refused, and names and versions are identifiers (:mod:`arena.bots.names`), checked and written
in one write transaction (:func:`adding`). Rows written before these rules keep their names and
still list and resolve.

:func:`arena.bots.resolve_bot` calls :func:`lookup` for references that are not directories, so
a submitted bot can be used by name in matches and ladders. (Not to be confused with the game
registry, ``arena.games``, or a container registry: the arena never uses one.)
"""

from __future__ import annotations

import contextlib
import sqlite3
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from arena.bots.home import arena_home
from arena.bots.names import check_name, check_version, name_key, shown, version_key
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
    """The identity of its code: the image id (rows written before: the layer digest)."""
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


@dataclass(frozen=True)
class Addition:
    """A bot being entered in the catalogue (see :func:`adding`)."""

    bot: SubmittedBot
    """The new entry."""
    replaced: SubmittedBot | None
    """The entry of the same name and version it replaces (``replace=True``), else None."""


def conflict(rows: Iterable[SubmittedBot], name: str, version: str, replace: bool,
             named: bool = True) -> str | None:
    """Why ``name``@``version`` may not be entered next to ``rows`` (the catalogue), or None.

    Refused: the same (name, version) unless ``replace``; a name another bot holds ignoring case
    (or, for a legacy name, whose tag it would share); a version whose tag a legacy version of
    the same name holds; and, unless ``named`` (the submitter named the bot itself, ``--name``,
    rather than taking the name its bot.toml gives), any version of a catalogued name: a
    bot.toml saying ``name = "victim"`` never makes itself the newest version of someone's
    ``victim``, the one a ladder naming ``victim`` plays (not with ``replace`` either). What
    to do instead is part of the reason."""
    key = (name_key(name), version_key(version))
    rows = list(rows)
    held = [row.version for row in rows if row.name == name]
    if held and not named:
        return (f"the catalogue already holds {shown(name)} ({len(held)} version"
                f"{'s' if len(held) != 1 else ''}), and a name read from the bot (its bot.toml, "
                "directory or image) never adds to or replaces a catalogued bot: give --name "
                f"{shown(name)} yourself to submit this as its version, or choose another name")
    for row in rows:
        if (row.name, row.version) == (name, version):
            if not replace:
                return (f"{shown(name)}@{shown(version)} is already in the catalogue (image "
                        f"{row.image[:19]}): give another --version, or --replace to replace it")
        elif row.name != name and name_key(row.name) == key[0]:
            return (f"the name {shown(name)} is taken by the catalogued bot {shown(row.name)} "
                    "(names are unique ignoring case): choose another name (--name)")
        elif (name_key(row.name), version_key(row.version)) == key:
            return (f"{shown(name)}@{shown(version)} would share the tag of the catalogued "
                    f"{shown(row.name)}@{shown(row.version)}: give another --version")
    return None


def check_new(name: str, version: str, *, replace: bool = False, named: bool = True,
              home: Path | None = None) -> None:
    """Refuse (``ConfigError``, one line) a name or version outside the alphabets
    (:mod:`arena.bots.names`) or one that :func:`conflict` refuses: the early check of a
    submission, before anything is built. :func:`adding` checks again as it writes."""
    with _connect(home) as conn:
        _refuse(_all(conn), name, version, replace, named, "arena submit")


def _refuse(rows: list[SubmittedBot], name: str, version: str, replace: bool, named: bool,
            where: str) -> None:
    """``ConfigError`` for a name or version outside the alphabets or what :func:`conflict`
    refuses next to ``rows``."""
    check_name("bot name", name, where)
    check_version("bot version", version, where)
    problem = conflict(rows, name, version, replace, named)
    if problem is not None:
        raise ConfigError(f"refused: {problem}")


@contextmanager
def adding(
    name: str,
    version: str,
    game: str,
    image: str,
    digest: str,
    *,
    replace: bool = False,
    named: bool = True,
    home: Path | None = None,
) -> Iterator[Addition]:
    """Enter a submitted bot in the catalogue, checked and written in one write transaction
    (``BEGIN IMMEDIATE``: two submissions cannot both pass the checks). Refuses with
    ``ConfigError`` what :func:`check_new` refuses. The block runs after the checks, inside the
    transaction (say, moving the image's tag): the entry is committed when it ends and nothing
    is written when it raises."""
    bot = SubmittedBot(name, version, game, image, digest, time.time())
    with _connect(home) as conn:
        conn.execute("BEGIN IMMEDIATE")
        rows = _all(conn)
        _refuse(rows, name, version, replace, named, "the catalogue")
        replaced = next((r for r in rows if (r.name, r.version) == (name, version)), None)
        conn.execute(
            "INSERT OR REPLACE INTO bots VALUES (?, ?, ?, ?, ?, ?)",
            (bot.name, bot.version, bot.game, bot.image, bot.digest, bot.created),
        )
        yield Addition(bot, replaced)


def add(
    name: str,
    version: str,
    game: str,
    image: str,
    digest: str,
    *,
    replace: bool = False,
    home: Path | None = None,
) -> SubmittedBot:
    """Enter a submitted bot in the catalogue (see :func:`adding`); ``ConfigError`` for a name
    or version outside the alphabets, an existing (name, version) unless ``replace``, or a name
    another bot holds ignoring case."""
    with adding(name, version, game, image, digest, replace=replace, home=home) as addition:
        return addition.bot


def _all(conn: sqlite3.Connection) -> list[SubmittedBot]:
    rows = conn.execute("SELECT name, version, game, image, digest, created FROM bots "
                        "ORDER BY name, created DESC").fetchall()
    return [_row(r) for r in rows]


def list_bots(*, home: Path | None = None) -> list[SubmittedBot]:
    """Every submitted bot in the catalogue, by name then newest first."""
    with _connect(home) as conn:
        return _all(conn)


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
