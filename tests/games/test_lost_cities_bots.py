"""Lost Cities sample bots: legal full matches in-process, and the better bot wins."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

from arena.referee.local import play_local

pytestmark = pytest.mark.unit

BOTS = Path(__file__).resolve().parents[2] / "sample_bots" / "lost-cities"


def _load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"lost_cities_bot_{name}", BOTS / name / "bot.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def bots() -> dict[str, ModuleType]:
    loaded = {name: _load(name) for name in ("random", "greedy", "strong")}
    loaded["strong"].__dict__["BUDGET_MS"] = 3.0  # keep the test fast; the default is 25 ms
    return loaded


def test_bot_directories_are_complete() -> None:
    for name in ("random", "greedy", "strong"):
        manifest = (BOTS / name / "bot.toml").read_text()
        assert f'name = "{name}"' in manifest and 'game = "lost-cities"' in manifest
        assert (BOTS / name / "Dockerfile").read_text().startswith("# A bot image.")
        assert 'if __name__ == "__main__":' in (BOTS / name / "bot.py").read_text()


@pytest.mark.integration
@pytest.mark.parametrize(("a", "b"), [("random", "greedy"), ("greedy", "strong")])
def test_bots_play_full_matches_legally(bots: dict[str, ModuleType], a: str, b: str) -> None:
    result = play_local("lost-cities", (bots[a].choose, bots[b].choose), seed=1)
    assert len(result.rounds) == 3


def test_greedy_beats_random(bots: dict[str, ModuleType]) -> None:
    wins = 0
    for seed in range(6):
        seat = seed % 2
        pair = (bots["greedy"].choose, bots["random"].choose)
        policies = pair if seat == 0 else (pair[1], pair[0])
        result = play_local("lost-cities", policies, seed=seed, options={"rounds": 1})
        wins += result.winner == seat
    assert wins >= 5


def test_strong_beats_random(bots: dict[str, ModuleType]) -> None:
    wins = 0
    for seed in range(2):
        seat = seed % 2
        pair = (bots["strong"].choose, bots["random"].choose)
        policies = pair if seat == 0 else (pair[1], pair[0])
        result = play_local("lost-cities", policies, seed=seed, options={"rounds": 1})
        wins += result.winner == seat
    assert wins == 2


def test_bots_are_reproducible(bots: dict[str, ModuleType]) -> None:
    policies = (bots["random"].choose, bots["greedy"].choose)
    bots["random"]._RNGS.clear()
    first = play_local("lost-cities", policies, seed=5, options={"rounds": 1})
    bots["random"]._RNGS.clear()
    assert play_local("lost-cities", policies, seed=5, options={"rounds": 1}) == first


@pytest.mark.integration
def test_strong_beats_greedy_in_a_seeded_sample() -> None:
    # The Monte-Carlo end-game depends on CPU time; without it the bot is deterministic.
    strong = _load("strong")
    strong.__dict__["MC_DECK"] = -1
    greedy = _load("greedy")
    wins = 0
    for seed in range(10):
        seat = seed % 2
        pair = (strong.choose, greedy.choose)
        policies = pair if seat == 0 else (pair[1], pair[0])
        wins += play_local("lost-cities", policies, seed=seed).winner == seat
    assert wins >= 6
