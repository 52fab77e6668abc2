"""The lab's adapter (arena/lab/adapter.py): OpenSpiel's MCTS and ISMCTS bots and a PettingZoo
policy, unchanged, play whole matches of every game as arena bots, in-process and in the process
sandbox through the SDK; the state a bot searches is drawn from the seat's observation (it shows
the seat exactly that observation, and the other seat's hidden cards are not the real ones)."""

from __future__ import annotations

import asyncio
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from open_spiel.python.algorithms import ismcts, mcts

from arena.bots import load_bot_dir
from arena.games import get_game
from arena.lab.adapter import OpenSpielPolicy, PettingZooPolicy, masked_random
from arena.lab.evaluate import load_policy, play_in_process
from arena.model import MatchSpec, Termination, TimeControl
from arena.referee.match import play_match
from arena.sdk.decision import Decision
from tests.lab.conftest import SMALL
from tests.support.goofspiel import goofspiel

pytestmark = pytest.mark.unit

GAMES = ("lost-cities", "haggis", "portas", "goofspiel")
EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "lab" / "openspiel-mcts"


def _mcts(game: Any, seat: int) -> Any:
    rng = np.random.RandomState(seat)
    return mcts.MCTSBot(game, uct_c=2, max_simulations=4,
                        evaluator=mcts.RandomRolloutEvaluator(1, rng), random_state=rng)


def _ismcts(game: Any, seat: int) -> Any:
    rng = np.random.RandomState(seat)
    return ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, rng), uct_c=2,
                            max_simulations=4, random_state=rng)


@pytest.mark.parametrize("game", GAMES)
def test_openspiel_bots_play_whole_matches_in_process(game: str) -> None:
    if game == "goofspiel":
        goofspiel()
    played = play_in_process(game, (OpenSpielPolicy(_mcts), OpenSpielPolicy(_ismcts)), 1,
                             options=SMALL[game])
    assert played.termination is Termination.NORMAL, played.detail


@pytest.mark.parametrize("game", GAMES)
def test_a_pettingzoo_policy_plays_whole_matches_in_process(game: str) -> None:
    if game == "goofspiel":
        goofspiel()
    played = play_in_process(game, (PettingZooPolicy(masked_random(1)),
                                    load_policy("random", game)), 3, options=SMALL[game])
    assert played.termination is Termination.NORMAL, played.detail


def test_the_bot_searches_a_world_drawn_from_the_seats_observation() -> None:
    """Every state the bot is given shows its seat the decision's observation, and the
    opponent's hand in it is drawn, not the real one (it differs from the real at least once)."""
    engine = get_game("lost-cities")
    seen: list[tuple[Decision, Any]] = []

    class Recorder:
        def step(self, state: Any) -> int:
            seen.append((current, state.arena_state))
            return int(state.legal_actions()[0])

    policy = OpenSpielPolicy(lambda game, seat: Recorder())
    real_record: list[Any] = []

    def decide(decision: Decision) -> Any:
        nonlocal current
        current = decision
        return policy.decide(decision)

    current: Decision | None = None
    played = play_in_process("lost-cities", (decide, load_policy("random", "lost-cities")), 4,
                             options=SMALL["lost-cities"], record=real_record)
    assert played.termination is Termination.NORMAL, played.detail
    assert len(seen) > 10
    for decision, state in seen:
        assert engine.observation(state, decision.seat) == decision.observation
    real = {}  # the real state before each of seat 0's actions, by its observation
    state = engine.new_match(4, SMALL["lost-cities"])
    for _round, seat, action in real_record:
        if seat == 0:
            real[repr(engine.observation(state, 0))] = state
        state = engine.apply(state, engine.parse_action(action))
    drawn = [engine.observation(world, 1)
             != engine.observation(real[repr(decision.observation)], 1)
             for decision, world in seen]
    assert sum(drawn) >= len(seen) / 2, "the opponent's hand is drawn, not the real one"


def test_an_action_that_is_not_legal_is_refused_in_one_line() -> None:
    class Wrong:
        def step(self, state: Any) -> int:
            legal = set(state.legal_actions())
            return next(i for i in range(10_000) if i not in legal)

    played = play_in_process("portas", (OpenSpielPolicy(lambda game, seat: Wrong()),
                                        load_policy("random", "portas")), 1,
                             options=SMALL["portas"])
    assert played.termination is not Termination.NORMAL
    assert "not a legal action here" in played.detail or "names no action" in played.detail, \
        played.detail


def _bot(tmp_path: Path, game: str, name: str, command: list[str], source: Path) -> Path:
    where = tmp_path / f"{game}-{name}"
    where.mkdir()
    shutil.copy(source, where / "bot.py")
    words = ", ".join(f'"{word}"' for word in command)
    (where / "bot.toml").write_text(f'name = "{name}"\ngame = "{game}"\n'
                                    f'command = [{words}]\n')
    return where


PETTINGZOO_BOT = '''\
from arena.lab.adapter import masked_random, run_policy

if __name__ == "__main__":
    run_policy(masked_random(), name="pettingzoo-random")
'''


SEARCH_TIME = TimeControl(move_time_ms=10_000, startup_ms=60_000)
"""The lab bots' clock in these matches: what is tested is that they play legal matches to the
end, not their speed. With the default clock (1 s a move, 10 s to start) a bot importing numpy
and OpenSpiel on a machine at load 25 lost a match once (CI runs the suite at -n 3 on 2 cores)."""


@pytest.mark.integration
@pytest.mark.slow
def test_lab_bots_play_twenty_matches_in_the_process_sandbox(tmp_path: Path) -> None:
    """The example bot (OpenSpiel MCTS) and itself as ISMCTS play 20 matches each (issue 36):
    against each other, 18 matches (4 or 5 of each game, seats swapped), and each against a
    PettingZoo policy in two more (one match of each game for the policy): no crash, every
    match to its end. Two simulations a decision: what is tested is that they search and play
    legal matches to the end, not how well (most of a match's CPU is then the bots' start-up,
    so no match is played that the twenty and the policy's four do not need)."""
    goofspiel()
    pz_source = tmp_path / "pettingzoo.py"
    pz_source.write_text(PETTINGZOO_BOT)
    specs: list[MatchSpec] = []
    for index, game in enumerate(GAMES):
        searchers = (load_bot_dir(_bot(tmp_path, game, "os-mcts",
                                       ["python3", "bot.py", "mcts", "2"], EXAMPLE / "bot.py")),
                     load_bot_dir(_bot(tmp_path, game, "os-ismcts",
                                       ["python3", "bot.py", "ismcts", "2"], EXAMPLE / "bot.py")))
        policy = load_bot_dir(_bot(tmp_path, game, "pz-random", ["python3", "bot.py"],
                                   pz_source))
        for seed in range(4 + index // 2):
            pair = searchers if seed % 2 else searchers[::-1]
            specs.append(MatchSpec(game, seed, pair, SMALL[game], SEARCH_TIME,
                                   match_id=f"adapter-{game}-{seed}"))
        specs.append(MatchSpec(game, 9, (policy, searchers[index % 2]), SMALL[game],
                               SEARCH_TIME, match_id=f"adapter-{game}-pz"))

    async def all_of() -> list[Any]:
        slots = asyncio.Semaphore(2)

        async def one(spec: MatchSpec) -> Any:
            async with slots:
                return await play_match(spec, sandbox="process", log_dir=tmp_path)

        return await asyncio.gather(*(one(spec) for spec in specs))

    results = asyncio.run(all_of())
    assert len(results) == 22
    for spec, result in zip(specs, results, strict=True):
        assert result.termination is Termination.NORMAL, (spec.match_id, result.detail)
    played = Counter(bot.name for spec in specs for bot in spec.bots)
    assert played["os-mcts"] == played["os-ismcts"] == 20 and played["pz-random"] == 4, played
