"""Re-run a match log through the rules engine and check every deal, action and score.

A log of format 4 does not state its seed: its header commits to it (``seed_commitment``) and the
match end reveals the salt (the result holds the seed). Replay checks the reveal against the
commitment before it re-deals anything (``check_seed_reveal``), so the deals it then checks are
those of a seed fixed before the match began. Whether the log is the referee's is a separate
check, its signature (``arena.record.signing.check_log_signature``); ``arena replay`` runs it
first.

The clocks are re-run from the recorded figures with the referee's own rules
(``arena.record.clock``): a log of format 5 names its clock model in the header; on the CPU
clock every decision is charged its recorded ``cpu_ms`` and a ``wall_timeout`` must have waited
out its guard; a log before format 5 ran on the wall clock."""

from __future__ import annotations

import contextlib
import enum
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.errors import GameError, LogFormatError, ReplayMismatchError, SignatureError
from arena.games import get_game
from arena.games.api import Game
from arena.model import (
    DealEvent,
    DecisionEvent,
    HeaderEvent,
    MatchEndEvent,
    MatchEvent,
    MatchResult,
    RoundEndEvent,
    Termination,
    seed_commitment,
)
from arena.record.clock import seat_clocks
from arena.record.log import read_events
from arena.record.signing import LogSignature, TrustedKeys, check_log_signature


@dataclass
class ReplayStep:
    """The state after one log event (what `arena watch` renders)."""

    event: MatchEvent
    state: Any


COMMITTED_SINCE = 4
"""The first log format whose header commits to its seed instead of stating it."""


class SeedCheck(enum.StrEnum):
    """What replay could say of a log's seed (the header's commitment and the end's reveal)."""

    MATCHES = "matches its commitment"
    """Format 4, finished: the revealed seed and salt hash to the header's commitment."""
    NOT_COMMITTED = "not committed (log format < 4)"
    """An older log: its header states the seed, there is nothing to check it against."""
    UNREVEALED = "committed, not revealed yet (the match is unfinished)"
    """Format 4 without a match end: the seed (read from the running match's private sidecar)
    cannot be checked against the commitment until the match end reveals the salt."""


@dataclass
class ReplayReport:
    """What a verified log holds (``replay_log``)."""

    match_id: str
    """The header's match id."""
    game: str
    """The game id."""
    log_format: int = 1
    """The header's log format."""
    seed: SeedCheck = SeedCheck.NOT_COMMITTED
    """What was checked of the seed."""
    decisions: int = 0
    """Decisions replayed."""
    rounds: list[tuple[int, int]] = field(default_factory=list)
    """The scores of every round that ended."""
    finished: bool = False
    """Whether the log ends with the match end (else: a running or killed match)."""
    result: MatchResult | None = None
    """The match end's result, when finished."""


def replay_log(path: Path) -> ReplayReport:
    """Verify a whole log: the seed's reveal against its commitment (format 4), then every
    event against the rules engine; raise ``ReplayMismatchError`` at the first disagreement
    (``LogFormatError`` for a log that cannot be read, or a running committed log whose seed is
    not readable)."""
    events = list(read_events(path))
    _check_reveal_of(events)
    return _replay_report(events, path)


@dataclass
class LogVerification:
    """What `arena replay` established of a log, step by step (``verify_log``)."""

    signature: LogSignature | None
    """The signature record (``verified`` when checked against a trusted key); None: unsigned."""
    report: ReplayReport
    """The seed and the rules."""


UNSIGNED = "unsigned: nothing to verify against the key"
"""Why a log without a signature fails when keys were given to check it against."""


def verify_log(path: Path, trusted: TrustedKeys | None) -> LogVerification:
    """Check a log in three steps and say which failed: its signature against ``trusted``
    (``SignatureError``; only read when ``trusted`` is None; an unsigned log fails when keys are
    given), then its seed's reveal against the header's commitment, then every event against
    the rules (``ReplayMismatchError`` whose message starts with ``seed:`` or ``rules:``)."""
    try:  # a log that cannot be read at all is not a failed check
        with path.open("rb"):
            pass
    except OSError as exc:
        raise LogFormatError(f"cannot read match log {path}: {exc.strerror}") from None
    signature = check_log_signature(path, trusted)
    if signature is None and trusted is not None:
        raise SignatureError(UNSIGNED)
    events = list(read_events(path))
    with _step("seed"):
        _check_reveal_of(events)
    with _step("rules"):
        report = _replay_report(events, path)
    return LogVerification(signature, report)


@contextlib.contextmanager
def _step(name: str) -> Iterator[None]:
    """Name the step in a ``ReplayMismatchError`` raised within."""
    try:
        yield
    except ReplayMismatchError as exc:
        raise ReplayMismatchError(f"{name}: {exc}") from None


def _check_reveal_of(events: list[MatchEvent]) -> None:
    header, end = (events[0], events[-1]) if events else (None, None)
    if isinstance(header, HeaderEvent) and isinstance(end, MatchEndEvent):
        check_seed_reveal(header, end)


def _replay_report(events: list[MatchEvent], path: Path) -> ReplayReport:
    finished = bool(events) and isinstance(events[-1], MatchEndEvent)
    report: ReplayReport | None = None
    for step in replay_events(events):
        event = step.event
        if isinstance(event, HeaderEvent):
            report = ReplayReport(event.match_id, event.game, event.log_format,
                                  _seed_check(event, finished))
        assert report is not None, "replay_events starts with the header"
        if isinstance(event, DecisionEvent):
            report.decisions += 1
        elif isinstance(event, RoundEndEvent):
            report.rounds.append(event.scores)
        elif isinstance(event, MatchEndEvent):
            report.finished = True
            report.result = event.result
    if report is None:
        raise LogFormatError(f"{path}: empty match log")
    return report


def check_seed_reveal(header: HeaderEvent, end: MatchEndEvent) -> None:
    """The match end's seed is the header's: for a committed header (format 4), the revealed
    seed and salt hash to its commitment; raise ``ReplayMismatchError`` when they do not (a
    reveal made up after the match, to pass other deals off as the match's)."""
    seed = end.result.seed
    if header.seed_commitment:
        if seed_commitment(seed, end.seed_salt) != header.seed_commitment:
            raise ReplayMismatchError("the revealed seed does not match the header's commitment "
                                      "(the match end's seed and seed_salt)")
    elif header.log_format >= COMMITTED_SINCE:
        raise ReplayMismatchError(f"a header of log format {header.log_format} without its "
                                  "seed_commitment")
    if header.seed is not None and header.seed != seed:
        raise ReplayMismatchError(f"the result's seed {seed} is not the header's "
                                  f"{header.seed}")


def _seed_check(header: HeaderEvent, finished: bool) -> SeedCheck:
    if not header.seed_commitment:
        return SeedCheck.NOT_COMMITTED
    return SeedCheck.MATCHES if finished else SeedCheck.UNREVEALED


def replay_events(events: Iterable[MatchEvent]) -> Iterator[ReplayStep]:
    """Yield the state after every event, checking each against the engine as it goes: the
    deals, every action's legality, the clocks (re-run from the measured times), the scores,
    and the result, including a forfeit's termination, faulty seat and winner; a committed
    seed's reveal at the match end (``check_seed_reveal``).

    A committed header (format 4) must come with its seed filled in (``read_events`` does, from
    the reveal or the running match's sidecar): without it nothing can be dealt, a
    ``LogFormatError``."""
    iterator = iter(events)
    header = next(iterator, None)
    if not isinstance(header, HeaderEvent):
        raise LogFormatError("a match log must start with a header event")
    if header.seed is None:
        raise LogFormatError(f"{header.match_id}: the seed of a running committed log is "
                             "unknown (its header holds only the commitment; the match end "
                             "reveals it)")
    game = get_game(header.game)
    if header.game_version != game.version:
        raise ReplayMismatchError(
            f"the log was written with {game.id} rules version {header.game_version}, "
            f"this arena has version {game.version}"
        )
    check = _Checker(game, header, header.seed)
    yield ReplayStep(header, check.state)
    for number, event in enumerate(iterator, start=2):
        check.event(event, number)
        yield ReplayStep(event, check.state)


class _Checker:
    """The engine and the clocks, advanced event by event."""

    def __init__(self, game: Game[Any, Any, Any], header: HeaderEvent, seed: int) -> None:
        self.game = game
        self.header = header
        self.state = game.new_match(seed, header.options)
        self.clocks = seat_clocks(header.time_control, header.humans)
        self.decisions = 0
        self.fault: DecisionEvent | None = None
        self.ended = False

    def event(self, event: MatchEvent, n: int) -> None:
        if self.ended:
            raise ReplayMismatchError(f"event {n}: a {event.type} event after the match end")
        if self.fault is not None and not isinstance(event, MatchEndEvent):
            raise ReplayMismatchError(f"event {n}: the match goes on after a forfeit")
        if isinstance(event, DealEvent):
            self._deal(event, n)
        elif isinstance(event, DecisionEvent):
            self._decision(event, n)
        elif isinstance(event, RoundEndEvent):
            self._round_end(event, n)
        elif isinstance(event, MatchEndEvent):
            check_seed_reveal(self.header, event)
            self._end(event.result, n)
        else:
            raise LogFormatError(f"event {n}: unexpected {event.type!r} event")

    def _deal(self, event: DealEvent, n: int) -> None:
        game, state = self.game, self.state
        if event.round != game.round_index(state):
            raise ReplayMismatchError(f"event {n}: deal for round {event.round}, "
                                      f"the engine is in round {game.round_index(state)}")
        if event.deal != game.deal_record(state):
            raise ReplayMismatchError(f"event {n}: the deal of round {event.round} differs "
                                      "from the engine's deal for this seed")

    def _decision(self, event: DecisionEvent, n: int) -> None:
        game = self.game
        self.decisions += 1
        seat = game.to_move(self.state)
        if seat != event.seat:
            raise ReplayMismatchError(f"event {n}: seat {event.seat} moved, "
                                      f"the engine expected seat {seat}")
        if event.n != self.decisions:
            raise ReplayMismatchError(f"event {n}: decision number {event.n}, "
                                      f"expected {self.decisions}")
        if event.fault is not None:
            self._check_fault(event, n)
            self.fault = event
            return
        action = self._parse(event.action, n)
        if not game.is_legal(self.state, action):
            raise ReplayMismatchError(f"event {n}: action {event.action!r} is illegal here")
        self._check_cpu_recorded(event, n)
        fault = self.clocks[seat].charge(event.ms, event.cpu_ms)
        if fault is not None:
            limit = "allowance" if fault is Termination.TIMEOUT else "wall guard"
            raise ReplayMismatchError(f"event {n}: {_figures(event)} is over seat {seat}'s "
                                      f"{limit}: that decision was a {fault}")
        self.state = game.apply(self.state, action)

    def _parse(self, text: str | None, n: int) -> Any:
        try:
            return self.game.parse_action(text or "")
        except GameError as exc:
            raise ReplayMismatchError(f"event {n}: action {text!r}: {exc}") from None

    def _check_fault(self, event: DecisionEvent, n: int) -> None:
        """A forfeit the log claims must be what the rules and the clock say it is."""
        game, fault = self.game, event.fault
        if fault is Termination.ILLEGAL_ACTION:
            action = self._parse(event.action, n)
            if game.is_legal(self.state, action):
                raise ReplayMismatchError(f"event {n}: {event.action!r} is logged as illegal, "
                                          "but it is a legal action here")
        elif fault is Termination.INVALID_ACTION:
            if event.action is not None and _parses(game, event.action):
                raise ReplayMismatchError(f"event {n}: {event.action!r} is logged as invalid, "
                                          "but it is an action of the game")
        elif fault is Termination.TIMEOUT:
            self._check_cpu_recorded(event, n)
            clock = self.clocks[event.seat]
            allowance = clock.allowance_ms()
            if clock.charged_ms(event.ms, event.cpu_ms) <= allowance:
                raise ReplayMismatchError(f"event {n}: logged as a timeout after "
                                          f"{_figures(event)}, within the allowance of "
                                          f"{allowance:.0f} ms")
        elif fault is Termination.WALL_TIMEOUT:
            clock = self.clocks[event.seat]
            if not clock.cpu:
                raise ReplayMismatchError(f"event {n}: a wall_timeout on the wall clock (the "
                                          "guard exists only on the CPU clock)")
            if event.ms < clock.guard_ms():
                raise ReplayMismatchError(f"event {n}: logged as a wall_timeout after "
                                          f"{event.ms} ms, before its guard of "
                                          f"{clock.guard_ms():.0f} ms")
        elif fault is not None and not fault.is_fault:
            raise ReplayMismatchError(f"event {n}: {fault} is not a bot's fault")

    def _check_cpu_recorded(self, event: DecisionEvent, n: int) -> None:
        """On the CPU clock a decision is charged its CPU time: it must be recorded."""
        if self.clocks[event.seat].cpu and event.cpu_ms is None:
            raise ReplayMismatchError(f"event {n}: a decision on the CPU clock without its "
                                      "CPU time (cpu_ms)")

    def _round_end(self, event: RoundEndEvent, n: int) -> None:
        finished = self.game.finished_rounds(self.state)
        if event.round >= len(finished) or finished[event.round] != event.scores:
            got = list(finished[event.round]) if event.round < len(finished) else "unfinished"
            raise ReplayMismatchError(
                f"event {n}: round {event.round} scores {list(event.scores)} in the log, "
                f"engine: {got}"
            )
        if self.header.log_format >= 3:
            summary = self.game.round_summary(self.state, event.round)
            if event.summary != summary:
                raise ReplayMismatchError(
                    f"event {n}: round {event.round} summary {event.summary} in the log, "
                    f"engine: {summary}"
                )

    def _end(self, result: MatchResult, n: int) -> None:
        self.ended = True
        game, state = self.game, self.state
        finished = game.finished_rounds(state)
        if result.rounds != finished:
            raise ReplayMismatchError(f"event {n}: the result's rounds {_lists(result.rounds)} "
                                      f"differ from the engine's {_lists(finished)}")
        if self.header.log_format >= 2 and result.decisions != self.decisions:
            raise ReplayMismatchError(f"event {n}: the result counts {result.decisions} "
                                      f"decisions, the log holds {self.decisions}")
        if self.fault is not None:
            self._end_of_forfeit(result, self.fault, n)
        elif result.termination is Termination.NORMAL:
            self._end_of_play(result, n)
        elif self.header.log_format >= 2 and result.termination in _DECISION_FAULTS:
            raise ReplayMismatchError(f"event {n}: a {result.termination} forfeit without the "
                                      "decision that earned it")
        elif result.termination.is_fault and result.faulty_seat is not None and (
                result.winner != 1 - result.faulty_seat):
            raise ReplayMismatchError(f"event {n}: seat {result.faulty_seat} forfeited, "
                                      f"but the winner is {result.winner}")

    def _end_of_forfeit(self, result: MatchResult, fault: DecisionEvent, n: int) -> None:
        expected = (fault.fault, fault.seat, 1 - fault.seat)
        got = (result.termination, result.faulty_seat, result.winner)
        if got != expected:
            raise ReplayMismatchError(
                f"event {n}: the result says termination {got[0]}, faulty seat {got[1]}, "
                f"winner {got[2]}; decision {fault.n} makes it {expected[0]}, faulty seat "
                f"{expected[1]}, winner {expected[2]}"
            )

    def _end_of_play(self, result: MatchResult, n: int) -> None:
        outcome = self.game.outcome(self.state)
        if outcome is None:
            raise ReplayMismatchError(f"event {n}: the log says the match ended normally, "
                                      "but the engine's match is not over")
        if (outcome.winner, outcome.totals) != (result.winner, result.totals) or (
                result.faulty_seat is not None):
            raise ReplayMismatchError(
                f"event {n}: result winner {result.winner} totals {list(result.totals)}, "
                f"engine: winner {outcome.winner} totals {list(outcome.totals)}"
            )


_DECISION_FAULTS = (Termination.TIMEOUT, Termination.ILLEGAL_ACTION, Termination.INVALID_ACTION,
                    Termination.WALL_TIMEOUT)
"""Faults that only ever happen at a decision: a log of format 2 must hold that decision."""


def _figures(event: DecisionEvent) -> str:
    """A decision's measured times as a mismatch names them."""
    if event.cpu_ms is None:
        return f"{event.ms} ms"
    return f"{event.ms} ms ({event.cpu_ms} ms of CPU)"


def _parses(game: Game[Any, Any, Any], text: str) -> bool:
    try:
        game.parse_action(text)
    except GameError:
        return False
    return True


def _lists(rounds: tuple[tuple[int, int], ...]) -> list[list[int]]:
    return [list(r) for r in rounds]
