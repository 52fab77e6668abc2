"""The PORTAS yardstick (benchmarks/yardstick_portas.py) plays the same game as the engine: over
4,000 uniform-random games each, the game scores have the same mean and spread, and as many
games end with two passes.

``benchmarks/run.py`` divides the engine's games per second by the yardstick's
(``portas_vs_yardstick``); that ratio means something only if both play the same rules with the
same random policy (uniform over the distinct legal actions). Both runs are seeded, so the test
is deterministic."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest

from arena.games.portas import GAME
from tests.support.yardstick import load_yardstick, same_distribution

pytestmark = pytest.mark.integration

GAMES = 4_000



def engine_games(games: int) -> list[tuple[int, int]]:
    """Both seats' scores of uniform-random one-game matches played by the engine."""
    rng = random.Random(11)
    out = []
    for seed in range(games):
        state = GAME.new_match(seed, {"games": 1})
        while GAME.to_move(state) is not None:
            state = GAME.apply(state, rng.choice(GAME.legal_actions(state)))
        out.append(GAME.finished_rounds(state)[0])
    return out


def yardstick_games(games: int, play: Callable[..., tuple[int, int]] | None = None,
                    **rules: int) -> list[tuple[int, int]]:
    """Both seats' scores of uniform-random games played by the yardstick."""
    play_game = play or load_yardstick("yardstick_portas").play_game
    rng = random.Random(12)
    return [play_game(rng, **rules) for _ in range(games)]


def flat(games: list[tuple[int, int]]) -> list[int]:
    return [score for pair in games for score in pair]


def test_the_yardstick_plays_the_engines_game() -> None:
    engine, plain = engine_games(GAMES), yardstick_games(GAMES)
    assert same_distribution(flat(engine), flat(plain)) == ""
    for seat in (0, 1):  # the starter's edge too
        assert same_distribution([g[seat] for g in engine], [g[seat] for g in plain]) == ""


def test_a_different_rule_is_noticed() -> None:
    """The comparison has teeth: the yardstick with hands of 3 cards is told apart."""
    engine, changed = engine_games(GAMES), yardstick_games(GAMES, hand_size=3)
    assert same_distribution(flat(engine), flat(changed)) != ""
