"""Haggis codec: exact round trips, strict decoding of typed actions."""

from __future__ import annotations

import random

import pytest

from arena.errors import InvalidActionError
from arena.games import haggis as h
from arena.games.haggis import GAME
from arena.games.haggis.codec import CODEC
from arena.v1 import haggis_pb2 as pb

pytestmark = pytest.mark.unit

SET, BOMB = pb.HAGGIS_COMBO_KIND_SET, pb.HAGGIS_COMBO_KIND_BOMB
NONE = pb.HAGGIS_COMBO_KIND_UNSPECIFIED


def _states(seed: int, count: int) -> list[h.State]:
    rng = random.Random(seed)
    state = GAME.new_match(seed, {"target": 120})
    out: list[h.State] = []
    while state.to_move is not None and len(out) < count:
        out.append(state)
        state = GAME.apply(state, rng.choice(GAME.legal_actions(state)))
    out.append(state)
    return out


@pytest.mark.integration
def test_observations_round_trip() -> None:
    for state in _states(4, 400):
        for seat in (0, 1):
            view = GAME.observation(state, seat)
            message = CODEC.observation_to_proto(view)
            again = pb.HaggisObservation.FromString(message.SerializeToString())
            assert CODEC.observation_from_proto(again) == view


def test_actions_round_trip() -> None:
    for state in _states(5, 60):
        for action in GAME.legal_actions(state)[:200]:
            message = CODEC.action_to_proto(action)
            again = pb.HaggisAction.FromString(message.SerializeToString())
            assert CODEC.action_from_proto(again) == action


def test_pass_with_bet_encodes_bet() -> None:
    message = CODEC.action_to_proto(h.Action(None, 0))
    assert message.WhichOneof("move") == "pass_turn" and message.HasField("bet")
    assert CODEC.action_from_proto(message) == h.Action(None, 0)
    assert not CODEC.action_to_proto(h.PASS).HasField("bet")


@pytest.mark.parametrize(
    "message",
    [
        pb.HaggisAction(),
        pb.HaggisAction(play=pb.HaggisCombo(kind=SET, low=5, high=5, width=1, cards=["5X"])),
        pb.HaggisAction(play=pb.HaggisCombo(kind=SET, low=5, high=5, width=1, cards=["6R"])),
        pb.HaggisAction(play=pb.HaggisCombo(kind=NONE, low=5, high=5, width=1, cards=["5R"])),
        pb.HaggisAction(play=pb.HaggisCombo(kind=SET, low=5, high=5, width=2, cards=["5R", "5R"])),
        pb.HaggisAction(play=pb.HaggisCombo(kind=BOMB, low=2, high=2, width=2, cards=["J", "K"])),
        pb.HaggisAction(play=pb.HaggisCombo(kind=SET, low=5, high=5, width=1, cards=["5R"]), bet=0),
        pb.HaggisAction(pass_turn=pb.HaggisPass(), bet=20),
    ],
)
def test_nonsense_actions_are_invalid(message: pb.HaggisAction) -> None:
    with pytest.raises(InvalidActionError):
        CODEC.action_from_proto(message)
