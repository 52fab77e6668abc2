"""Running a ladder, and the reports read back from its store.

``run_ladder`` reads the schedule, skips every match id the store already holds (resume), plays
the rest with bounded concurrency (workers take matches in schedule order, so the two legs of an
encounter run back to back), records each result the moment it lands (one transaction per
match) and keeps the live Elo. On a stop request (Ctrl-C / SIGTERM in ``run_ladder_blocking``)
it stops starting matches, cancels the ones in flight (dropped, never recorded) and returns: the
next run replays them from scratch with the same seeds, because ids and seeds come from the
schedule. A ``kill -9`` loses at most the matches in flight for the same reason.

The match-playing function is a parameter (default: ``arena.referee.match.play_match``), so the
scheduling logic runs in tests with a fast in-process player.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import os
import secrets
import signal
import time
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from arena.bots.identity import bot_identity
from arena.errors import ConfigError
from arena.ladder.config import LadderConfig
from arena.ladder.rating import Fit, GameRecord, PairingStats, fit, pairing_stats
from arena.ladder.schedule import Encounter, ScheduledMatch, build_schedule
from arena.ladder.store import LadderStore, StoredMatch
from arena.model import BotSpec, MatchResult, MatchSpec, Termination


class PlayMatch(Protocol):
    """The referee's ``play_match`` signature."""

    def __call__(
        self,
        spec: MatchSpec,
        *,
        sandbox: str = ...,
        log_dir: Path,
        on_event: Callable[[dict[str, Any]], None] | None = ...,
    ) -> Awaitable[MatchResult]: ...


ResolveBot = Callable[[str, Path], BotSpec]
"""(entrant reference, ladder directory) → a runnable bot."""


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


@dataclass(frozen=True)
class LadderEvent:
    """A progress report: ``kind`` is "start", "match_started", "match_finished", "stopping" or
    "done"."""

    kind: str
    progress: Progress
    match: ScheduledMatch | None = None
    result: MatchResult | None = None
    applied: bool = False
    """For "match_finished": the result was new to the store."""


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
    interrupted: bool
    duration_s: float


EventSink = Callable[[LadderEvent], None]


def default_resolve(ref: str, base_dir: Path) -> BotSpec:
    """Resolve an entrant with ``arena.bots.resolve_bot``."""
    from arena.bots import resolve_bot

    return resolve_bot(ref, base_dir=base_dir)


def default_play() -> PlayMatch:
    """The real referee."""
    from arena.referee.match import play_match

    return play_match


def resolve_sandbox(name: str) -> str:
    """"auto" → the sandbox the arena would pick now ("docker" when an engine answers), so the
    choice is made once per run; other names pass through."""
    if name != "auto":
        return name
    from arena.sandbox import get_sandbox

    return get_sandbox("auto").name


def resolve_entrants(
    config: LadderConfig, resolve: ResolveBot | None = None
) -> tuple[BotSpec, ...]:
    """Resolve every entrant to a bot with its code identity filled in. Raises ``ConfigError``
    for a bot of another game or two entrants with the same name."""
    resolve = resolve or default_resolve
    specs: list[BotSpec] = []
    for ref in config.entrants:
        spec = resolve(ref, config.base_dir)
        if spec.game != config.game:
            raise ConfigError(
                f"entrant {ref!r} plays {spec.game!r}, "
                f"but ladder {config.name!r} is {config.game!r}"
            )
        if not spec.digest:
            spec = dataclasses.replace(spec, digest=bot_identity(spec))
        specs.append(spec)
    names = [s.name for s in specs]
    dup = next((n for n in names if names.count(n) > 1), None)
    if dup is not None:
        raise ConfigError(f"two entrants of ladder {config.name!r} are both named {dup!r}")
    return tuple(specs)


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
        config.state_dir.mkdir(parents=True, exist_ok=True)
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:  # another run made it a moment ago
            return path.read_text().strip()
        with os.fdopen(fd, "w") as handle:
            handle.write(secrets.token_hex(16))
    return path.read_text().strip()


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


class _Run:
    def __init__(self, config: LadderConfig, store: LadderStore, specs: tuple[BotSpec, ...],
                 play: PlayMatch, sandbox: str, on_event: EventSink | None) -> None:
        self.config = config
        self.store = store
        self.specs = specs
        self.play = play
        self.sandbox = sandbox
        self.on_event = on_event
        self.in_flight: dict[str, InFlight] = {}
        self.elo: dict[str, float] = dict(store.live_elo(config.name))
        self.started = time.monotonic()
        self.scheduled = self.already = self.planned = self.done = self.void = 0
        self.last: MatchResult | None = None
        self.stopping = False

    def progress(self) -> Progress:
        return Progress(
            ladder=self.config.name, scheduled=self.scheduled, already=self.already,
            planned=self.planned, done=self.done, in_flight=tuple(self.in_flight.values()),
            elo=dict(self.elo), started=self.started, last=self.last, stopping=self.stopping,
        )

    def emit(self, kind: str, match: ScheduledMatch | None = None,
             result: MatchResult | None = None, applied: bool = False) -> None:
        if self.on_event is not None:
            self.on_event(LadderEvent(kind, self.progress(), match, result, applied))

    def spec_of(self, m: ScheduledMatch) -> MatchSpec:
        bots = (self.specs[m.seats[0]], self.specs[m.seats[1]])
        return MatchSpec(
            game=self.config.game, seed=m.seed, bots=bots, options=dict(self.config.options),
            time_control=self.config.time_control, match_id=m.match_id,
        )

    async def worker(self, queue: Iterator[ScheduledMatch]) -> None:
        for m in queue:
            if self.stopping:
                return
            await self.play_one(m)

    async def play_one(self, m: ScheduledMatch) -> None:
        spec = self.spec_of(m)
        names = (spec.bots[0].name, spec.bots[1].name)
        self.in_flight[m.match_id] = InFlight(m.match_id, names, m.cycle, m.leg, time.monotonic())
        self.emit("match_started", m)
        started_at = time.time()
        log_dir = self.config.match_log_dir
        log_dir.mkdir(parents=True, exist_ok=True)
        try:
            result = await self.play(spec, sandbox=self.sandbox, log_dir=log_dir)
        finally:
            self.in_flight.pop(m.match_id, None)
        if self.stopping or result.termination is Termination.CANCELLED:
            return  # dropped: replayed from scratch next run
        rec = self.store.record_match(
            self.config.name, result, spec.bots, encounter_id=m.encounter_id, cycle=m.cycle,
            leg=m.leg, started_at=started_at, elo_k=self.config.rating.elo_k,
            elo_start=self.config.rating.start,
        )
        self.elo.update(rec.elo)
        self.done += 1
        self.void += int(result.void)
        self.last = result
        self.emit("match_finished", m, result, rec.applied)


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
) -> RunSummary:
    """Play the ladder's unrecorded matches (see the module doc); returns when the schedule
    (or the ``max_matches`` bound) is done or ``stop`` is set. Raises ``ConfigError`` for bad
    entrants, ``StoreError`` for database trouble, and whatever the player raises for
    infrastructure failures (bot faults are results, not exceptions)."""
    specs = resolve_entrants(config, resolve)
    schedule = ladder_schedule(config, cycles)
    sandbox_name = resolve_sandbox(sandbox or config.sandbox)
    if play is None:  # the real referee: can every entrant run in that sandbox at all?
        from arena.sandbox import get_sandbox

        get_sandbox(sandbox_name).check(specs)
    own_store = store is None
    db = store if store is not None else LadderStore(config.database_url)
    try:
        run = _Run(config, db, specs, play or default_play(), sandbox_name, on_event)
        recorded = db.recorded_ids(config.name)
        planned = plan_run(schedule, recorded, max_matches)
        run.scheduled = sum(len(e.matches) for e in schedule)
        run.already = sum(1 for e in schedule for m in e.matches if m.match_id in recorded)
        run.planned = len(planned)
        interrupted = await _drive(run, planned, max(1, concurrency or config.concurrency),
                                   stop or asyncio.Event())
        remaining = run.scheduled - run.already - run.done
        return RunSummary(run.done, run.already, remaining, run.void, interrupted,
                          time.monotonic() - run.started)
    finally:
        if own_store:
            db.close()


async def _drive(run: _Run, planned: list[ScheduledMatch], concurrency: int,
                 stop: asyncio.Event) -> bool:
    run.emit("start")
    queue = iter(planned)
    workers = [asyncio.create_task(run.worker(queue)) for _ in range(min(concurrency,
                                                                          len(planned)))]
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
                run.emit("stopping")
                return True
        return False
    finally:
        stopper.cancel()
        for task in workers:
            task.cancel()
        await asyncio.gather(*workers, stopper, return_exceptions=True)
        run.emit("done")


def run_ladder_blocking(config: LadderConfig, **kwargs: Any) -> RunSummary:
    """``run_ladder`` in a fresh event loop; SIGINT and SIGTERM stop it cleanly (finished
    matches stay recorded, in-flight ones are dropped)."""

    async def main() -> RunSummary:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        installed = []
        for sig in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
                loop.add_signal_handler(sig, stop.set)
                installed.append(sig)
        try:
            return await run_ladder(config, stop=stop, **kwargs)
        finally:
            for sig in installed:
                loop.remove_signal_handler(sig)

    return asyncio.run(main())


# --- reports ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class StandingRow:
    """One line of the standings."""

    rank: int
    bot: str
    rating: float
    ci95: float
    matches: int
    wins: int
    draws: int
    losses: int
    points_per_match: float
    """Mean game points (the bot's total) per rated match."""
    live_elo: float | None

    @property
    def score_rate(self) -> float:
        """(W + D/2) / matches."""
        return (self.wins + self.draws / 2) / self.matches if self.matches else 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "rank": self.rank, "bot": self.bot, "rating": round(self.rating, 1),
            "ci95": round(self.ci95, 1), "low": round(self.rating - self.ci95, 1),
            "high": round(self.rating + self.ci95, 1), "matches": self.matches,
            "wins": self.wins, "draws": self.draws, "losses": self.losses,
            "score_rate": round(self.score_rate, 4),
            "points_per_match": round(self.points_per_match, 2),
            "live_elo": None if self.live_elo is None else round(self.live_elo, 1),
        }


@dataclass(frozen=True)
class Standings:
    """The official standings of a ladder and what backs them."""

    ladder: str
    rows: tuple[StandingRow, ...]
    rated: int
    void: int
    pairing: PairingStats
    fit: Fit = field(repr=False)

    def to_json(self) -> dict[str, Any]:
        p = self.pairing
        return {
            "ladder": self.ladder,
            "rated_matches": self.rated,
            "void_matches": self.void,
            "standings": [r.to_json() for r in self.rows],
            "duplicate_deals": {
                "encounters": p.encounters,
                "score_variance_ratio": _round(p.score_ratio),
                "margin_variance_ratio": _round(p.margin_ratio),
                "pentanomial": [
                    {"bots": list(pair), "counts": list(c)}
                    for pair, c in sorted(p.pentanomial.items())
                ],
            },
        }


def _round(x: float | None) -> float | None:
    return None if x is None else round(x, 4)


def records_of(matches: Sequence[StoredMatch]) -> list[GameRecord]:
    """Rated games (void matches dropped) for the rating functions."""
    return [
        GameRecord(m.bots[0], m.bots[1], m.score0, m.encounter_id or None,
                   float(m.totals[0] - m.totals[1]), m.leg)
        for m in matches if not m.void
    ]


def standings_of(ladder: str, matches: Sequence[StoredMatch], *, prior: float = 1.0,
                 live: Mapping[str, float] | None = None) -> Standings:
    """Standings from recorded matches (pure)."""
    records = records_of(matches)
    result = fit(records, prior=prior)
    tally: dict[str, list[int]] = {}
    for m in matches:
        if m.void:
            continue
        for seat in (0, 1):
            t = tally.setdefault(m.bots[seat], [0, 0, 0, 0])
            t[0 if m.winner == seat else 2 if m.winner == 1 - seat else 1] += 1
            t[3] += m.totals[seat]
    rows = []
    for rank, r in enumerate(result.ratings, start=1):
        w, d, lo, pts = tally.get(r.name, [0, 0, 0, 0])
        n = w + d + lo
        rows.append(StandingRow(rank, r.name, r.rating, r.ci95, n, w, d, lo,
                                pts / n if n else 0.0, (live or {}).get(r.name)))
    return Standings(ladder, tuple(rows), len(records), sum(1 for m in matches if m.void),
                     pairing_stats(records), result)


def load_standings(config: LadderConfig, store: LadderStore | None = None) -> Standings:
    """The ladder's standings from its store."""
    with _store(config, store) as db:
        return standings_of(config.name, db.matches(config.name), prior=config.rating.prior,
                            live=db.live_elo(config.name))


def load_matches(config: LadderConfig, store: LadderStore | None = None) -> list[StoredMatch]:
    """Every recorded match of the ladder, void ones included."""
    with _store(config, store) as db:
        return db.matches(config.name)


@dataclass(frozen=True)
class CrossCell:
    """Head-to-head results of ``bot`` against ``opponent``."""

    wins: int = 0
    draws: int = 0
    losses: int = 0

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def score_rate(self) -> float:
        return (self.wins + self.draws / 2) / self.games if self.games else 0.0


def crosstable_of(matches: Sequence[StoredMatch]) -> dict[tuple[str, str], CrossCell]:
    """(bot, opponent) → head-to-head W/D/L over rated matches (pure)."""
    counts: dict[tuple[str, str], list[int]] = {}
    for m in matches:
        if m.void:
            continue
        for seat in (0, 1):
            c = counts.setdefault((m.bots[seat], m.bots[1 - seat]), [0, 0, 0])
            c[0 if m.winner == seat else 2 if m.winner == 1 - seat else 1] += 1
    return {k: CrossCell(*v) for k, v in counts.items()}


@contextlib.contextmanager
def _store(config: LadderConfig, store: LadderStore | None) -> Iterator[LadderStore]:
    if store is not None:
        yield store
        return
    if config.database is None and not (config.state_dir / "ladder.db").exists():
        raise ConfigError(
            f"ladder {config.name!r} has no results yet ({config.state_dir / 'ladder.db'} "
            "does not exist): run it with `arena run-ladder`"
        )
    db = LadderStore(config.database_url)
    try:
        yield db
    finally:
        db.close()
