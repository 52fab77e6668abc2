"""PORTAS codec: exact round trips of views and actions; nonsense actions are rejected."""

from __future__ import annotations

import random

import pytest

from arena.errors import InvalidActionError
from arena.games.portas import GAME, PASS, TREASURES, Play, State
from arena.games.portas.codec import CODEC
from arena.v1 import portas_pb2

pytestmark = pytest.mark.unit


def states(seed: int) -> list[State]:
    rng = random.Random(seed)
    state = GAME.new_match(seed)
    out = [state]
    while GAME.to_move(state) is not None:
        state = GAME.apply(state, rng.choice(GAME.legal_actions(state)))
        out.append(state)
    return out


def test_codec_identity() -> None:
    assert CODEC.game_id == "portas" and CODEC.field == "portas"


@pytest.mark.integration
def test_observation_round_trip_is_exact() -> None:
    for seed in range(12):
        for state in states(seed):
            for seat in (0, 1):
                view = GAME.observation(state, seat)
                message = CODEC.observation_to_proto(view)
                data = message.SerializeToString(deterministic=True)
                decoded = portas_pb2.PortasObservation.FromString(data)
                assert CODEC.observation_from_proto(decoded) == view


def test_final_state_encodes_no_mover() -> None:
    view = GAME.observation(states(3)[-1], 0)
    message = CODEC.observation_to_proto(view)
    assert message.to_move == -1
    assert CODEC.observation_from_proto(message).to_move is None


def test_action_round_trip() -> None:
    actions = [PASS] + [Play(c, t) for c in range(1, 7) for t in TREASURES]
    for action in actions:
        message = CODEC.action_to_proto(action)
        data = message.SerializeToString(deterministic=True)
        assert CODEC.action_from_proto(portas_pb2.PortasAction.FromString(data)) == action


@pytest.mark.parametrize(
    "message",
    [
        portas_pb2.PortasAction(),
        portas_pb2.PortasAction(play=portas_pb2.PortasPlay(card=7, chest=12)),
        portas_pb2.PortasAction(play=portas_pb2.PortasPlay(card=0, chest=12)),
        portas_pb2.PortasAction(play=portas_pb2.PortasPlay(card=3, chest=16)),
        portas_pb2.PortasAction(play=portas_pb2.PortasPlay(card=3, chest=0)),
    ],
)
def test_nonsense_actions_are_invalid(message: portas_pb2.PortasAction) -> None:
    with pytest.raises(InvalidActionError):
        CODEC.action_from_proto(message)
