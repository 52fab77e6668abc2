"""A competition's season: its phases, the phase it is in, the time left, and each contestant's
final selections (``[season]`` and ``[final] selections`` of the competition file).

The phases, in order, only ever forward:

* ``open``: submissions are accepted and the continuous ladder plays every entered bot's latest
  version; contestants select the versions the final will play (``Select``);
* ``frozen`` (the deadline): no new submission (one sent before it is still built, validated
  and entered), no new selection; the ladder plays on among the selected versions (and the
  house's bots) only;
* ``final``: the continuous ladder stops; the final tournament plays the selected versions;
* ``closed``: the results are published; nothing plays.

Each of ``frozen``, ``final`` and ``closed`` starts at the UTC time ``[season]`` gives it, or
when the operator starts it (``arena phase PHASE -c FILE``, also early: a scheduled phase may
be started before its time); starting a phase passes the ones before it. A competition file
without ``[season]`` is open for good (a continuous ladder, as before seasons).

What happened is kept in the competition's database (``competition_season``: each phase
entered, when, and how), so a server restarted after ``kill -9`` is in the phase it was in (or
a later one, if its time came meanwhile). The phase at a moment is the later of the last one
recorded and the last one whose scheduled time has passed: a submission is refused from the
deadline's second, whether or not the server has recorded the freeze yet.

Selections (``competition_selections``): a contestant selects up to ``selections`` versions
per game (``[final] selections``, default 2), each one of their own entered submissions; a new
selection of a game replaces the old. A contestant who selected nothing in a game has their
latest entered version of it selected. Selections change only while the season is open.
"""

from __future__ import annotations

import builtins
import enum
import time
from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy import (
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
)

from arena.bots.names import name_key
from arena.errors import ConfigError
from arena.host.config import DEFAULT_SELECTIONS, SeasonPlan
from arena.host.submissions import ENTERED, RATED, submissions_t

SCHEDULED, OPERATOR = "schedule", "operator"
"""How a phase began: its time in ``[season]`` came, or the operator started it."""


class Phase(enum.StrEnum):
    """A season's phases, in order."""

    OPEN = "open"
    FROZEN = "frozen"
    FINAL = "final"
    CLOSED = "closed"

    @property
    def rank(self) -> int:
        """Its place in the season (open 0 ... closed 3)."""
        return PHASES.index(self)

    @property
    def next(self) -> Phase | None:
        """The phase after it (None after closed)."""
        return PHASES[self.rank + 1] if self.rank + 1 < len(PHASES) else None


PHASES: tuple[Phase, ...] = tuple(Phase)
STARTED = PHASES[1:]
"""The phases that start at a time or by the operator (open is the season's start)."""
LADDER_STOPS = (Phase.FINAL, Phase.CLOSED)
"""The phases in which the continuous ladder plays nothing."""


class SeasonRefusal(ConfigError):
    """A call the season's phase does not allow (a submission after the deadline, a selection
    after the freeze): one line saying why, and when it closed."""


def scheduled(plan: SeasonPlan, now: float) -> Phase:
    """The last phase whose scheduled time in ``plan`` has come at ``now`` (open before
    any)."""
    reached = Phase.OPEN
    for phase in STARTED:
        at = plan.start_of(phase.value)
        if at is not None and at <= now:
            reached = phase
    return reached


@dataclass(frozen=True)
class Transition:
    """A phase the competition entered."""

    phase: Phase
    at: float
    """When (seconds since the epoch): its scheduled time, or when the operator started it."""
    how: str
    """``SCHEDULED`` or ``OPERATOR``."""


@dataclass(frozen=True)
class Status:
    """Where the season is at a moment."""

    phase: Phase
    since: float
    """When the phase began (0: open since the start)."""
    next: Phase | None
    """The phase after it (None when closed, or without a season)."""
    next_at: float | None
    """When ``next`` is scheduled to start (None: when the operator starts it)."""
    left_s: float | None
    """Seconds until ``next_at`` (None without one)."""
    seasonal: bool
    """Whether the competition has a season."""

    def words(self) -> str:
        """The phase and the time left, in words (``frozen; the final in 12 min (at
        2026-12-03 10:00:00 UTC)``)."""
        if not self.seasonal:
            return "open (no season: the ladder runs on)"
        said = self.phase.value + (f" since {utc(self.since)}" if self.since else "")
        if self.next is None:
            return said
        if self.next_at is None:
            return f"{said}; {self.next.value} when the operator starts it"
        return (f"{said}; {self.next.value} in {duration(self.left_s or 0.0)} "
                f"(at {utc(self.next_at)})")


@dataclass(frozen=True)
class Selected:
    """A version the final plays."""

    contestant: str
    game: str
    name: str
    version: str
    explicit: bool
    """Selected by the contestant (False: their latest entered version, by default)."""

    @property
    def ref(self) -> str:
        """``name@version``."""
        return f"{self.name}@{self.version}"


metadata = MetaData()
season_t = Table(
    "competition_season", metadata,
    Column("seq", Integer, primary_key=True, autoincrement=True),
    Column("phase", String(16), nullable=False),
    Column("at", Float, nullable=False),
    Column("how", String(16), nullable=False),
)
selections_t = Table(
    "competition_selections", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("contestant", String(64), nullable=False, index=True),
    Column("game", String(64), nullable=False),
    Column("name", String(64), nullable=False),
    Column("version", String(64), nullable=False),
    Column("at", Float, nullable=False),
)


def utc(at: float) -> str:
    """A time as ``2026-12-03 09:00:00 UTC``."""
    return datetime.fromtimestamp(at, UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def duration(seconds: float) -> str:
    """Seconds in words: ``2 d 03 h``, ``3 h 05 min``, ``12 min``, ``40 s``."""
    s = max(0, int(seconds + 0.999))
    if s >= 86400:
        return f"{s // 86400} d {s % 86400 // 3600:02d} h"
    if s >= 3600:
        return f"{s // 3600} h {s % 3600 // 60:02d} min"
    if s >= 60:
        return f"{s // 60} min {s % 60:02d} s" if s < 600 else f"{(s + 59) // 60} min"
    return f"{s} s"


def parse_ref(text: str) -> tuple[str, str]:
    """(name, version) of ``NAME@VERSION``; ``ConfigError`` for anything else."""
    name, at, version = text.strip().partition("@")
    if not (name and at and version):
        raise ConfigError(f"{text.strip()[:80]!r} is not NAME@VERSION (e.g. mybot@s12: see "
                          "`arena submissions`)")
    return name, version


class Season:
    """A competition's season over its database (module doc). Thread-safe: every call is its
    own transaction."""

    def __init__(self, engine: Engine, plan: SeasonPlan | None,
                 selections: int = DEFAULT_SELECTIONS) -> None:
        """``plan``: the file's ``[season]`` (None: no season, open for good)."""
        self.engine = engine
        self.plan = plan
        self.selections = selections
        with engine.begin() as conn:
            metadata.create_all(conn)

    @contextmanager
    def _read(self) -> Iterator[Connection]:
        with self.engine.connect().execution_options(arena_read=True) as conn:
            yield conn

    # --- phases ------------------------------------------------------------------------------
    def transitions(self) -> list[Transition]:
        """Every phase entered, in order."""
        with self._read() as conn:
            return self._transitions(conn)

    @staticmethod
    def _transitions(conn: Connection) -> list[Transition]:
        rows = conn.execute(select(season_t).order_by(season_t.c.seq))
        return [Transition(Phase(r.phase), float(r.at), str(r.how)) for r in rows]

    def _phase(self, conn: Connection, now: float) -> Phase:
        recorded = self._transitions(conn)
        phase = recorded[-1].phase if recorded else Phase.OPEN
        if self.plan is not None:
            reached = scheduled(self.plan, now)
            if reached.rank > phase.rank:
                phase = reached
        return phase

    def phase(self, now: float | None = None) -> Phase:
        """The phase at ``now`` (module doc)."""
        with self._read() as conn:
            return self._phase(conn, time.time() if now is None else now)

    def status(self, now: float | None = None) -> Status:
        """The phase at ``now``, since when, and the next one with the time left."""
        now = time.time() if now is None else now
        with self._read() as conn:
            recorded = {t.phase: t.at for t in self._transitions(conn)}
            phase = self._phase(conn, now)
        if self.plan is None:
            return Status(phase, 0.0, None, None, None, False)
        since = recorded.get(phase, self.plan.start_of(phase.value) or 0.0)
        after = phase.next
        at = self.plan.start_of(after.value) if after is not None else None
        return Status(phase, since, after, at, None if at is None else max(0.0, at - now), True)

    def advance(self, now: float | None = None) -> list[Transition]:
        """Record each phase whose scheduled time has come and that is not recorded yet (at its
        scheduled time); the transitions recorded."""
        if self.plan is None:
            return []
        now = time.time() if now is None else now
        with self.engine.begin() as conn:
            recorded = self._transitions(conn)
            last = recorded[-1].phase if recorded else Phase.OPEN
            target = scheduled(self.plan, now)
            new = [Transition(p, self.plan.start_of(p.value) or now, SCHEDULED)
                   for p in PHASES[last.rank + 1:target.rank + 1]]
            self._record(conn, new)
        return new

    def start(self, phase: Phase, now: float | None = None) -> list[Transition]:
        """The operator starts ``phase`` now (and the phases before it not yet begun): the
        transitions recorded. ``ConfigError`` without a season, for open, or for a phase
        already begun (phases only go forward)."""
        if self.plan is None:
            raise ConfigError("the competition has no season: add a [season] table to its file "
                              "(docs/competition.md, Seasons) and restart the server")
        if phase is Phase.OPEN:
            raise ConfigError("the season is open from its start: the phases that can be "
                              f"started are {', '.join(p.value for p in STARTED)}")
        now = time.time() if now is None else now
        self.advance(now)
        with self.engine.begin() as conn:
            current = self._phase(conn, now)
            if phase.rank <= current.rank:
                raise ConfigError(f"the season is {current.value} already: a phase cannot be "
                                  f"started again or gone back to ({phase.value} was asked)")
            new = [Transition(p, now, OPERATOR) for p in PHASES[current.rank + 1:phase.rank + 1]]
            self._record(conn, new)
        return new

    @staticmethod
    def _record(conn: Connection, transitions: Sequence[Transition]) -> None:
        for t in transitions:
            conn.execute(season_t.insert().values(phase=t.phase.value, at=t.at, how=t.how))

    # --- refusals ----------------------------------------------------------------------------
    def submission_refusal(self, now: float | None = None) -> str | None:
        """Why a submission is refused now (after the deadline), or None."""
        status = self.status(now)
        if status.phase is Phase.OPEN:
            return None
        return f"submissions closed at the deadline, {utc(self._began(Phase.FROZEN, status))}" \
               f": the competition is {status.phase.value} now ({self._what(status)})"

    def selection_refusal(self, now: float | None = None) -> str | None:
        """Why selections cannot change now (after the freeze), or None."""
        status = self.status(now)
        if status.phase is Phase.OPEN:
            return None
        return f"selections closed at the freeze, {utc(self._began(Phase.FROZEN, status))}: " \
               f"the competition is {status.phase.value} now ({self._what(status)})"

    def _began(self, phase: Phase, status: Status) -> float:
        recorded = {t.phase: t.at for t in self.transitions()}
        at = recorded.get(phase)
        if at is None and self.plan is not None:
            at = self.plan.start_of(phase.value)
        return at if at is not None else status.since

    @staticmethod
    def _what(status: Status) -> str:
        return {Phase.FROZEN: "the selected versions play on; `arena submissions` shows "
                              "yours",
                Phase.FINAL: "the final plays the selected versions",
                Phase.CLOSED: "the results are published"}.get(status.phase, "")

    # --- selections --------------------------------------------------------------------------
    def select(self, contestant: str, refs: Sequence[str],
               now: float | None = None) -> builtins.list[Selected]:
        """Replace ``contestant``'s selection of the games ``refs`` (``NAME@VERSION``, their
        own entered submissions) play; their whole selection after it. ``SeasonRefusal`` after
        the freeze; ``ConfigError`` for a version that is not theirs or not entered, twice the
        same, or more than ``selections`` of a game. Nothing changes when it raises."""
        if not refs:
            raise ConfigError("name the versions to select (NAME@VERSION, see `arena "
                              "submissions`)")
        wanted = [parse_ref(r) for r in refs]
        now = time.time() if now is None else now
        with self.engine.begin() as conn:
            phase = self._phase(conn, now)
            if phase is not Phase.OPEN:
                refusal = self.selection_refusal(now)
                raise SeasonRefusal(refusal or "selections are closed")
            entered = self._entered(conn, contestant)
            by_game: dict[str, list[tuple[str, str]]] = defaultdict(list)
            for name, version in wanted:
                found = entered.get((name_key(name), version))
                if found is None:
                    raise ConfigError(f"{name}@{version} is not one of your entered versions "
                                      "(`arena submissions` lists them; a version is selectable "
                                      "once it has entered the ladder)")
                game, spelled = found
                if (spelled, version) in by_game[game]:
                    raise ConfigError(f"{spelled}@{version} is named twice")
                by_game[game].append((spelled, version))
            for game, chosen in by_game.items():
                if len(chosen) > self.selections:
                    raise ConfigError(f"{len(chosen)} versions of {game} named: the competition "
                                      f"allows {self.selections} per game")
                conn.execute(delete(selections_t).where(selections_t.c.contestant == contestant,
                                                        selections_t.c.game == game))
                for name, version in chosen:
                    conn.execute(selections_t.insert().values(
                        contestant=contestant, game=game, name=name, version=version, at=now))
        return self.selection_of(contestant)

    @staticmethod
    def _entered(conn: Connection, contestant: str | None = None
                 ) -> dict[tuple[str, str], tuple[str, str]]:
        """(name key, version) → (game, name) of the entered submissions (of ``contestant``)."""
        query = select(submissions_t.c.contestant, submissions_t.c.game, submissions_t.c.name,
                       submissions_t.c.version).where(
            submissions_t.c.stage.in_((ENTERED, RATED)))
        if contestant is not None:
            query = query.where(submissions_t.c.contestant == contestant)
        return {(name_key(r.name), str(r.version)): (str(r.game), str(r.name))
                for r in conn.execute(query)}

    def selected(self, game: str | None = None,
                 contestant: str | None = None) -> builtins.list[Selected]:
        """The versions the final plays (of ``game``, of ``contestant``): each contestant's
        selection of each game they entered a bot in, else their latest entered version of it;
        by contestant, then in the order selected."""
        entered = (select(submissions_t.c.contestant, submissions_t.c.game, submissions_t.c.name,
                          submissions_t.c.version)
                   .where(submissions_t.c.stage.in_((ENTERED, RATED)))
                   .order_by(submissions_t.c.id))
        chosen = select(selections_t).order_by(selections_t.c.id)
        if game is not None:
            entered = entered.where(submissions_t.c.game == game)
            chosen = chosen.where(selections_t.c.game == game)
        if contestant is not None:
            entered = entered.where(submissions_t.c.contestant == contestant)
            chosen = chosen.where(selections_t.c.contestant == contestant)
        with self._read() as conn:
            latest = {(str(r.contestant), str(r.game)): (str(r.name), str(r.version))
                      for r in conn.execute(entered)}
            explicit: dict[tuple[str, str], list[Selected]] = defaultdict(list)
            for r in conn.execute(chosen):
                explicit[(str(r.contestant), str(r.game))].append(
                    Selected(str(r.contestant), str(r.game), str(r.name), str(r.version), True))
        out: list[Selected] = []
        for key in sorted(set(latest) | set(explicit)):
            if explicit.get(key):
                out.extend(explicit[key])
            else:
                name, version = latest[key]
                out.append(Selected(key[0], key[1], name, version, False))
        return out

    def selection_of(self, contestant: str) -> builtins.list[Selected]:
        """``contestant``'s selected versions, every game's."""
        return self.selected(contestant=contestant)


def refs(selected: Iterable[Selected]) -> builtins.list[str]:
    """``name@version`` of each."""
    return [s.ref for s in selected]
