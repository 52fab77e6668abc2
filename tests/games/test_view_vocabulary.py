"""The views of every installed game name what the games have alike the same way (docs/bots.md,
"What the views call things"): ``seat``, ``to_move``, ``round`` (from 0), ``rounds`` (where a
match has a number of rounds), ``finished_rounds`` (the score pairs), ``history``. The names a
view had before keep working one release, warning and giving the same value."""

from __future__ import annotations

import random
from typing import Any

import pytest

from arena.games import game_ids, get_game

pytestmark = pytest.mark.unit

OLD_NAMES = {
    "lost-cities": {"round_index": "round"},
    "portas": {"games": "rounds", "finished": "finished_rounds"},
    "goofspiel": {"finished": "finished_rounds"},
}
"""What each game's view called things before the shared vocabulary: old -> new."""

NO_ROUND_COUNT = {"haggis"}
"""Games whose matches have no fixed number of rounds (Haggis plays to a target score)."""


def states(game_id: str, seed: int = 5) -> list[Any]:
    """Every state of one match played by random legal moves (the last one finished)."""
    game = get_game(game_id)
    rng = random.Random(seed)
    state = game.new_match(seed, None)
    seen = [state]
    while game.to_move(state) is not None:
        state = game.apply(state, rng.choice(game.legal_actions(state)))
        seen.append(state)
    return seen


@pytest.mark.parametrize("game_id", sorted(game_ids()))
def test_a_view_names_the_shared_things_alike(game_id: str) -> None:
    game = get_game(game_id)
    played = states(game_id)
    rounds = len(game.finished_rounds(played[-1]))
    for state in played[:: max(1, len(played) // 40)] + played[-1:]:
        for seat in (0, 1):
            view = game.observation(state, seat)
            assert view.seat == seat
            assert view.to_move == game.to_move(state)
            assert view.round == game.round_index(state)
            assert tuple(view.finished_rounds) == tuple(game.finished_rounds(state))
            assert len(view.history) >= 0
            if game_id not in NO_ROUND_COUNT:
                assert view.rounds == rounds
            else:
                assert not hasattr(view, "rounds")


@pytest.mark.parametrize(("game_id", "old", "new"),
                         [(g, old, new) for g, names in sorted(OLD_NAMES.items())
                          for old, new in sorted(names.items())])
def test_an_old_view_name_still_reads_and_warns(game_id: str, old: str, new: str) -> None:
    if game_id not in game_ids():
        pytest.fail(f"{game_id} is not installed (the Goofspiel plugin: scripts/setup.sh)")
    game = get_game(game_id)
    view = game.observation(states(game_id)[-1], 1)
    with pytest.warns(DeprecationWarning,
                      match=rf"View\.{old} is deprecated: read \.{new}, the same value") as warned:
        value = getattr(view, old)  # the warning names this line
    assert len(warned) == 1 and warned[0].filename == __file__
    assert value == getattr(view, new)
