"""Step rates of the lab's bridges (arena/lab, docs/lab.md) against the bare engine, per game:
uniform-random playouts, actions per second of CPU time, one core.

  engine       the game protocol alone: ``legal_actions``, a random choice, ``apply``
  openspiel    the same through ``pyspiel``: ``legal_actions()``, ``apply_action`` (the 16
               chance nodes of the deal included, counted as steps; ``openspiel_match_cost_x``
               compares whole matches instead, the deal and the engine's ``new_match`` in both)
  pettingzoo   the same through the AEC environment as an agent loop runs it: ``last()`` (the
               observation's features and the action mask), a random id of the mask, ``step``
  pettingzoo_step   the environment without observing: ``step`` with a random id of
               ``legal_ids()`` (what the wrapper itself adds; the observation is what a learner
               pays on top)

and, in the same run, OpenSpiel's own C++ ``goofspiel`` and python ``python_kuhn_poker`` through
the same loop as the openspiel figure: the yardsticks of what an OpenSpiel step costs from
Python. Prints one JSON object; benchmarks/run.py runs it as its ``lab`` section.

The legal-index encodings are sized as a bot author would size them (``max_actions``): 128
(Lost Cities has at most 88 legal actions, PORTAS 8), Haggis the default 32768.
"""

from __future__ import annotations

import json
import random
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import pyspiel
from open_spiel.python.games import kuhn_poker  # noqa: F401 — registers python_kuhn_poker

import arena.lab.openspiel as lab
from arena.games.registry import game_ids, get_game
from arena.lab.pettingzoo import env


def _rate(playout: Callable[[int], int], seconds: float) -> tuple[float, float]:
    """Steps and playouts per CPU second of repeated playouts (seed 0, 1, ...) for about
    ``seconds``."""
    steps, seed = 0, 0
    started = time.process_time()
    while time.process_time() - started < seconds:
        steps += playout(seed)
        seed += 1
    spent = time.process_time() - started
    return steps / spent, seed / spent


def engine_playout(game_id: str) -> Callable[[int], int]:
    engine = get_game(game_id)

    def play(seed: int) -> int:
        rng = random.Random(seed)
        state = engine.new_match(seed)
        steps = 0
        while engine.to_move(state) is not None:
            state = engine.apply(state, rng.choice(engine.legal_actions(state)))
            steps += 1
        return steps
    return play


MAX_ACTIONS = {"haggis": 0}
"""``max_actions`` of each game (default: 128)."""


def openspiel_playout(name: str, max_actions: int | None = None) -> Callable[[int], int]:
    game = pyspiel.load_game(name, {} if max_actions is None else {"max_actions": max_actions})

    def play(seed: int) -> int:
        rng = random.Random(seed)
        state = game.new_initial_state()
        steps = 0
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(rng.choices(outcomes, probs)[0])
            else:
                state.apply_action(rng.choice(state.legal_actions()))
            steps += 1
        return steps
    return play


def pettingzoo_playout(game_id: str) -> Callable[[int], int]:
    game = env(game_id, max_actions=MAX_ACTIONS.get(game_id, 128))

    def play(seed: int) -> int:
        rng = np.random.default_rng(seed)
        game.reset(seed=seed)
        steps = 0
        for _ in game.agent_iter():
            observation, _, terminated, truncated, _ = game.last()
            if terminated or truncated:
                game.step(None)
                continue
            game.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
            steps += 1
        return steps
    return play


def pettingzoo_steps(game_id: str) -> Callable[[int], int]:
    game = env(game_id, max_actions=MAX_ACTIONS.get(game_id, 128))

    def play(seed: int) -> int:
        rng = random.Random(seed)
        game.reset(seed=seed)
        steps = 0
        while not game.terminations[game.agent_selection]:
            game.step(rng.choice(game.legal_ids()))
            steps += 1
        return steps
    return play


def step_rates(seconds: float) -> dict[str, Any]:
    """Every figure of the module docstring, ``seconds`` of CPU time each."""
    out: dict[str, Any] = {}
    for game_id in game_ids():
        key = game_id.replace("-", "_")
        engine, engine_matches = _rate(engine_playout(game_id), seconds)
        spiel, spiel_matches = _rate(openspiel_playout(lab.short_name(game_id),
                                                       MAX_ACTIONS.get(game_id, 128)), seconds)
        zoo = _rate(pettingzoo_playout(game_id), seconds)[0]
        zoo_steps = _rate(pettingzoo_steps(game_id), seconds)[0]
        out[f"lab_{key}_engine_steps_per_s"] = round(engine)
        out[f"lab_{key}_openspiel_steps_per_s"] = round(spiel)
        out[f"lab_{key}_pettingzoo_steps_per_s"] = round(zoo)
        out[f"lab_{key}_openspiel_cost_x"] = round(engine / spiel, 2)
        out[f"lab_{key}_openspiel_match_cost_x"] = round(engine_matches / spiel_matches, 2)
        out[f"lab_{key}_pettingzoo_cost_x"] = round(engine / zoo, 2)
        out[f"lab_{key}_pettingzoo_step_steps_per_s"] = round(zoo_steps)
        out[f"lab_{key}_pettingzoo_step_cost_x"] = round(engine / zoo_steps, 2)
    for name in ("goofspiel", "python_kuhn_poker"):
        out[f"lab_yardstick_{name}_steps_per_s"] = round(_rate(openspiel_playout(name),
                                                               seconds)[0])
    return out


if __name__ == "__main__":
    print(json.dumps(step_rates(float(sys.argv[1]) if len(sys.argv) > 1 else 3.0), indent=2))
