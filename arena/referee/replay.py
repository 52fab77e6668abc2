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
    """Yield the state after every event, checking each against the engine as it goes."""
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
    state = game.new_match(header.seed, header.options)
    yield ReplayStep(header, state)
    for number, event in enumerate(iterator, start=2):
        state = _check(game, state, event, number)
        yield ReplayStep(event, state)


def _check(game: Game[Any, Any, Any], state: Any, event: MatchEvent, n: int) -> Any:
    if isinstance(event, DealEvent):
        if event.round != game.round_index(state):
            raise ReplayMismatchError(f"event {n}: deal for round {event.round}, "
                                      f"the engine is in round {game.round_index(state)}")
        if event.deal != game.deal_record(state):
            raise ReplayMismatchError(f"event {n}: the deal of round {event.round} differs "
                                      "from the engine's deal for this seed")
        return state
    if isinstance(event, DecisionEvent):
        return _check_decision(game, state, event, n)
    if isinstance(event, RoundEndEvent):
        finished = game.finished_rounds(state)
        if event.round >= len(finished) or finished[event.round] != event.scores:
            got = list(finished[event.round]) if event.round < len(finished) else "unfinished"
            raise ReplayMismatchError(
                f"event {n}: round {event.round} scores {list(event.scores)} in the log, "
                f"engine: {got}"
            )
        return state
    if isinstance(event, MatchEndEvent):
        _check_end(game, state, event.result, n)
        return state
    raise LogFormatError(f"event {n}: unexpected {event.type!r} event")


def _check_decision(game: Game[Any, Any, Any], state: Any, event: DecisionEvent, n: int) -> Any:
    seat = game.to_move(state)
    if seat != event.seat:
        raise ReplayMismatchError(f"event {n}: seat {event.seat} moved, "
                                  f"the engine expected seat {seat}")
    try:
        action = game.parse_action(event.action)
    except GameError as exc:
        raise ReplayMismatchError(f"event {n}: action {event.action!r}: {exc}") from None
    if not game.is_legal(state, action):
        raise ReplayMismatchError(f"event {n}: action {event.action!r} is illegal here")
    return game.apply(state, action)


def _check_end(game: Game[Any, Any, Any], state: Any, result: MatchResult, n: int) -> None:
    finished = game.finished_rounds(state)
    if result.rounds != finished:
        raise ReplayMismatchError(f"event {n}: the result's rounds {_lists(result.rounds)} "
                                  f"differ from the engine's {_lists(finished)}")
    if result.termination is not Termination.NORMAL:
        return
    outcome = game.outcome(state)
    if outcome is None:
        raise ReplayMismatchError(f"event {n}: the log says the match ended normally, "
                                  "but the engine's match is not over")
    if outcome.winner != result.winner or outcome.totals != result.totals:
        raise ReplayMismatchError(
            f"event {n}: result winner {result.winner} totals {list(result.totals)}, "
            f"engine: winner {outcome.winner} totals {list(outcome.totals)}"
        )


def _lists(rounds: tuple[tuple[int, int], ...]) -> list[list[int]]:
    return [list(r) for r in rounds]
