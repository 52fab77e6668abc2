"""Every installed game as a PettingZoo AEC environment (arena/lab/pettingzoo.py): PettingZoo's
own API test, the seat's observation only (the leak test), the action mask, and a tiny policy
that trains with masks."""

from __future__ import annotations

import random

import numpy as np
import pytest
from pettingzoo.test import api_test

from arena.errors import IllegalActionError
from arena.games.registry import game_ids, get_game
from arena.lab.pettingzoo import AGENTS, env
from tests.lab.conftest import SMALL

pytestmark = pytest.mark.unit

GAMES = game_ids()


@pytest.mark.parametrize("game_id", GAMES)
def test_pettingzoo_api_test_passes(game_id: str) -> None:
    api_test(env(game_id, SMALL.get(game_id)), num_cycles=300)


@pytest.mark.parametrize("game_id", GAMES)
def test_an_agent_sees_its_seat_only(game_id: str) -> None:
    """Everything the seat cannot see is redrawn (the engine's determinize, as the wire's leak
    test does) and the seat's observation and mask do not move, while the deal does (the test
    varies something)."""
    game = env(game_id, SMALL.get(game_id))
    engine = get_game(game_id)
    rng = random.Random(game_id)
    game.reset(seed=21)
    varied = 0
    for step in range(120):
        if engine.to_move(game.state) is None:
            break
        real = game.state
        for seat, agent in enumerate(AGENTS):
            seen = game.observe(agent)
            for _ in range(2):
                game.state = engine.determinize(engine.observation(real, seat), rng)
                redrawn = game.observe(agent)
                assert np.array_equal(redrawn["observation"], seen["observation"]), (step, seat)
                assert np.array_equal(redrawn["action_mask"], seen["action_mask"]), (step, seat)
                varied += engine.deal_record(game.state) != engine.deal_record(real)
            game.state = real
        mask = game.observe(game.agent_selection)["action_mask"]
        game.step(int(rng.choice(np.flatnonzero(mask))))
    assert varied


@pytest.mark.parametrize("game_id", GAMES)
def test_the_mask_is_the_legal_actions_and_an_illegal_id_is_refused(game_id: str) -> None:
    game = env(game_id, SMALL.get(game_id))
    game.reset(seed=5)
    engine = get_game(game_id)
    mask = game.observe(game.agent_selection)["action_mask"]
    waiting = game.observe(AGENTS[1 - AGENTS.index(game.agent_selection)])["action_mask"]
    legal = engine.legal_actions(game.state)
    assert int(mask.sum()) == len(legal) and not waiting.any()
    chosen = {game.encoding.action(game.state, int(i)) for i in np.flatnonzero(mask)}
    assert chosen == set(legal)
    if game.encoding.fixed:  # an id of the encoding that is not legal now is refused
        while (mask := game.observe(game.agent_selection)["action_mask"]).all():
            game.step(int(np.flatnonzero(mask)[0]))
        with pytest.raises(IllegalActionError, match="choose one where action_mask is 1"):
            game.step(int(np.flatnonzero(mask == 0)[0]))


def test_goofspiel_declares_a_fixed_encoding_the_builtins_legal_indices() -> None:
    assert env("goofspiel").encoding.fixed
    assert env("goofspiel").action_space("seat_0").n == 13
    assert not env("haggis").encoding.fixed


def test_the_rewards_of_a_match_sum_to_its_margin() -> None:
    game = env("lost-cities")
    game.reset(seed=3)
    rng = np.random.default_rng(3)
    total = dict.fromkeys(AGENTS, 0.0)
    for agent in game.agent_iter():
        observation, reward, terminated, truncated, _ = game.last()
        total[agent] += reward
        if terminated or truncated:
            game.step(None)
        else:
            game.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
    result = get_game("lost-cities").outcome(game.state)
    margin = result.totals[0] - result.totals[1]
    assert total == {"seat_0": margin, "seat_1": -margin}


@pytest.mark.slow
@pytest.mark.parametrize("game_id", GAMES)
def test_a_linear_softmax_policy_trains_with_masks(game_id: str) -> None:
    """REINFORCE on a linear softmax over the legal ids (the mask), two thousand steps: it
    must only run (and move its weights), not win."""
    game = env(game_id, SMALL.get(game_id), size=64)
    rng = np.random.default_rng(0)
    weights = np.zeros((64, game.encoding.size), np.float32)
    steps = 0
    while steps < 2000:
        game.reset(seed=int(rng.integers(2**63)))
        episode: list[tuple[np.ndarray, np.ndarray, int, str]] = []
        returns = dict.fromkeys(AGENTS, 0.0)
        for agent in game.agent_iter():
            observation, reward, terminated, truncated, _ = game.last()
            returns[agent] += reward
            if terminated or truncated:
                game.step(None)
                continue
            x = observation["observation"]
            legal = np.flatnonzero(observation["action_mask"])
            logits = x @ weights[:, legal]
            p = np.exp(logits - logits.max())
            p /= p.sum()
            choice = int(rng.choice(len(legal), p=p))
            episode.append((x, legal, choice, agent))
            game.step(int(legal[choice]))
            steps += 1
        for x, legal, choice, agent in episode:  # REINFORCE: the match's return, no baseline
            logits = x @ weights[:, legal]
            p = np.exp(logits - logits.max())
            p /= p.sum()
            grad = -p
            grad[choice] += 1.0
            weights[:, legal] += 1e-4 * returns[agent] * np.outer(x, grad)
    assert np.isfinite(weights).all() and weights.any()


def test_max_actions_sizes_the_legal_index_encoding() -> None:
    game = env("lost-cities", SMALL["lost-cities"], max_actions=128)
    assert game.action_space("seat_0").n == 128
    assert game.observation_space("seat_0")["action_mask"].shape == (128,)
    api_test(game, num_cycles=100)
    too_small = env("lost-cities", max_actions=4)
    with pytest.raises(ValueError, match="more than the 4 its legal-index encoding holds"):
        too_small.observe(too_small.agent_selection)


@pytest.mark.parametrize("game_id", GAMES)
def test_legal_ids_are_the_masks_ones(game_id: str) -> None:
    game = env(game_id, SMALL.get(game_id))
    game.reset(seed=9)
    rng = random.Random(9)
    for _agent in game.agent_iter():
        observation, _, terminated, truncated, _ = game.last()
        assert game.legal_ids() == list(np.flatnonzero(observation["action_mask"]))
        if terminated or truncated:
            game.step(None)
            continue
        game.step(rng.choice(game.legal_ids()))
    assert game.legal_ids() == []
