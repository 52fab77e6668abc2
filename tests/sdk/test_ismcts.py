"""The generic ISMCTS (arena/sdk/ismcts.py): written against the game protocol only, it plays
whole legal matches of every installed game; with an iteration budget it decides the same way
every time; with a CPU budget it stops on time; and it searches (it beats random play)."""

from __future__ import annotations

import gc
import time
from typing import Any

import pytest

from arena.games import game_ids
from arena.lab.evaluate import evaluate, load_policy, play_in_process
from arena.model import Termination
from arena.sdk.decision import Decision
from arena.sdk.ismcts import Ismcts
from tests.lab.conftest import SMALL

pytestmark = pytest.mark.unit


@pytest.mark.parametrize("game", game_ids())
def test_it_plays_a_whole_legal_match_of_every_game(game: str) -> None:
    greedy = load_policy("greedy", game)  # a deterministic opponent
    record: list[Any] = []
    played = play_in_process(game, (Ismcts(budget_ms=0, max_iterations=8), greedy), 5,
                             options=SMALL.get(game), record=record)
    assert played.termination is Termination.NORMAL, played.detail
    again: list[Any] = []
    play_in_process(game, (Ismcts(budget_ms=0, max_iterations=8), greedy), 5,
                    options=SMALL.get(game), record=again)
    assert record == again, "an iteration budget decides the same way every time"


def test_a_cpu_budget_is_kept() -> None:
    """Each decision's CPU time stays near the budget. Python's cyclic collector is off while
    it is measured: in the unit tier's process (every test module loaded, hundreds of thousands
    of objects) one full collection during a search costs tens of ms of this process's CPU,
    which a bot's own small process never pays; it failed the tier once under load."""
    search = Ismcts(budget_ms=30)
    seen: list[float] = []

    def timed(decision: Decision) -> Any:
        started = time.process_time()
        answer = search.decide(decision)
        seen.append(time.process_time() - started)
        return answer

    gc.collect()
    gc.disable()
    try:
        play_in_process("portas", (timed, load_policy("random", "portas")), 3,
                        options=SMALL["portas"])
    finally:
        gc.enable()
    on_time = [cpu for cpu in seen if cpu < 0.030 + 0.010]  # an iteration past it at most
    assert len(on_time) >= 0.9 * len(seen) and max(seen) < 4 * 0.030, seen
    assert search.iterations > 2


def test_it_searches() -> None:
    """Against uniform-random play, a small search wins most PORTAS games."""
    result = evaluate(f"{__file__}:SMALL_SEARCH", "random", game="portas", matches=6,
                      options=SMALL["portas"])
    assert result.wins >= 5 and not result.faults


SMALL_SEARCH = Ismcts(budget_ms=0, max_iterations=60)
"""What test_it_searches loads by reference."""


def test_lost_cities_playout_follows_the_rules_and_scores_as_the_engine() -> None:
    """The engine's search hook (``playout``) plays the rest of a round on plain lists: every
    turn it records is legal in the engine, and the engine scores the round it played as the
    hook did, from the start of a round, the middle, and its last turns (and past the stall
    guard, where only the deck may be drawn from)."""
    import random

    from arena.games.lost_cities import GAME
    from arena.games.lost_cities.playout import playout

    rng = random.Random(4)
    checked = 0
    for seed in range(12):
        state = GAME.new_match(seed, {"rounds": 1, "stall_guard_turns": 150 if seed % 3 else 30})
        for _ in range(rng.choice((0, 20, 40))):
            state = GAME.apply(state, rng.choice(GAME.legal_actions(state)))
        world = GAME.determinize(GAME.observation(state, state.player), rng)
        turns: list[Any] = []
        scores = playout(world, turns)
        assert GAME.playout(world, rng) == scores
        for action in turns:
            world = GAME.apply(world, action)  # raises on an illegal turn
        assert GAME.finished_rounds(world) == (scores,)
        checked += len(turns)
    assert checked > 200
