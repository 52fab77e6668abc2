"""Scrimmages: unrated matches a contestant asks for (``arena challenge --server URL
mybot@VERSION rival``), and their quota, in the competition's database (table
``competition_scrimmages``, beside the ladder store's).

A scrimmage is one duplicate encounter (two matches, one deal seed, the seats swapped) of one of
the contestant's bots, at a version the ladder has played (or its current one), against a bot
of the ladder at its current version. It is played on the ladder's players beside the ladder's
matches (``arena.host.extras``: at most ``[scrimmages] share`` of them while the ladder has
matches to play) and recorded under ``<ladder>:scrimmages``: the ladder's schedule and its
ratings never see it.

The quota (``[scrimmages]``): ``per_hour`` scrimmages per contestant in a rolling hour (every
one asked for counts), and at most ``outstanding`` of one contestant against one opponent not
played yet. Each is checked in the transaction that records the scrimmage, so two calls at once
cannot both pass the last place; a refusal says when the next is possible. The clock is the
database, so a restart does not reset it, and a scrimmage not played yet when the server is
killed is played after its next start (its match ids and seed are derived from its number).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from sqlalchemy import (
    Column,
    Connection,
    Engine,
    Float,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    func,
    select,
    update,
)
from sqlalchemy.exc import SQLAlchemyError

from arena.bots.names import NAME_MAX, name_key
from arena.host.config import Scrimmages
from arena.host.errors import QuotaExceeded
from arena.ladder.store import StoreError

HOUR_S = 3600.0

metadata = MetaData()
scrimmages_t = Table(
    "competition_scrimmages", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("contestant", String(NAME_MAX), nullable=False, index=True),
    Column("game", String(50), nullable=False),
    Column("bot", String(NAME_MAX), nullable=False),
    Column("version", String(100), nullable=False, default=""),
    Column("rival", String(NAME_MAX), nullable=False),
    Column("rival_key", String(NAME_MAX), nullable=False),
    Column("created", Float, nullable=False),
    Column("ended", Float, nullable=True),
    Column("outcome", Text, nullable=False, default=""),
)


@dataclass(frozen=True)
class Scrimmage:
    """One scrimmage as the book holds it."""

    id: int
    contestant: str
    game: str
    bot: str
    version: str
    """The version asked for ("": the bot's current one)."""
    rival: str
    created: float
    ended: float | None
    """When it was played (or dropped); None while it waits."""
    outcome: str
    """"played", or why it was dropped."""

    def encounter(self, ladder_slug: str) -> str:
        """Its encounter id (its two matches are ``<encounter>-l0`` and ``-l1``)."""
        return f"{ladder_slug}-scrim{self.id:06d}"


class ScrimmageBook:
    """The scrimmages of one competition (thread-safe: every call is its own transaction)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        try:
            with engine.begin() as conn:
                metadata.create_all(conn)
        except SQLAlchemyError as exc:
            raise StoreError(f"cannot create the scrimmages' table: {exc}") from exc

    @contextmanager
    def _read(self) -> Iterator[Connection]:
        with self.engine.connect().execution_options(arena_read=True) as conn:
            yield conn

    def open(self, contestant: str, game: str, bot: str, version: str, rival: str,
             quota: Scrimmages, now: float | None = None) -> tuple[Scrimmage, int]:
        """Record a scrimmage within the quota; returns it and how many more the contestant
        may ask for in the rolling hour. ``QuotaExceeded`` (one line: when the next is
        possible) over it."""
        now = time.time() if now is None else now
        with self.engine.begin() as conn:
            recent = conn.execute(
                select(scrimmages_t.c.created)
                .where(scrimmages_t.c.contestant == contestant,
                       scrimmages_t.c.created > now - HOUR_S)
                .order_by(scrimmages_t.c.created)).scalars().all()
            if len(recent) >= quota.per_hour:
                free = recent[len(recent) - quota.per_hour] + HOUR_S
                raise QuotaExceeded(
                    f"{quota.per_hour} scrimmages an hour is the quota and you asked for "
                    f"{len(recent)} in the last hour: the next is possible at "
                    f"{_utc(free)} (in {_wait(free - now)})")
            waiting = conn.execute(
                select(func.count()).select_from(scrimmages_t)
                .where(scrimmages_t.c.contestant == contestant,
                       scrimmages_t.c.rival_key == name_key(rival),
                       scrimmages_t.c.ended.is_(None))).scalar() or 0
            if waiting >= quota.outstanding:
                raise QuotaExceeded(
                    f"{waiting} of your scrimmages against {rival} wait to be played (at most "
                    f"{quota.outstanding}): the next is possible once one is played (`arena "
                    "matches --server ... --scrimmages` lists them)")
            result = conn.execute(scrimmages_t.insert().values(
                contestant=contestant, game=game, bot=bot, version=version, rival=rival,
                rival_key=name_key(rival), created=now, ended=None, outcome=""))
            key = result.inserted_primary_key
            sid = int(key[0]) if key is not None else 0
        return (Scrimmage(sid, contestant, game, bot, version, rival, now, None, ""),
                quota.per_hour - len(recent) - 1)

    def waiting(self) -> list[Scrimmage]:
        """Every scrimmage not played yet, oldest first."""
        with self._read() as conn:
            rows = conn.execute(select(scrimmages_t).where(scrimmages_t.c.ended.is_(None))
                                .order_by(scrimmages_t.c.id)).all()
        return [_scrimmage(r) for r in rows]

    def end(self, sid: int, outcome: str) -> None:
        """Scrimmage ``sid`` was played ("played") or dropped (why)."""
        with self.engine.begin() as conn:
            conn.execute(update(scrimmages_t)
                         .where(scrimmages_t.c.id == sid, scrimmages_t.c.ended.is_(None))
                         .values(ended=time.time(), outcome=outcome[:500]))


def _scrimmage(r: object) -> Scrimmage:
    row = r._mapping  # type: ignore[attr-defined]
    return Scrimmage(int(row["id"]), str(row["contestant"]), str(row["game"]), str(row["bot"]),
                     str(row["version"] or ""), str(row["rival"]), float(row["created"]),
                     None if row["ended"] is None else float(row["ended"]),
                     str(row["outcome"] or ""))


def _utc(at: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(at))


def _wait(seconds: float) -> str:
    seconds = max(1, int(seconds + 0.999))
    minutes, rest = divmod(seconds, 60)
    return f"{minutes} min {rest} s" if minutes else f"{rest} s"
