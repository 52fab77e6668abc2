"""The operator's moderation of a competition and its append-only audit log, in the
competition's database (table ``competition_audit``, beside the ladder store's tables).

Three actions, each one entry of the log, written in one transaction with the checks it depends
on (``BEGIN IMMEDIATE``: two operators acting at once are put in order):

* ``disqualify`` a contestant (``arena contestants disqualify NAME --why``): the bots it owns
  leave the ladders at once (``Withdrawn``) and the final; their matches stay in the record,
  marked, and the standings are fitted without them;
* ``void`` a recorded match (``arena host void MATCH --why``): it leaves the standings and stays
  in the record, marked void;
* ``rerun`` a void match (``arena host rerun MATCH``): it is played again, same bots, same
  seats, same deal seed, as ``<MATCH>-rerun<n>``; once recorded, the rerun stands in the
  standings where the void match stood.

Nothing else changes any table: the record is append-only (``arena.ladder.store``) and so is
this log (triggers refuse UPDATE and DELETE, and TRUNCATE on PostgreSQL, as for the store),
so the state of every action is a function of the log and the matches (``Moderation``). The
operator's commands only append an entry; the running server reads new entries every second
and applies them (``arena.host.server``), and a server started again (after ``kill -9`` too)
applies the whole log before its ladders start: nothing an operator did is lost or applied
twice. The log is published with the results (``audit.json`` on the competition's public page,
and in a final's signed manifest: every entry but the operator's login name).
"""

from __future__ import annotations

import getpass
import json
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy import (
    JSON,
    Column,
    Connection,
    Engine,
    Float,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    select,
)
from sqlalchemy.exc import SQLAlchemyError

from arena.bots.manifest import load_bot_dir
from arena.bots.names import name_key
from arena.errors import ArenaError, ConfigError
from arena.ladder.store import StoredMatch, StoreError, postgres_append_only, writer_lock

DISQUALIFY, VOID, RERUN = "disqualify", "void", "rerun"
ACTIONS = (DISQUALIFY, VOID, RERUN)
RERUN_SUFFIX = "-rerun"
"""A rerun's match id is the void match's, then this and its number (1, 2, ...)."""
RERUNS, SCRIMMAGES = "reruns", "scrimmages"
"""The store's ladder of a hosted ladder's reruns is ``<ladder>:reruns`` (its scrimmages':
``<ladder>:scrimmages``): apart from the ladder's own matches, which its schedule reads."""
WHY_MAX = 500

metadata = MetaData()
audit_t = Table(
    "competition_audit", metadata,
    Column("seq", Integer, primary_key=True, autoincrement=True),
    Column("at", Float, nullable=False),
    Column("action", String(20), nullable=False),
    Column("subject", String(200), nullable=False),
    Column("why", Text, nullable=False, default=""),
    Column("operator", String(100), nullable=False, default=""),
    Column("detail", JSON, nullable=False),
)
_TRIGGERS = [
    f"CREATE TRIGGER IF NOT EXISTS competition_audit_no_{op.lower()} BEFORE {op} ON "
    f"competition_audit BEGIN SELECT RAISE(ABORT, 'competition_audit is append-only'); END"
    for op in ("UPDATE", "DELETE")
]


def entrant_name(ref: str) -> str:
    """The bot name of a ladder's or a final's entrant (a submitted bot's name, with or
    without ``@version``, or a house bot's directory: its bot.toml's name)."""
    if "/" not in ref and "\\" not in ref:
        return ref.split("@", 1)[0]
    try:
        return load_bot_dir(Path(ref)).name
    except (ArenaError, OSError):
        return Path(ref).name


def extra_ladder(ladder: str, kind: str) -> str:
    """The store's ladder name of a hosted ladder's reruns or scrimmages."""
    return f"{ladder}:{kind}"


@dataclass(frozen=True)
class Entry:
    """One entry of the audit log."""

    seq: int
    at: float
    action: str
    subject: str
    """The contestant (disqualify) or the match id (void, rerun)."""
    why: str
    operator: str
    """Who ran the command (the login name of the process)."""
    detail: Mapping[str, Any]
    """What the action applies to: the contestant's bots (disqualify); the match's ladder
    (void, rerun) and the rerun's match id (rerun)."""

    def public(self) -> dict[str, Any]:
        """The entry as published (``audit.json``): everything but the operator's login."""
        return {"seq": self.seq, "at": self.at,
                "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(self.at)),
                "action": self.action, "subject": self.subject, "why": self.why,
                "detail": dict(self.detail)}


@dataclass(frozen=True)
class Moderation:
    """What the audit log says now (a pure function of its entries)."""

    disqualified: Mapping[str, Entry] = field(default_factory=dict)
    """Contestant (name key) → its disqualification."""
    bots: Mapping[str, str] = field(default_factory=dict)
    """Bot name (name key) of a disqualified contestant → the contestant."""
    voided: Mapping[str, Entry] = field(default_factory=dict)
    """Match id → its void entry."""
    reruns: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    """Void match id → the match ids of its reruns, in order."""
    rerun_of: Mapping[str, str] = field(default_factory=dict)
    """Rerun match id → the match it reruns."""

    @classmethod
    def of(cls, entries: Sequence[Entry]) -> Moderation:
        disqualified: dict[str, Entry] = {}
        bots: dict[str, str] = {}
        voided: dict[str, Entry] = {}
        reruns: dict[str, tuple[str, ...]] = {}
        rerun_of: dict[str, str] = {}
        for entry in entries:
            if entry.action == DISQUALIFY:
                disqualified[name_key(entry.subject)] = entry
                for bot in entry.detail.get("bots", ()):
                    bots[name_key(str(bot))] = entry.subject
            elif entry.action == VOID:
                voided[entry.subject] = entry
            elif entry.action == RERUN:
                rerun = str(entry.detail.get("rerun", ""))
                reruns[entry.subject] = (*reruns.get(entry.subject, ()), rerun)
                rerun_of[rerun] = entry.subject
        return cls(disqualified, bots, voided, reruns, rerun_of)

    def out(self, bots: Sequence[str]) -> str | None:
        """The disqualified contestant one of ``bots`` (names, or ``name@version`` keys)
        belongs to, or None."""
        for bot in bots:
            who = self.bots.get(name_key(bot.split("@", 1)[0]))
            if who is not None:
                return who
        return None

    def mark(self, match: StoredMatch) -> str:
        """What moderation says of a recorded match, in words ("" : nothing)."""
        notes = []
        who = self.out(match.bots)
        if who is not None:
            notes.append(f"disqualified: {who} ({self.disqualified[name_key(who)].why})")
        voided = self.voided.get(match.match_id)
        if voided is not None:
            notes.append(f"voided: {voided.why}")
        if match.match_id in self.rerun_of:
            notes.append(f"rerun of {self.rerun_of[match.match_id]}")
        if self.reruns.get(match.match_id):
            notes.append(f"rerun as {self.reruns[match.match_id][-1]}")
        return "; ".join(notes)

    def standing(self, matches: Sequence[StoredMatch], reruns: Mapping[str, StoredMatch],
                 drop: bool = True) -> list[StoredMatch]:
        """The matches the standings are fitted from: ``matches`` (a ladder's, in order)
        without those of disqualified contestants' bots (``drop``; else marked void: the
        public page lists them), each void one (voided here, or void when recorded) replaced
        by its latest rerun still standing (``reruns``: recorded reruns by match id; a rerun
        takes its original's place, encounter and leg), the other voided ones marked void."""
        out = []
        for match in matches:
            rerun = next((reruns[r] for r in reversed(self.reruns.get(match.match_id, ()))
                          if r in reruns and r not in self.voided), None)
            if rerun is not None:
                match = _in_place_of(rerun, match)
            elif match.match_id in self.voided and not match.void:
                match = _replace(match, void=True)
            if self.out(match.bots) is None:
                out.append(match)
            elif not drop:
                out.append(_replace(match, void=True))
        return out


def _replace(match: StoredMatch, **changes: Any) -> StoredMatch:
    from dataclasses import replace

    return replace(match, **changes)


def _in_place_of(rerun: StoredMatch, original: StoredMatch) -> StoredMatch:
    return _replace(rerun, encounter_id=original.encounter_id, cycle=original.cycle,
                    leg=original.leg)


class AuditLog:
    """The audit log of one competition (thread-safe: every call is its own transaction)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        try:
            with engine.begin() as conn:
                metadata.create_all(conn)
                if engine.dialect.name == "sqlite":
                    for ddl in _TRIGGERS:
                        conn.exec_driver_sql(ddl)
                elif engine.dialect.name == "postgresql":
                    postgres_append_only(conn, ("competition_audit",))
        except SQLAlchemyError as exc:
            raise StoreError(f"cannot create the audit log's table: {exc}") from exc

    @contextmanager
    def _read(self) -> Iterator[Connection]:
        with self.engine.connect().execution_options(arena_read=True) as conn:
            yield conn

    @contextmanager
    def writing(self) -> Iterator[Connection]:
        """A write transaction (the checks of an action, then its entry, in one), one writer
        at a time (SQLite: ``BEGIN IMMEDIATE``; PostgreSQL: the store's writer lock)."""
        with self.engine.begin() as conn:
            writer_lock(conn)
            yield conn

    def append(self, conn: Connection, action: str, subject: str, why: str,
               detail: Mapping[str, Any]) -> Entry:
        """Append an entry in ``conn`` (a ``writing`` transaction)."""
        if action not in ACTIONS:
            raise ValueError(f"not an audit action: {action!r}")
        at = time.time()
        operator = _operator()
        result = conn.execute(audit_t.insert().values(
            at=at, action=action, subject=subject, why=why, operator=operator,
            detail=dict(detail)))
        key = result.inserted_primary_key
        seq = int(key[0]) if key is not None else 0
        return Entry(seq, at, action, subject, why, operator, dict(detail))

    def entries(self, after: int = 0, conn: Connection | None = None) -> list[Entry]:
        """The entries after ``after`` (a ``seq``), in order."""
        query = select(audit_t).where(audit_t.c.seq > after).order_by(audit_t.c.seq)
        if conn is not None:
            rows = conn.execute(query).mappings().all()
        else:
            with self._read() as read:
                rows = read.execute(query).mappings().all()
        return [Entry(int(r["seq"]), float(r["at"]), str(r["action"]), str(r["subject"]),
                      str(r["why"] or ""), str(r["operator"] or ""),
                      r["detail"] if isinstance(r["detail"], dict)
                      else json.loads(r["detail"] or "{}"))
                for r in rows]

    def moderation(self, conn: Connection | None = None) -> Moderation:
        """What the whole log says now."""
        return Moderation.of(self.entries(0, conn))

    def published(self) -> bytes:
        """The whole log as published with the results (JSON: ``Entry.public``)."""
        entries = [entry.public() for entry in self.entries()]
        return (json.dumps({"audit": entries}, indent=1) + "\n").encode()


def check_why(why: str | None, action: str) -> str:
    """The reason an operator gave, checked: required, one line, at most ``WHY_MAX``
    characters. ``ConfigError`` otherwise."""
    text = " ".join((why or "").split())
    if not text:
        raise ConfigError(f"say why (--why TEXT): every {action} is published in the audit log")
    if len(text) > WHY_MAX:
        raise ConfigError(f"--why is {len(text)} characters; at most {WHY_MAX}")
    return text


def _operator() -> str:
    try:
        return getpass.getuser()[:100]
    except (KeyError, OSError):
        return ""
