"""Every installed game as a PettingZoo AEC environment (docs/lab.md, "PettingZoo").

::

    from arena.lab.pettingzoo import env
    game = env("lost-cities", options={"rounds": 1})
    game.reset(seed=12345)                      # the arena's deal of seed 12345
    for agent in game.agent_iter():
        observation, reward, terminated, truncated, info = game.last()
        ...

The agents are ``seat_0`` and ``seat_1``. An agent's observation is a dict: ``observation``, the
hashed features of its seat's view (:func:`arena.lab.encoding.features`), and ``action_mask``,
1 at the ids of the legal actions while it is to move (all 0 otherwise). Actions are
:class:`~arena.lab.encoding.ActionEncoding` ids (fixed when the engine declares
``action_space``, else indices into the ordered legal list). When a round ends, each seat is
rewarded its round score minus the other's, so the rewards of a match sum to its total margin.
Nothing but the seat's own observation reaches its agent.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from pettingzoo import AECEnv

from arena.errors import IllegalActionError
from arena.games.api import Options
from arena.games.registry import get_game
from arena.lab.encoding import FEATURES, ActionEncoding, Featurizer, text_of

AGENTS = ("seat_0", "seat_1")


def env(game_id: str, options: Options | None = None, render_mode: str | None = None,
        size: int = FEATURES, max_actions: int = 0) -> ArenaEnv:
    """The AEC environment of an installed game (``OptionsError`` for bad options);
    ``size``: the observation's length; ``max_actions``: the legal-index encoding's size."""
    return ArenaEnv(game_id, options, render_mode, size, max_actions)


class ArenaEnv(AECEnv):  # type: ignore[misc]
    """One arena game as a PettingZoo AEC environment (module docstring)."""

    def __init__(self, game_id: str, options: Options | None = None,
                 render_mode: str | None = None, size: int = FEATURES,
                 max_actions: int = 0) -> None:
        super().__init__()
        self.engine = get_game(game_id)
        self.options = self.engine.options_of(self.engine.new_match(0, options))
        self.encoding = ActionEncoding(self.engine, self.options, max_actions)
        self.size = size
        self.metadata = {"render_modes": ["ansi"], "name": f"arena_{game_id}_v0",
                         "is_parallelizable": False}
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode is 'ansi' or None, not {render_mode!r}")
        self.render_mode = render_mode
        self.possible_agents = list(AGENTS)
        self.agents = list(AGENTS)
        self._observation_space = spaces.Dict({
            "observation": spaces.Box(0.0, np.inf, (size,), np.float32),
            "action_mask": spaces.Box(0, 1, (self.encoding.size,), np.int8),
        })
        self._action_space = spaces.Discrete(self.encoding.size)
        self._random = random.Random()
        self._state: Any = None
        self._legal: Any = None
        self._mover: int | None = None
        self.reset()

    @property
    def state(self) -> Any:
        """The engine's state of the match (omniscient: for tools and tests, not agents)."""
        return self._state

    @state.setter
    def state(self, state: Any) -> None:
        self._state = state
        self._legal = None
        self._mover = self.engine.to_move(state)

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self._observation_space

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self._action_space

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """A new match: the arena's deal of ``seed`` (0 .. 2**64 - 1), or a random one."""
        if seed is None:
            seed = self._random.getrandbits(64)
        self._random.seed(seed)
        self.state = self.engine.new_match(seed, self.options)
        self.agents = list(AGENTS)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        self._rounds = len(self.engine.finished_rounds(self.state))
        self._featurizers = (Featurizer(self.size), Featurizer(self.size))
        self.agent_selection = AGENTS[self._mover or 0]

    def observe(self, agent: str) -> dict[str, npt.NDArray[Any]]:
        seat = AGENTS.index(agent)
        state = self._state
        mask = np.zeros(self.encoding.size, np.int8)
        if self._mover == seat:
            mask[self.legal_ids()] = 1
        return {"observation": self._featurizers[seat](self.engine.observation(state, seat)),
                "action_mask": mask}

    def legal_ids(self) -> list[int]:
        """The ids of the legal actions of the agent to move (where its ``action_mask`` is
        1), without computing an observation: for a loop that steps without observing."""
        if self._mover is None:
            return []
        legal = self._legal
        if legal is None:
            legal = self._legal = self.engine.legal_actions(self._state)
        encoding = self.encoding
        if encoding.actions is None and len(legal) <= encoding.size:  # legal-index, inline
            return list(range(len(legal)))
        return encoding.legal_ids(self._state, legal)

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        engine = self.engine
        state = self._state
        legal = self._legal
        if legal is None:
            legal = engine.legal_actions(state)
        action = int(action)
        if self.encoding.actions is None and 0 <= action < len(legal):  # legal-index, inline
            move = legal[action]
        else:
            move = self.encoding.action(state, action, legal)
        try:
            state = engine.apply(state, move)  # it checks the action
        except IllegalActionError:
            raise IllegalActionError(f"action id {action} "
                                     f"({engine.format_action(move)}) is not legal now: "
                                     "choose one where action_mask is 1") from None
        # the state's setter, inline (a step is a few µs of the engine's: PORTAS ~3.5)
        self._state = state
        self._legal = None
        self._mover = engine.to_move(state)
        cumulative = self._cumulative_rewards
        cumulative[agent] = 0.0
        rewards = self.rewards
        if any(rewards.values()):  # the last step's: a new dict, as PettingZoo's own envs
            rewards = self.rewards = dict.fromkeys(self.agents, 0.0)
        finished = engine.finished_rounds(state)
        if len(finished) > self._rounds:
            for first, second in finished[self._rounds:]:
                rewards[AGENTS[0]] += float(first - second)
                rewards[AGENTS[1]] += float(second - first)
            self._rounds = len(finished)
            for name, reward in rewards.items():
                cumulative[name] += reward
        mover = self._mover
        if mover is None:
            self.terminations = dict.fromkeys(self.agents, True)
            self.agent_selection = AGENTS[1 - AGENTS.index(agent)]
        else:
            self.agent_selection = AGENTS[mover]

    def render(self) -> str | None:
        """The view of the seat to move (``ansi``), as text."""
        if self.render_mode is None:
            return None
        seat = AGENTS.index(self.agent_selection)
        return text_of(self.engine.observation(self.state, seat))

    def close(self) -> None:
        """Nothing to release."""
