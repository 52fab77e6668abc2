"""In-process matches between Python policies: the fake at the I/O seam.

No sockets, no clocks, no faults: a policy is called directly with the same ``Decision`` the SDK
would hand it over gRPC. Used to evaluate sample bots quickly (e.g. 100 matches strong vs greedy)
and by tests; real matches go through ``arena.referee.match``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from arena.games import get_game
from arena.games.api import GameResult
from arena.sdk.decision import Decision, MatchInfo

Policy = Callable[[Decision], Any]
"""A function from a decision to an action (the game's action value or its text)."""


def play_local(
    game_id: str,
    policies: tuple[Policy, Policy],
    seed: int,
    options: Mapping[str, Any] | None = None,
    max_decisions: int = 1_000_000,
) -> GameResult:
    """Play one match between two policies in-process; an illegal choice raises."""
    game = get_game(game_id)
    state = game.new_match(seed, options)
    opts = game.options_of(state)
    match_id = f"local-{_opaque(seed)}"
    infos = tuple(MatchInfo(match_id, game_id, game.version, s, opts, 1000, 0) for s in (0, 1))
    for decision_id in range(max_decisions):
        seat = game.to_move(state)
        if seat is None:
            break
        legal = tuple(game.legal_actions(state))
        decision = Decision(
            match=infos[seat],
            round=game.round_index(state),
            observation=game.observation(state, seat),
            legal_texts=tuple(game.format_action(a) for a in legal),
            parsed_actions=legal,
            time_left_ms=1000,
            decision_id=decision_id,
        )
        choice = policies[seat](decision)
        action = game.parse_action(choice) if isinstance(choice, str) else choice
        state = game.apply(state, action)
    result = game.outcome(state)
    if result is None:
        raise RuntimeError(f"match did not end within {max_decisions} decisions")
    return result


def _opaque(seed: int) -> str:
    """A match id that does not reveal the deal seed (bots seed their RNGs from match ids)."""
    import hashlib

    return hashlib.sha256(f"local:{seed}".encode()).hexdigest()[:12]
