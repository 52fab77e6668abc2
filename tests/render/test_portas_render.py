"""PORTAS renderer: shows the table at 100 columns; a view never shows hidden orders."""

from __future__ import annotations

import io
import random
from dataclasses import replace

import pytest
from rich.console import Console

from arena.games.portas import GAME, State
from arena.games.portas.terminal import RENDERER

pytestmark = pytest.mark.unit


def text_of(renderable: object) -> str:
    console = Console(file=io.StringIO(), width=100, color_system=None)
    console.print(renderable)
    output = console.file.getvalue()  # type: ignore[attr-defined]
    assert isinstance(output, str)
    return output


def mid_game(seed: int, plies: int) -> State:
    rng = random.Random(seed)
    state = GAME.new_match(seed)
    for _ in range(plies):
        state = GAME.apply(state, rng.choice(GAME.legal_actions(state)))
    return state


def test_render_state_shows_everything() -> None:
    state = mid_game(5, 9)
    out = text_of(RENDERER.render_state(state))
    assert RENDERER.game_id == "portas"
    assert all(len(line) <= 100 for line in out.splitlines())
    for chest in state.chests:
        assert str(chest.value) in out
    assert " ".join(str(c) for c in state.hands[0]) in out
    assert " ".join(str(c) for c in state.decks[1]) in out
    assert " ".join(str(t) for t in state.hidden) in out
    assert f"to move: seat {state.mover}" in out


def test_render_view_shows_public_data_only() -> None:
    state = mid_game(5, 9)
    view = GAME.observation(state, 1)
    out = text_of(RENDERER.render_view(view))
    assert all(len(line) <= 100 for line in out.splitlines())
    assert " ".join(str(c) for c in state.hands[0]) in out
    assert " ".join(str(c) for c in state.hands[1]) in out
    assert f"{len(state.decks[0])} cards" in out
    assert f"hidden treasures: {len(state.hidden)}" in out
    assert "in order" not in out
    # the same view of a state with other deck orders renders identically
    other = mid_game(5, 9)
    shuffled = tuple(reversed(other.decks[0])), other.decks[1]
    other = replace(other, decks=shuffled, hidden=tuple(reversed(other.hidden)))
    assert text_of(RENDERER.render_view(GAME.observation(other, 1))) == out


def test_render_finished_match() -> None:
    state = mid_game(6, 0)
    rng = random.Random(6)
    while GAME.to_move(state) is not None:
        state = GAME.apply(state, rng.choice(GAME.legal_actions(state)))
    out = text_of(RENDERER.render_state(state))
    assert "match over" in out
    assert "emptied by seat" in out or "open" in out
