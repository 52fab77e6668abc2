"""Each seat's last action on the wire (issue 25): typed in every game's observation, decoded
exactly, read as "none yet" from an observation that does not carry it (an older referee's),
and refused when malformed."""

from __future__ import annotations

import random
from typing import Any

import pytest

from arena.errors import InvalidActionError
from arena.games import get_game
from arena.games.builtin import BUILTIN_ORDER
from arena.games.lost_cities import GAME as LOST_CITIES
from arena.games.lost_cities import parse_action
from arena.v1 import lost_cities_pb2
from arena.wire import codec_for
from arena.wire.lost_cities import CODEC as LOST_CITIES_CODEC


def _running_view(game_id: str, decisions: int = 12) -> Any:
    game = get_game(game_id)
    rng = random.Random(3)
    state = game.new_match(3)
    for _ in range(decisions):
        state = game.apply(state, rng.choice(game.legal_actions(state)))
    return game.observation(state, 0)


@pytest.mark.parametrize("game_id", BUILTIN_ORDER)
def test_last_actions_travel_typed(game_id: str) -> None:
    codec = codec_for(game_id)
    view = _running_view(game_id)
    assert all(last is not None for last in view.last_actions)
    message = codec.observation_to_proto(view)
    assert len(message.last_actions) == 2
    for seat, entry in enumerate(message.last_actions):
        last = view.last_actions[seat]
        action = last.action if game_id == "lost-cities" else last
        assert entry.action == codec.action_to_proto(action)
    again = type(message).FromString(message.SerializeToString())
    assert codec.observation_from_proto(again) == view


@pytest.mark.parametrize("game_id", BUILTIN_ORDER)
def test_an_observation_without_last_actions_reads_as_none_yet(game_id: str) -> None:
    codec = codec_for(game_id)
    view = _running_view(game_id)
    message = codec.observation_to_proto(view)
    message.ClearField("last_actions")
    decoded = codec.observation_from_proto(message)
    assert decoded.last_actions == (None, None)
    assert decoded.history == view.history


@pytest.mark.parametrize("game_id", BUILTIN_ORDER)
def test_one_entry_is_not_a_pair(game_id: str) -> None:
    codec = codec_for(game_id)
    message = codec.observation_to_proto(_running_view(game_id))
    del message.last_actions[1]
    with pytest.raises(InvalidActionError, match="last_actions"):
        codec.observation_from_proto(message)


def _lost_cities_message(first: str, drawn: str) -> lost_cities_pb2.LostCitiesObservation:
    view = LOST_CITIES.observation(LOST_CITIES.new_match(1), 0)
    message = LOST_CITIES_CODEC.observation_to_proto(view)
    entry = message.last_actions[0]
    entry.action.CopyFrom(LOST_CITIES_CODEC.action_to_proto(parse_action(first)))
    entry.drawn = drawn
    return message


@pytest.mark.parametrize(
    ("action", "drawn"),
    [("play R5 deck", "B4"), ("play R5 draw B", ""), ("play R5 draw B", "G4")],
)
def test_a_drawn_card_must_come_from_the_pile_drawn_from(action: str, drawn: str) -> None:
    with pytest.raises(InvalidActionError, match="drawn"):
        LOST_CITIES_CODEC.observation_from_proto(_lost_cities_message(action, drawn))


def test_a_pile_draw_names_its_card() -> None:
    decoded = LOST_CITIES_CODEC.observation_from_proto(_lost_cities_message("play R5 draw B",
                                                                            "B4"))
    last = decoded.last_actions[0]
    assert last is not None and str(last.action) == "play R5 draw B" and str(last.drawn) == "B4"
    assert decoded.last_actions[1] is None
