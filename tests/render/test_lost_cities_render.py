"""Lost Cities renderer: omniscient and per-seat renderings at 100 columns."""

from __future__ import annotations

import io
import random

import pytest
from rich.console import Console

from arena.games.lost_cities import GAME, State
from arena.games.lost_cities.terminal import RENDERER

pytestmark = pytest.mark.unit


def _text(renderable: object) -> str:
    console = Console(file=io.StringIO(), width=100, color_system=None)
    console.print(renderable)
    out = console.file.getvalue()  # type: ignore[attr-defined]
    assert isinstance(out, str)
    return out


def _midgame() -> State:
    state = GAME.new_match(5)
    rng = random.Random(2)
    for _ in range(60):
        state = GAME.apply(state, rng.choice(GAME.legal_actions(state)))
    return state


def test_render_state_shows_everything() -> None:
    state = _midgame()
    out = _text(RENDERER.render_state(state))
    assert all(len(line) <= 100 for line in out.splitlines())
    assert f"deck {state.deck_count}" in out and "Round 1/3" in out
    for seat in (0, 1):
        assert " ".join(str(c) for c in state.hands[seat]) in out
    for colour in range(5):
        pile = state.piles[colour]
        if pile:
            assert f"{pile[-1]} ({len(pile)})" in out
    assert f"turn {state.turn}" in out and "stall guard" in out


def test_render_view_shows_only_own_hand() -> None:
    state = _midgame()
    out = _text(RENDERER.render_view(GAME.observation(state, 1)))
    assert " ".join(str(c) for c in state.hands[1]) in out
    assert " ".join(str(c) for c in state.hands[0]) not in out
    assert "opponent hand: 8 cards" in out


def test_render_finished_match_and_stall_guard() -> None:
    state = GAME.new_match(3, {"stall_guard_turns": 0})
    out = _text(RENDERER.render_state(state))
    assert "stall guard 0 reached" in out
    rng = random.Random(0)
    while GAME.to_move(state) is not None:
        state = GAME.apply(state, rng.choice(GAME.legal_actions(state)))
    out = _text(RENDERER.render_view(GAME.observation(state, 0)))
    assert "match over" in out and "totals" in out
