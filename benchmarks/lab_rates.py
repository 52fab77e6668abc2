"""Step rates of the lab's bridges (arena/lab, docs/lab.md) against the bare engine, per game:
uniform-random playouts, actions per second of CPU time, one core.

  engine       the game protocol alone: ``new_match(seed)``, then ``legal_actions``, a choice
               of ``random.Random(seed)``, ``apply``
  openspiel    the same matches through ``pyspiel``: the deal of seed ``seed`` as its 16 chance
               outcomes (``chance_of_seed``), then ``legal_actions()``, the same generator's
               choice, ``apply_action``: with a legal-index encoding (every game but Goofspiel)
               the very moves of the engine's loop. ``..._cost_x`` is per OpenSpiel step (the
               deal's 16 chance nodes counted as steps, as OpenSpiel counts them),
               ``..._match_cost_x`` per whole match (the deal included on both sides)
  openspiel_floor   the same loop and matches through the least any OpenSpiel python game
               does: a ``pyspiel.State`` whose ``_apply_action`` calls the engine's ``apply``
               and ``to_move`` and keeps the state and the mover in slots (no record, no
               check of the id, no recall; :class:`FloorState`). What OpenSpiel's python game
               interface costs by itself: its C++ ``apply_action`` and the two calls back
               into Python it makes each step
  openspiel_sampled   the deal sampled as OpenSpiel's python loops sample a chance node
               (``zip(*state.chance_outcomes())``, then ``random.choices``), other matches:
               the caller's sampling counted with the bridge (per step only)
  pettingzoo   the same through the AEC environment as an agent loop runs it: ``last()`` (the
               observation's features and the action mask), a random id of the mask, ``step``
  pettingzoo_step   the environment without observing: ``step`` with a random id of
               ``legal_ids()`` (what the wrapper itself adds; the observation is what a learner
               pays on top)

and, in the same run, OpenSpiel's own C++ ``goofspiel`` and python ``python_kuhn_poker`` through
the sampled loop: the yardsticks of what an OpenSpiel step costs from Python. Each bridge's cost
over the engine (``..._cost_x``, with its quartiles ``_q1``, ``_q3``) is measured interleaved
with the engine's loop on the same seeds (``_interleaved``). Prints one JSON object;
benchmarks/run.py runs it as its ``lab`` section.

The legal-index encodings are sized as a bot author would size them (``max_actions``): 128
(Lost Cities has at most 88 legal actions, PORTAS 8), Haggis the default 32768.
"""

from __future__ import annotations

import json
import random
import statistics
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


CHUNK_S = 0.1
"""CPU seconds of the engine's loop in one chunk of an interleaved comparison."""


def _chunk(playout: Callable[[int], int], seeds: range) -> tuple[float, int]:
    started = time.process_time()
    steps = sum(playout(seed) for seed in seeds)
    return time.process_time() - started, steps


def _interleaved(base: Callable[[int], int], bridge: Callable[[int], int],
                 seconds: float) -> dict[str, float]:
    """A bridge's cost over the engine's, measured in pairs of chunks: both loops play the
    same seeds back to back (the order swapped each pair), about :data:`CHUNK_S` CPU seconds
    of the engine's loop a chunk, until both loops have spent about ``seconds`` (8 pairs at
    least). Each pair gives a ratio of CPU per step and of CPU per playout; the median and
    quartiles of those are reported, with each loop's steps per CPU second over all chunks.
    Rates measured one after the other drift by ×1.3 between runs on these hosts; the ratio of
    two chunks a fraction of a second apart moves far less (benchmarks/README.md)."""
    count = 1
    while _chunk(base, range(count))[0] < CHUNK_S and count < 1 << 16:
        count *= 2
    per_step: list[float] = []
    per_match: list[float] = []
    totals = [0.0, 0, 0.0, 0]  # base CPU, base steps, bridge CPU, bridge steps
    pair = 0
    while pair < 8 or totals[0] + totals[2] < seconds:
        seeds = range(pair * count, (pair + 1) * count)
        if pair % 2:
            bridge_s, bridge_steps = _chunk(bridge, seeds)
            base_s, base_steps = _chunk(base, seeds)
        else:
            base_s, base_steps = _chunk(base, seeds)
            bridge_s, bridge_steps = _chunk(bridge, seeds)
        per_step.append((bridge_s / bridge_steps) / (base_s / base_steps))
        per_match.append(bridge_s / base_s)
        totals[0] += base_s
        totals[1] += base_steps
        totals[2] += bridge_s
        totals[3] += bridge_steps
        pair += 1
    step_q = statistics.quantiles(per_step, n=4)
    match_q = statistics.quantiles(per_match, n=4)
    return {"cost_x": round(step_q[1], 2), "cost_x_q1": round(step_q[0], 2),
            "cost_x_q3": round(step_q[2], 2), "match_cost_x": round(match_q[1], 2),
            "match_cost_x_q1": round(match_q[0], 2), "match_cost_x_q3": round(match_q[2], 2),
            "base_steps_per_s": round(totals[1] / totals[0]),
            "steps_per_s": round(totals[3] / totals[2]), "pairs": pair}


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


def _openspiel_game(name: str, max_actions: int | None) -> Any:
    return pyspiel.load_game(name, {} if max_actions is None else {"max_actions": max_actions})


def _same_matches(game: Any, new_state: Callable[[], Any]) -> Callable[[int], int]:
    """The engine's matches (:func:`engine_playout`) through OpenSpiel states ``new_state()``
    of ``game``: the deal of the seed, then the same generator's choices."""
    chance_of_seed = lab.chance_of_seed

    def play(seed: int) -> int:
        state = new_state()
        for digit in chance_of_seed(seed):
            state.apply_action(digit)
        rng = random.Random(seed)
        steps = lab.CHANCE_NODES
        while not state.is_terminal():
            state.apply_action(rng.choice(state.legal_actions()))
            steps += 1
        return steps
    return play


def openspiel_playout(name: str, max_actions: int | None = None) -> Callable[[int], int]:
    """The engine's matches through the lab's OpenSpiel game ``name`` (module docstring)."""
    game = _openspiel_game(name, max_actions)
    return _same_matches(game, game.new_initial_state)


_TERMINAL = int(pyspiel.PlayerId.TERMINAL)
_CHANCE = int(pyspiel.PlayerId.CHANCE)


class FloorState(pyspiel.State):  # type: ignore[misc]
    """The least an OpenSpiel python game can do (module docstring, ``openspiel_floor``): the
    deal's 16 digits make the seed, then each step is the engine's ``apply`` and ``to_move``;
    ``legal_actions`` is the engine's list's indices. Not a game to use: it keeps no record
    (no information state, no serialization), checks no id and answers nothing else."""

    __slots__ = ("engine", "options", "seed", "digits", "state", "mover", "legal")

    def __init__(self, game: Any) -> None:
        super().__init__(game)
        self.engine = game.engine
        self.options = game.options
        self.seed = self.digits = 0
        self.state = self.legal = None
        self.mover = _CHANCE

    def current_player(self) -> int:
        return self.mover

    def is_terminal(self) -> bool:
        return self.mover == _TERMINAL

    def legal_actions(self, player: int | None = None) -> list[int]:
        legal = self.legal = self.engine.legal_actions(self.state)
        return list(range(len(legal)))

    def _apply_action(self, action: int) -> None:
        engine = self.engine
        if self.state is None:
            self.seed = self.seed << 4 | action
            self.digits += 1
            if self.digits < lab.CHANCE_NODES:
                return
            self.state = state = engine.new_match(self.seed, self.options)
        else:
            self.state = state = engine.apply(self.state, self.legal[action])
        seat = engine.to_move(state)
        self.mover = _TERMINAL if seat is None else seat


def floor_playout(name: str, max_actions: int | None = None) -> Callable[[int], int]:
    """The engine's matches through :class:`FloorState` on the lab's game ``name``."""
    game = _openspiel_game(name, max_actions)
    return _same_matches(game, lambda: FloorState(game))


def sampled_playout(name: str, max_actions: int | None = None) -> Callable[[int], int]:
    """Random playouts of OpenSpiel game ``name`` whose chance nodes are sampled as OpenSpiel's
    python loops sample them (any game: the yardsticks' loop)."""
    game = _openspiel_game(name, max_actions)

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
    """Every figure of the module docstring, about ``seconds`` of the engine's CPU time each
    (the bridges' costs interleaved with the engine's: :func:`_interleaved`)."""
    out: dict[str, Any] = {}
    for game_id in game_ids():
        key = game_id.replace("-", "_")
        engine = engine_playout(game_id)
        name, max_actions = lab.short_name(game_id), MAX_ACTIONS.get(game_id, 128)
        bridges = {
            "openspiel": openspiel_playout(name, max_actions),
            "openspiel_floor": floor_playout(name, max_actions),
            "openspiel_sampled": sampled_playout(name, max_actions),
            "pettingzoo": pettingzoo_playout(game_id),
            "pettingzoo_step": pettingzoo_steps(game_id),
        }
        for bridge, playout in bridges.items():
            figures = _interleaved(engine, playout, seconds)
            out.setdefault(f"lab_{key}_engine_steps_per_s", figures["base_steps_per_s"])
            out[f"lab_{key}_{bridge}_steps_per_s"] = figures["steps_per_s"]
            for figure in ("cost_x", "cost_x_q1", "cost_x_q3"):
                out[f"lab_{key}_{bridge}_{figure}"] = figures[figure]
            if bridge in ("openspiel", "openspiel_floor"):  # the engine's own matches
                for figure in ("match_cost_x", "match_cost_x_q1", "match_cost_x_q3"):
                    out[f"lab_{key}_{bridge}_{figure}"] = figures[figure]
    for name in ("goofspiel", "python_kuhn_poker"):
        out[f"lab_yardstick_{name}_steps_per_s"] = round(_rate(sampled_playout(name),
                                                               seconds)[0])
    return out


if __name__ == "__main__":
    print(json.dumps(step_rates(float(sys.argv[1]) if len(sys.argv) > 1 else 3.0), indent=2))
