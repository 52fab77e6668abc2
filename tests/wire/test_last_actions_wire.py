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
from arena.games.lost_cities.codec import CODEC as LOST_CITIES_CODEC
from arena.v1 import lost_cities_pb2
from arena.wire import codec_for

pytestmark = pytest.mark.unit


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


@pytest.mark.parametrize("game_id", BUILTIN_ORDER)
def test_cached_entries_are_the_entries_built_one_by_one(game_id: str) -> None:
    """The codec's cache changes no byte and no value: every observation of a match encodes as
    with its entries built message by message, and decodes to the same last actions."""
    codec = codec_for(game_id)
    game = get_game(game_id)
    rng = random.Random(11)
    state = game.new_match(11)
    while game.to_move(state) is not None:
        view = game.observation(state, game.to_move(state))
        message = codec.observation_to_proto(view)
        fresh = type(message)()
        fresh.CopyFrom(message)
        fresh.ClearField("last_actions")
        fresh.last_actions.extend(codec._last_actions._encode(v)  # type: ignore[attr-defined]
                                  for v in view.last_actions)
        assert fresh.SerializeToString() == message.SerializeToString()
        assert codec.observation_from_proto(fresh).last_actions == view.last_actions
        state = game.apply(state, rng.choice(game.legal_actions(state)))


def test_a_malformed_entry_is_refused_every_time() -> None:
    message = _lost_cities_message("play R5 deck", "B4")
    for _ in range(3):  # nothing of a refused entry is kept
        with pytest.raises(InvalidActionError, match="drawn"):
            LOST_CITIES_CODEC.observation_from_proto(message)


def test_the_caches_stay_bounded() -> None:
    from arena.wire.entries import CACHE_LIMIT, EntryCache

    cache = EntryCache(lost_cities_pb2.LostCitiesObservation, "last_actions",
                       lambda n: lost_cities_pb2.LostCitiesLastAction(drawn=f"R{n}"),
                       lambda entry: entry.drawn)
    for n in range(3 * CACHE_LIMIT):
        data = cache.field_bytes([n])
        again = lost_cities_pb2.LostCitiesObservation.FromString(data)
        assert cache.values(again.last_actions) == (f"R{n}",)
    assert len(cache._bytes) <= CACHE_LIMIT and len(cache._value._values) <= CACHE_LIMIT
