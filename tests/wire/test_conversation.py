"""The frames of the bot conversation, written by the referee and read by the SDK through one
module (``arena.wire.conversation``): what one end writes, the other reads back unchanged."""

from __future__ import annotations

import pytest

import arena
from arena.games import game_ids, get_game
from arena.model import MatchResult, Termination, TimeControl
from arena.v1 import bot_pb2
from arena.wire import conversation
from arena.wire.conversation import SeatStart

pytestmark = pytest.mark.unit


@pytest.mark.parametrize("game_id", game_ids())
def test_a_match_start_reads_back_as_it_was_written(game_id: str) -> None:
    game = get_game(game_id)
    options = game.options_of(game.new_match(3, {}))
    start = SeatStart("m-1", game_id, game.version, options, 1,
                      TimeControl(250, 1000, 5000, clock="cpu", wall_guard=3.0),
                      ("alpha", "beta"))
    frame = conversation.match_start(start)
    wire = bot_pb2.RefereeMessage.FromString(frame.SerializeToString())
    assert wire.match_start.protocol_version == arena.PROTOCOL_VERSION
    assert conversation.seat_start(wire.match_start) == start


@pytest.mark.parametrize("termination", list(Termination))
def test_a_match_end_reads_back_for_each_seat(termination: Termination) -> None:
    faulty = 1 if termination.is_fault else None
    result = MatchResult(
        match_id="m", game="lost-cities", game_version=1, seed=1, options={}, bots=("a", "b"),
        rounds=((10, 3),), totals=(10, 3), winner=None if termination.is_void else 0,
        termination=termination, faulty_seat=faulty, detail="x" * 1500, log=None,
        duration_s=1.0, decisions=4)
    for seat in (0, 1):
        frame = bot_pb2.RefereeMessage.FromString(
            conversation.match_end(result, seat).SerializeToString())
        end = conversation.match_ending(frame.match_end)
        assert end.result == f"MATCH_RESULT_{result.outcome_for(seat).name}"
        assert end.termination == f"TERMINATION_{termination.name}"
        assert end.totals == (10, 3) and end.faulty_seat == faulty
        assert end.detail == "x" * conversation.DETAIL_CHARS


def test_a_hello_names_the_bot_and_the_protocol() -> None:
    hello = bot_pb2.BotMessage.FromString(conversation.hello("b", "2").SerializeToString()).hello
    assert (hello.bot_name, hello.bot_version, hello.protocol_version) == (
        "b", "2", arena.PROTOCOL_VERSION)
    frame = conversation.round_end(2, (5, -3), (20, 1))
    assert (frame.round_end.round, tuple(frame.round_end.scores),
            tuple(frame.round_end.totals)) == (2, (5, -3), (20, 1))
