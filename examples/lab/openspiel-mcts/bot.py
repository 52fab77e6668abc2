"""Example bot ``openspiel-mcts``: OpenSpiel's own MCTS bot, unchanged, playing through the lab's
adapter (arena.lab.adapter, docs/lab.md "From the lab to the arena"). Each decision it searches a
state drawn from the seat's observation by the game's ``determinize``; nothing here knows the
game, so the same file plays every installed game (bot.toml names one).

Arguments (optional): the algorithm, ``mcts`` (the default) or ``ismcts`` (OpenSpiel's
information-set MCTS, resampling through ``determinize``), and the simulations a decision
(default 100)."""

from __future__ import annotations

import sys
from typing import Any

import numpy as np
from open_spiel.python.algorithms import ismcts, mcts

from arena.lab.adapter import run_openspiel_bot

ALGORITHM = sys.argv[1] if len(sys.argv) > 1 else "mcts"
SIMULATIONS = int(sys.argv[2]) if len(sys.argv) > 2 else 100


def make_bot(game: Any, seat: int) -> Any:
    """OpenSpiel's bot for the seat: random rollouts (one a leaf), UCT constant 2."""
    rng = np.random.RandomState(seat)
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rng)
    if ALGORITHM == "ismcts":
        return ismcts.ISMCTSBot(game, evaluator, uct_c=2, max_simulations=SIMULATIONS,
                                random_state=rng)
    return mcts.MCTSBot(game, uct_c=2, max_simulations=SIMULATIONS, evaluator=evaluator,
                        random_state=rng)


if __name__ == "__main__":
    run_openspiel_bot(make_bot, name=f"openspiel-{ALGORITHM}")
