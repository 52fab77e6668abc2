"""A bot from the lab as an arena bot, unchanged (docs/lab.md, "From the lab to the arena").

An OpenSpiel bot (``pyspiel.Bot``: MCTS, ISMCTS, ...) or a PettingZoo policy becomes an SDK
policy; the SDK plays it over the arena's protocol, in the process sandbox or a container::

    from open_spiel.python.algorithms import mcts
    from arena.lab.adapter import run_openspiel_bot

    def make_bot(game, seat):
        evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1)
        return mcts.MCTSBot(game, uct_c=2, max_simulations=100, evaluator=evaluator)

    run_openspiel_bot(make_bot, name="openspiel-mcts")

**What the bot is given.** Only what the seat knows. At each decision the adapter draws, with
the game's ``determinize``, a whole state consistent with the seat's observation (never the
match's real state: the bot runs in its own process and has the observation alone), as a state
of the game's OpenSpiel game (:mod:`arena.lab.openspiel`, rules options as the match's). The
state has no history: a bot sees the present as the observation tells it, and OpenSpiel's ISMCTS
resamples its worlds from it through the same ``determinize``. A search on one such state (MCTS)
is a determinized search.

**What it answers.** The OpenSpiel action id the bot chose, turned into the action's text in
that state; it is one of the decision's legal actions (a seat's legal actions depend on what it
knows only). An id that names none of them ends the bot with a ``ValueError`` naming it.

**A PettingZoo policy** (:func:`run_policy`) is a function of the agent's observation as
:mod:`arena.lab.pettingzoo` gives it (``{"observation": features, "action_mask": mask}``) to an
action id, as trained there.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt
import pyspiel

from arena.games.registry import get_game
from arena.lab.encoding import FEATURES, ActionEncoding, Featurizer
from arena.lab.openspiel import ArenaGame, short_name, state_from_observation
from arena.sdk.decision import Decision, MatchInfo

MakeBot = Callable[[Any, int], Any]
"""``make_bot(game, seat)``: an OpenSpiel bot for the seat of the pyspiel game given."""
Policy = Callable[[dict[str, npt.NDArray[Any]]], int]
"""A PettingZoo policy: an agent's observation dict to an action id."""


def _answer(decision: Decision, text: str, source: str) -> str:
    if text not in decision.legal_texts:
        raise ValueError(f"{source} chose {text!r}, not a legal action here "
                         f"({len(decision.legal_texts)} are)")
    return text


class OpenSpielPolicy:
    """An SDK policy playing an OpenSpiel bot (module docstring); ``params``: extra game
    parameters (``returns="win"``, ``max_actions``)."""

    def __init__(self, make_bot: MakeBot, **params: Any) -> None:
        self.make_bot = make_bot
        self.params = params
        self.game: ArenaGame | None = None
        self.bot: Any = None
        self._rng = random.Random()

    def match_start(self, info: MatchInfo) -> None:
        """Loads the match's game with its rules options and makes the seat's bot."""
        params = {**info.options, **self.params}
        self.game = pyspiel.load_game(short_name(info.game), params)
        self.bot = self.make_bot(self.game, info.seat)
        self._rng = random.Random(f"{info.match_id}:{info.seat}")

    def decide(self, decision: Decision) -> str:
        if self.game is None:
            self.match_start(decision.match)
        if len(decision.legal_texts) == 1:
            return decision.legal_texts[0]
        game = self.game
        assert game is not None
        state = state_from_observation(game, decision.observation, decision.seat, self._rng)
        if state.current_player() != decision.seat:
            raise ValueError(f"game {decision.match.game}: determinize gave a state where seat "
                             f"{state.current_player()} moves, not seat {decision.seat}")
        action = self.bot.step(state)
        return _answer(decision, state.action_to_string(decision.seat, action),
                       type(self.bot).__name__)


class PettingZooPolicy:
    """An SDK policy playing a PettingZoo policy (module docstring); ``size`` and
    ``max_actions`` as the environment it learned in (:func:`arena.lab.pettingzoo.env`)."""

    def __init__(self, policy: Policy, size: int = FEATURES, max_actions: int = 0) -> None:
        self.policy = policy
        self.size = size
        self.max_actions = max_actions
        self.encoding: ActionEncoding | None = None
        self._featurizer = Featurizer(size)

    def match_start(self, info: MatchInfo) -> None:
        """The match's action encoding (its rules options)."""
        self.encoding = ActionEncoding(get_game(info.game), dict(info.options), self.max_actions)
        self._featurizer = Featurizer(self.size)

    def decide(self, decision: Decision) -> str:
        if self.encoding is None:
            self.match_start(decision.match)
        encoding = self.encoding
        assert encoding is not None
        legal = decision.legal_actions
        mask = np.zeros(encoding.size, np.int8)
        mask[encoding.legal_ids(None, legal)] = 1
        observation: dict[str, npt.NDArray[Any]] = {
            "observation": self._featurizer(decision.observation), "action_mask": mask}
        action = int(self.policy(observation))
        if not 0 <= action < encoding.size or not mask[action]:
            raise ValueError(f"the policy chose action id {action}, where action_mask is 0")
        text = str(encoding.game.format_action(encoding.action(None, action, legal)))
        return _answer(decision, text, "the policy")


def run_openspiel_bot(make_bot: MakeBot, name: str, **params: Any) -> None:
    """Plays the arena match this process was started for with an OpenSpiel bot (the SDK's
    ``run``; ``params`` as :class:`OpenSpielPolicy`'s)."""
    from arena.sdk import run

    run(OpenSpielPolicy(make_bot, **params), name=name)


def run_policy(policy: Policy, name: str, size: int = FEATURES, max_actions: int = 0) -> None:
    """Plays the arena match this process was started for with a PettingZoo policy."""
    from arena.sdk import run

    run(PettingZooPolicy(policy, size, max_actions), name=name)


def masked_random(seed: int | None = None) -> Policy:
    """A PettingZoo policy: a uniformly random action among those the mask allows."""
    rng = np.random.default_rng(seed)

    def policy(observation: dict[str, npt.NDArray[Any]]) -> int:
        return int(rng.choice(np.flatnonzero(observation["action_mask"])))

    return policy
