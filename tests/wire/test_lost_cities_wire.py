"""Lost Cities wire codec: exact round-trips and strict action decoding."""

from __future__ import annotations

import random
from typing import Any

import pytest

from arena.errors import InvalidActionError
from arena.games.lost_cities import GAME, View
from arena.games.lost_cities.codec import CODEC
from arena.v1 import lost_cities_pb2 as pb

pytestmark = pytest.mark.unit


def _views() -> list[View]:
    views = []
    for seed in range(3):
        state = GAME.new_match(seed)
        rng = random.Random(seed)
        while GAME.to_move(state) is not None:
            if rng.random() < 0.05:
                views.append(GAME.observation(state, rng.randrange(2)))
            state = GAME.apply(state, rng.choice(GAME.legal_actions(state)))
        views.append(GAME.observation(state, 0))
    return views


def test_observation_round_trip() -> None:
    views = _views()
    assert any(v.to_move is None for v in views) and any(v.finished_rounds for v in views)
    for view in views:
        message = CODEC.observation_to_proto(view)
        again = pb.LostCitiesObservation.FromString(message.SerializeToString())
        assert CODEC.observation_from_proto(again) == view


def test_action_round_trip_over_legal_actions() -> None:
    state = GAME.new_match(4)
    rng = random.Random(4)
    for _ in range(60):
        for action in GAME.legal_actions(state):
            message = CODEC.action_to_proto(action)
            assert CODEC.action_from_proto(message) == action
        state = GAME.apply(state, rng.choice(GAME.legal_actions(state)))


def test_action_message_fields() -> None:
    message = CODEC.action_to_proto(GAME.parse_action("discard Y10 draw B"))
    assert message.card == "Y10"
    assert message.move == pb.LOST_CITIES_MOVE_DISCARD
    assert message.draw == pb.LOST_CITIES_DRAW_SOURCE_BLUE


def _msg(**fields: Any) -> pb.LostCitiesAction:
    return pb.LostCitiesAction(**fields)


@pytest.mark.parametrize(
    "message",
    [
        _msg(card="R1", move=pb.LOST_CITIES_MOVE_PLAY, draw=1),
        _msg(card="", move=pb.LOST_CITIES_MOVE_PLAY, draw=1),
        _msg(card="RW", move=pb.LOST_CITIES_MOVE_PLAY, draw=1),
        _msg(card="R5", move=pb.LOST_CITIES_MOVE_UNSPECIFIED, draw=1),
        _msg(card="R5", move=pb.LOST_CITIES_MOVE_PLAY, draw=0),
        _msg(card="R5", move=pb.LOST_CITIES_MOVE_PLAY, draw=42),
    ],
)
def test_action_from_proto_rejects_nonsense(message: pb.LostCitiesAction) -> None:
    with pytest.raises(InvalidActionError):
        CODEC.action_from_proto(message)


def test_observation_hides_the_opponent_hand() -> None:
    state = GAME.new_match(9)
    message = CODEC.observation_to_proto(GAME.observation(state, 0))
    assert list(message.hand) == [str(c) for c in state.hands[0]]
    assert message.opponent_hand_size == 8 and message.deck_count == 44
    text = str(message)
    hidden = set(str(c) for c in state.hands[1]) - set(str(c) for c in state.hands[0])
    assert not any(f'"{card}"' in text for card in hidden)


@pytest.mark.integration
def test_rows_decoded_once_per_value_stay_exact_and_bounded(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The decoder keeps tableaus and piles decoded by their bytes (issue 25, point 3): every
    observation of random matches decodes to its view exactly, through caches small enough to
    be emptied many times; a row that is no card raises every time and is never kept."""
    from arena.games.lost_cities import codec as wire
    from arena.wire import entries

    monkeypatch.setattr(entries, "CACHE_LIMIT", 8)
    codec = wire.LostCitiesCodec()
    decoded = 0
    for seed in range(6):
        rng, state = random.Random(seed), GAME.new_match(seed)
        while GAME.to_move(state) is not None:
            for seat in (0, 1):
                view = GAME.observation(state, seat)
                wire_bytes = codec.observation_to_proto(view).SerializeToString()
                again = pb.LostCitiesObservation.FromString(wire_bytes)
                assert codec.observation_from_proto(again) == view
                decoded += 1
            state = GAME.apply(state, rng.choice(GAME.legal_actions(state)))
    kept = (codec._tableau._values, codec._pile._values)
    assert decoded > 500 and all(len(values) <= 8 for values in kept)
    bad = codec.observation_to_proto(GAME.observation(GAME.new_match(1), 0))
    bad.discard_piles[2].cards.append("Q7")
    for _ in range(2):
        with pytest.raises(InvalidActionError, match="Q7"):
            codec.observation_from_proto(bad)
    assert all(b"Q7" not in key for values in kept for key in values)
