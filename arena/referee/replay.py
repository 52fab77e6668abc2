"""Re-run a match log through the rules engine and check every deal, action and score."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.errors import GameError, LogFormatError, ReplayMismatchError
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
)
from arena.referee.clock import Clock
from arena.referee.log import read_events


@dataclass
class ReplayStep:
    """The state after one log event (what `arena watch` renders)."""

    event: MatchEvent
    state: Any


@dataclass
class ReplayReport:
    match_id: str
    game: str
    decisions: int = 0
    rounds: list[tuple[int, int]] = field(default_factory=list)
    finished: bool = False
    result: MatchResult | None = None


def replay_log(path: Path) -> ReplayReport:
    """Verify a whole log; raise ``ReplayMismatchError`` at the first disagreement."""
    events = list(read_events(path))
    report: ReplayReport | None = None
    for step in replay_events(events):
        event = step.event
        if isinstance(event, HeaderEvent):
            report = ReplayReport(event.match_id, event.game)
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


def replay_events(events: Iterable[MatchEvent]) -> Iterator[ReplayStep]:
    """Yield the state after every event, checking each against the engine as it goes: the
    deals, every action's legality, the clocks (re-run from the measured times), the scores,
    and the result, including a forfeit's termination, faulty seat and winner."""
    iterator = iter(events)
    header = next(iterator, None)
    if not isinstance(header, HeaderEvent):
        raise LogFormatError("a match log must start with a header event")
    game = get_game(header.game)
    if header.game_version != game.version:
        raise ReplayMismatchError(
            f"the log was written with {game.id} rules version {header.game_version}, "
            f"this arena has version {game.version}"
        )
    check = _Checker(game, header)
    yield ReplayStep(header, check.state)
    for number, event in enumerate(iterator, start=2):
        check.event(event, number)
        yield ReplayStep(event, check.state)


class _Checker:
    """The engine and the clocks, advanced event by event."""

    def __init__(self, game: Game[Any, Any, Any], header: HeaderEvent) -> None:
        self.game = game
        self.header = header
        self.state = game.new_match(header.seed, header.options)
        tc = header.time_control
        self.clocks = [Clock(tc.move_time_ms, float(tc.time_bank_ms)) for _ in range(2)]
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
        if not self.clocks[seat].charge(event.ms):
            raise ReplayMismatchError(f"event {n}: {event.ms} ms is over seat {seat}'s "
                                      "allowance: that decision was a timeout")
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
            allowance = self.clocks[event.seat].allowance_ms()
            if event.ms <= allowance:
                raise ReplayMismatchError(f"event {n}: logged as a timeout after {event.ms} ms, "
                                          f"within the allowance of {allowance:.0f} ms")
        elif fault is not None and not fault.is_fault:
            raise ReplayMismatchError(f"event {n}: {fault} is not a bot's fault")

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


_DECISION_FAULTS = (Termination.TIMEOUT, Termination.ILLEGAL_ACTION, Termination.INVALID_ACTION)
"""Faults that only ever happen at a decision: a log of format 2 must hold that decision."""


def _parses(game: Game[Any, Any, Any], text: str) -> bool:
    try:
        game.parse_action(text)
    except GameError:
        return False
    return True


def _lists(rounds: tuple[tuple[int, int], ...]) -> list[list[int]]:
    return [list(r) for r in rounds]
