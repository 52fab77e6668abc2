"""Haggis renderer: omniscient and per-seat views at 100 columns."""

from __future__ import annotations

import io
import random

import pytest
from rich.console import Console

from arena.games import haggis as h
from arena.games.haggis import GAME
from arena.games.haggis.terminal import RENDERER

pytestmark = pytest.mark.unit


def _text(renderable: object) -> str:
    console = Console(file=io.StringIO(), width=100, color_system=None)
    console.print(renderable)
    out = console.file.getvalue()  # type: ignore[attr-defined]
    assert isinstance(out, str)
    return out


def _mid_round() -> h.State:
    rng = random.Random(2)
    state = GAME.new_match(2)
    for _ in range(5):
        state = GAME.apply(state, rng.choice(GAME.legal_actions(state)))
    return state


def test_state_shows_both_hands_and_the_haggis() -> None:
    state = _mid_round()
    out = _text(RENDERER.render_state(state))
    assert "Haggis:" in out and "current trick" in out
    for card in h.cards_of(state.haggis):
        assert h.card_text(card) in out
    assert max(len(line) for line in out.splitlines()) <= 100


def test_view_hides_opponent_number_cards_and_haggis() -> None:
    state = _mid_round()
    seat = 0
    out = _text(RENDERER.render_view(GAME.observation(state, seat)))
    assert "seat 0 (you)" in out and "hidden" in out
    assert "Haggis:" not in out
    own = {h.card_text(c) for c in h.cards_of(state.hands[seat])}
    trick = {h.card_text(c) for _, combo in state.trick for c in combo.cards}
    hidden = h.cards_of((state.hands[1] | state.haggis) & h.NUMBER_MASK)
    words = set(out.split())
    for card in hidden:
        assert h.card_text(card) not in words - own - trick
    assert max(len(line) for line in out.splitlines()) <= 100


def test_finished_match_renders() -> None:
    rng = random.Random(3)
    state = GAME.new_match(3, {"target": 60})
    while state.to_move is not None:
        state = GAME.apply(state, rng.choice(GAME.legal_actions(state)))
    out = _text(RENDERER.render_view(GAME.observation(state, 1)))
    assert "match over" in out and "Last round" in out
