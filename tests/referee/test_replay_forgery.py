"""`arena replay` re-derives every forfeit: a log whose forfeit was edited does not verify.

The logs are real (the match loop with in-process seats writes them); the forgeries are what a
contestant with write access to a log would try."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from arena.cli.main import app
from arena.errors import ReplayMismatchError
from arena.games import get_game
from arena.model import BotSpec, MatchSpec, Termination, TimeControl
from arena.record.replay import replay_log
from arena.referee.local import LocalPlayer
from arena.referee.match import Match

pytestmark = pytest.mark.unit

Record = dict[str, Any]


def _first(decision: Any) -> Any:
    return decision.legal_actions[0]


def _illegal(decision: Any) -> str:
    game, legal = get_game("lost-cities"), set(decision.legal_texts)
    return next(t for t in (f"play {c}{v} deck" for c in "YBWGR" for v in range(2, 11))
                if t not in legal and game.parse_action(t) is not None)


def _slow(decision: Any) -> Any:
    import time

    time.sleep(0.03)
    return _first(decision)


def _forfeit_log(tmp_path: Path, bad: Callable[[Any], Any], move_ms: int = 1000) -> Path:
    """A one-round match where seat 1 plays two good moves, then ``bad``."""
    count = 0

    def seat1(decision: Any) -> Any:
        nonlocal count
        count += 1
        return _first(decision) if count <= 2 else bad(decision)

    bots = (BotSpec("good", "lost-cities"), BotSpec("bad", "lost-cities"))
    spec = MatchSpec("lost-cities", 8, bots, {"rounds": 1},
                     TimeControl(move_time_ms=move_ms, startup_ms=1000), match_id="forged")
    match = Match(spec, sandbox_name="in-process", log_dir=tmp_path)
    asyncio.run(match.run((LocalPlayer(0, _first), LocalPlayer(1, seat1))))
    return tmp_path / "forged.jsonl"


def _records(path: Path) -> list[Record]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def _write(path: Path, records: list[Record]) -> Path:
    out = path.with_name("edited.jsonl")
    out.write_text("".join(json.dumps(r) + "\n" for r in records))
    return out


def _result(records: list[Record]) -> Record:
    result: Record = records[-1]["result"]
    return result


def _flip_faulty_seat(records: list[Record]) -> None:
    _result(records)["faulty_seat"] = 0
    _result(records)["winner"] = 1


def _winner_is_the_faulty_seat(records: list[Record]) -> None:
    _result(records)["winner"] = 1


def _the_illegal_action_was_legal(records: list[Record]) -> None:
    game = get_game("lost-cities")  # name an action that is legal in that position
    state = game.new_match(8, {"rounds": 1})
    for record in records:
        if record["type"] == "decision" and "fault" not in record:
            state = game.apply(state, game.parse_action(record["action"]))
    records[-2]["action"] = game.format_action(game.legal_actions(state)[0])


def _drop_the_fault_record(records: list[Record]) -> None:
    del records[-2]


def _call_it_normal(records: list[Record]) -> None:
    del records[-2]
    _result(records).update(termination="normal", faulty_seat=None)


@pytest.mark.parametrize("forge", [_flip_faulty_seat, _winner_is_the_faulty_seat,
                                   _the_illegal_action_was_legal, _drop_the_fault_record,
                                   _call_it_normal])
def test_an_edited_illegal_action_forfeit_does_not_replay(
    forge: Callable[[list[Record]], None], tmp_path: Path
) -> None:
    log = _forfeit_log(tmp_path, _illegal)
    report = replay_log(log)  # the real one verifies
    assert report.result is not None and report.result.termination is Termination.ILLEGAL_ACTION
    records = _records(log)
    assert records[-2]["fault"] == "illegal_action" and records[-2]["seat"] == 1
    forge(records)
    with pytest.raises(ReplayMismatchError):
        replay_log(_write(log, records))


def test_a_timeout_must_have_taken_longer_than_its_allowance(tmp_path: Path) -> None:
    log = _forfeit_log(tmp_path, _slow, move_ms=10)
    assert replay_log(log).result.termination is Termination.TIMEOUT  # type: ignore[union-attr]
    records = _records(log)
    assert records[-2]["fault"] == "timeout" and records[-2]["ms"] > 10
    records[-2]["ms"] = 5.0
    with pytest.raises(ReplayMismatchError, match="within the allowance"):
        replay_log(_write(log, records))
    records = _records(log)  # a played decision that took too long was a timeout
    played = next(r for r in records if r["type"] == "decision")
    played["ms"] = 10.5
    with pytest.raises(ReplayMismatchError, match="over seat 0's allowance"):
        replay_log(_write(log, records))


def test_an_invalid_answer_must_not_be_an_action(tmp_path: Path) -> None:
    log = _forfeit_log(tmp_path, lambda d: "take everything")
    assert replay_log(log).result.termination is Termination.INVALID_ACTION  # type: ignore[union-attr]
    records = _records(log)
    assert records[-2]["action"] == "take everything"
    records[-2]["action"] = "play Y5 deck"
    with pytest.raises(ReplayMismatchError, match="logged as invalid"):
        replay_log(_write(log, records))


@pytest.mark.integration
def test_arena_replay_exits_1_on_a_forged_forfeit(tmp_path: Path) -> None:
    log = _forfeit_log(tmp_path, _illegal)
    records = _records(log)
    _flip_faulty_seat(records)
    out = CliRunner().invoke(app, ["replay", str(_write(log, records))])
    assert out.exit_code == 1 and "faulty seat" in out.output
