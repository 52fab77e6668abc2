"""The Haggis yardstick (benchmarks/yardstick_haggis.py) plays the same game as the engine.

Exactly where it matters most: in every position of a few engine matches, the yardstick's
combinations of the mover's hand are the engine's (``lead_combos``), and those it lets the mover
play on the top of the trick are the engine's (``follow_combos``). Statistically for the rest
(trick flow, bets, scoring, the match): over 600 uniform-random rounds each, the scores of the
seat that went out and of the other seat have the same mean and spread.

``benchmarks/run.py`` divides the engine's rounds per second by the yardstick's
(``haggis_vs_yardstick``); that ratio means something only if both play the same rules with the
same random policy (uniform over the legal actions). Every run is seeded: the test is
deterministic."""

from __future__ import annotations

import random
from functools import lru_cache
from types import ModuleType

import pytest

from arena.games import haggis as h
from tests.support.yardstick import load_yardstick, same_distribution

pytestmark = pytest.mark.integration

ROUNDS = 600


def yardstick() -> ModuleType:
    return load_yardstick("yardstick_haggis")


def engine_card(card: int) -> int:
    """The engine's id of a yardstick card (``rank * 4 + suit``; J, Q, K = 44, 48, 52)."""
    return h.JACK + (card - 44) // 4 if card >= 44 else card - 8


def yardstick_hand(mask: int) -> list[int]:
    """An engine hand mask as the yardstick's list of cards."""
    return [c + 8 if c < 36 else 44 + (c - h.JACK) * 4 for c in h.cards_of(mask)]


def as_engine(combo: tuple[int, int, int, int, tuple[int, ...]]) -> h.Combo:
    kind, low, high, width, cards = combo
    return h.Combo(kind, low, high, width, h.mask_of(engine_card(c) for c in cards))


@lru_cache(maxsize=1)
def engine_rounds(rounds: int) -> list[tuple[int, int]]:
    """Round score pairs of uniform-random matches played by the engine."""
    rng = random.Random(11)
    out: list[tuple[int, int]] = []
    seed = 0
    while len(out) < rounds:
        state = h.GAME.new_match(seed)
        seed += 1
        while h.GAME.to_move(state) is not None:
            state = h.GAME.apply(state, rng.choice(h.GAME.legal_actions(state)))
        out += h.GAME.finished_rounds(state)
    return out


def yardstick_rounds(rounds: int, **rules: int) -> list[tuple[int, int]]:
    """Round score pairs of uniform-random matches played by the yardstick."""
    play_match = yardstick().play_match
    rng = random.Random(12)
    out: list[tuple[int, int]] = []
    while len(out) < rounds:
        out += play_match(rng, **rules)
    return out


def differences(engine: list[tuple[int, int]], plain: list[tuple[int, int]]) -> list[str]:
    """What differs between two samples of round scores: the winner's and the other's."""
    found = [same_distribution([max(r) for r in engine], [max(r) for r in plain]),
             same_distribution([min(r) for r in engine], [min(r) for r in plain])]
    return [text for text in found if text]


def test_the_yardstick_lists_the_engines_combinations() -> None:
    plain = yardstick()
    rng = random.Random(5)
    positions = 0
    for seed in range(10):
        state = h.GAME.new_match(seed, {"target": 60})
        while h.GAME.to_move(state) is not None:
            hand = state.hands[h.GAME.to_move(state)]
            mine = plain.combos(yardstick_hand(hand))
            listed = {as_engine(c) for c in mine}
            assert len(listed) == len(mine)
            assert listed == set(h.lead_combos(hand))
            if state.trick:
                top = state.trick[-1][1]
                ytop = next(c for c in plain.combos(yardstick_hand(top.mask))
                            if as_engine(c) == top)
                beating = {as_engine(c) for c in mine if plain.beats(c, ytop)}
                assert beating == set(h.follow_combos(hand, top))
            positions += 1
            state = h.GAME.apply(state, rng.choice(h.GAME.legal_actions(state)))
    assert positions > 300


def test_the_yardstick_plays_the_engines_game() -> None:
    assert differences(engine_rounds(ROUNDS), yardstick_rounds(ROUNDS)) == []


def test_a_different_rule_is_noticed() -> None:
    """The comparison has teeth: no points for the cards left in the other's hand (5 each by the
    rules) is told apart, even by a sixth of the yardstick's rounds (fewer rounds: a wider
    margin to cross, and a sixth of the yardstick's time): the winners' means differ by about 6
    standard errors (about 9 with a third), 4 tell apart."""
    assert differences(engine_rounds(ROUNDS), yardstick_rounds(ROUNDS // 6, per_card=0)) != []
