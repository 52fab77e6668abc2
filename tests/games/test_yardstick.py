"""The Lost Cities yardstick (benchmarks/yardstick_lost_cities.py) plays the same game as the
engine: over 2,000 uniform-random rounds each, the round scores have the same mean and spread.

``benchmarks/run.py`` divides the engine's rounds per second by the yardstick's
(``engine_vs_yardstick``); that ratio means something only if both play the same rules with the
same random policy (uniform over the distinct legal actions). Both runs are seeded, so the test
is deterministic."""

from __future__ import annotations

import importlib.util
import random
import statistics
from functools import cache
from pathlib import Path
from types import ModuleType

import pytest

from arena.games.lost_cities import GAME

pytestmark = pytest.mark.integration

ROUNDS = 2_000
YARDSTICK = Path(__file__).resolve().parents[2] / "benchmarks" / "yardstick_lost_cities.py"


def yardstick() -> ModuleType:
    """The yardstick module, loaded from its file (benchmarks/ is not a package)."""
    spec = importlib.util.spec_from_file_location("yardstick_lost_cities", YARDSTICK)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@cache
def engine_scores(rounds: int) -> tuple[int, ...]:
    """Both seats' scores of uniform-random one-round matches played by the engine
    (computed once for both tests)."""
    rng = random.Random(11)
    scores: list[int] = []
    for seed in range(rounds):
        state = GAME.new_match(seed, {"rounds": 1})
        while GAME.to_move(state) is not None:
            state = GAME.apply(state, rng.choice(GAME.legal_actions(state)))
        scores.extend(GAME.finished_rounds(state)[0])
    return tuple(scores)


def yardstick_scores(rounds: int) -> list[int]:
    """Both seats' scores of uniform-random rounds played by the yardstick."""
    play_round = yardstick().play_round
    rng = random.Random(12)
    scores: list[int] = []
    for _ in range(rounds):
        scores.extend(play_round(rng))
    return scores


def test_the_yardstick_plays_the_engines_game() -> None:
    engine, plain = engine_scores(ROUNDS), yardstick_scores(ROUNDS)
    spread = statistics.stdev(engine)
    standard_error = spread * (2 / len(engine)) ** 0.5  # of the difference of the two means
    assert abs(statistics.mean(engine) - statistics.mean(plain)) < 4 * standard_error, (
        statistics.mean(engine), statistics.mean(plain), standard_error)
    assert abs(statistics.stdev(plain) / spread - 1) < 0.08, (spread, statistics.stdev(plain))


def test_a_different_rule_is_noticed() -> None:
    """The comparison has teeth: the yardstick with pile draws never allowed (a stall guard of
    0 turns) is told apart from the engine with its default guard."""
    play_round = yardstick().play_round
    rng = random.Random(12)
    changed = [score for _ in range(ROUNDS) for score in play_round(rng, stall_guard=0)]
    engine = engine_scores(ROUNDS)
    standard_error = statistics.stdev(engine) * (2 / len(engine)) ** 0.5
    assert abs(statistics.mean(engine) - statistics.mean(changed)) > 4 * standard_error
