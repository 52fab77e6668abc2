"""The matches' checks: ``playouts-end`` (random matches end, with a sound legal list and a
result that adds up) and ``replay`` (in-process logs replay; deals and round summaries are
JSON)."""

from __future__ import annotations

import json
from typing import Any

from arena.games.api import Game
from arena.gate.report import CheckFailed, one_line
from arena.gate.subject import DECISION_CAP, Playout, Subject
from arena.record.replay import replay_log


def check_playouts_end(subject: Subject) -> str:
    """Random matches end, with a sound legal list on the way and a result that adds up."""
    game = subject.game
    count = 0
    for seed in (*subject.seeds, *range(100, 100 + 3 * subject.matches)):
        playout = subject.playout(seed)
        if not playout.ended:
            raise CheckFailed(f"seed {seed}: a random match (choices seeded {seed + 1000}) did "
                              f"not end in {DECISION_CAP} decisions")
        if seed in subject.seeds:
            _sound_steps(game, playout, subject)
        _sound_end(game, playout)
        count += 1
    return f"{count} random matches ended, each within {DECISION_CAP} decisions"


def _sound_steps(game: Game[Any, Any, Any], playout: Playout, subject: Subject) -> None:
    finished = 0
    for number, step in enumerate(playout.steps, start=1):
        where = subject.at(playout.seed, number)
        if step.seat not in (0, 1):
            raise CheckFailed(f"{where}: to_move is {step.seat!r}, not 0, 1 or None")
        if len(set(step.legal)) != len(step.legal):
            raise CheckFailed(f"{where}: the legal actions repeat an action")
        if tuple(game.legal_actions(step.state)) != step.legal:
            raise CheckFailed(f"{where}: legal_actions differs when asked again")
        if game.outcome(step.state) is not None:
            raise CheckFailed(f"{where}: an outcome while seat {step.seat} is to move")
        rounds = len(game.finished_rounds(step.state))
        if game.round_index(step.state) != rounds:
            raise CheckFailed(f"{where}: round_index {game.round_index(step.state)} with "
                              f"{rounds} finished rounds")
        if rounds - finished not in (0, 1):
            raise CheckFailed(f"{where}: {rounds - finished} rounds finished at once")
        finished = rounds


def _sound_end(game: Game[Any, Any, Any], playout: Playout) -> None:
    final, where = playout.final, f"seed {playout.seed}, the end"
    result = game.outcome(final)
    if result is None or game.to_move(final) is not None:
        raise CheckFailed(f"{where}: to_move is None but there is no outcome (or the reverse)")
    rounds = tuple(game.finished_rounds(final))
    if tuple(result.rounds) != rounds or not rounds:
        raise CheckFailed(f"{where}: the result's rounds {result.rounds} are not the finished "
                          f"rounds {rounds}")
    totals = (sum(r[0] for r in rounds), sum(r[1] for r in rounds))
    if tuple(result.totals) != totals:
        raise CheckFailed(f"{where}: the result's totals {result.totals} are not the sum of "
                          f"its rounds {totals}")
    if result.winner not in (0, 1, None):
        raise CheckFailed(f"{where}: the winner is {result.winner!r}")


def check_replay(subject: Subject) -> str:
    """In-process matches write logs that replay; deals and round summaries are JSON."""
    game = subject.game
    if game.id != subject.game_id:
        raise CheckFailed(f"the engine's id is {game.id!r}, not the plugin's {subject.game_id!r}")
    decisions = 0
    for playout in subject.playouts():
        for number, step in enumerate(playout.steps, start=1):
            if number == 1 or game.round_index(step.state) != game.round_index(
                    playout.steps[number - 2].state):
                _is_json(game.deal_record(step.state),
                         f"{subject.at(playout.seed, number)}: deal_record")
        for index in range(len(game.finished_rounds(playout.final))):
            _is_json(game.round_summary(playout.final, index),
                     f"seed {playout.seed}: round_summary of round {index}")
    for seed in subject.seeds:
        subject.where = f"seed {seed}, the in-process match's log"
        path = subject.logs(seed)[0]
        try:
            report = replay_log(path)
        except Exception as exc:  # noqa: BLE001 — the replay's verdict is the detail
            raise CheckFailed(f"seed {seed}: the log of an in-process match does not replay: "
                              f"{type(exc).__name__}: {one_line(str(exc))}") from None
        if not report.finished:
            raise CheckFailed(f"seed {seed}: the replayed log has no match end")
        decisions += report.decisions
    return (f"{len(subject.seeds)} logged in-process matches replay ({decisions} decisions); "
            "deals and round summaries are JSON")


def _is_json(value: Any, what: str) -> None:
    try:
        back = json.loads(json.dumps(value))
    except (TypeError, ValueError) as exc:
        raise CheckFailed(f"{what} is not JSON: {exc}") from None
    if back != value:
        raise CheckFailed(f"{what} does not survive JSON (tuples, non-string keys?)")
