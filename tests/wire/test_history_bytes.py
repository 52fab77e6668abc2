"""The referee's incremental history encoding gives exactly the bytes of a one-off encoding."""

from __future__ import annotations

import random

import pytest

from arena.games import GAME_IDS, get_game
from arena.v1 import bot_pb2
from arena.wire import ObservationEncoder, encode_observation


def _wire(game_id: str, encoder: ObservationEncoder, view: object) -> bytes:
    message = bot_pb2.Observation()
    encoder.encode_into(message, view)
    return message.SerializeToString(deterministic=True)


@pytest.mark.parametrize("game_id", GAME_IDS)
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
    assert longest > 50
    third = game.new_match(3)
    for _ in range(5):
        seat = game.to_move(third)
        view = game.observation(third, seat)
        fresh = encode_observation(game_id, view).SerializeToString(deterministic=True)
        assert _wire(game_id, encoders[0][seat], view) == fresh
        third = game.apply(third, rng.choice(game.legal_actions(third)))
