"""The ladder's persistent record: SQLAlchemy Core over SQLite (default) or PostgreSQL.

Append-only tables (triggers refuse UPDATE and DELETE; on PostgreSQL TRUNCATE as well):

* ``bots`` — one row per (name, version, identity): the image digest or the directory hash.
* ``matches`` — one row per played match; ``match_id`` is UNIQUE and recording an id that is
  already there is a no-op, so a result is applied exactly once however often it is replayed.
* ``ratings`` — the live Elo of both bots after each applied (non-void) match.
* ``void_attempts`` — one row per attempt at a match that the cluster gave up on (its attempts
  killed too many workers): void, never rated, and *not* a recorded match, so its id stays out
  of ``recorded_ids`` and the next run plays the match again. Tables are created with
  ``metadata.create_all``, so a store made before this table gets it on its next open.

SQLite runs in WAL mode with ``foreign_keys=ON``, ``synchronous=NORMAL`` (a committed match
survives ``kill -9`` of the writer; only a power cut can lose the last commits) and every write
transaction starts with ``BEGIN IMMEDIATE`` (one writer at a time, no lock upgrades). Each match
is one transaction: the match row, any new bot rows and the two rating rows commit together; a
void attempt is one row in its own transaction.

PostgreSQL (``postgresql+psycopg://...``, tables in the first schema of the ``search_path``) gets
the same guarantees: the append-only triggers are created with the schema, and every write
transaction (READ COMMITTED) first takes a transaction-scoped advisory lock, so writers to the
database queue one at a time exactly as under ``BEGIN IMMEDIATE`` while readers never wait.
The match row goes in with ``ON CONFLICT (match_id) DO NOTHING``, so a match id is applied once
even against a writer that bypassed the lock. Other SQLAlchemy dialects get the portable subset
(no append-only enforcement, no writer lock; a duplicate id is caught by its UNIQUE constraint,
as on SQLite, where ``BEGIN IMMEDIATE`` already makes the check before the insert authoritative).
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import (
    JSON,
    Boolean,
    Column,
    Connection,
    CursorResult,
    Engine,
    Float,
    ForeignKey,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
    create_engine,
    event,
    func,
    make_url,
    select,
    text,
)
from sqlalchemy.dialects import postgresql
from sqlalchemy.exc import IntegrityError, SQLAlchemyError

from arena.bots.identity import bot_identity
from arena.errors import ArenaError
from arena.model import BotSpec, MatchResult, Termination, has_human
from arena.record.log import private_dir, tighten
from arena.stats.rating import elo_update


class StoreError(ArenaError):
    """The ladder database cannot be opened or written."""


class _AlreadyRecorded(Exception):
    """Internal: the match id turned up while inserting (rolls the attempt back)."""


metadata = MetaData()

bots_t = Table(
    "bots",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("name", String(200), nullable=False),
    Column("version", String(100), nullable=False, default=""),
    Column("identity", String(200), nullable=False, default=""),
    Column("ref", Text, nullable=False, default=""),
    Column("created_at", Float, nullable=False),
    UniqueConstraint("name", "version", "identity", name="uq_bot_version"),
)

matches_t = Table(
    "matches",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("match_id", String(200), nullable=False, unique=True),
    Column("ladder", String(200), nullable=False, index=True),
    Column("encounter_id", String(200), nullable=False, default=""),
    Column("cycle", Integer, nullable=False, default=0),
    Column("leg", Integer, nullable=False, default=0),
    Column("game", String(50), nullable=False),
    Column("game_version", Integer, nullable=False),
    Column("seed", String(30), nullable=False),
    Column("options", JSON, nullable=False),
    Column("bot0_id", Integer, ForeignKey("bots.id"), nullable=False),
    Column("bot1_id", Integer, ForeignKey("bots.id"), nullable=False),
    Column("bot0", String(200), nullable=False),
    Column("bot1", String(200), nullable=False),
    Column("winner", Integer, nullable=True),
    Column("termination", String(40), nullable=False),
    Column("faulty_seat", Integer, nullable=True),
    Column("void", Boolean, nullable=False),
    Column("detail", Text, nullable=False, default=""),
    Column("rounds", JSON, nullable=False),
    Column("total0", Integer, nullable=False),
    Column("total1", Integer, nullable=False),
    Column("log_path", Text, nullable=True),
    Column("duration_s", Float, nullable=False),
    Column("decisions", Integer, nullable=False),
    Column("started_at", Float, nullable=True),
    Column("finished_at", Float, nullable=False),
)

ratings_t = Table(
    "ratings",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("ladder", String(200), nullable=False, index=True),
    Column("match_row", Integer, ForeignKey("matches.id"), nullable=False),
    Column("bot", String(200), nullable=False),
    Column("bot_id", Integer, ForeignKey("bots.id"), nullable=False),
    Column("rating", Float, nullable=False),
    Column("delta", Float, nullable=False),
)

void_attempts_t = Table(
    "void_attempts",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("ladder", String(200), nullable=False, index=True),
    Column("match_id", String(200), nullable=False),
    Column("encounter_id", String(200), nullable=False, default=""),
    Column("cycle", Integer, nullable=False, default=0),
    Column("leg", Integer, nullable=False, default=0),
    Column("game", String(50), nullable=False),
    Column("seed", String(30), nullable=False),
    Column("bot0", String(200), nullable=False),
    Column("bot1", String(200), nullable=False),
    Column("termination", String(40), nullable=False),
    Column("detail", Text, nullable=False, default=""),
    Column("started_at", Float, nullable=True),
    Column("finished_at", Float, nullable=False),
)

APPEND_ONLY_TABLES = ("bots", "matches", "ratings", "void_attempts")
"""Every table of the store: rows are added, never changed or removed."""

_APPEND_ONLY_TRIGGERS = [
    f"CREATE TRIGGER IF NOT EXISTS {table}_no_{op.lower()} BEFORE {op} ON {table} "
    f"BEGIN SELECT RAISE(ABORT, '{table} is append-only'); END"
    for table in APPEND_ONLY_TABLES
    for op in ("UPDATE", "DELETE")
]

_PG_APPEND_ONLY_FUNCTION = """
CREATE OR REPLACE FUNCTION arena_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION USING ERRCODE = 'restrict_violation',
        MESSAGE = TG_TABLE_NAME || ' is append-only';
END $$
"""
def _pg_append_only_triggers(tables: Sequence[str]) -> dict[str, str]:
    return {
        f"{table}_append_only_{kind}": f"CREATE TRIGGER {table}_append_only_{kind} BEFORE "
        f"{ops} ON {table} FOR EACH {each} EXECUTE FUNCTION arena_append_only()"
        for table in tables
        for kind, ops, each in (("rows", "UPDATE OR DELETE", "ROW"), ("truncate", "TRUNCATE",
                                                                       "STATEMENT"))
    }


_PG_APPEND_ONLY_TRIGGERS = _pg_append_only_triggers(APPEND_ONLY_TABLES)
_PG_WRITER_LOCK = 0x6172656E61  # "arena": the advisory lock key every writer takes


@dataclass(frozen=True)
class StoredMatch:
    """A recorded match as read back from the store."""

    match_id: str
    encounter_id: str
    cycle: int
    leg: int
    game: str
    game_version: int
    seed: int
    bots: tuple[str, str]
    winner: int | None
    termination: Termination
    faulty_seat: int | None
    void: bool
    detail: str
    rounds: tuple[tuple[int, int], ...]
    totals: tuple[int, int]
    log_path: str | None
    duration_s: float
    finished_at: float
    versions: tuple[str, str] = ("", "")
    """Each seat's bot version, as recorded (its row in ``bots``)."""
    identities: tuple[str, str] = ("", "")
    """Each seat's code identity (a directory's content hash, a submitted image's id)."""

    @property
    def score0(self) -> float:
        """Seat 0's score: 1, 0.5 or 0."""
        return 1.0 if self.winner == 0 else 0.0 if self.winner == 1 else 0.5


@dataclass(frozen=True)
class VoidAttempt:
    """An attempt at a match that the cluster gave up on, as read back from the store: void,
    never rated, and not a recorded match (the next run plays the match again)."""

    match_id: str
    encounter_id: str
    cycle: int
    leg: int
    game: str
    seed: int
    bots: tuple[str, str]
    termination: Termination
    detail: str
    """Why it was given up (the cluster's words)."""
    started_at: float | None
    finished_at: float
    """When it was given up (``time.time()``)."""


@dataclass(frozen=True)
class Recorded:
    """What ``record_match`` did."""

    applied: bool
    """False: the match id was already recorded (nothing changed)."""
    elo: dict[str, float]
    """The live Elo of the two bots after the match (unchanged for a void match)."""


BUSY_TIMEOUT_MS = 30_000
"""How long a SQLite connection waits for another's lock before "database is locked"."""


def _configure_sqlite(engine: Engine) -> None:
    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None  # we issue BEGIN ourselves
        cursor = dbapi_connection.cursor()
        # first: making a new database WAL takes its lock, and another process opening it at
        # the same moment held it longer than the driver's default 5 s wait under load
        # (`arena run-ladder` then stopped: "database is locked")
        cursor.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn: Connection) -> None:
        read = conn.get_execution_options().get("arena_read", False)
        conn.exec_driver_sql("BEGIN" if read else "BEGIN IMMEDIATE")


def _create_postgres_triggers(conn: Connection,
                              tables: Sequence[str] = APPEND_ONLY_TABLES) -> None:
    """Create whichever append-only triggers the tables lack (none: no DDL at all, so a role
    without DDL rights can still open an existing store). Another append-only table of the
    database (the competition's audit log) is given them the same way
    (``postgres_append_only``)."""
    names = ", ".join(f"'{table}'::regclass" for table in tables)
    existing = set(conn.execute(text(
        f"SELECT tgname FROM pg_trigger WHERE NOT tgisinternal AND tgrelid IN ({names})"
    )).scalars())
    wanted = (_PG_APPEND_ONLY_TRIGGERS if tuple(tables) == APPEND_ONLY_TABLES
              else _pg_append_only_triggers(tables))
    missing = [ddl for name, ddl in wanted.items() if name not in existing]
    if missing:
        conn.exec_driver_sql(_PG_APPEND_ONLY_FUNCTION)
        for ddl in missing:
            conn.exec_driver_sql(ddl)


def postgres_append_only(conn: Connection, tables: Sequence[str]) -> None:
    """Refuse UPDATE, DELETE and TRUNCATE on ``tables`` of a PostgreSQL database, as on the
    store's own (the triggers they lack are created in ``conn``)."""
    _create_postgres_triggers(conn, tables)


def writer_lock(conn: Connection) -> None:
    """On PostgreSQL, take the database's writer lock in ``conn``'s transaction (every writer
    of the store takes it: writers queue one at a time, as under SQLite's ``BEGIN
    IMMEDIATE``); elsewhere nothing."""
    if conn.dialect.name == "postgresql":
        conn.execute(select(func.pg_advisory_xact_lock(_PG_WRITER_LOCK)))


def private_sqlite_file(path: Path) -> None:
    """Make the SQLite file ``path`` private from its first byte: its directory 0700 and the
    file 0600 before SQLite opens it (SQLite gives its ``-wal`` and ``-shm`` files the
    database's mode; left to itself it makes them 0644). The store holds every recorded deal
    seed, and a duplicate pair's second leg replays its first leg's seed: no bot user may read
    it. A store made by an older arena is closed the same way."""
    private_dir(path.parent)
    tighten(path.parent, 0o700)
    try:  # never open an existing store here: closing any descriptor of a SQLite file drops
        # every lock this process holds on it (another connection of ours may hold one)
        os.close(os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600))
    except FileExistsError:
        pass
    for companion in (path, path.with_name(path.name + "-wal"),
                      path.with_name(path.name + "-shm")):
        tighten(companion, 0o600)


class LadderStore:
    """The ladder database. One writer per database (the runner); readers may be many."""

    def __init__(self, url: str) -> None:
        """Open (and create) the database. Raises ``StoreError``."""
        self.url = url
        try:
            if url.startswith("sqlite:///") and url != "sqlite:///:memory:":
                private_sqlite_file(Path(url.removeprefix("sqlite:///")))
            # a pooled PostgreSQL connection may outlive a server restart: ping it first
            backend = make_url(url).get_backend_name()
            self.engine = create_engine(url, pool_pre_ping=backend == "postgresql")
            self.is_sqlite = self.engine.dialect.name == "sqlite"
            self.is_postgresql = self.engine.dialect.name == "postgresql"
            if self.is_sqlite:
                _configure_sqlite(self.engine)
            with self._write() as conn:
                metadata.create_all(conn)
                if self.is_sqlite:
                    for ddl in _APPEND_ONLY_TRIGGERS:
                        conn.exec_driver_sql(ddl)
                elif self.is_postgresql:
                    _create_postgres_triggers(conn)
        except (SQLAlchemyError, OSError) as exc:
            raise StoreError(f"cannot open the ladder database {_shown(url)}: {exc}") from exc

    def close(self) -> None:
        """Release the connections."""
        self.engine.dispose()

    def __enter__(self) -> LadderStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def _write(self) -> Iterator[Connection]:
        """A write transaction; one at a time per database (SQLite: ``BEGIN IMMEDIATE``;
        PostgreSQL: the writer advisory lock, held until commit or rollback)."""
        with self.engine.begin() as conn:
            if self.is_postgresql:
                conn.execute(select(func.pg_advisory_xact_lock(_PG_WRITER_LOCK)))
            yield conn

    @contextmanager
    def _read(self) -> Iterator[Connection]:
        with self.engine.connect().execution_options(arena_read=True) as conn:
            yield conn

    # --- writes ------------------------------------------------------------------------------
    def record_match(
        self,
        ladder: str,
        result: MatchResult,
        specs: tuple[BotSpec, BotSpec],
        *,
        encounter_id: str = "",
        cycle: int = 0,
        leg: int = 0,
        started_at: float | None = None,
        elo_k: float = 16.0,
        elo_start: float = 1500.0,
    ) -> Recorded:
        """Record one result in one transaction; a match id already present is a no-op.

        Bots are keyed by ``result.bots`` (the names the ladder rates). A non-void result
        also appends both bots' live Elo. Raises ``StoreError``, also for a match a person
        played (`arena play`: ``has_human``), which no ladder ever rates."""
        if has_human(result.bots):
            raise StoreError(f"match {result.match_id} had a human seat ({' vs '.join(result.bots)}"
                             "): a ladder records and rates bots' matches only")
        try:
            with self._write() as conn:
                if self._has_match(conn, result.match_id):
                    return Recorded(False, self._elo_of(conn, ladder, result.bots, elo_start))
                ids = [self._bot_id(conn, name, spec) for name, spec in
                       zip(result.bots, specs, strict=True)]
                match_row = self._insert_match(conn, dict(
                    match_id=result.match_id, ladder=ladder, encounter_id=encounter_id,
                    cycle=cycle, leg=leg, game=result.game, game_version=result.game_version,
                    seed=str(result.seed), options=dict(result.options),
                    bot0_id=ids[0], bot1_id=ids[1], bot0=result.bots[0], bot1=result.bots[1],
                    winner=result.winner, termination=str(result.termination),
                    faulty_seat=result.faulty_seat, void=result.void, detail=result.detail,
                    rounds=[list(r) for r in result.rounds], total0=result.totals[0],
                    total1=result.totals[1], log_path=result.log,
                    duration_s=result.duration_s, decisions=result.decisions,
                    started_at=started_at, finished_at=time.time(),
                ))
                if match_row is None:
                    raise _AlreadyRecorded  # roll back the bot rows of this attempt
                elo = self._elo_of(conn, ladder, result.bots, elo_start)
                if not result.void:
                    self._append_elo(conn, ladder, match_row, result, ids, elo, elo_k)
                return Recorded(True, elo)
        except (_AlreadyRecorded, IntegrityError) as exc:
            # another writer recorded the same id between our check and our insert
            with self._read() as conn:
                if not self._has_match(conn, result.match_id):
                    raise StoreError(f"cannot record match {result.match_id}: {exc}") from exc
                return Recorded(False, self._elo_of(conn, ladder, result.bots, elo_start))
        except SQLAlchemyError as exc:
            raise StoreError(f"cannot record match {result.match_id}: {exc}") from exc

    def record_void_attempt(
        self,
        ladder: str,
        result: MatchResult,
        *,
        encounter_id: str = "",
        cycle: int = 0,
        leg: int = 0,
        started_at: float | None = None,
    ) -> None:
        """Record a void attempt at a match (one the cluster gave up on) in one transaction.

        It is never rated and is not a recorded match: its id stays out of ``recorded_ids``,
        so the next run plays the match again, and an id may have several void attempts.
        Raises ``ValueError`` for a result that is not void, ``StoreError``."""
        if not result.void:
            raise ValueError(f"match {result.match_id} is not void ({result.termination}): "
                             "record it with record_match")
        try:
            with self._write() as conn:
                conn.execute(void_attempts_t.insert().values(
                    ladder=ladder, match_id=result.match_id, encounter_id=encounter_id,
                    cycle=cycle, leg=leg, game=result.game, seed=str(result.seed),
                    bot0=result.bots[0], bot1=result.bots[1],
                    termination=str(result.termination), detail=result.detail,
                    started_at=started_at, finished_at=time.time(),
                ))
        except SQLAlchemyError as exc:
            raise StoreError(f"cannot record the void attempt at match {result.match_id}: "
                             f"{exc}") from exc

    @staticmethod
    def _has_match(conn: Connection, match_id: str) -> bool:
        found = conn.execute(select(matches_t.c.id).where(matches_t.c.match_id == match_id))
        return found.first() is not None

    def _insert_match(self, conn: Connection, values: dict[str, Any]) -> int | None:
        """Insert the match row; None when its id is already there (PostgreSQL: ``ON CONFLICT
        DO NOTHING``; elsewhere a duplicate raises ``IntegrityError``)."""
        if not self.is_postgresql:
            return _primary_key(conn.execute(matches_t.insert().values(**values)))
        row = conn.execute(
            postgresql.insert(matches_t).values(**values)
            .on_conflict_do_nothing(index_elements=[matches_t.c.match_id])
            .returning(matches_t.c.id)
        ).first()
        return None if row is None else int(row[0])

    def _append_elo(self, conn: Connection, ladder: str, match_row: int, result: MatchResult,
                    ids: Sequence[int], elo: dict[str, float], k: float) -> None:
        score0 = 1.0 if result.winner == 0 else 0.0 if result.winner == 1 else 0.5
        a, b = result.bots
        old_a, old_b = elo[a], elo[b]
        new_a, new_b = elo_update(old_a, old_b, score0, k)
        elo[a], elo[b] = new_a, new_b
        conn.execute(ratings_t.insert(), [
            {"ladder": ladder, "match_row": match_row, "bot": a, "bot_id": ids[0],
             "rating": new_a, "delta": new_a - old_a},
            {"ladder": ladder, "match_row": match_row, "bot": b, "bot_id": ids[1],
             "rating": new_b, "delta": new_b - old_b},
        ])

    def _bot_id(self, conn: Connection, name: str, spec: BotSpec) -> int:
        identity = bot_identity(spec)
        found = conn.execute(select(bots_t.c.id).where(
            bots_t.c.name == name, bots_t.c.version == spec.version, bots_t.c.identity == identity,
        )).first()
        if found is not None:
            return int(found[0])
        ref = spec.directory or spec.image or ""
        return _primary_key(conn.execute(bots_t.insert().values(
            name=name, version=spec.version, identity=identity, ref=ref, created_at=time.time(),
        )))

    def _elo_of(self, conn: Connection, ladder: str, names: Sequence[str], start: float
                ) -> dict[str, float]:
        out: dict[str, float] = {}
        for name in names:
            row = conn.execute(
                select(ratings_t.c.rating)
                .where(ratings_t.c.ladder == ladder, ratings_t.c.bot == name)
                .order_by(ratings_t.c.id.desc()).limit(1)
            ).first()
            out[name] = float(row[0]) if row is not None else start
        return out

    # --- reads ---------------------------------------------------------------------------------
    def recorded_ids(self, ladder: str) -> set[str]:
        """The match ids already recorded for the ladder."""
        with self._read() as conn:
            rows = conn.execute(select(matches_t.c.match_id).where(matches_t.c.ladder == ladder))
            return {r[0] for r in rows}

    def matches(self, ladder: str, skip: int = 0) -> list[StoredMatch]:
        """Every recorded match of the ladder, in recording order; ``skip``: all but the first
        ``skip`` of them (rows are only ever appended, so a reader that already holds ``skip``
        matches reads just the new ones)."""
        seat0, seat1 = bots_t.alias("seat0"), bots_t.alias("seat1")
        with self._read() as conn:
            rows = conn.execute(
                select(matches_t, seat0.c.version.label("version0"),
                       seat0.c.identity.label("identity0"), seat1.c.version.label("version1"),
                       seat1.c.identity.label("identity1"))
                .join(seat0, seat0.c.id == matches_t.c.bot0_id)
                .join(seat1, seat1.c.id == matches_t.c.bot1_id)
                .where(matches_t.c.ladder == ladder).order_by(matches_t.c.id).offset(skip)
            ).mappings().all()
        return [_stored(r) for r in rows]

    def last_row(self, ladder: str) -> int:
        """The row number of the ladder's latest recorded match (0: none): it grows with every
        match recorded, so a reader polls it (an index lookup) before reading anything."""
        with self._read() as conn:
            found = conn.execute(select(func.max(matches_t.c.id))
                                 .where(matches_t.c.ladder == ladder)).scalar()
        return int(found or 0)

    def void_attempts(self, ladder: str) -> list[VoidAttempt]:
        """Every void attempt of the ladder (matches the cluster gave up on), in recording
        order."""
        with self._read() as conn:
            rows = conn.execute(
                select(void_attempts_t).where(void_attempts_t.c.ladder == ladder)
                .order_by(void_attempts_t.c.id)
            ).mappings().all()
        return [_void_attempt(r) for r in rows]

    def live_elo(self, ladder: str) -> dict[str, float]:
        """The latest live Elo of every rated bot of the ladder."""
        with self._read() as conn:
            rows = conn.execute(
                select(ratings_t.c.bot, ratings_t.c.rating)
                .where(ratings_t.c.ladder == ladder).order_by(ratings_t.c.id)
            ).all()
        return {bot: float(rating) for bot, rating in rows}

    def elo_history(self, ladder: str) -> list[tuple[str, str, float, float]]:
        """(match id, bot, rating after, delta) rows in application order."""
        with self._read() as conn:
            rows = conn.execute(
                select(matches_t.c.match_id, ratings_t.c.bot, ratings_t.c.rating, ratings_t.c.delta)
                .join(matches_t, matches_t.c.id == ratings_t.c.match_row)
                .where(ratings_t.c.ladder == ladder).order_by(ratings_t.c.id)
            ).all()
        return [(m, b, float(r), float(d)) for m, b, r, d in rows]

    def bot_rows(self) -> list[dict[str, Any]]:
        """Every bot version ever recorded."""
        with self._read() as conn:
            return [dict(r) for r in conn.execute(select(bots_t).order_by(bots_t.c.id)).mappings()]


def _shown(url: str) -> str:
    """The URL with its password masked (for messages)."""
    try:
        return make_url(url).render_as_string(hide_password=True)
    except SQLAlchemyError:
        return "<an invalid database URL>"


def _primary_key(result: CursorResult[Any]) -> int:
    key = result.inserted_primary_key
    if key is None:  # pragma: no cover - every table here has an integer key
        raise StoreError("the database returned no primary key")
    return int(key[0])


def _stored(r: Any) -> StoredMatch:
    rounds = r["rounds"] if not isinstance(r["rounds"], str) else json.loads(r["rounds"])
    return StoredMatch(
        match_id=r["match_id"], encounter_id=r["encounter_id"], cycle=int(r["cycle"]),
        leg=int(r["leg"]), game=r["game"], game_version=int(r["game_version"]),
        seed=int(r["seed"]), bots=(r["bot0"], r["bot1"]), winner=r["winner"],
        termination=Termination(r["termination"]), faulty_seat=r["faulty_seat"],
        void=bool(r["void"]), detail=r["detail"] or "",
        rounds=tuple((int(a), int(b)) for a, b in rounds),
        totals=(int(r["total0"]), int(r["total1"])), log_path=r["log_path"],
        duration_s=float(r["duration_s"]), finished_at=float(r["finished_at"]),
        versions=(r["version0"] or "", r["version1"] or ""),
        identities=(r["identity0"] or "", r["identity1"] or ""),
    )


def _void_attempt(r: Any) -> VoidAttempt:
    return VoidAttempt(
        match_id=r["match_id"], encounter_id=r["encounter_id"], cycle=int(r["cycle"]),
        leg=int(r["leg"]), game=r["game"], seed=int(r["seed"]), bots=(r["bot0"], r["bot1"]),
        termination=Termination(r["termination"]), detail=r["detail"] or "",
        started_at=None if r["started_at"] is None else float(r["started_at"]),
        finished_at=float(r["finished_at"]),
    )
