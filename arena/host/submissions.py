"""The submission book: every remote submission, its stages as they happened and the quota
clock, in the competition's database (SQLAlchemy Core; its own ``MetaData``, tables created on
open beside the ladder store's).

A submission moves through the stages of the public API (``SubmissionStage`` in
``proto/arena/v1/competition.proto``), kept here as their names: RECEIVING (the upload is
coming), UPLOADED, BUILT, VALIDATED, ENTERED (in the catalogue as version ``s<id>``), RATED (its
first rated match recorded), or an end: REFUSED (the bot's fault: counts against the daily
quota), FAILED (the server's fault: does not count), CANCELLED (the upload stopped half-way:
nothing kept, not counted). Every move is one transaction: the row's stage and one event row.

Tables: ``competition_submissions`` (one row per submission) and
``competition_submission_events`` (its stages, in order; ``seq`` is the cursor a follower
resumes from).

The quota clock is the database, so it survives restarts: a contestant's submissions in the
last 24 hours are the rows created since then and still counted. Active bots are the distinct
bot names with an entered version; a new name beyond the quota is refused, another version of
an active name is not.
"""

from __future__ import annotations

import builtins
import json
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from sqlalchemy import (
    Boolean,
    Column,
    Connection,
    Engine,
    Float,
    ForeignKey,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    func,
    select,
    update,
)

from arena.bots.names import name_key, shown
from arena.host.config import Quotas
from arena.host.errors import QuotaExceeded
from arena.model import plain_text

RECEIVING, UPLOADED, BUILT, VALIDATED, ENTERED, RATED = (
    "RECEIVING", "UPLOADED", "BUILT", "VALIDATED", "ENTERED", "RATED")
REFUSED, FAILED, CANCELLED = "REFUSED", "FAILED", "CANCELLED"
PROGRESS = (RECEIVING, UPLOADED, BUILT, VALIDATED, ENTERED, RATED)
"""The stages of a submission that goes well, in order."""
ENDS = (RATED, REFUSED, FAILED, CANCELLED)
"""The stages that end a submission (ENTERED does not: its first rated match is awaited)."""
STAGES = (*PROGRESS, REFUSED, FAILED, CANCELLED)
"""Every stage (the names of the proto's ``SubmissionStage``)."""
NOT_COUNTED = (FAILED, CANCELLED)
"""Stages that take a submission off the daily quota (the server's fault, or nothing kept)."""
IN_PIPELINE = (RECEIVING, UPLOADED, BUILT, VALIDATED)
"""Stages the submission pipeline has yet to finish (``Pipeline.recover`` takes them up)."""
WINDOW_S = 24 * 3600.0
"""The daily quota's rolling window."""
KINDS = ("directory", "image")
"""What a submission sends: a tar of a bot directory, or a ``docker save`` stream."""
DETAIL_MAX = 4096
"""The most characters of a stage's detail kept (build output, a bot's output tail)."""
_PG_OPEN_LOCK = 0x41524E53  # "ARNS": serializes quota checks with their inserts

metadata = MetaData()
submissions_t = Table(
    "competition_submissions", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("contestant", String(64), nullable=False, index=True),
    Column("game", String(64), nullable=False),
    Column("name", String(64), nullable=False),
    Column("version", String(64), nullable=False, default=""),
    Column("kind", String(16), nullable=False),
    Column("size", Integer, nullable=False),
    Column("sha256", String(64), nullable=False),
    Column("stage", String(16), nullable=False),
    Column("message", Text, nullable=False, default=""),
    Column("detail", Text, nullable=False, default=""),
    Column("counted", Boolean, nullable=False),
    Column("created", Float, nullable=False),
    Column("updated", Float, nullable=False),
    Column("match_ids", Text, nullable=False, default="[]"),
    Column("image", String(80), nullable=False, default=""),
)
events_t = Table(
    "competition_submission_events", metadata,
    Column("seq", Integer, primary_key=True, autoincrement=True),
    Column("submission_id", Integer, ForeignKey("competition_submissions.id"), nullable=False,
           index=True),
    Column("stage", String(16), nullable=False),
    Column("message", Text, nullable=False),
    Column("detail", Text, nullable=False),
    Column("version", String(64), nullable=False),
    Column("match_ids", Text, nullable=False),
    Column("at", Float, nullable=False),
)


@dataclass(frozen=True)
class SubmissionRow:
    """One submission as the book holds it."""

    id: int
    """Its number (its catalogue version is ``s<id>``)."""
    contestant: str
    """Who sent it."""
    game: str
    """The game it plays ("" until known: the server may learn it from bot.toml)."""
    name: str
    """The bot's name ("" until known: from bot.toml)."""
    version: str
    """The catalogue version it became ("" before BUILT)."""
    kind: str
    """One of :data:`KINDS`."""
    size: int
    """The payload's size in bytes (as the client announced it, then as counted)."""
    sha256: str
    """The payload's SHA-256 (hex)."""
    stage: str
    """Its current stage (one of :data:`STAGES`)."""
    message: str
    """The latest stage's words (the reason of a refusal or failure)."""
    detail: str
    """The latest stage's detail (a refusal's build lines or output tail)."""
    counted: bool
    """Counted against the daily quota."""
    created: float
    """When it was opened (seconds since the epoch): the quota clock."""
    updated: float
    """When it last moved."""
    match_ids: tuple[str, ...]
    """Its validation matches and its first rated matches, in the order they came."""
    image: str = ""
    """The id of the image it was built or loaded as ("" before BUILT)."""

    @property
    def final(self) -> bool:
        """Whether it has ended (see :data:`ENDS`)."""
        return self.stage in ENDS


@dataclass(frozen=True)
class StageEvent:
    """One move of a submission (what ``FollowSubmission`` streams)."""

    seq: int
    """The event's place in the book (a follower's cursor)."""
    submission_id: int
    """The submission it moved."""
    stage: str
    """The stage it reached."""
    message: str
    """What happened, in words."""
    detail: str
    """A refusal's or failure's detail."""
    version: str
    """The submission's catalogue version ("" before BUILT)."""
    match_ids: tuple[str, ...]
    """The matches this stage is about."""
    at: float
    """When (seconds since the epoch)."""
    name: str = ""
    """The submission's bot name."""

    @property
    def final(self) -> bool:
        """Whether the submission ended with this event."""
        return self.stage in ENDS


def bounded(text: str, limit: int = DETAIL_MAX) -> str:
    """The last ``limit`` characters of ``text`` (a tail is what tells why), marked as cut."""
    return text if len(text) <= limit else "…" + text[-(limit - 1):]


def _row(r: Any) -> SubmissionRow:
    return SubmissionRow(
        id=int(r.id), contestant=r.contestant, game=r.game, name=r.name, version=r.version,
        kind=r.kind, size=int(r.size), sha256=r.sha256, stage=r.stage, message=r.message,
        detail=r.detail, counted=bool(r.counted), created=float(r.created),
        updated=float(r.updated), match_ids=tuple(json.loads(r.match_ids)), image=r.image)


def _event(r: Any, name: str) -> StageEvent:
    return StageEvent(seq=int(r.seq), submission_id=int(r.submission_id), stage=r.stage,
                      message=r.message, detail=r.detail, version=r.version,
                      match_ids=tuple(json.loads(r.match_ids)), at=float(r.at), name=name)


def _check_move(row: SubmissionRow, stage: str) -> None:
    """``ValueError`` unless ``row`` may move to ``stage``: an unfinished submission moves
    forward (or stays, to say more), or to an end; an ended one never moves."""
    if stage not in STAGES or stage == RECEIVING:
        raise ValueError(f"no submission moves to the stage {stage!r}")
    if row.final:
        raise ValueError(f"submission {row.id} has ended ({row.stage}): it cannot move to "
                         f"{stage}")
    if stage in PROGRESS and PROGRESS.index(stage) < PROGRESS.index(row.stage):
        raise ValueError(f"submission {row.id} is {row.stage}: it cannot go back to {stage}")


class SubmissionBook:
    """The competition's submissions (see the module doc). Thread-safe: every call is its own
    transaction."""

    def __init__(self, engine: Engine) -> None:
        """Use ``engine`` (the competition's database; its tables are created if need be)."""
        self.engine = engine
        self.is_postgresql = engine.dialect.name == "postgresql"
        with engine.begin() as conn:
            metadata.create_all(conn)

    @contextmanager
    def _read(self) -> Iterator[Connection]:
        with self.engine.connect().execution_options(arena_read=True) as conn:
            yield conn

    @contextmanager
    def _write(self) -> Iterator[Connection]:
        """A write transaction; quota checks and inserts one at a time (SQLite: the engine's
        ``BEGIN IMMEDIATE``; PostgreSQL: an advisory lock held until commit)."""
        with self.engine.begin() as conn:
            if self.is_postgresql:
                conn.execute(select(func.pg_advisory_xact_lock(_PG_OPEN_LOCK)))
            yield conn

    # --- quotas ----------------------------------------------------------------------------
    def used_today(self, contestant: str, now: float | None = None) -> int:
        """The contestant's counted submissions in the 24 hours before ``now``."""
        with self._read() as conn:
            return self._used(conn, contestant, time.time() if now is None else now)

    @staticmethod
    def _used(conn: Connection, contestant: str, now: float) -> int:
        return int(conn.execute(select(func.count()).select_from(submissions_t).where(
            submissions_t.c.contestant == contestant, submissions_t.c.counted.is_(True),
            submissions_t.c.created > now - WINDOW_S)).scalar_one())

    def entered_names(self, contestant: str) -> tuple[str, ...]:
        """The bot names the contestant has an entered (or rated) version of, sorted."""
        with self._read() as conn:
            return self._entered(conn, contestant)

    def entries(self, game: str) -> builtins.list[tuple[str, str]]:
        """(name, version) of every bot of ``game`` entered (or rated), its latest entered
        version, in the order the names were first entered: the entrants of the game's ladder
        besides the house's, as the server hands them over when it starts."""
        query = (select(submissions_t.c.name, submissions_t.c.version)
                 .where(submissions_t.c.game == game,
                        submissions_t.c.stage.in_((ENTERED, RATED)))
                 .order_by(submissions_t.c.id))
        with self._read() as conn:
            latest = {str(r.name): str(r.version) for r in conn.execute(query)}
        return list(latest.items())

    @staticmethod
    def _entered(conn: Connection, contestant: str) -> tuple[str, ...]:
        names = conn.execute(select(submissions_t.c.name).distinct().where(
            submissions_t.c.contestant == contestant,
            submissions_t.c.stage.in_((ENTERED, RATED)))).scalars()
        return tuple(sorted(str(n) for n in names))

    def quota_problem(self, contestant: str, quotas: Quotas, *, name: str = "",
                      owned_entered: Sequence[str] = (), now: float | None = None) -> str | None:
        """Why the contestant may not submit now (a sentence saying when they may), or None.
        ``name`` is the bot's ("" when not yet known: the active-bots rule is then checked
        once it is); ``owned_entered`` adds names entered outside the book (the operator's)."""
        with self._read() as conn:
            return self._problem(conn, contestant, quotas, name, owned_entered,
                                 time.time() if now is None else now)

    def _problem(self, conn: Connection, contestant: str, quotas: Quotas, name: str,
                 owned_entered: Sequence[str], now: float) -> str | None:
        used = self._used(conn, contestant, now)
        if used >= quotas.submissions_per_day:
            oldest = conn.execute(select(func.min(submissions_t.c.created)).where(
                submissions_t.c.contestant == contestant, submissions_t.c.counted.is_(True),
                submissions_t.c.created > now - WINDOW_S)).scalar_one()
            wait = max(0.0, float(oldest) + WINDOW_S - now)
            return (f"quota: {used} submissions in the last 24 hours (the competition allows "
                    f"{quotas.submissions_per_day}): the next one is possible in "
                    f"{_duration(wait)}; submissions the server failed do not count")
        return self._active_problem(self._entered(conn, contestant), quotas, name,
                                    owned_entered)

    @staticmethod
    def _active_problem(entered: Sequence[str], quotas: Quotas, name: str,
                        owned_entered: Sequence[str]) -> str | None:
        active = {name_key(n) for n in (*entered, *owned_entered)}
        if not name or name_key(name) in active or len(active) < quotas.active_bots:
            return None
        return (f"quota: you have {len(active)} active bots (the competition allows "
                f"{quotas.active_bots}): submit a new version of one of them instead of the new "
                f"name {shown(name)}")

    def active_problem(self, contestant: str, quotas: Quotas, name: str,
                       owned_entered: Sequence[str] = ()) -> str | None:
        """Why the contestant may not enter a bot called ``name`` (a new name beyond the
        active-bots quota), or None: checked again once the name is known."""
        return self._active_problem(self.entered_names(contestant), quotas, name, owned_entered)

    # --- writes ----------------------------------------------------------------------------
    def open(self, contestant: str, game: str, name: str, kind: str, size: int, sha256: str,
             *, quotas: Quotas | None = None, owned_entered: Sequence[str] = (),
             now: float | None = None) -> int:
        """Record a new submission (RECEIVING, counted) and return its id. With ``quotas``,
        they are checked in the same transaction (two uploads at once cannot both take the
        last place): :class:`QuotaExceeded` and nothing recorded when they do not allow it."""
        if kind not in KINDS:
            raise ValueError(f"a submission's kind is one of {KINDS}, not {kind!r}")
        at = time.time() if now is None else now
        with self._write() as conn:
            if quotas is not None:
                problem = self._problem(conn, contestant, quotas, name, owned_entered, at)
                if problem is not None:
                    raise QuotaExceeded(problem)
            sid = conn.execute(submissions_t.insert().values(
                contestant=contestant, game=game, name=name, version="", kind=kind, size=size,
                sha256=sha256, stage=RECEIVING, message="", detail="", counted=True,
                created=at, updated=at, match_ids="[]", image="")).inserted_primary_key
            assert sid is not None
            new_id = int(sid[0])
            self._append(conn, new_id, RECEIVING, "receiving the upload", "", "", (), at)
            return new_id

    @staticmethod
    def _append(conn: Connection, sid: int, stage: str, message: str, detail: str,
                version: str, match_ids: Sequence[str], at: float) -> int:
        key = conn.execute(events_t.insert().values(
            submission_id=sid, stage=stage, message=message, detail=detail, version=version,
            match_ids=json.dumps(list(match_ids)), at=at)).inserted_primary_key
        assert key is not None
        return int(key[0])

    def advance(self, sid: int, stage: str, message: str = "", detail: str = "", *,
                version: str | None = None, match_ids: Sequence[str] = (),
                name: str | None = None, game: str | None = None, size: int | None = None,
                sha256: str | None = None, image: str | None = None,
                within: Callable[[Connection], None] | None = None) -> StageEvent:
        """Move submission ``sid`` to ``stage`` (one transaction: the row and its event) and
        return the event. ``message`` and ``detail`` are kept bounded (:data:`DETAIL_MAX`);
        ``version``, ``name``, ``game``, ``size``, ``sha256`` and ``image`` set the row's once
        known;
        ``match_ids`` are added to the row's. FAILED and CANCELLED take it off the quota.
        ``within`` runs in the same transaction before the move (the entry's name claim): what
        it raises undoes both. ``ValueError`` for an unknown id or a move :func:`_check_move`
        refuses."""
        at = time.time()
        message, detail = bounded(plain_text(message), 1024), bounded(plain_text(detail))
        with self._write() as conn:
            found = conn.execute(select(submissions_t).where(submissions_t.c.id == sid)).first()
            if found is None:
                raise ValueError(f"no submission {sid}")
            row = _row(found)
            _check_move(row, stage)
            if within is not None:
                within(conn)
            changes: dict[str, Any] = dict(stage=stage, message=message, detail=detail,
                                           updated=at)
            given = dict(version=version, name=name, game=game, size=size, sha256=sha256,
                         image=image)
            changes.update({k: v for k, v in given.items() if v is not None})
            ids = [*row.match_ids, *(m for m in match_ids if m not in row.match_ids)]
            changes["match_ids"] = json.dumps(ids)
            if stage in NOT_COUNTED:
                changes["counted"] = False
            conn.execute(update(submissions_t).where(submissions_t.c.id == sid).values(**changes))
            shown_version = version if version is not None else row.version
            seq = self._append(conn, sid, stage, message, detail, shown_version, match_ids, at)
        return StageEvent(seq, sid, stage, message, detail, shown_version, tuple(match_ids), at,
                          name if name is not None else row.name)

    # --- reads -----------------------------------------------------------------------------
    def get(self, sid: int) -> SubmissionRow | None:
        """Submission ``sid``, or None."""
        with self._read() as conn:
            found = conn.execute(select(submissions_t).where(submissions_t.c.id == sid)).first()
        return None if found is None else _row(found)

    def list(self, contestant: str, limit: int = 20) -> list[SubmissionRow]:
        """The contestant's latest ``limit`` submissions, newest first."""
        with self._read() as conn:
            rows = conn.execute(select(submissions_t)
                                .where(submissions_t.c.contestant == contestant)
                                .order_by(submissions_t.c.id.desc()).limit(max(0, limit)))
            return [_row(r) for r in rows]

    def events(self, sid: int, after: int = 0) -> builtins.list[StageEvent]:
        """Submission ``sid``'s events after the cursor ``after`` (a ``seq``), in order."""
        with self._read() as conn:
            name = conn.execute(select(submissions_t.c.name)
                                .where(submissions_t.c.id == sid)).scalar()
            rows = conn.execute(select(events_t)
                                .where(events_t.c.submission_id == sid, events_t.c.seq > after)
                                .order_by(events_t.c.seq))
            return [_event(r, str(name or "")) for r in rows]

    def unfinished(self) -> builtins.list[SubmissionRow]:
        """Every submission that has not ended (ENTERED ones too: they await their first
        rated match), oldest first."""
        with self._read() as conn:
            rows = conn.execute(select(submissions_t).where(submissions_t.c.stage.not_in(ENDS))
                                .order_by(submissions_t.c.id))
            return [_row(r) for r in rows]


def _duration(seconds: float) -> str:
    """``seconds`` in words: ``3 h 05 min``, ``12 min``, ``40 s``."""
    s = int(seconds + 0.999)
    if s >= 3600:
        return f"{s // 3600} h {s % 3600 // 60:02d} min"
    if s >= 60:
        return f"{(s + 59) // 60} min"
    return f"{s} s"
