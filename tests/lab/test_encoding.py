"""The lab's encodings (arena/lab/encoding.py): the Featurizer's memory changes no vector."""

from __future__ import annotations

import copy
import random

import numpy as np
import pytest

from arena.games.registry import game_ids, get_game
from arena.lab.encoding import ActionEncoding, Featurizer, features

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


def test_an_action_space_that_misses_a_legal_action_is_a_clear_error() -> None:
    engine = get_game("portas")

    class Partial:
        """PORTAS with an action space that lists one action only."""

        def __getattr__(self, name: str) -> object:
            return getattr(engine, name)

        def action_space(self, options: object) -> tuple[object, ...]:
            return (engine.legal_actions(engine.new_match(1))[0],)

    encoding = ActionEncoding(Partial(), {})
    state = engine.new_match(1)
    missing = engine.format_action(engine.legal_actions(state)[1])
    with pytest.raises(ValueError, match=f"the legal action '{missing}' is not in the engine's "
                                         "action_space"):
        encoding.legal_ids(state)


def test_a_fixed_encoding_finds_equal_actions_as_well_as_the_spaces_own() -> None:
    """Goofspiel hands out its action space's own objects (found by identity, unhashed); an
    engine that builds equal copies gets the same ids, found by equality."""
    engine = get_game("goofspiel")

    class Copying:
        """Goofspiel whose legal actions are equal copies, not the space's objects."""

        def __getattr__(self, name: str) -> object:
            return getattr(engine, name)

        def legal_actions(self, state: object) -> list[object]:
            return [copy.copy(action) for action in reversed(engine.legal_actions(state))]

    own, copying = ActionEncoding(engine, {}), ActionEncoding(Copying(), {})
    space = own.actions
    assert space is not None and copying.fixed
    rng = random.Random(5)
    state = engine.new_match(5)
    while engine.to_move(state) is not None:
        legal = engine.legal_actions(state)
        copies = Copying().legal_actions(state)
        assert all(a == b and a is not b for a, b in zip(legal, reversed(copies), strict=True))
        expected = sorted(space.index(action) for action in legal)
        assert own.legal_ids(state) == copying.legal_ids(state) == expected
        state = engine.apply(state, rng.choice(legal))
