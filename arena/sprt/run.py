"""Running an SPRT test (`arena sprt`): duplicate pairs on the ladder's runner until it knows.

A test is a ladder: a ladder file with an ``[sprt]`` section (``LadderConfig.sprt``), a state
directory (deal secret, SQLite store, match logs) and its matches in the store, so
``arena ladder matches FILE`` lists them and every match log is watchable. ``arena sprt
CANDIDATE BASELINE`` writes that file itself (``arena.sprt.file``).

The matches are played by ``run_matches``, the ladder's own execution (bounded concurrency, one
transaction per match id, applied once), from an ``SprtSource`` that decides what to play as
results land: first the legs still missing (a void leg again, with its seed), then new pairs,
until the LLR of the complete pairs reaches a bound or the pair budget is spent. Then it lets
the matches in flight finish and stops, unless they moved the LLR back between the bounds.

Resume: the source starts from the recorded matches and the void attempts (``PairBook.of``),
so a test that was stopped or killed (``kill -9``) continues where it was: nothing recorded is
lost or counted twice, and a leg that was in flight is played again with its seed.
"""

from __future__ import annotations

import asyncio
import dataclasses
import enum
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.errors import ArenaError, ConfigError
from arena.ladder.config import LadderConfig, SprtConfig
from arena.ladder.entrants import ResolveBot, default_resolve
from arena.ladder.runner import (
    EventSink,
    LadderEvent,
    LadderEventKind,
    PlayMatch,
    Progress,
    RunSummary,
    check_gated,
    ladder_secret,
    open_run_store,
    run_blocking,
    run_matches,
)
from arena.ladder.schedules.schedule import ScheduledMatch
from arena.ladder.store import LadderStore
from arena.model import BotSpec, MatchResult
from arena.referee.service import Lineup, line_up
from arena.sprt.plan import PairPlan
from arena.stats.sprt import (
    Decision,
    Pentanomial,
    SprtParams,
    SprtResult,
    evaluate,
    expected_pairs,
)
from arena.stats.sprt_pairs import LegKey, PairBook

ROLES = ("candidate", "baseline")
"""The entrants of a test, in order."""
MAX_VOID_STREAK = 3
"""A leg void this many times in a row in one run stops the run (``VoidLegError``)."""


class VoidLegError(ArenaError):
    """A leg of an SPRT test keeps coming out void: the arena cannot play it."""


class SprtOutcome(enum.StrEnum):
    """How a test stands when a run ends."""

    H1 = "H1"
    """H1 accepted: the candidate is at least ``elo1`` stronger."""
    H0 = "H0"
    """H0 accepted: the candidate is at most ``elo0`` stronger."""
    INCONCLUSIVE = "inconclusive"
    """The pair budget is spent and the LLR reached neither bound."""
    UNFINISHED = "unfinished"
    """Neither yet: the run was stopped (run it again to continue)."""


@dataclass(frozen=True)
class SprtStatus:
    """Where a test stands: its complete pairs and what they say."""

    params: SprtParams
    """The design."""
    counts: Pentanomial
    """The pentanomial counts of the complete pairs."""
    max_pairs: int | None
    """The pair budget of this run (None: none)."""
    pairs_started: int = 0
    """Pairs begun (at least one leg handed out or recorded)."""
    result: SprtResult | None = None
    """The LLR, decision and estimates; None before the first complete pair."""

    @classmethod
    def of(cls, params: SprtParams, book: PairBook, max_pairs: int | None,
           pairs_started: int) -> SprtStatus:
        """The status of the pairs in ``book``."""
        result = evaluate(book.counts, params, book.draw_pairs) if book.counts.pairs else None
        return cls(params, book.counts, max_pairs, pairs_started, result)

    @property
    def pairs(self) -> int:
        """Complete pairs."""
        return self.counts.pairs

    @property
    def llr(self) -> float:
        """The LLR (0 before the first complete pair)."""
        return 0.0 if self.result is None else self.result.llr

    @property
    def decision(self) -> Decision:
        """H1, H0 or continue."""
        return Decision.CONTINUE if self.result is None else self.result.decision

    @property
    def budget_spent(self) -> bool:
        """The pair budget is used up."""
        return self.max_pairs is not None and self.pairs >= self.max_pairs

    @property
    def expected_pairs(self) -> float | None:
        """Pairs still expected before a bound is reached, at the LLR's pace so far."""
        return expected_pairs(self.llr, self.pairs, self.params.bounds)

    @property
    def outcome(self) -> SprtOutcome:
        """H1 or H0 once accepted, else inconclusive once the budget is spent, else
        unfinished."""
        if self.decision is not Decision.CONTINUE:
            return SprtOutcome(str(self.decision))
        return SprtOutcome.INCONCLUSIVE if self.budget_spent else SprtOutcome.UNFINISHED

    def to_json(self) -> dict[str, object]:
        """The fields of ``SprtResult.to_json`` (estimates null before the first complete
        pair), the outcome, the budget and the pairs still expected."""
        if self.result is not None:
            data = self.result.to_json()
        else:
            lower, upper = self.params.bounds
            data = {
                "model": str(self.params.model), "elo0": self.params.elo0,
                "elo1": self.params.elo1, "alpha": self.params.alpha, "beta": self.params.beta,
                "pentanomial": list(self.counts.counts), "pairs": 0, "llr": 0.0,
                "lower_bound": lower, "upper_bound": upper, "decision": str(Decision.CONTINUE),
                "score": None, "elo": None, "elo_ci95": None, "los": None,
                "variance_ratio": None, "variance_note": "no complete pair yet",
                "variance_reduction": None,
                "variance_ratio_range": [None, None], "draw_pairs": 0,
            }
        return {**data, "outcome": str(self.outcome), "max_pairs": self.max_pairs,
                "pairs_started": self.pairs_started, "expected_pairs": self.expected_pairs}


@dataclass(frozen=True)
class SprtEvent:
    """A progress report of a test's run: the runner's event with the test's status."""

    kind: LadderEventKind
    """What happened (the runner's event kinds)."""
    progress: Progress
    """The runner's snapshot: matches done, in flight, when the run started."""
    status: SprtStatus
    """The test's status after the event."""
    result: MatchResult | None = None
    """For ``MATCH_FINISHED``: the match's result."""


SprtSink = Callable[[SprtEvent], None]


@dataclass(frozen=True)
class SprtSummary:
    """What a run of a test did and where the test stands."""

    test: str
    """The test's name."""
    ladder_file: Path | None
    """Its ladder file."""
    bots: tuple[str, str]
    """The candidate's and the baseline's names, as recorded."""
    status: SprtStatus
    """Where the test stands."""
    run: RunSummary
    """The matches of this run."""

    @property
    def outcome(self) -> SprtOutcome:
        """H1, H0, inconclusive or unfinished."""
        return self.status.outcome

    def to_json(self) -> dict[str, object]:
        """One flat JSON object (`arena sprt --format json`)."""
        return {
            "test": self.test,
            "ladder_file": None if self.ladder_file is None else str(self.ladder_file),
            "candidate": self.bots[0],
            "baseline": self.bots[1],
            **self.status.to_json(),
            "matches_played": self.run.played,
            "void_matches": self.run.void,
            "given_up_matches": self.run.given_up,
            "interrupted": self.run.interrupted,
            "duration_s": round(self.run.duration_s, 3),
        }


class SprtSource:
    """The matches of a test, decided as results land (the runner's ``MatchSource``)."""

    def __init__(self, plan: PairPlan, book: PairBook, params: SprtParams,
                 max_pairs: int | None) -> None:
        self.plan = plan
        self.book = book
        self.params = params
        self.max_pairs = max_pairs
        self._queue = deque(plan.leg(p, leg, book.attempts(p, leg))
                            for p, leg in book.missing_legs())
        self._next_pair = book.pairs_started
        self._in_flight = 0
        self._void_streak: dict[LegKey, int] = {}
        self._changed = asyncio.Event()
        self.status = SprtStatus.of(params, book, max_pairs, self._next_pair)

    async def next_match(self) -> ScheduledMatch | None:
        """A missing leg, else the first leg of a new pair (its second leg comes next), while
        the test is undecided and within budget; else, with matches in flight, wait for them
        (they may change that); else None."""
        while True:
            match = self._pick()
            if match is not None:
                self._in_flight += 1
                return match
            if self._in_flight == 0:
                return None
            await self._changed.wait()

    def exhausted(self) -> bool:
        """Nothing to hand out and nothing in flight that could change it: the test is decided,
        or every leg within the pair budget has its result."""
        if self._in_flight:
            return False
        if self.status.decision is not Decision.CONTINUE:
            return True
        queued = any(self._within_budget(match.cycle) for match in self._queue)
        return not queued and not self._within_budget(self._next_pair)

    def _pick(self) -> ScheduledMatch | None:
        if self.status.decision is not Decision.CONTINUE:
            return None
        while self._queue:
            match = self._queue.popleft()
            if self._within_budget(match.cycle):
                return match
        if not self._within_budget(self._next_pair):
            return None
        pair = self._next_pair
        self._next_pair += 1
        self._queue.appendleft(self.plan.leg(pair, 1))
        self.status = dataclasses.replace(self.status, pairs_started=self._next_pair)
        return self.plan.leg(pair, 0)

    def _within_budget(self, pair: int) -> bool:
        return self.max_pairs is None or pair < self.max_pairs

    def settled(self, match: ScheduledMatch, result: MatchResult | None) -> None:
        """Count a recorded leg (a void one is played again, with its seed and the next attempt
        id); a dropped one is handed out again as it was. Raises ``VoidLegError`` when a leg
        was void ``MAX_VOID_STREAK`` times in a row."""
        self._in_flight -= 1
        try:
            if result is None:
                self._queue.appendleft(match)
            elif result.void:
                self._replay(match, result)
            elif self.book.add(match.cycle, match.leg, result.winner) is not None:
                self.status = SprtStatus.of(self.params, self.book, self.max_pairs,
                                            self._next_pair)
        finally:
            self._changed.set()  # wake the workers waiting for this
            self._changed = asyncio.Event()

    def _replay(self, match: ScheduledMatch, result: MatchResult) -> None:
        key = (match.cycle, match.leg)
        self.book.add(match.cycle, match.leg, result.winner, void=True)
        streak = self._void_streak[key] = self._void_streak.get(key, 0) + 1
        if streak >= MAX_VOID_STREAK:
            raise VoidLegError(
                f"match {match.match_id} was void {streak} times in a row ({result.termination}"
                f"{': ' + result.detail if result.detail else ''}): the arena cannot play it; "
                f"see its log {result.log or ''}, fix the cause and run the test again")
        self._queue.appendleft(self.plan.leg(match.cycle, match.leg,
                                             self.book.attempts(*key)))


# --- running -------------------------------------------------------------------------------------
def sprt_of(config: LadderConfig) -> SprtConfig:
    """The ladder's ``[sprt]`` section; ``ConfigError`` for a ladder that is not a test."""
    if config.sprt is None:
        where = f" ({config.source})" if config.source is not None else ""
        raise ConfigError(f"ladder {config.name!r}{where} is not an SPRT test: it has no [sprt] "
                          "section (run it with `arena run-ladder`)")
    return config.sprt


def resolve_pair(config: LadderConfig,
                 resolve: ResolveBot | None = None) -> tuple[BotSpec, BotSpec]:
    """The candidate and the baseline, resolved and checked, as they will be recorded: two
    bots of one name (say, a bot against itself) are told apart as ``NAME (candidate)`` and
    ``NAME (baseline)``. ``ConfigError`` for a bot that cannot be found or plays another game
    than the test's."""
    resolve = resolve or default_resolve
    specs = [resolve(ref, config.base_dir) for ref in config.entrants]
    for role, ref, spec in zip(ROLES, config.entrants, specs, strict=True):
        if spec.game != config.game:
            raise ConfigError(f"the {role} {ref!r} plays {spec.game!r}, but test "
                              f"{config.name!r} is {config.game!r}")
    if specs[0].name == specs[1].name:
        specs = [dataclasses.replace(spec, name=f"{spec.name} ({role})")
                 for role, spec in zip(ROLES, specs, strict=True)]
    return specs[0], specs[1]


def line_up_pair(config: LadderConfig, resolve: ResolveBot | None = None,
                 sandbox: str | None = None, check: bool = True) -> Lineup:
    """The test's bots (``resolve_pair``) lined up by the match service, candidate first."""
    return line_up(resolve_pair(config, resolve), game=config.game,
                   sandbox=sandbox or config.sandbox, check=check)


async def run_sprt(
    config: LadderConfig,
    *,
    play: PlayMatch | None = None,
    resolve: ResolveBot | None = None,
    max_pairs: int | None = None,
    concurrency: int | None = None,
    sandbox: str | None = None,
    on_event: SprtSink | None = None,
    stop: asyncio.Event | None = None,
    store: LadderStore | None = None,
) -> SprtSummary:
    """Run (or continue) the test of ``config``: pairs until the LLR reaches a bound, the pair
    budget (``max_pairs``, else the file's) is spent or ``stop`` is set. Raises
    ``ConfigError`` for a ladder that is not a test, bots of another game or a game that fails
    the conformance gate (``check_gated``), ``VoidLegError``,
    ``StoreError`` and what the player raises for infrastructure failures."""
    test = sprt_of(config)
    check_gated(config)  # a game that fails the conformance gate: refused before anything
    lineup = line_up_pair(config, resolve, sandbox, check=play is None)
    plan = PairPlan.of(config.name, (test.candidate, test.baseline), seed=config.seed,
                       secret=ladder_secret(config))
    budget = max_pairs if max_pairs is not None else test.max_pairs
    with open_run_store(config, store) as db:
        recorded = db.matches(config.name)
        given_up = [(a.cycle, a.leg) for a in db.void_attempts(config.name)]
        source = SprtSource(plan, PairBook.of(recorded, given_up), test.params, budget)
        run = await run_matches(config, lineup, source, db, play=play, concurrency=concurrency,
                                on_event=_with_status(on_event, source), stop=stop,
                                already=len(recorded))
    names = (lineup.bots[0].name, lineup.bots[1].name)
    return SprtSummary(config.name, config.source, names, source.status, run)


def _with_status(sink: SprtSink | None, source: SprtSource) -> EventSink | None:
    """The runner's events, passed on with the test's status."""
    if sink is None:
        return None

    def forward(event: LadderEvent) -> None:
        sink(SprtEvent(event.kind, event.progress, source.status, event.result))

    return forward


def run_sprt_blocking(config: LadderConfig, **kwargs: Any) -> SprtSummary:
    """``run_sprt`` in a fresh event loop; SIGINT and SIGTERM stop it cleanly (finished matches
    stay recorded, the ones in flight are played again next time)."""
    return run_blocking(lambda stop: run_sprt(config, stop=stop, **kwargs))
