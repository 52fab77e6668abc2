"""Re-run a match log through the rules engine and check every deal, action and score."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.errors import GameError, LogFormatError, ReplayMismatchError
from arena.games import get_game
from arena.games.api import Game
from arena.referee.log import read_events


@dataclass
class ReplayStep:
    """The state after one log event (what `arena watch` renders)."""

    event: dict[str, Any]
    state: Any


@dataclass
class ReplayReport:
    match_id: str
    game: str
    decisions: int = 0
    rounds: list[tuple[int, int]] = field(default_factory=list)
    finished: bool = False
    result: dict[str, Any] | None = None


def replay_log(path: Path) -> ReplayReport:
    """Verify a whole log; raise ``ReplayMismatchError`` at the first disagreement."""
    events = list(read_events(path))
    report: ReplayReport | None = None
    for step in replay_events(events):
        if report is None:
            report = ReplayReport(step.event["match_id"], step.event["game"])
        kind = step.event["type"]
        if kind == "decision":
            report.decisions += 1
        elif kind == "round_end":
            scores = step.event["scores"]
            report.rounds.append((int(scores[0]), int(scores[1])))
        elif kind == "match_end":
            report.finished = True
            report.result = step.event["result"]
    if report is None:
        raise LogFormatError(f"{path}: empty match log")
    return report


def replay_events(events: Iterable[dict[str, Any]]) -> Iterator[ReplayStep]:
    """Yield the state after every event, checking each against the engine as it goes."""
    iterator = iter(events)
    header = next(iterator, None)
    if header is None or header.get("type") != "header":
        raise LogFormatError("a match log must start with a header event")
    game = get_game(header["game"])
    if int(header.get("game_version", game.version)) != game.version:
        raise ReplayMismatchError(
            f"the log was written with {game.id} rules version {header['game_version']}, "
            f"this arena has version {game.version}"
        )
    state = game.new_match(int(header["seed"]), header.get("options") or {})
    yield ReplayStep(header, state)
    for number, event in enumerate(iterator, start=2):
        state = _check(game, state, event, number)
        yield ReplayStep(event, state)


def _check(game: Game[Any, Any, Any], state: Any, event: dict[str, Any], n: int) -> Any:
    kind = event["type"]
    if kind == "deal":
        if event.get("round") != game.round_index(state):
            raise ReplayMismatchError(f"event {n}: deal for round {event.get('round')}, "
                                      f"the engine is in round {game.round_index(state)}")
        if event.get("deal") != game.deal_record(state):
            raise ReplayMismatchError(f"event {n}: the deal of round {event['round']} differs "
                                      "from the engine's deal for this seed")
        return state
    if kind == "decision":
        return _check_decision(game, state, event, n)
    if kind == "round_end":
        finished = game.finished_rounds(state)
        index = int(event["round"])
        if index >= len(finished) or list(finished[index]) != list(event["scores"]):
            got = list(finished[index]) if index < len(finished) else "unfinished"
            raise ReplayMismatchError(
                f"event {n}: round {index} scores {event['scores']} in the log, engine: {got}"
            )
        return state
    if kind == "match_end":
        _check_end(game, state, event["result"], n)
        return state
    raise LogFormatError(f"event {n}: unexpected {kind!r} event")


def _check_decision(game: Game[Any, Any, Any], state: Any, event: dict[str, Any], n: int) -> Any:
    seat = game.to_move(state)
    if seat != event.get("seat"):
        raise ReplayMismatchError(f"event {n}: seat {event.get('seat')} moved, "
                                  f"the engine expected seat {seat}")
    try:
        action = game.parse_action(event["action"])
    except GameError as exc:
        raise ReplayMismatchError(f"event {n}: action {event['action']!r}: {exc}") from None
    if not game.is_legal(state, action):
        raise ReplayMismatchError(f"event {n}: action {event['action']!r} is illegal here")
    return game.apply(state, action)


def _check_end(game: Game[Any, Any, Any], state: Any, result: dict[str, Any], n: int) -> None:
    finished = [list(r) for r in game.finished_rounds(state)]
    if [list(r) for r in result["rounds"]] != finished:
        raise ReplayMismatchError(f"event {n}: the result's rounds {result['rounds']} differ "
                                  f"from the engine's {finished}")
    if result["termination"] != "normal":
        return
    outcome = game.outcome(state)
    if outcome is None:
        raise ReplayMismatchError(f"event {n}: the log says the match ended normally, "
                                  "but the engine's match is not over")
    if outcome.winner != result["winner"] or list(outcome.totals) != list(result["totals"]):
        raise ReplayMismatchError(
            f"event {n}: result winner {result['winner']} totals {result['totals']}, "
            f"engine: winner {outcome.winner} totals {list(outcome.totals)}"
        )
