"""The lab's encodings (arena/lab/encoding.py): the Featurizer's memory changes no vector."""

from __future__ import annotations

import random

import numpy as np
import pytest

from arena.games.registry import game_ids, get_game
from arena.lab.encoding import Featurizer, features

pytestmark = pytest.mark.unit


@pytest.mark.parametrize("game_id", game_ids())
def test_the_featurizer_gives_the_features_of_every_view_of_a_match(game_id: str) -> None:
    engine = get_game(game_id)
    rng = random.Random(game_id)
    featurizers = (Featurizer(), Featurizer())
    state = engine.new_match(9)
    while engine.to_move(state) is not None:
        for seat in (0, 1):
            view = engine.observation(state, seat)
            assert np.array_equal(featurizers[seat](view), features(view))
        state = engine.apply(state, rng.choice(engine.legal_actions(state)))
    view = engine.observation(state, 0)  # and a view it did not follow: the memory steps aside
    assert np.array_equal(featurizers[1](view), features(view))
