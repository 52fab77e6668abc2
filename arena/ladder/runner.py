"""Running a ladder (its reports are in ``arena.ladder.reports``).

``run_ladder`` reads the schedule, skips every match id the store already holds (resume), plays
the rest with bounded concurrency (workers take matches in schedule order; the second leg of a
duplicate encounter waits for its first to end, ``_Run.worker``), records each result the moment
it lands (one transaction per match) and keeps the live Elo. On a stop request (Ctrl-C / SIGTERM
in ``run_ladder_blocking``) it stops starting matches, cancels the ones in flight (dropped,
never recorded) and returns: the next run replays them from scratch with the same seeds, because
ids and seeds come from the schedule. A ``kill -9`` loses at most the matches in flight for the
same reason. A match the cluster gives up on (its attempts killed too many workers) is void:
recorded as a void attempt (never rated, not a recorded match) and played again by the next run.

The execution itself, ``run_matches``, is the one place that plays matches and records them. It
takes them from a ``MatchSource``: a fixed plan for a round robin or a gauntlet
(``PlannedMatches``), or a source that decides what to play next as results land (an SPRT test,
``arena.sprt.run``; an adaptive or continuous ladder, a knockout, a Swiss, opened through
``arena.ladder.schedules.registry``). A ``ScheduleSource`` also shows where its schedule stands
(every event's ``Progress.schedule``), may grow the lineup while it runs (a continuous ladder's
new versions) and says why it stopped by itself (``RunSummary.stopped``).

Every match log the run keeps is signed (``arena.record.signing.sign_log``) before its result
is recorded, with the ladder's key (``Signing``: its ``signing_key``, else one made in its state
directory): on a cluster the head signs the log it has verified, never a worker; a log the head
refused (a void match) is not signed, nor is a log left unfinished by a crash (its match is
played again, and that log signed). A log that cannot be signed costs nothing but its signature:
the result is recorded and the failure logged.

The clock (``[time_control] clock``) is resolved once, before the first match
(``resolve_run_clock``): "auto" is the CPU clock where the sandbox can meter CPU for these bots,
else the wall clock with one line saying so (``Progress.clock_note``); "cpu" where it cannot be
metered is a ``ConfigError``, nothing played.

The match-playing function is a parameter, so the scheduling logic runs in tests with a fast
in-process player. By default every match is one task on a Dask cluster (``arena.cluster``): the
ladder file's ``[cluster]``, else an embedded cluster of ``concurrency`` process workers on
127.0.0.1 that lives as long as the run; the runner stays the only writer of the store.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import dataclasses
import enum
import logging
import os
import secrets
import signal
import time
import warnings
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar, runtime_checkable

from arena.cluster.progress import HostProgress
from arena.errors import ArenaError, ConfigError
from arena.games import plugin
from arena.ladder import entrants
from arena.ladder.config import LadderConfig
from arena.ladder.schedules.registry import open_schedule
from arena.ladder.schedules.schedule import (
    ADAPTIVE,
    FIXED_KINDS,
    KNOCKOUT,
    SWISS,
    Encounter,
    ScheduledMatch,
    build_schedule,
)
from arena.ladder.schedules.status import ScheduleStatus
from arena.ladder.store import LadderStore
from arena.model import LadderSlot, MatchEvent, MatchResult, MatchSpec, Termination
from arena.record.log import private_dir, tighten
from arena.record.signing import (
    KEYS_DIR,
    Signer,
    ensure_signer,
    load_public_key,
    load_signer,
    sign_played,
)
from arena.referee.service import Lineup, resolve_clock
from arena.sandbox.api import Sandbox

if TYPE_CHECKING:
    from arena.ladder.entrants import EntryFeed, ResolveBot

log = logging.getLogger(__name__)


class PlayMatch(Protocol):
    """The referee's ``play_match`` signature."""

    def __call__(
        self,
        spec: MatchSpec,
        *,
        sandbox: str | Sandbox = ...,
        log_dir: Path,
        on_event: Callable[[MatchEvent], None] | None = ...,
    ) -> Awaitable[MatchResult]: ...


@dataclass(frozen=True)
class InFlight:
    """A match being played."""

    match_id: str
    bots: tuple[str, str]
    cycle: int
    leg: int
    started: float
    """time.monotonic() at the start."""


@dataclass(frozen=True)
class Progress:
    """An immutable snapshot of a run (what a live view renders)."""

    ladder: str
    scheduled: int
    """Matches in the schedule (all cycles of this run)."""
    already: int
    """Of those, recorded before this run started."""
    planned: int
    """Matches this run set out to play (after --matches)."""
    done: int
    """Matches finished (and recorded) in this run."""
    in_flight: tuple[InFlight, ...]
    elo: Mapping[str, float]
    """Live Elo by bot."""
    started: float
    """time.monotonic() when the run started."""
    last: MatchResult | None = None
    stopping: bool = False
    hosts: tuple[HostProgress, ...] = ()
    """Per-worker progress (cluster runs): matches in flight, finished, per minute."""
    given_up: int = 0
    """Matches of this run the cluster gave up on (void attempts, played again)."""
    schedule: ScheduleStatus | None = None
    """What the schedule type shows (``arena.ladder.schedules.status``): an adaptive or continuous
    ladder's state, a knockout's bracket, a Swiss; None for a round robin or a gauntlet."""
    clock: str = ""
    """The clock model the matches are charged on ("cpu" or "wall"; "" before it is known)."""
    clock_note: str = ""
    """One line when the clock asked for ("auto") fell back to the wall clock, saying why (a
    live view prints it before the first match); "" otherwise."""


class Note(enum.StrEnum):
    """What a run says before its first match (``run_ladder``'s ``on_note``), in the order it
    says it."""

    GATE_CHECK = "gate_check"
    """The game's conformance gate runs now (once per version of the game: it takes a moment)."""
    GATE_WARNING = "gate_warning"
    """The game fails the gate and the ladder plays it anyway (``allow_ungated_game``)."""
    SIGNING = "signing"
    """The key that signs the run's logs (made now, or found), and its public key."""


NoteSink = Callable[[Note, str], None]


def signing_line(signing: Signing) -> str:
    """What a run says at its start of the key that signs the match logs."""
    made = " (made now)" if signing.created else ""
    public = signing.public_key or f"none beside {signing.signer.path}"
    return f"signing logs with key {signing.key_id}{made}; public key: {public}"


def prepare_run(config: LadderConfig, signing: Signing | None = None,
                on_note: NoteSink | None = None) -> Signing:
    """What a run needs before anything is made: the game through the conformance gate (a
    failing one refused, ``ConfigError``, unless the ladder allows it: then its warning) and
    the key that signs the logs (a bad one refused). Says each to ``on_note``."""
    # the gate when a run starts: it would add ~50 ms to every `arena` command
    from arena.gate import gate_status

    note = on_note or (lambda kind, text: None)
    if gate_status(plugin(config.game)) is None:
        note(Note.GATE_CHECK, f"checking {config.game} against the conformance gate (once per "
                              "version of the game)...")
    warning = check_gated(config)
    if warning:
        note(Note.GATE_WARNING, warning)
    signing = signing or ladder_signing(config)
    note(Note.SIGNING, signing_line(signing))
    return signing


class LadderEventKind(enum.StrEnum):
    """What a ``LadderEvent`` reports."""

    START = "start"
    """The run begins: the schedule is read, nothing is played yet."""
    MATCH_STARTED = "match_started"
    """A match begins (it is in ``progress.in_flight``)."""
    MATCH_FINISHED = "match_finished"
    """A match ended and was recorded (void ones too; one the cluster gave up on as a void
    attempt, never applied)."""
    HOSTS = "hosts"
    """A worker of the cluster started or finished a match (``progress.hosts`` changed)."""
    STOPPING = "stopping"
    """A stop was requested: nothing new starts, matches in flight are dropped."""
    DONE = "done"
    """The run is over (always the last event)."""


@dataclass(frozen=True)
class LadderEvent:
    """A progress report of a run."""

    kind: LadderEventKind
    progress: Progress
    match: ScheduledMatch | None = None
    result: MatchResult | None = None
    applied: bool = False
    """For ``MATCH_FINISHED``: the result was new to the store."""


@dataclass(frozen=True)
class RunSummary:
    """What a run did."""

    played: int
    """Matches played to the end and recorded in this run."""
    skipped: int
    """Scheduled matches that were already recorded (resume)."""
    remaining: int
    """Scheduled matches still unrecorded when the run ended."""
    void: int
    """Void matches of this run: recorded ones and those the cluster gave up on."""
    interrupted: bool
    duration_s: float
    given_up: int = 0
    """Of the void ones, the matches the cluster gave up on (recorded as void attempts, never
    rated; the next run plays them again)."""
    stopped: str = ""
    """Why the schedule itself has nothing more to play, in words ("every adjacent pair is
    separated at 95%", "the budget of 40 encounters is spent", "greedy won the knockout");
    "" for a fixed schedule, or while there is more."""


@dataclass(frozen=True)
class Signing:
    """The key a run signs its match logs with (``ladder_signing``)."""

    signer: Signer
    public_key: Path | None
    """Its public key file, what a verifier needs (``arena replay LOG --key``): the ``.pub``
    beside the private key (None: there is none of this key's there)."""
    created: bool = False
    """The key was made for this run (a ladder without ``signing_key``, run for the first
    time)."""

    @property
    def key_id(self) -> str:
        """The key's id (16 hex digits): every log it signs names it."""
        return self.signer.key_id


EventSink = Callable[[LadderEvent], None]
T = TypeVar("T")


class MatchSource(Protocol):
    """Where a run's matches come from. Workers ask for the next match when they are free;
    every match they were given is settled once it ended (unless the run stops first)."""

    async def next_match(self) -> ScheduledMatch | None:
        """The next match to play (it may wait for matches in flight to settle first); None:
        nothing more to play, the worker ends."""
        ...

    def settled(self, match: ScheduledMatch, result: MatchResult | None) -> None:
        """``match`` ended: recorded with ``result`` (a void attempt, when the cluster gave up
        on it), or dropped unrecorded (None: cancelled; played again from scratch when the
        source hands it out again)."""
        ...

    def exhausted(self) -> bool:
        """True: the source knows it has nothing (more) to play (a run whose source is
        exhausted from the start opens no cluster). False when it has, or cannot tell."""
        ...


@runtime_checkable
class ScheduleSource(MatchSource, Protocol):
    """A source that shows where its schedule stands (``arena.ladder.schedules.sources``)."""

    def lineup(self) -> Lineup:
        """The bots the seats of its matches index (it may grow while the run goes on)."""
        ...

    def status(self) -> ScheduleStatus:
        """Where the schedule stands (each event's ``Progress.schedule``)."""
        ...

    def stopped(self) -> str:
        """Why it has nothing more to play, in words ("" while it has)."""
        ...


class PlannedMatches:
    """A fixed list of matches, handed out in order (a ladder run's plan)."""

    def __init__(self, planned: Sequence[ScheduledMatch]) -> None:
        self._queue = collections.deque(planned)

    async def next_match(self) -> ScheduledMatch | None:
        """The next planned match; None once the plan is handed out."""
        return self._queue.popleft() if self._queue else None

    def exhausted(self) -> bool:
        """The plan is handed out (or was empty)."""
        return not self._queue

    def settled(self, match: ScheduledMatch, result: MatchResult | None) -> None:
        """Nothing to do: the plan is fixed (a dropped match waits for the next run)."""


def default_play() -> PlayMatch:
    """The real referee, in this process (the runner's default is the cluster)."""
    # the referee's match loop (gRPC) when a match is played here: ~0.2 s off every command
    from arena.referee.match import play_match

    return play_match


def ladder_schedule(config: LadderConfig, cycles: int | None = None) -> tuple[Encounter, ...]:
    """The ladder's schedule (``cycles`` overrides the file's)."""
    return build_schedule(
        config.name,
        config.entrants,
        cycles=cycles if cycles is not None else config.schedule.cycles,
        kind=config.schedule.kind,
        challenger=config.challenger_index,
        duplicate=config.duplicate,
        seed=config.seed,
        secret=ladder_secret(config),
    )


SECRET_FILE = "deal-secret"


def ladder_secret(config: LadderConfig) -> str:
    """The ladder's private salt for deal seeds, made once and kept in its state directory
    (so a resumed run deals the same cards, and no bot can derive the deals from match ids)."""
    path = config.state_dir / SECRET_FILE
    if not path.exists():
        private_dir(config.state_dir)
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:  # another run made it a moment ago
            return path.read_text().strip()
        with os.fdopen(fd, "w") as handle:
            handle.write(secrets.token_hex(16))
    return path.read_text().strip()


def ladder_signing(config: LadderConfig) -> Signing:
    """The key that signs the ladder's logs (``signing_of`` its ``signing_key`` and state
    directory)."""
    return signing_of(config.signing_key, config.state_dir)


def signing_of(key: Path | None, state_dir: Path) -> Signing:
    """The signing key ``key``, else ``keys/referee.key`` in ``state_dir`` (made now when
    missing: ``Signing.created``). Raises ``ConfigError``, one line, for a ``key`` that is
    missing, unreadable, not an Ed25519 private key or readable by others."""
    if key is None:
        private_dir(state_dir)  # made private before anything is kept in it
        for directory in (state_dir, state_dir / KEYS_DIR):
            tighten(directory, 0o700)  # a state directory an older arena left open
        signer, public, created = ensure_signer(state_dir)
        return Signing(signer, public, created)
    signer = load_signer(key)
    return Signing(signer, public_key_beside(key, signer))


def public_key_beside(private: Path, signer: Signer) -> Path | None:
    """``<name>.pub`` beside the private key ``<name>.key`` when it is ``signer``'s public
    key (as ``arena keys new`` writes them), else None."""
    public = private.with_suffix(".pub")
    try:
        return public if load_public_key(public).key_id == signer.key_id else None
    except ArenaError:
        return None


def plan_run(
    schedule: Sequence[Encounter], recorded: set[str], max_matches: int | None = None
) -> list[ScheduledMatch]:
    """The matches to play, in order: unrecorded ones, whole encounters at a time, until at
    least ``max_matches`` are planned (so a bound never splits an encounter)."""
    planned: list[ScheduledMatch] = []
    for enc in schedule:
        if max_matches is not None and len(planned) >= max_matches:
            break
        planned.extend(m for m in enc.matches if m.match_id not in recorded)
    return planned


LEG_BLOCK = 4
"""A fixed plan plays the first legs of this many times ``concurrency`` encounters, then their
second legs (``legs_in_blocks``)."""


def legs_in_blocks(planned: Sequence[ScheduledMatch], encounters: int
                   ) -> list[ScheduledMatch]:
    """``planned`` reordered by blocks of ``encounters`` encounters: the block's first legs (in
    order), then its second legs. The second leg of a deal needs a new epoch of the host
    (``arena.sandbox.epochs``), and an epoch ends only when every match in it has: one drain
    then serves a whole block of second legs instead of one encounter's. Which matches are
    played does not change, nor their ids or seeds."""
    by_encounter: dict[str, list[ScheduledMatch]] = {}
    for m in planned:
        by_encounter.setdefault(m.encounter_id, []).append(m)
    groups = list(by_encounter.values())
    ordered: list[ScheduledMatch] = []
    for start in range(0, len(groups), max(1, encounters)):
        block = groups[start:start + max(1, encounters)]
        ordered += [legs[0] for legs in block]
        ordered += [m for legs in block for m in legs[1:]]
    return ordered


class _Run:
    def __init__(self, config: LadderConfig, store: LadderStore, lineup: Lineup,
                 play: PlayMatch | None, on_event: EventSink | None, signing: Signing) -> None:
        self.config = config
        self.signing = signing
        self.store = store
        self.lineup = lineup
        self.play = play or default_play()
        self.hosts: Callable[[], tuple[HostProgress, ...]] = tuple
        self.on_event = on_event
        self.in_flight: dict[str, InFlight] = {}
        self.deals_in_flight: set[tuple[str, int]] = set()
        """(encounter, seed) of every match in flight."""
        self.set_aside: dict[tuple[str, int], ScheduledMatch] = {}
        """Legs waiting for the other leg of their deal to end (``worker``)."""
        self.elo: dict[str, float] = dict(store.live_elo(config.name))
        self.started = time.monotonic()
        self.scheduled = self.already = self.planned = self.done = self.void = 0
        self.given_up = 0
        self.last: MatchResult | None = None
        self.stopping = False
        self.lineup_of: Callable[[], Lineup] = lambda: lineup
        self.schedule: Callable[[], ScheduleStatus | None] = lambda: None
        self.clock_note = ""

    def follow(self, source: MatchSource) -> None:
        """Take the bots of the matches and the schedule's status from ``source`` when it is
        a ``ScheduleSource``."""
        if isinstance(source, ScheduleSource):
            self.lineup_of = source.lineup
            self.schedule = source.status

    def progress(self) -> Progress:
        return Progress(
            ladder=self.config.name, scheduled=self.scheduled, already=self.already,
            planned=self.planned, done=self.done, in_flight=tuple(self.in_flight.values()),
            elo=dict(self.elo), started=self.started, last=self.last, stopping=self.stopping,
            hosts=self.hosts(), given_up=self.given_up, schedule=self.schedule(),
            clock=self.config.time_control.clock, clock_note=self.clock_note,
        )

    def emit(self, kind: LadderEventKind, match: ScheduledMatch | None = None,
             result: MatchResult | None = None, applied: bool = False) -> None:
        if self.on_event is not None:
            self.on_event(LadderEvent(kind, self.progress(), match, result, applied))

    def spec_of(self, m: ScheduledMatch) -> MatchSpec:
        """The match's spec, its ladder slot set (the log's header binds it)."""
        spec = self.lineup_of().match(m.seats, seed=m.seed, options=self.config.options,
                                      time_control=self.config.time_control,
                                      match_id=m.match_id)
        slot = LadderSlot(m.ladder or self.config.name, m.encounter_id, m.cycle, m.leg)
        return dataclasses.replace(spec, slot=slot)

    async def worker(self, source: MatchSource) -> None:
        """Play what ``source`` hands out until it is done. A leg whose deal is being played
        (its encounter's other leg in flight) is set aside and played by the worker of that
        other leg once it ends: the legs of one deal never run at the same time, and the epoch
        they force on the host (``arena.sandbox.epochs``) is one drain for the second legs of
        every encounter started meanwhile, not one per encounter."""
        follow_up: ScheduledMatch | None = None
        while not self.stopping:
            m = follow_up or await source.next_match()
            follow_up = None
            if m is None or self.stopping:
                return
            deal = (m.encounter_id, m.seed)
            if deal in self.deals_in_flight:
                self.set_aside[deal] = m
                continue
            self.deals_in_flight.add(deal)
            try:
                await self.play_one(m, source)
            finally:
                self.deals_in_flight.discard(deal)
            follow_up = self.set_aside.pop(deal, None)

    async def play_one(self, m: ScheduledMatch, source: MatchSource) -> None:
        spec = self.spec_of(m)
        names = (spec.bots[0].name, spec.bots[1].name)
        self.in_flight[m.match_id] = InFlight(m.match_id, names, m.cycle, m.leg, time.monotonic())
        self.emit(LadderEventKind.MATCH_STARTED, m)
        started_at = time.time()
        log_dir = self.config.match_log_dir
        private_dir(log_dir)
        try:
            result = await self.play(spec, sandbox=self.lineup_of().sandbox, log_dir=log_dir)
        finally:
            self.in_flight.pop(m.match_id, None)
        if self.stopping:
            source.settled(m, None)
            return  # dropped: replayed from scratch (next run, or when the source says so)
        if result.termination is Termination.CANCELLED:  # the cluster gave up on it
            self.give_up(m, result, started_at, source)
            return
        sign_played(result, self.signing.signer, log)  # before it is recorded
        rec = self.store.record_match(
            m.ladder or self.config.name, result, spec.bots, encounter_id=m.encounter_id,
            cycle=m.cycle, leg=m.leg, started_at=started_at, elo_k=self.config.rating.elo_k,
            elo_start=self.config.rating.start,
        )
        if not m.ladder:  # a match recorded apart (``ScheduledMatch.ladder``) moves no Elo here
            self.elo.update(rec.elo)
        self.done += 1
        self.void += int(result.void)
        self.last = result
        source.settled(m, result)
        self.emit(LadderEventKind.MATCH_FINISHED, m, result, rec.applied)

    def give_up(self, m: ScheduledMatch, result: MatchResult, started_at: float,
                source: MatchSource) -> None:
        """Record a match the cluster gave up on as a void attempt: never rated and not a
        recorded match, so the next run plays it again (a source may replay it sooner)."""
        self.store.record_void_attempt(m.ladder or self.config.name, result,
                                       encounter_id=m.encounter_id,
                                       cycle=m.cycle, leg=m.leg, started_at=started_at)
        self.void += 1
        self.given_up += 1
        source.settled(m, result)
        self.emit(LadderEventKind.MATCH_FINISHED, m, result, False)


async def run_ladder(
    config: LadderConfig,
    *,
    play: PlayMatch | None = None,
    resolve: ResolveBot | None = None,
    max_matches: int | None = None,
    cycles: int | None = None,
    concurrency: int | None = None,
    sandbox: str | None = None,
    on_event: EventSink | None = None,
    stop: asyncio.Event | None = None,
    store: LadderStore | None = None,
    signing: Signing | None = None,
    on_note: NoteSink | None = None,
    entries: EntryFeed | None = None,
    wrap: Callable[[ScheduleSource], MatchSource] | None = None,
) -> RunSummary:
    """Play the ladder's unrecorded matches (see the module doc); returns when the schedule
    (or the ``max_matches`` bound) is done or ``stop`` is set (a continuous ladder: only then).
    ``signing``: the key that signs the logs (default: ``ladder_signing``, before any match).
    ``on_note``: told what the run checks and decides before its first match (``Note``).
    ``entries``: a continuous ladder's entrants handed over in memory (``EntryFeed``), instead
    of its file's and the catalogue's. ``wrap``: a schedule that decides as it goes is played
    through ``wrap(source)`` (a program's own matches handed out besides the schedule's, each
    recorded under its ``ScheduledMatch.ladder``: the competition server's scrimmages).
    Raises ``ConfigError`` for bad entrants, a bad signing key, a clock that cannot be had
    (``resolve_run_clock``: a fixed schedule's before its store is made), a game that fails
    the conformance gate (``check_gated``, before anything is made), an SPRT test's
    ladder file, ``cycles`` for a schedule that has none, or a tournament whose entrants are
    not the bots it began with, ``StoreError`` for database trouble, and whatever the player
    raises for infrastructure failures (bot faults are results, not exceptions)."""
    if config.sprt is not None:
        raise ConfigError(f"ladder {config.name!r} is an SPRT test (it has an [sprt] section): "
                          "run it with `arena sprt --ladder FILE`")
    if config.schedule.kind not in FIXED_KINDS and cycles is not None:
        raise ConfigError(f"ladder {config.name!r} is a {config.schedule.kind}: it has no "
                          "cycles (--cycles is for a round robin or a gauntlet)")
    signing = prepare_run(config, signing, on_note)  # refused before anything is made
    if config.schedule.kind not in FIXED_KINDS:
        return await _run_schedule(config, play=play, resolve=resolve, max_matches=max_matches,
                                   concurrency=concurrency, sandbox=sandbox, on_event=on_event,
                                   stop=stop, store=store, signing=signing,
                                   entries=entries, wrap=wrap)
    if entries is not None or wrap is not None:
        raise ConfigError(f"ladder {config.name!r} is a {config.schedule.kind}: a fixed plan "
                          "(entries are for a continuous ladder)")
    # with the real referee, the sandbox checks that every entrant can run in it at all
    lineup = entrants.line_up_entrants(config, resolve, sandbox, check=play is None)
    resolve_run_clock(config, lineup)  # a clock that cannot be had: before the store is made
    schedule = ladder_schedule(config, cycles)
    with open_run_store(config, store) as db:
        recorded = db.recorded_ids(config.name)
        planned = plan_run(schedule, recorded, max_matches)
        block = LEG_BLOCK * max(1, concurrency or config.concurrency)
        return await run_matches(
            config, lineup, PlannedMatches(legs_in_blocks(planned, block)), db, play=play,
            concurrency=concurrency,
            on_event=on_event, stop=stop, scheduled=sum(len(e.matches) for e in schedule),
            already=sum(1 for e in schedule for m in e.matches if m.match_id in recorded),
            planned=len(planned), signing=signing,
        )


async def _run_schedule(config: LadderConfig, *, play: PlayMatch | None,
                        resolve: ResolveBot | None, max_matches: int | None,
                        concurrency: int | None, sandbox: str | None,
                        on_event: EventSink | None, stop: asyncio.Event | None,
                        store: LadderStore | None, signing: Signing | None,
                        entries: EntryFeed | None = None,
                        wrap: Callable[[ScheduleSource], MatchSource] | None = None
                        ) -> RunSummary:
    """``run_ladder`` for the schedule types that decide as they go
    (``arena.ladder.schedules``): their source, opened over the store, hands out the
    matches."""
    with open_run_store(config, store) as db:
        source = open_schedule(config, db, ladder_secret(config), resolve=resolve,
                               sandbox=sandbox, check=play is None, max_matches=max_matches,
                               entries=entries)
        size = schedule_size(config, len(source.lineup().bots))
        already = len(source.matches)
        return await run_matches(
            config, source.lineup(), source if wrap is None else wrap(source), db, play=play,
            concurrency=concurrency,
            on_event=on_event, stop=stop, scheduled=size, already=min(already, size),
            planned=max(size - already, 0) if max_matches is None else max_matches,
            signing=signing)


def check_gated(config: LadderConfig) -> str:
    """Refuse the ladder's game when it fails the conformance gate (``arena.gate``: run
    once per version of the game, then cached): one ``ConfigError`` line naming the failed
    checks and `arena games check`, unless the ladder allows it (``allow_ungated_game``: then
    the warning line, also logged). "" for a game that passes."""
    # as prepare_run: the gate only when a run starts
    from arena.gate import require_gated

    return require_gated(config.game, allow=config.allow_ungated_game)


def resolve_run_clock(config: LadderConfig, lineup: Lineup) -> tuple[LadderConfig, str]:
    """``config`` with its clock resolved for ``lineup``'s sandbox and bots, before the first
    match (``arena.referee.service.resolve_clock``), and the note line to show when "auto" fell
    back to the wall clock. Raises ``ConfigError`` (one line) when the clock asked for is "cpu"
    and the sandbox cannot meter CPU here. A resolved config resolves to itself, without a
    note."""
    clock, note = resolve_clock(config.clock, lineup.sandbox, lineup.bots)
    return config.with_clock(clock), note


def schedule_size(config: LadderConfig, players: int) -> int:
    """The matches a schedule that decides as it goes holds, as far as it can be told before:
    an adaptive ladder's budget, a Swiss's rounds, a knockout's ties at one encounter each (a
    level tie adds more); 0 for a continuous ladder (it never ends)."""
    legs = 2 if config.duplicate else 1
    kind = config.schedule.kind
    if kind == ADAPTIVE:
        return config.schedule.encounters * legs
    if kind == SWISS:
        return config.schedule.rounds * (players // 2) * legs
    if kind == KNOCKOUT:
        return (players - 1) * config.schedule.encounters * legs
    return 0


@contextlib.contextmanager
def open_run_store(config: LadderConfig, store: LadderStore | None = None
                   ) -> Iterator[LadderStore]:
    """``store`` when given (left open), else the ladder's store, created if need be and
    closed on exit. Raises ``StoreError``."""
    if store is not None:
        yield store
        return
    db = LadderStore(config.database_url)
    try:
        yield db
    finally:
        db.close()


async def run_matches(
    config: LadderConfig,
    lineup: Lineup,
    source: MatchSource,
    store: LadderStore,
    *,
    play: PlayMatch | None = None,
    concurrency: int | None = None,
    on_event: EventSink | None = None,
    stop: asyncio.Event | None = None,
    scheduled: int = 0,
    already: int = 0,
    planned: int = 0,
    signing: Signing | None = None,
) -> RunSummary:
    """Play the matches ``source`` hands out, ``concurrency`` at a time (default: the
    ladder's), record each result in ``store`` the moment it lands (one transaction per match
    id, applied once) and settle it with the source; returns when the source has nothing more
    or ``stop`` is set (matches in flight are then dropped, never recorded). Without ``play``
    the matches run on the ladder's cluster, opened for the run unless the source is
    ``exhausted`` from the start.

    ``scheduled``, ``already`` and ``planned`` size the run for the events' ``Progress`` and the
    summary (0 when the source cannot tell). Every log kept is signed with ``signing`` (default:
    ``ladder_signing``, taken before the cluster opens or any match starts). Raises
    ``ConfigError`` for a bad signing key or a clock that cannot be had (``resolve_run_clock``,
    before the first match: its note, when "auto" fell back to the wall clock, is logged and
    in every event's ``Progress.clock_note``) and what the player or the store raise."""
    config, note = resolve_run_clock(config, lineup)
    if note:
        log.warning("%s", note)
    run = _Run(config, store, lineup, play, on_event, signing or ladder_signing(config))
    run.clock_note = note
    run.follow(source)
    run.scheduled, run.already, run.planned = scheduled, already, planned
    width = max(1, concurrency or config.concurrency)
    async with contextlib.AsyncExitStack() as stack:
        if play is None and not source.exhausted():
            width = await _on_cluster(stack, run, width)
        interrupted = await _drive(run, source, width, stop or asyncio.Event())
    stopped = ""
    if isinstance(source, ScheduleSource) and source.exhausted():
        stopped = source.stopped()
    remaining = 0 if stopped else max(run.scheduled - run.already - run.done, 0)
    return RunSummary(run.done, run.already, remaining, run.void, interrupted,
                      time.monotonic() - run.started, run.given_up, stopped)


async def _on_cluster(stack: contextlib.AsyncExitStack, run: _Run, width: int) -> int:
    """Open the run's cluster (embedded: ``width`` workers) and play on it; returns how many
    matches to keep submitted (a remote cluster: at least its match slots)."""
    # Dask (~1 s) only when a run opens a cluster, never for `arena --help` or the reports
    from arena.cluster.session import open_cluster

    settings = run.config.cluster
    session = await stack.enter_async_context(
        open_cluster(settings, workers=width, on_change=lambda: run.emit(LadderEventKind.HOSTS)))
    run.play = session.player
    run.hosts = session.hosts
    return width if settings.embedded else max(width, await session.slots())


async def _drive(run: _Run, source: MatchSource, concurrency: int,
                 stop: asyncio.Event) -> bool:
    run.emit(LadderEventKind.START)
    workers = [asyncio.create_task(run.worker(source)) for _ in range(concurrency)]
    stopper = asyncio.create_task(stop.wait())
    try:
        pending: set[asyncio.Task[Any]] = set(workers)
        while pending:
            done, pending = await asyncio.wait(
                pending | {stopper}, return_when=asyncio.FIRST_COMPLETED
            )
            pending.discard(stopper)
            for task in done:
                if task is not stopper and task.exception() is not None:
                    raise task.exception()  # type: ignore[misc]
            if stopper in done:
                run.stopping = True
                run.emit(LadderEventKind.STOPPING)
                return True
        return False
    finally:
        stopper.cancel()
        for task in workers:
            task.cancel()
        for m in run.set_aside.values():  # dropped with the run: played by the next one
            source.settled(m, None)
        run.set_aside.clear()
        await asyncio.gather(*workers, stopper, return_exceptions=True)
        run.emit(LadderEventKind.DONE)


def run_ladder_blocking(config: LadderConfig, **kwargs: Any) -> RunSummary:
    """``run_ladder`` in a fresh event loop; SIGINT and SIGTERM stop it cleanly (finished
    matches stay recorded, in-flight ones are dropped)."""
    return run_blocking(lambda stop: run_ladder(config, stop=stop, **kwargs))


def run_blocking(main: Callable[[asyncio.Event], Awaitable[T]]) -> T:
    """``main(stop)`` in a fresh event loop, where SIGINT and SIGTERM set ``stop``."""

    async def guarded() -> T:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        installed = []
        for sig in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
                loop.add_signal_handler(sig, stop.set)
                installed.append(sig)
        try:
            return await main(stop)
        finally:
            for sig in installed:
                loop.remove_signal_handler(sig)

    return asyncio.run(guarded())


MOVED = ("ResolveBot", "default_resolve", "line_up_entrants")
"""Names that moved to ``arena.ladder.entrants``, still found here for one release (with a
warning)."""

if not TYPE_CHECKING:  # the type checker sees the new paths only
    def __getattr__(name: str) -> Any:
        if name not in MOVED:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        warnings.warn(f"{__name__}.{name} is deprecated: import {entrants.__name__}.{name}",
                      DeprecationWarning, stacklevel=2)
        return getattr(entrants, name)
