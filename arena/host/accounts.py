"""Contestants, their tokens and the bot names they own, in the competition's database.

A token is ``arena_<id>_<secret>``: ``id`` is 12 hex digits naming the contestant's row, the
secret 43 URL-safe characters (``secrets.token_urlsafe(32)``, 256 random bits). It is shown once,
when the operator adds the contestant (or issues a new one); the database keeps only the id, a
random salt and HMAC-SHA256(salt, secret), so a copy of the database opens no door. A token is
checked with ``hmac.compare_digest``, and a token that is malformed, unknown or revoked costs the
same HMAC as a good one: its answer is None, whatever was wrong.

A contestant owns the bot names it registered first (``claim``, atomic: two contestants racing
for a name get one owner; the server claims a name in the transaction that enters a submission
under it, so a refused or cancelled submission claims nothing) or that the operator assigned to
it (``assign``). Names are compared
as the catalogue compares them (``arena.bots.names.name_key``: ignoring case), so "Victim" is
"victim"'s. Contestant names are identifiers of the same alphabet, unique ignoring case.

Tables (own ``MetaData``, created on open; they live beside the ladder store's tables):
``competition_contestants`` and ``competition_bot_owners``.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from sqlalchemy import (
    Boolean,
    Column,
    Connection,
    Engine,
    Float,
    Integer,
    MetaData,
    String,
    Table,
    delete,
    select,
    update,
)
from sqlalchemy.exc import IntegrityError, SQLAlchemyError

from arena.bots.names import NAME_MAX, NAME_RULE, check_name, name_key, name_problem, shown
from arena.errors import ConfigError
from arena.host.audit import AuditLog
from arena.ladder.store import LadderStore, StoreError

TOKEN_PREFIX = "arena_"
"""Every token starts with this (so a leaked one is easy to spot in a log or a repository)."""
_TOKEN = re.compile(r"arena_([0-9a-f]{12})_([A-Za-z0-9_-]{43})")
_TOKEN_ID = re.compile(r"arena_([0-9a-f]{12})_")
_TOKEN_MAX = 80
"""No well-formed token is longer: anything longer is refused before any work."""
_DUMMY_SALT = secrets.token_hex(16)

metadata = MetaData()
contestants_t = Table(
    "competition_contestants", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("name", String(NAME_MAX), nullable=False, unique=True),
    Column("name_key", String(NAME_MAX), nullable=False, unique=True),
    Column("token_id", String(12), nullable=False, unique=True),
    Column("salt", String(32), nullable=False),
    Column("digest", String(64), nullable=False),
    Column("created", Float, nullable=False),
    Column("revoked", Float, nullable=True),
)
owners_t = Table(
    "competition_bot_owners", metadata,
    Column("name_key", String(NAME_MAX), primary_key=True),
    Column("bot", String(NAME_MAX), nullable=False),
    Column("contestant", String(NAME_MAX), nullable=False, index=True),
    Column("assigned", Boolean, nullable=False),
    Column("at", Float, nullable=False),
)


@dataclass(frozen=True)
class Contestant:
    """A contestant as the operator sees it (never its token)."""

    name: str
    """The contestant's name (an identifier)."""
    created: float
    """When it was added (Unix time)."""
    revoked: float | None
    """When its token was revoked (None: it is valid)."""
    bots: tuple[str, ...]
    """The bot names it owns."""
    disqualified: str | None = None
    """Why it was disqualified (``arena.host.audit``); None: it was not."""


def token_id(token: str) -> str | None:
    """The part of a token that names its contestant's row (its 12 hex digits), or None when the
    text does not start as a token does. Not a secret: it only says whose token was tried."""
    m = _TOKEN_ID.match(token) if isinstance(token, str) else None
    return m.group(1) if m else None


def _digest(salt: str, secret: str) -> str:
    return hmac.new(salt.encode(), secret.encode(), hashlib.sha256).hexdigest()


class Accounts:
    """The contestants of one competition (thread-safe: every call is its own transaction)."""

    def __init__(self, engine: Engine) -> None:
        """Use ``engine`` (its tables are created if need be)."""
        self.engine = engine
        try:
            with engine.begin() as conn:
                metadata.create_all(conn)
        except SQLAlchemyError as exc:
            raise StoreError(f"cannot create the contestants' tables: {exc}") from exc
        self._audit: AuditLog | None = None
        """The audit log (``disqualified``), opened on first use."""

    @classmethod
    def open(cls, url: str) -> Accounts:
        """The accounts of the competition database at ``url`` (a SQLAlchemy URL; SQLite is set
        up as the ladder store sets it up: WAL, so the operator's commands work while the
        server runs). Raises ``StoreError``."""
        return cls(LadderStore(url).engine)

    def close(self) -> None:
        """Release the connections."""
        self.engine.dispose()

    @contextmanager
    def _read(self) -> Iterator[Connection]:
        with self.engine.connect().execution_options(arena_read=True) as conn:
            yield conn

    # --- contestants -----------------------------------------------------------------------
    def add(self, name: str) -> str:
        """Add a contestant; returns its token (shown once: it is not kept). ``ConfigError`` if
        the name is not an identifier or is taken (ignoring case)."""
        problem = name_problem(name)
        if problem is not None:
            raise ConfigError(f"the contestant name {shown(name)} {problem}: "
                              + NAME_RULE.replace("a bot name", "a contestant name", 1))
        token_id, salt, digest, token = self._new_token()
        try:
            with self.engine.begin() as conn:
                conn.execute(contestants_t.insert().values(
                    name=name, name_key=name_key(name), token_id=token_id, salt=salt,
                    digest=digest, created=time.time(), revoked=None))
        except IntegrityError:
            raise ConfigError(f"a contestant named {shown(name)} already exists (names are "
                              "unique ignoring case): `arena contestants reissue` gives it a "
                              "new token") from None
        return token

    def reissue(self, name: str) -> str:
        """A new token for a contestant (the old one stops working; a revoked contestant is
        valid again). ``ConfigError`` if unknown."""
        token_id, salt, digest, token = self._new_token()
        with self.engine.begin() as conn:
            done = conn.execute(update(contestants_t)
                                .where(contestants_t.c.name_key == name_key(name))
                                .values(token_id=token_id, salt=salt, digest=digest,
                                        revoked=None))
        if done.rowcount != 1:
            raise self._unknown(name)
        return token

    @staticmethod
    def _new_token() -> tuple[str, str, str, str]:
        token_id, salt, secret = secrets.token_hex(6), secrets.token_hex(16), \
            secrets.token_urlsafe(32)
        return token_id, salt, _digest(salt, secret), f"{TOKEN_PREFIX}{token_id}_{secret}"

    def list(self) -> list[Contestant]:
        """Every contestant, in the order added."""
        with self._read() as conn:
            rows = conn.execute(select(contestants_t).order_by(contestants_t.c.id)).all()
            owned = conn.execute(select(owners_t.c.contestant, owners_t.c.bot)
                                 .order_by(owners_t.c.bot)).all()
        out = self.disqualified()
        return [Contestant(r.name, r.created, r.revoked,
                           tuple(o.bot for o in owned if o.contestant == r.name),
                           out.get(r.name))
                for r in rows]

    def disqualified(self) -> dict[str, str]:
        """Every disqualified contestant (its name as added) → why (the audit log's say,
        ``arena.host.audit``): the final and the ladders leave their bots out."""
        if self._audit is None:  # its table is made once (a write), then only read
            self._audit = AuditLog(self.engine)
        entries = self._audit.moderation().disqualified.values()
        return {entry.subject: entry.why for entry in entries}

    def revoke(self, name: str) -> None:
        """Revoke a contestant's token (its bots stay its own and keep playing; a revoked
        contestant stays revoked). ``ConfigError`` if unknown."""
        with self.engine.begin() as conn:
            found = conn.execute(select(contestants_t.c.id)
                                 .where(contestants_t.c.name_key == name_key(name))).first()
            if found is None:
                raise self._unknown(name)
            conn.execute(update(contestants_t)
                         .where(contestants_t.c.id == found.id, contestants_t.c.revoked.is_(None))
                         .values(revoked=time.time()))

    def authenticate(self, token: str) -> str | None:
        """The contestant whose valid token this is, else None (malformed, unknown, wrong or
        revoked: one answer). The secret is compared in constant time."""
        m = _TOKEN.fullmatch(token) if isinstance(token, str) and len(token) <= _TOKEN_MAX \
            else None
        token_id, secret = (m.group(1), m.group(2)) if m else ("", "")
        row = None
        if m is not None:
            with self._read() as conn:
                row = conn.execute(select(contestants_t)
                                   .where(contestants_t.c.token_id == token_id)).first()
        salt, stored = (row.salt, row.digest) if row is not None else (_DUMMY_SALT, "")
        good = hmac.compare_digest(_digest(salt, secret), stored)
        if not good or row is None or row.revoked is not None:
            return None
        return str(row.name)

    def active(self, name: str, conn: Connection | None = None) -> bool:
        """Whether ``name`` is a contestant whose token is not revoked (read in ``conn``, a
        caller's transaction, when given): the pipeline asks before each costly stage."""
        query = select(contestants_t.c.revoked).where(contestants_t.c.name == name)
        if conn is not None:
            row = conn.execute(query).first()
        else:
            with self._read() as read:
                row = read.execute(query).first()
        return row is not None and row.revoked is None

    def contestant(self, name: str) -> str:
        """The contestant's name as added (``name`` compared ignoring case); ``ConfigError`` if
        unknown."""
        with self._read() as conn:
            found = conn.execute(select(contestants_t.c.name)
                                 .where(contestants_t.c.name_key == name_key(name))).scalar()
        if found is None:
            raise self._unknown(name)
        return str(found)

    @staticmethod
    def _unknown(name: str) -> ConfigError:
        return ConfigError(f"no contestant named {shown(name)} (`arena contestants list` lists "
                           "them)")

    # --- bot names -------------------------------------------------------------------------
    def owner(self, bot: str) -> str | None:
        """The contestant owning a bot name (ignoring case), or None."""
        with self._read() as conn:
            found = conn.execute(select(owners_t.c.contestant)
                                 .where(owners_t.c.name_key == name_key(bot))).scalar()
        return None if found is None else str(found)

    def claim(self, bot: str, contestant: str, conn: Connection | None = None) -> bool:
        """Register ``bot`` for ``contestant`` if nobody owns it: True if it is the contestant's
        now (or was already), False if it is another's. Atomic (the name's row is unique).
        With ``conn`` (a caller's write transaction), the claim is part of it: undone if that
        transaction is. ``ConfigError`` if the bot name is not one or the contestant unknown."""
        check_name("the bot name", bot, "submission")
        if conn is None:
            with self.engine.begin() as own:
                return self.claim(bot, contestant, own)
        who = conn.execute(select(contestants_t.c.name)
                           .where(contestants_t.c.name_key == name_key(contestant))).scalar()
        if who is None:
            raise self._unknown(contestant)
        owner = select(owners_t.c.contestant).where(owners_t.c.name_key == name_key(bot))
        found = conn.execute(owner).scalar()
        if found is not None:
            return bool(found == who)
        try:
            with conn.begin_nested():  # a racing insert fails alone, not the caller's transaction
                conn.execute(owners_t.insert().values(name_key=name_key(bot), bot=bot,
                                                      contestant=who, assigned=False,
                                                      at=time.time()))
        except IntegrityError:
            return bool(conn.execute(owner).scalar() == who)
        return True

    def assign(self, bot: str, contestant: str) -> None:
        """The operator's say: ``bot`` is ``contestant``'s from now on (whoever owned it).
        ``ConfigError`` if the bot name is not one, the contestant unknown or disqualified."""
        check_name("the bot name", bot, "contestants assign")
        who = self.contestant(contestant)
        out = self.disqualified().get(who)
        if out is not None:
            raise ConfigError(f"{who} is disqualified ({out}): a bot name given to it would "
                              "not play")
        with self.engine.begin() as conn:
            conn.execute(delete(owners_t).where(owners_t.c.name_key == name_key(bot)))
            conn.execute(owners_t.insert().values(name_key=name_key(bot), bot=bot,
                                                  contestant=who, assigned=True, at=time.time()))

    def bots_of(self, contestant: str) -> tuple[str, ...]:
        """The bot names a contestant owns (sorted)."""
        with self._read() as conn:
            found = conn.execute(select(owners_t.c.bot)
                                 .where(owners_t.c.contestant == contestant)
                                 .order_by(owners_t.c.bot)).scalars()
            return tuple(str(b) for b in found)
