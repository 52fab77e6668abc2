"""Every installed game as an OpenSpiel game (arena/lab/openspiel.py): OpenSpiel's own checks,
the chance sequence as the arena's deal, resampling through ``determinize``, and OpenSpiel's
MCTS and ISMCTS bots playing whole matches."""

from __future__ import annotations

import pickle
import random

import numpy as np
import pyspiel
import pytest
from open_spiel.python.algorithms import ismcts, mcts

from arena.errors import OptionsError
from arena.games.registry import game_ids, get_game
from arena.lab import openspiel as lab
from tests.lab.conftest import SMALL
from tests.support.yardstick import load_yardstick

pytestmark = pytest.mark.unit

GAMES = game_ids()


def load(game_id: str, **more: object) -> pyspiel.Game:
    return pyspiel.load_game(lab.short_name(game_id), {**SMALL.get(game_id, {}), **more})


def dealt(game: pyspiel.Game, seed: int) -> pyspiel.State:
    state = game.new_initial_state()
    for outcome in lab.chance_of_seed(seed):
        state.apply_action(outcome)
    return state


def test_every_installed_game_is_registered() -> None:
    assert lab.REGISTERED == tuple(lab.short_name(game_id) for game_id in GAMES)
    assert {"arena_lost_cities", "arena_haggis", "arena_portas", "arena_goofspiel"} <= set(
        pyspiel.registered_names())


@pytest.mark.parametrize("game_id", GAMES)
def test_openspiel_random_simulation_with_serialization(game_id: str) -> None:
    pyspiel.random_sim_test(load(game_id), num_sims=2, serialize=True, verbose=False)


@pytest.mark.parametrize("game_id", GAMES)
def test_games_and_states_pickle_and_states_carry_no_instance_dict(game_id: str) -> None:
    game = load(game_id, returns="win")
    again = pickle.loads(pickle.dumps(game))
    assert str(again) == str(game) and again.returns_type == "win"
    state = dealt(game, 7)
    state.apply_action(state.legal_actions()[-1])
    for copy in (pickle.loads(pickle.dumps(state)), state.clone(),
                 game.deserialize_state(state.serialize())):
        assert copy.history() == state.history()
        assert copy.arena_state == state.arena_state
    # OpenSpiel copies a python state through its __dict__ (the point as a node); the state
    # keeps the point's fields in slots
    (node,) = state.__dict__.values()
    assert list(state.__dict__) == ["_node"] and isinstance(node, lab._Node)
    assert (node.state, node.past, node.mover) == (state._state, state._past, state._mover)
    assert type(state).__dictoffset__ == 0 and type(game).__dictoffset__ == 0


@pytest.mark.parametrize("game_id", GAMES)
def test_a_chance_sequence_is_the_arena_deal_of_its_seed(game_id: str) -> None:
    seed = random.Random(game_id).getrandbits(64)
    assert lab.seed_of_chance(lab.chance_of_seed(seed)) == seed
    assert lab.chance_of_seed(seed) == [int(digit, 16) for digit in f"{seed:016x}"]
    state = load(game_id).new_initial_state()
    for digit in lab.chance_of_seed(seed):  # 16 chance nodes of 16 equally likely outcomes
        assert state.chance_outcomes() == [(outcome, 1 / 16) for outcome in range(16)]
        state.apply_action(digit)
    assert not state.is_chance_node()
    engine = get_game(game_id)
    assert state.arena_state == engine.new_match(seed, SMALL.get(game_id, {}))
    # the same chance sequence deals the same match again: a duplicate deal
    assert dealt(load(game_id), seed).arena_state == state.arena_state
    assert state.current_player() == engine.to_move(state.arena_state)


@pytest.mark.parametrize("game_id", GAMES)
def test_returns_are_the_total_margin_or_the_result(game_id: str) -> None:
    engine = get_game(game_id)
    for returns in ("margin", "win"):
        state = dealt(load(game_id, returns=returns), 7)
        rng = random.Random(7)
        while not state.is_terminal():
            assert state.returns() == [0.0, 0.0]
            state.apply_action(rng.choice(state.legal_actions()))
        result = engine.outcome(state.arena_state)
        margin = result.totals[0] - result.totals[1]
        expected = margin if returns == "margin" else (margin > 0) - (margin < 0)
        assert state.returns() == [expected, -expected]


@pytest.mark.parametrize("game_id", GAMES)
def test_a_resample_keeps_what_the_player_knows(game_id: str) -> None:
    game = load(game_id)
    engine = get_game(game_id)
    rng = random.Random(3)
    state = dealt(game, 11)
    checked = 0
    while not state.is_terminal():
        player = state.current_player()
        if rng.random() < 0.2:
            sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
            other = state.resample_from_infostate(player, sampler)
            assert other.information_state_string(player) == state.information_state_string(
                player)
            assert other.observation_string(player) == state.observation_string(player)
            assert other.observation_tensor(player) == state.observation_tensor(player)
            assert other.legal_actions() == state.legal_actions()
            assert engine.observation(other.arena_state, player) == engine.observation(
                state.arena_state, player)
            checked += 1
        state.apply_action(rng.choice(state.legal_actions()))
    assert checked


def test_information_states_recall_what_the_current_view_forgets() -> None:
    """Two seats' information states differ, and a player's information state changes with
    every view it has had, even when the view itself comes back."""
    game = load("goofspiel")
    state = dealt(game, 5)
    assert state.information_state_string(0) != state.information_state_string(1)
    seen = {state.information_state_string(0)}
    while not state.is_terminal():
        state.apply_action(state.legal_actions()[0])
        seen.add(state.information_state_string(0))
    assert len(seen) > 26  # one per distinct view: each of seat 0's bids, each resolved prize


@pytest.mark.parametrize("game_id", GAMES)
def test_a_recall_asked_late_is_the_recall_asked_at_every_point(game_id: str) -> None:
    """A state keeps no past engine states (they are replayed when a recall needs them): the
    information states of a match asked only now and then, and of a clone of it, equal those
    asked at every point of the same match."""
    game = load(game_id)
    rng = random.Random(7)
    every, late = dealt(game, 21), dealt(game, 21)
    step = 0
    while not every.is_terminal():
        expected = [every.information_state_string(seat) for seat in (0, 1)]
        if step % 9 == 8:
            probe = late.clone()
            assert [probe.information_state_string(seat) for seat in (1, 0)][::-1] == expected
            assert [late.information_state_string(seat) for seat in (0, 1)] == expected
        action = rng.choice(every.legal_actions())
        every.apply_action(action)
        late.apply_action(action)
        step += 1
    assert step > 9
    assert [late.information_state_string(seat) for seat in (0, 1)] == \
        [every.information_state_string(seat) for seat in (0, 1)]


def test_bad_options_are_refused_in_the_engines_words() -> None:
    with pytest.raises(OptionsError, match="option rounds must be >= 1, got 0"):
        pyspiel.load_game("arena_goofspiel(rounds=0)")
    with pytest.raises(OptionsError, match="option returns must be one of margin, win"):
        pyspiel.load_game("arena_goofspiel(returns=draws)")


@pytest.mark.slow
@pytest.mark.parametrize("game_id", GAMES)
def test_openspiel_mcts_and_ismcts_bots_play_whole_matches(game_id: str) -> None:
    game = load(game_id)
    rng = np.random.RandomState(1)
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rng)
    for seed in (1, 2):
        bots = [mcts.MCTSBot(game, uct_c=2, max_simulations=3, evaluator=evaluator,
                             random_state=rng),
                ismcts.ISMCTSBot(game, evaluator, uct_c=2, max_simulations=3, random_state=rng)]
        if seed == 2:
            bots.reverse()
            bots[0].set_resampler(lab.resampler)
        state = dealt(game, seed)
        while not state.is_terminal():
            state.apply_action(bots[state.current_player()].step(state))
        assert get_game(game_id).outcome(state.arena_state) is not None


def test_the_worst_haggis_lead_fits_the_legal_index_encoding() -> None:
    """The lead with the most legal actions found (benchmarks/run.py, haggis_worst: 19,026)
    has an id for each of them."""
    import dataclasses

    from arena.games import haggis

    hand = [f"{rank}{suit}" for rank in range(4, 11) for suit in "GB"] + ["J", "Q", "K"]
    state = haggis.GAME.new_match(1)
    hands = list(state.hands)
    hands[haggis.GAME.to_move(state)] = haggis.mask_of(haggis.parse_card(c) for c in hand)
    state = dataclasses.replace(state, hands=(hands[0], hands[1]))
    encoding = load("haggis").encoding
    ids = encoding.legal_ids(state)
    assert len(ids) == len(haggis.GAME.legal_actions(state)) > 19_000
    assert encoding.action(state, ids[-1]) == haggis.GAME.legal_actions(state)[-1]


def test_max_actions_is_a_parameter() -> None:
    assert load("lost-cities", max_actions=128).num_distinct_actions() == 128
    assert load("lost-cities").num_distinct_actions() == 32768
    assert load("goofspiel", max_actions=128).num_distinct_actions() == 13  # a fixed encoding


@pytest.mark.parametrize("game_id", GAMES)
def test_the_python_answers_are_openspiels_own(game_id: str) -> None:
    """``legal_actions``, ``is_chance_node`` and ``is_player_node`` are answered in Python (no
    crossing into C++ and back): at every node of a match, chance and end included, they are
    what OpenSpiel's C++ State answers through ``_legal_actions``; a step's node is whole."""
    state = load(game_id).new_initial_state()
    rng = random.Random(game_id)
    while True:
        assert state.legal_actions() == pyspiel.State.legal_actions(state)
        for player in (0, 1):
            assert state.legal_actions(player) == pyspiel.State.legal_actions(state, player)
        assert state.is_chance_node() == pyspiel.State.is_chance_node(state)
        assert state.is_player_node() == pyspiel.State.is_player_node(state)
        if state.is_chance_node():
            assert state.chance_outcomes() == pyspiel.State.chance_outcomes(state)
        elif not state.is_terminal():
            with pytest.raises(pyspiel.SpielError, match="pseudo-player"):
                state.legal_actions(-1)
        if state.is_terminal():
            break
        state.apply_action(rng.choice(state.legal_actions()))
        # a step sets every field of the point (the state's slots) and a node carries them all
        assert all(hasattr(state, name) for name in lab.ArenaState.__slots__)
        assert state._legal is None and state._ids is None
        assert len(state._past) == 5 and state._past[lab.RECALL] is None
        node = state._node
        assert all(hasattr(node, name) for name in lab._Node.__slots__)


def test_the_benchmarks_openspiel_loops_play_the_engines_own_matches() -> None:
    """benchmarks/lab_rates.py compares OpenSpiel with the engine on the same matches: the
    seed's digits deal the engine's match of that seed and, with a legal-index encoding, the
    same generator's choices are the same moves (16 steps more: the deal); its floor state
    (the least a python game does) plays them too."""
    rates = load_yardstick("lab_rates")
    for game_id in GAMES:
        name, max_actions = lab.short_name(game_id), rates.MAX_ACTIONS.get(game_id, 128)
        engine = rates.engine_playout(game_id)
        bridge = rates.openspiel_playout(name, max_actions)
        floor = rates.floor_playout(name, max_actions)
        for seed in range(2):
            steps = engine(seed)
            assert floor(seed) == steps + lab.CHANCE_NODES
            if not pyspiel.load_game(name, {"max_actions": max_actions}).encoding.fixed:
                assert bridge(seed) == steps + lab.CHANCE_NODES
    state = rates.FloorState(pyspiel.load_game("arena_portas"))
    for digit in lab.chance_of_seed(2 ** 63 + 5):
        state.apply_action(digit)
    assert state.state == get_game("portas").new_match(2 ** 63 + 5)
