"""The referee's incremental history encoding gives exactly the bytes of a one-off encoding;
the SDK's incremental decoding gives exactly the views."""

from __future__ import annotations

import random

import pytest

from arena.games import game_ids, get_game
from arena.v1 import bot_pb2
from arena.wire import ObservationDecoder, ObservationEncoder, encode_observation

pytestmark = pytest.mark.unit


def _wire(game_id: str, encoder: ObservationEncoder, view: object) -> bytes:
    message = bot_pb2.Observation()
    encoder.encode_into(message, view)
    return message.SerializeToString(deterministic=True)


@pytest.mark.integration
@pytest.mark.parametrize("game_id", game_ids())
def test_incremental_history_matches_a_fresh_encoding(game_id: str) -> None:
    """Two matches interleaved, one encoder per seat and match (as the referee keeps them),
    and a third match on the first match's encoders (its history is no extension of theirs:
    encoded from scratch)."""
    game = get_game(game_id)
    rng = random.Random(7)
    states = [game.new_match(1), game.new_match(2)]
    encoders = [[ObservationEncoder(game_id) for _ in range(2)] for _ in states]
    checked = longest = 0
    while any(game.to_move(s) is not None for s in states) and checked < 1500:
        for index, state in enumerate(states):
            seat = game.to_move(state)
            if seat is None:
                continue
            view = game.observation(state, seat)
            fresh = encode_observation(game_id, view).SerializeToString(deterministic=True)
            assert _wire(game_id, encoders[index][seat], view) == fresh
            longest = max(longest, len(view.history))
            checked += 1
            states[index] = game.apply(state, rng.choice(game.legal_actions(state)))
    assert longest > 30  # many extensions (Goofspiel's rounds are the shortest: 38 entries)
    third = game.new_match(3)
    for _ in range(5):
        seat = game.to_move(third)
        view = game.observation(third, seat)
        fresh = encode_observation(game_id, view).SerializeToString(deterministic=True)
        assert _wire(game_id, encoders[0][seat], view) == fresh
        third = game.apply(third, rng.choice(game.legal_actions(third)))


@pytest.mark.parametrize("game_id", game_ids())
def test_incremental_history_decoding_gives_the_views(game_id: str) -> None:
    """One decoder per seat follows a match; then the same decoders see another match's
    views (no extension of what they decoded: decoded again from scratch)."""
    game = get_game(game_id)
    rng = random.Random(11)
    decoders = [ObservationDecoder(game_id) for _ in range(2)]
    for seed in (4, 5):
        state = game.new_match(seed)
        for _ in range(300):
            seat = game.to_move(state)
            if seat is None:
                break
            view = game.observation(state, seat)
            wire = bot_pb2.Observation.FromString(encode_observation(game_id, view)
                                                  .SerializeToString())
            assert decoders[seat].decode(wire) == view
            state = game.apply(state, rng.choice(game.legal_actions(state)))


def test_a_history_that_changed_at_its_end_is_decoded_again() -> None:
    game = get_game("lost-cities")
    state = game.new_match(9)
    for _ in range(6):
        state = game.apply(state, game.legal_actions(state)[0])
    seat = game.to_move(state)
    view = game.observation(state, seat)
    decoder = ObservationDecoder("lost-cities")
    message = encode_observation("lost-cities", view)
    assert decoder.decode(message) == view
    message.lost_cities.history[-1].action = "discard R2 draw deck"
    changed = decoder.decode(message)
    assert changed.history[:-1] == view.history[:-1]
    assert changed.history[-1][2] == "discard R2 draw deck"
