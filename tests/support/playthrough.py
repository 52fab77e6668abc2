"""Golden playthroughs of every registered game, written by one generator for all games.

Regenerate the files deliberately, from the repository root, after a change that is meant to
alter a game's play (and bump that game's ``version``)::

    python -m tests.support.playthrough

For each built-in game (``arena.games.builtin.BUILTIN_ORDER``) this plays one seeded
uniform-random match with the default options and writes ``tests/games/golden/<game-id>.json``:
the game id and version, the seeds and options, then per decision the round, the seat to move,
the action text and what each seat observed when the decision was due (``observed``: the first
16 hex digits of the sha256 of ``arena.wire.observation_bytes``). At the first decision of every
round and at the last decision both seats' full observations are recorded as readable JSON
(``observations``: the wire message through ``MessageToDict``, keys sorted). Per round: the deal
record and the scores; then the final result. ``tests/games/test_playthrough.py`` replays every
file and compares everything. Nothing here is game-specific: a newly registered game gets its
golden file by running this.
"""

from __future__ import annotations

import hashlib
import json
import random
import sys
from pathlib import Path
from typing import Any

from google.protobuf.json_format import MessageToDict

from arena.games import get_game
from arena.games.builtin import BUILTIN_ORDER
from arena.wire import encode_observation, observation_bytes

GOLDEN_DIR = Path(__file__).resolve().parents[1] / "games" / "golden"
"""Where the golden files live (one ``<game-id>.json`` per game)."""
SEED = 7
"""The match seed of every golden playthrough."""
POLICY_SEED = 70
"""The seed of the uniform-random policy (``random.Random(POLICY_SEED).choice``)."""


def golden_path(game_id: str) -> Path:
    """The golden file of a game."""
    return GOLDEN_DIR / f"{game_id}.json"


def digest(game_id: str, view: Any) -> str:
    """A short digest of an observation: sha256 of its wire bytes, 16 hex digits."""
    return hashlib.sha256(observation_bytes(game_id, view)).hexdigest()[:16]


def readable(game_id: str, view: Any) -> dict[str, Any]:
    """An observation as readable JSON data: its wire message through ``MessageToDict`` (proto
    field names, fields at their default value included), keys sorted."""
    data: dict[str, Any] = _sorted(
        MessageToDict(
            encode_observation(game_id, view),
            preserving_proto_field_name=True,
            always_print_fields_with_no_presence=True,
        )
    )
    return data


def _sorted(data: Any) -> Any:
    """JSON data with every object's keys in sorted order."""
    if isinstance(data, dict):
        return {key: _sorted(data[key]) for key in sorted(data)}
    if isinstance(data, list):
        return [_sorted(item) for item in data]
    return data


def play(
    game_id: str,
    seed: int = SEED,
    policy_seed: int = POLICY_SEED,
    options: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The playthrough record of one seeded uniform-random match (see the module docstring)."""
    game = get_game(game_id)
    policy = random.Random(policy_seed)
    state = game.new_match(seed, options)
    record: dict[str, Any] = {
        "game": game_id,
        "version": game.version,
        "seed": seed,
        "policy_seed": policy_seed,
        "options": game.options_of(state),
    }
    decisions: list[dict[str, Any]] = []
    rounds: list[dict[str, Any]] = []
    while (seat := game.to_move(state)) is not None:
        index = game.round_index(state)
        views = [game.observation(state, s) for s in (0, 1)]
        action = policy.choice(game.legal_actions(state))
        decision: dict[str, Any] = {
            "round": index,
            "seat": seat,
            "action": game.format_action(action),
            "observed": [digest(game_id, view) for view in views],
        }
        if len(rounds) == index:
            rounds.append({"round": index, "deal": game.deal_record(state)})
            decision["observations"] = [readable(game_id, view) for view in views]
        decisions.append(decision)
        last_views = views
        state = game.apply(state, action)
    decisions[-1]["observations"] = [readable(game_id, view) for view in last_views]
    for entry, scores in zip(rounds, game.finished_rounds(state), strict=True):
        entry["scores"] = list(scores)
    result = game.outcome(state)
    assert result is not None
    record["decisions"] = decisions
    record["rounds"] = rounds
    record["result"] = {
        "winner": result.winner,
        "totals": list(result.totals),
        "rounds": [list(scores) for scores in result.rounds],
    }
    return record


def dumps(record: dict[str, Any]) -> str:
    """The text of a golden file (the record's own key order; observations' keys sorted)."""
    return json.dumps(record, indent=1) + "\n"


def write_all() -> list[Path]:
    """Rewrite the golden file of every registered game; returns the paths written."""
    GOLDEN_DIR.mkdir(exist_ok=True)
    written = []
    for game_id in BUILTIN_ORDER:
        path = golden_path(game_id)
        path.write_text(dumps(play(game_id)))
        written.append(path)
    return written


if __name__ == "__main__":
    for written in write_all():
        sys.stdout.write(f"{written} ({written.stat().st_size} bytes)\n")
