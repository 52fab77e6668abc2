"""Golden playthroughs (``tests/support/playthrough.py`` writes them): every registered game
replays its golden match exactly, decision by decision and observation by observation."""

from __future__ import annotations

import json
from typing import Any

import pytest

from arena.games import get_game
from arena.games.builtin import BUILTIN_ORDER
from tests.support.playthrough import digest, golden_path, play

pytestmark = pytest.mark.integration

REGENERATE = "python -m tests.support.playthrough (only for an intended change of the rules)"


def load(game_id: str) -> dict[str, Any]:
    """The golden record of a game."""
    record: dict[str, Any] = json.loads(golden_path(game_id).read_text())
    return record


@pytest.mark.parametrize("game_id", BUILTIN_ORDER)
def test_golden_playthrough_replays_exactly(game_id: str) -> None:
    golden = load(game_id)
    game = get_game(game_id)
    assert (golden["game"], golden["version"]) == (game_id, game.version), REGENERATE
    replayed = play(game_id, golden["seed"], golden["policy_seed"], golden["options"])
    for index, (got, want) in enumerate(
        zip(replayed["decisions"], golden["decisions"], strict=False)
    ):
        assert got == want, f"decision {index} differs; regenerate with {REGENERATE}"
    assert len(replayed["decisions"]) == len(golden["decisions"])
    assert replayed["rounds"] == golden["rounds"]
    assert replayed == golden


@pytest.mark.parametrize("game_id", BUILTIN_ORDER)
def test_golden_action_texts_replay_the_match(game_id: str) -> None:
    """The seed plus the action texts replay a match: same movers, same observations, same
    round scores and result (no policy involved)."""
    golden = load(game_id)
    game = get_game(game_id)
    state = game.new_match(golden["seed"], golden["options"])
    for decision in golden["decisions"]:
        assert game.to_move(state) == decision["seat"]
        assert game.round_index(state) == decision["round"]
        observed = [digest(game_id, game.observation(state, seat)) for seat in (0, 1)]
        assert observed == decision["observed"]
        state = game.apply(state, game.parse_action(decision["action"]))
    result = game.outcome(state)
    assert result is not None
    assert [list(scores) for scores in game.finished_rounds(state)] == [
        entry["scores"] for entry in golden["rounds"]
    ]
    assert golden["result"] == {
        "winner": result.winner,
        "totals": list(result.totals),
        "rounds": [list(scores) for scores in result.rounds],
    }


@pytest.mark.unit
@pytest.mark.parametrize("game_id", BUILTIN_ORDER)
def test_golden_records_every_round_and_full_observations(game_id: str) -> None:
    """Full observations of both seats at the first decision of every round and at the last."""
    golden = load(game_id)
    decisions = golden["decisions"]
    firsts = [
        i for i, d in enumerate(decisions) if i == 0 or d["round"] != decisions[i - 1]["round"]
    ]
    full = [i for i, d in enumerate(decisions) if "observations" in d]
    assert full == sorted(set(firsts) | {len(decisions) - 1})
    assert [entry["round"] for entry in golden["rounds"]] == list(range(len(golden["rounds"])))
    assert all(len(d["observations"]) == 2 for d in decisions if "observations" in d)
    assert golden_path(game_id).stat().st_size < 300_000
