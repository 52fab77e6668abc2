"""Haggis (two players): every rule of docs/games/haggis.md, the grammar, invariants, leaks."""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import random
from collections.abc import Callable
from itertools import combinations
from pathlib import Path
from typing import Any

import pytest

from arena.errors import IllegalActionError, InvalidActionError, OptionsError
from arena.games.haggis import GAME, Action, Combo, State
from arena.games.haggis import rules as h
from arena.games.haggis.codec import CODEC

pytestmark = pytest.mark.unit

BOTS = Path(__file__).resolve().parents[2] / "sample_bots" / "haggis"
A, B = 0, 1


# --- helpers ---------------------------------------------------------------------------------


def cards(text: str) -> int:
    """Mask of cards written like '5R 5G J'."""
    return h.mask_of(h.parse_card(t) for t in text.split())


def act(text: str) -> Action:
    return h.parse_action(text)


def combo(text: str) -> Combo:
    action = h.parse_action(text)
    assert action.combo is not None
    return action.combo


def readings(mask: int) -> set[tuple[int, int, int, int]]:
    """Every (kind, low, high, width) reading of exactly these cards (from the enumeration)."""
    return {(c.kind, c.low, c.high, c.width) for c in h.lead_combos(mask) if c.mask == mask}


def state_with(
    hands: tuple[str, str],
    *,
    to_move: int = A,
    trick: tuple[tuple[int, str], ...] = (),
    haggis: str = "",
    captured: tuple[str, str] = ("", ""),
    bets: tuple[int | None, int | None] = (None, None),
    played: tuple[bool, bool] = (False, False),
    totals: tuple[int, int] = (0, 0),
    target: int = 250,
) -> State:
    """A hand-made mid-round state (round 0)."""
    base = GAME.new_match(1, {"target": target})
    plays = tuple((seat, combo(text)) for seat, text in trick)
    hand_masks = (cards(hands[0]), cards(hands[1]))
    return dataclasses.replace(
        base,
        hands=hand_masks,
        haggis=cards(haggis),
        to_move=to_move,
        leader=plays[0][0] if plays else to_move,
        trick=plays,
        captured=(h.cards_of(cards(captured[0])), h.cards_of(cards(captured[1]))),
        bets=bets,
        played=played,
        totals=totals,
        deal=(hand_masks[0], hand_masks[1], cards(haggis)),
    )


def legal_on(trick_text: str, play_text: str, extra: str = "") -> bool:
    """Is ``play_text`` legal for B following A's ``trick_text``?"""
    play = combo(play_text)
    hand = h.cards_of(play.mask | cards(extra) if extra else play.mask)
    state = state_with(
        ("2R", " ".join(h.card_text(c) for c in hand)),
        to_move=B,
        trick=((A, trick_text),),
        played=(True, False),
    )
    legal = GAME.is_legal(state, Action(play))
    assert legal == (Action(play) in GAME.legal_actions(state))
    return legal


def random_states(seed: int, count: int, target: int = 250) -> list[State]:
    rng = random.Random(seed)
    out: list[State] = []
    state = GAME.new_match(seed, {"target": target})
    while len(out) < count:
        if state.to_move is None:
            state = GAME.new_match(rng.getrandbits(32), {"target": target})
        out.append(state)
        state = GAME.apply(state, rng.choice(GAME.legal_actions(state)))
    return out


def load_bot(name: str) -> Callable[[Any], Any]:
    spec = importlib.util.spec_from_file_location(f"haggis_bot_{name}", BOTS / name / "bot.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    policy: Callable[[Any], Any] = module.choose
    return policy


# --- cards -----------------------------------------------------------------------------------


def test_deck_holds_36_points_and_deal_shapes() -> None:
    assert h.points_of(range(36)) + 2 * h.points_of(h.WILDS) == 36
    state = GAME.new_match(3)
    hand0, hand1, haggis = state.deal
    assert hand0.bit_count() == hand1.bit_count() == 17
    assert haggis.bit_count() == 8
    assert hand0 & h.WILD_MASK == hand1 & h.WILD_MASK == h.WILD_MASK
    assert (hand0 | hand1 | haggis) & h.NUMBER_MASK == h.NUMBER_MASK
    assert (hand0 & hand1 & h.NUMBER_MASK) == 0 and (hand0 | hand1) & haggis == 0
    record = GAME.deal_record(state)
    assert len(record["hands"][0]) == 17 and len(record["haggis"]) == 8
    json.dumps(record)


def test_first_round_seat_0_leads_and_must_play() -> None:
    state = GAME.new_match(9)
    assert GAME.to_move(state) == A
    assert all(a.combo is not None for a in GAME.legal_actions(state))
    assert not GAME.is_legal(state, h.PASS)


# --- classification (the rules' checks) -------------------------------------------------------


def test_set_with_wild_and_face_card_pairs_are_bombs() -> None:
    assert (h.SET, 5, 5, 3) in readings(cards("5R 5G J"))
    assert h.format_combo(combo("set 5: 5R 5G J=5")) == "set 5: 5R 5G J=5"
    assert readings(cards("J Q")) == {(h.BOMB, h.BOMB_JQ, h.BOMB_JQ, 2)}
    assert readings(cards("J Q K")) == {(h.BOMB, h.BOMB_JQK, h.BOMB_JQK, 3)}
    assert readings(cards("K")) == {(h.SET, 13, 13, 1)}


def test_single_king_beats_ten_and_jack() -> None:
    assert legal_on("set 10: 10R", "set K: K")
    assert legal_on("set J: J", "set K: K")
    assert not legal_on("set K: K", "set Q: Q")


def test_number_bombs() -> None:
    assert readings(cards("3R 5G 7B 9Y")) == {(h.BOMB, h.RAINBOW, h.RAINBOW, 4)}
    assert readings(cards("3R 5R 7R 9R")) == {(h.BOMB, h.SUITED, h.SUITED, 4)}
    assert readings(cards("3R 5G 7B J")) == set()
    assert readings(cards("3R 5R 7G 9G")) == set()
    with pytest.raises(InvalidActionError, match="without wild cards"):
        h.parse_action("bomb rainbow: 3R 5G 7B J")
    with pytest.raises(InvalidActionError):
        h.parse_action("bomb suited: 3R 5R 7G 9G")


def test_wild_cards_fill_runs_only_downwards() -> None:
    assert readings(cards("2B J K")) == {(h.RUN, 2, 4, 1), (h.SET, 2, 2, 3)}
    assert h.wild_readings(combo("run 2-4x1: 2B J=3 K=4")) == ((h.JACK, 3), (h.KING, 4))
    assert readings(cards("2G 5G K")) == set()
    assert (h.RUN, 2, 5, 1) in readings(cards("2G 5G J K"))
    assert h.parse_action("run 2-5x1: 2G 5G J=3 K=4").combo == Combo(
        h.RUN, 2, 5, 1, cards("2G 5G J K")
    )
    # a wild card at its own rank, and never above it
    assert (h.RUN, 9, 11, 1) in readings(cards("9R 10R J"))
    assert (h.RUN, 10, 11, 2) in readings(cards("10R 10G J Q"))
    assert readings(cards("10R J 9R")) == {(h.RUN, 9, 11, 1), (h.RUN, 8, 10, 1)}
    assert readings(cards("10R J K")) == {
        (h.RUN, 10, 12, 1),  # J as J, K as Q
        (h.RUN, 9, 11, 1),
        (h.RUN, 8, 10, 1),
        (h.SET, 10, 10, 3),
    }
    assert h.format_combo(combo("run 10-Qx1: 10R J K=Q")) == "run 10-Qx1: 10R J K=Q"
    # a J is never a K: no single J of rank 13, and the J cannot top a run at Q
    assert h.combo_error(Combo(h.SET, 13, 13, 1, cards("J"))) is not None
    with pytest.raises(InvalidActionError):
        h.parse_action("run 10-Qx1: 10R J=Q Q=J")  # wild readings out of order
    assert h.combo_error(Combo(h.RUN, 11, 13, 1, cards("J Q K"))) is not None  # no number card


def test_runs_of_pairs_need_the_same_suits() -> None:
    assert readings(cards("2R 2G 3R 3G")) == {(h.RUN, 2, 3, 2)}
    assert readings(cards("2R 2G 3R 3B")) == set()


def test_ambiguous_cards_name_their_reading() -> None:
    both = readings(cards("J Q 3R 3G"))
    assert (h.SET, 3, 3, 4) in both and (h.RUN, 3, 4, 2) in both
    assert (
        h.parse_action("set 3: 3R 3G J=3 Q=3").combo
        != h.parse_action("run 3-4x2: 3R 3G J=4 Q=4").combo
    )


@pytest.mark.integration
def test_enumeration_matches_brute_force_on_small_hands() -> None:
    rng = random.Random(5)
    shapes: list[tuple[int, int, int, int]] = [(h.SET, r, r, 0) for r in range(2, 14)]
    shapes += [(h.RUN, a, b, w) for a in range(2, 14) for b in range(a + 1, 14) for w in (1, 2, 3)]
    shapes += [(h.BOMB, lv, lv, 0) for lv in range(1, 7)]
    for _ in range(4):
        numbers = rng.sample(range(36), 5)
        hand = h.mask_of(numbers) | h.mask_of(rng.sample(h.WILDS, rng.randint(1, 3)))
        hand_cards = h.cards_of(hand)
        brute = set()
        for k in range(1, len(hand_cards) + 1):
            for sub in combinations(hand_cards, k):
                mask = h.mask_of(sub)
                for kind, low, high, w in shapes:
                    width = w or k
                    c = Combo(kind, low, high, width, mask)
                    if h.combo_error(c) is None:
                        brute.add(c)
        listed = h.lead_combos(hand)
        assert len(set(listed)) == len(listed)
        assert set(listed) == brute


# --- following -------------------------------------------------------------------------------


def test_following_rules_page_table() -> None:
    assert legal_on("set 10: 10R", "set J: J")
    assert not legal_on("set 10: 10R", "set 9: 9G")
    assert legal_on("run 8-10x1: 8G 9G 10G", "run 9-Jx1: 9R 10R J")
    assert legal_on("run 9-10x2: 9B 9Y 10B 10Y", "run 10-Jx2: 10R 10G J Q=J")
    assert not legal_on("run 4-6x1: 4R 5R 6R", "run 4-6x1: 4G 5G 6G")
    assert legal_on("run 4-6x1: 4R 5R 6R", "run 5-7x1: 5G 7G J=6")
    assert readings(cards("5G 6G 7R")) == set()
    assert legal_on("set 8: 8R 8G", "set 9: 9R J=9")
    assert legal_on("set 8: 8R 8G", "bomb JQ: J Q")
    assert not legal_on("set 8: 8R 8G", "set 10: 10R 10G 10B")
    assert not legal_on("set 8: 8R 8G", "set 9: 9R")


def test_only_higher_bombs_beat_a_bomb() -> None:
    on_jk = "bomb JK: J K"
    assert legal_on(on_jk, "bomb QK: Q K")
    assert legal_on(on_jk, "bomb suited: 3R 5R 7R 9R")
    assert not legal_on(on_jk, "bomb JQ: J Q")
    assert not legal_on(on_jk, "bomb rainbow: 3R 5G 7B 9Y")
    assert not legal_on(on_jk, "set 10: 10R")
    assert not legal_on(on_jk, "run 2-4x1: 2R 3R 4R")


def test_a_suited_bomb_cannot_follow_a_suited_bomb() -> None:
    """Regression: the enumeration offered the second suited bomb on the first (apply refused)."""
    on_suited = "bomb suited: 3G 5G 7G 9G"
    assert not legal_on(on_suited, "bomb suited: 3R 5R 7R 9R")
    top = GAME.parse_action(on_suited).combo
    hand = cards("3R 5R 7R 9R J Q K")
    assert h.follow_combos(hand, top) == ()


def test_runs_follow_same_width_and_length() -> None:
    assert legal_on("run 2-4x1: 2R 3R 4R", "run 3-5x1: 3G 4G 5G")
    assert not legal_on("run 2-4x1: 2R 3R 4R", "run 3-6x1: 3G 4G 5G 6G")
    assert not legal_on("run 2-3x2: 2R 2G 3R 3G", "run 5-7x1: 5G 6G 7G")
    assert not legal_on("set 5: 5R 5G 5B 5Y", "run 6-7x2: 6R 6G 7R 7G")


def test_follow_enumeration_agrees_with_is_legal() -> None:
    for state in random_states(21, 120):
        if not state.trick:
            continue
        seat = state.to_move
        assert seat is not None
        follows = set(h.follow_combos(state.hands[seat], state.trick[-1][1]))
        for c in h.lead_combos(state.hands[seat]):
            assert GAME.is_legal(state, Action(c)) == (c in follows)


# --- tricks, going out -----------------------------------------------------------------------


def test_bombed_trick_goes_to_the_opponent() -> None:
    state = state_with(("9R 2G 4G", "J Q 2B 4B"), to_move=A)
    for text in ("set 9: 9R", "bomb JQ: J Q", "pass"):
        state = GAME.apply(state, act(text))
    assert state.trick == () and state.to_move == B and state.leader == B
    assert state.captured[A] == h.cards_of(cards("9R J Q"))
    assert h.points_of(state.captured[A]) == 6 and state.captured[B] == ()


def test_one_pass_ends_a_trick_and_winner_leads() -> None:
    state = state_with(("5R 2G", "7R 2B"), to_move=A)
    state = GAME.apply(state, act("set 5: 5R"))
    state = GAME.apply(state, act("set 7: 7R"))
    state = GAME.apply(state, act("pass"))
    assert state.to_move == B and state.trick == ()
    assert state.captured[B] == h.cards_of(cards("5R 7R"))


def test_going_out_ends_the_round_at_once() -> None:
    state = state_with(
        ("10R 2G 3G", "K"),
        to_move=A,
        haggis="2B 2Y 4R 4G 4B 4Y 6R 6G",
        captured=("", ""),
    )
    state = GAME.apply(state, act("set 10: 10R"))
    state = GAME.apply(state, act("set K: K"))
    summary = state.summaries[-1]
    assert summary.out == B and state.round == 1
    # B took the trick (10R, K: 5 points), A's 2G 3G (1 point + 2 cards) and the Haggis.
    assert summary.leftover == h.cards_of(cards("2G 3G"))
    assert summary.scores == (0, 5 + 1 + 0 + 10)


def test_going_out_with_a_bomb_gives_the_trick_away() -> None:
    state = state_with(("10R 2G", "J Q"), to_move=A, haggis="3R")
    state = GAME.apply(state, act("set 10: 10R"))
    state = GAME.apply(state, act("bomb JQ: J Q"))
    summary = state.summaries[-1]
    assert summary.out == B
    assert summary.scores == (5, 5 * 1 + 0 + 1)


# --- bets ------------------------------------------------------------------------------------


def test_bets_only_before_the_first_card_play() -> None:
    state = state_with(("5R 6R 2G", "7R 8R 2B"), to_move=A)
    assert GAME.is_legal(state, act("set 5: 5R bet 15"))
    assert not GAME.is_legal(state, act("pass bet 15"))  # the leader cannot pass
    state = GAME.apply(state, act("set 5: 5R"))
    assert state.bets == (0, None)
    # B has not played: it may pass with a bet, or play with a bet
    assert GAME.is_legal(state, act("pass bet 30"))
    assert GAME.is_legal(state, act("set 7: 7R bet 15"))
    state = GAME.apply(state, act("pass bet 0"))  # B declares 0 while passing
    assert state.bets == (0, 0) and state.to_move == A
    state = GAME.apply(state, act("set 6: 6R"))
    assert not GAME.is_legal(state, act("set 7: 7R bet 15"))  # a 0 bet is final
    assert not GAME.is_legal(state, act("pass bet 15"))
    assert GAME.is_legal(state, act("set 7: 7R"))


def test_a_player_who_only_passed_can_still_bet() -> None:
    state = state_with(("5R 6R 2G", "7R 8R 2B"), to_move=A)
    state = GAME.apply(state, act("set 5: 5R"))
    state = GAME.apply(state, act("pass"))
    state = GAME.apply(state, act("set 6: 6R"))
    assert state.bets == (0, None)
    assert GAME.is_legal(state, act("set 7: 7R bet 30"))
    state = GAME.apply(state, act("set 7: 7R bet 30"))
    assert state.bets == (0, 30)
    with pytest.raises(IllegalActionError):
        GAME.apply(state, act("pass bet 15"))


def test_bet_grammar_is_strict() -> None:
    with pytest.raises(InvalidActionError, match="bet 0"):
        h.parse_action("set 5: 5R bet 0")
    with pytest.raises(InvalidActionError):
        h.parse_action("pass bet 20")
    assert not GAME.is_legal(state_with(("5R 2G", "2B")), Action(combo("set 5: 5R"), 0))


# --- scoring ---------------------------------------------------------------------------------


_ZERO = "2R 2G 2B 2Y 4R 4G 4B 4Y 6R 6G 6B 6Y 8R 8G 8B 8Y 10R 10G 10B 10Y"


def _rest(*used: str) -> str:
    """All 36 number cards and both players' face cards, minus ``used`` (one J/Q/K set)."""
    taken = set()
    for text in used:
        taken |= set(text.split())
    numbers = [h.card_text(c) for c in range(36) if h.card_text(c) not in taken]
    return " ".join(numbers)


def test_scoring_example_no_bets() -> None:
    # No bets; A goes out; B holds K, 8R, 3G; A captured 10 points; the Haggis holds 3 points.
    haggis = "3R 5R 7R 2G 2B 2Y 4R 4G"
    pile_a_numbers = "6R 6G 6B"  # 0 points; plus A's J Q K below = 10 points
    pile_b = _rest("2R", "8R 3G", haggis, pile_a_numbers)
    state = state_with(
        ("2R", "K 8R 3G"),
        to_move=A,
        haggis=haggis,
        captured=(pile_a_numbers, pile_b),
    )
    # A's own J, Q, K lie in A's pile, B's J and Q in B's pile (face cards are shared ids).
    state = dataclasses.replace(
        state,
        captured=(
            tuple(sorted(state.captured[A] + h.WILDS)),
            tuple(sorted(state.captured[B] + (h.JACK, h.QUEEN))),
        ),
    )
    assert h.points_of(state.captured[A]) == 10
    assert h.points_of(h.cards_of(state.haggis)) == 3
    assert h.points_of(state.captured[B]) == 17
    end = GAME.apply(state, act("set 2: 2R"))
    assert end.summaries[-1].scores == (34, 17)
    assert sum(end.summaries[-1].scores) - 5 * 3 == 36


def test_seed_example_bet_30_and_out() -> None:
    # B bet 30 and went out, A holds 1 card, B captured 5 points: B = 30 + 5 + 5 = 40.
    haggis = "2R 2G 2B 2Y 4R 4G 4B 4Y"
    state = state_with(
        ("6R", "8R"),
        to_move=B,
        haggis=haggis,
        captured=("", "3R 5R 7R 9R 3G"),
        bets=(0, 30),
        played=(True, True),
    )
    end = GAME.apply(state, act("set 8: 8R"))
    assert end.summaries[-1].scores[B] == 40
    assert end.summaries[-1].bets == (0, 30)


def test_seed_example_both_bet_30() -> None:
    # Both bet 30, A went out, B holds 2 cards, A captured 23 points: A = 30 + 30 + 23 + 10 = 93.
    pile_a = "3R 3G 3B 3Y 5R 5G 5B 5Y 7R 7G 7B 7Y 9R 9G 9B 9Y J Q"  # 16 + 2 + 3 = 21
    pile_a = pile_a + " 6R"
    state = state_with(
        ("2R", "4R 4G"),
        to_move=A,
        captured=(pile_a, ""),
        bets=(30, 30),
        played=(True, True),
        haggis="2G 2B",
    )
    state = dataclasses.replace(state, captured=(tuple(sorted(state.captured[A] + (h.JACK,))), ()))
    assert h.points_of(state.captured[A]) == 23
    end = GAME.apply(state, act("set 2: 2R"))
    assert end.summaries[-1].scores[A] == 93


@pytest.mark.integration
def test_36_points_every_round() -> None:
    rng = random.Random(77)
    checked = 0
    for match in range(25):
        state = GAME.new_match(1000 + match, {"target": 120})
        while state.to_move is not None:
            state = GAME.apply(state, rng.choice(GAME.legal_actions(state)))
        for s in state.summaries:
            card_points = sum(s.scores) - 5 * len(s.leftover) - sum(s.bets)
            assert card_points == 36
            assert s.scores[1 - s.out] <= 36
            checked += 1
        assert state.totals == tuple(sum(s.scores[i] for s in state.summaries) for i in (0, 1))
    assert checked >= 50


# --- game end, leaders, options --------------------------------------------------------------


def test_next_round_leader() -> None:
    assert h.next_leader((120, 95), out=A) == B
    assert h.next_leader((120, 95), out=B) == B
    assert h.next_leader((80, 80), out=A) == B
    assert h.next_leader((80, 80), out=B) == A


def test_game_end_rule() -> None:
    assert h.game_over((262, 240), 250, 5)
    assert not h.game_over((255, 255), 250, 5)
    assert not h.game_over((249, 100), 250, 5)
    assert h.game_over((100, 100), 250, h.MAX_ROUNDS)


def test_round_end_deals_next_round_with_lower_total_leading() -> None:
    state = state_with(("5R", "K 2B"), to_move=A, totals=(0, 200), haggis="")
    state = GAME.apply(state, act("set 5: 5R"))
    assert state.round == 1 and state.to_move is not None
    assert state.to_move == (0 if state.totals[0] < state.totals[1] else 1)
    assert state.hands[0].bit_count() == 17 and state.trick == () and state.bets == (None, None)
    assert state.history[-1] == (0, A, act("set 5: 5R"))


def test_match_ends_at_target_and_plays_on_when_tied() -> None:
    # A goes out with 5R and scores 16 (5R 1, B's K 5, two cards left 10).
    end = GAME.apply(
        state_with(("5R", "K 2B"), to_move=A, totals=(240, 100), target=250), act("set 5: 5R")
    )
    assert end.result is not None and end.result.winner == A and GAME.to_move(end) is None
    assert end.result.totals[A] >= 250
    score_a = 1 + 5 + 10  # 5R, B's K, two cards left
    tie = state_with(("5R", "K 2B"), to_move=A, totals=(256 - score_a, 256), target=250)
    after = GAME.apply(tie, act("set 5: 5R"))
    assert after.totals == (256, 256) and after.result is None and after.round == 1
    assert after.to_move == B  # tied totals: the player who did not go out leads


def test_hard_cap_of_40_rounds() -> None:
    rng = random.Random(4)
    state = GAME.new_match(4, {"target": 10_000})
    while state.to_move is not None:
        state = GAME.apply(state, rng.choice(GAME.legal_actions(state)))
    assert state.result is not None and len(state.result.rounds) == h.MAX_ROUNDS


def test_options() -> None:
    assert GAME.options_of(GAME.new_match(1)) == {"target": 250}
    assert GAME.options_of(GAME.new_match(1, {"target": 350})) == {"target": 350}
    with pytest.raises(OptionsError):
        GAME.new_match(1, {"rounds": 3})
    with pytest.raises(OptionsError):
        GAME.new_match(1, {"target": "many"})
    with pytest.raises(OptionsError):
        GAME.new_match(1, {"target": 0})


# --- grammar ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "set 5: 5G 5R",  # card order
        "set 5: 5R 5G J",  # the wild must say what it stands for
        "set 5:5R",
        "run 2-4: 2B J=3 K=4",  # width missing
        "run 2-5x1: 2G 5G K=3 J=4",  # non-canonical wild assignment
        "bomb jq: J Q",
        "set 5: 5R 5R",
        "set 11: J",
        "set 5: 5X",
        "pass bet 5",
        "PASS",
    ],
)
def test_parse_rejects_non_canonical_text(text: str) -> None:
    with pytest.raises(InvalidActionError):
        h.parse_action(text)


@pytest.mark.integration
def test_grammar_round_trips_over_legal_actions() -> None:
    for state in random_states(3, 150):
        for action in GAME.legal_actions(state):
            text = h.format_action(action)
            assert h.parse_action(text) == action
            assert CODEC.action_from_proto(CODEC.action_to_proto(action)) == action


def test_legal_actions_are_sorted_distinct_and_is_legal_agrees() -> None:
    for state in random_states(8, 80):
        legal = GAME.legal_actions(state)
        assert len(set(legal)) == len(legal)
        assert all(GAME.is_legal(state, a) for a in legal)
        seat = state.to_move
        assert seat is not None
        other = h.lead_combos(state.hands[1 - seat] & h.NUMBER_MASK)[:20]
        for c in other:  # the opponent's cards are never playable
            assert not GAME.is_legal(state, Action(c))


def test_worst_case_lead_is_enumerable() -> None:
    # a 17-card hand with three wild cards built for many runs of pairs (local-search worst case)
    hand = cards("4G 4B 5G 5B 6G 6B 7G 7B 8G 8B 9G 9B 10G 10B J Q K")
    combos = h.lead_combos(hand)
    assert len(combos) == 6342
    assert len(set(combos)) == len(combos)


# --- observation, leaks, determinize ---------------------------------------------------------


def test_leak_opponent_cards_and_haggis_are_invisible() -> None:
    from arena.wire import observation_bytes

    for state in random_states(12, 40):
        opp_numbers = h.cards_of(state.hands[B] & h.NUMBER_MASK)
        haggis = h.cards_of(state.haggis)
        if not opp_numbers:
            continue
        x, y = opp_numbers[0], haggis[0]
        hands = (state.hands[A], state.hands[B] & ~(1 << x) | 1 << y)
        other = dataclasses.replace(
            state, hands=hands, haggis=state.haggis & ~(1 << y) | 1 << x, seed=state.seed + 1
        )
        same_a = observation_bytes("haggis", GAME.observation(state, A))
        assert same_a == observation_bytes("haggis", GAME.observation(other, A))
        assert observation_bytes("haggis", GAME.observation(state, B)) != observation_bytes(
            "haggis", GAME.observation(other, B)
        )


def test_view_contents() -> None:
    state = random_states(2, 30)[-1]
    seat = state.to_move
    assert seat is not None
    view = GAME.observation(state, seat)
    assert h.mask_of(view.hand) == state.hands[seat]
    assert view.hand_sizes == (state.hands[0].bit_count(), state.hands[1].bit_count())
    assert view.face_cards[1 - seat] == h.cards_of(state.hands[1 - seat] & h.WILD_MASK)
    assert view.history == state.history and view.trick == state.trick
    assert not any(isinstance(v, int) and v == state.seed for v in dataclasses.astuple(view))


def test_determinize_is_consistent_with_the_view() -> None:
    rng = random.Random(1)
    for state in random_states(31, 60)[::3]:
        for seat in (A, B):
            view = GAME.observation(state, seat)
            guess = h.determinize(view, rng)
            assert GAME.observation(guess, seat) == view
            assert guess.haggis.bit_count() == 8
            if guess.to_move is not None:
                GAME.apply(guess, rng.choice(GAME.legal_actions(guess)))


# --- determinism ---------------------------------------------------------------------


def _deal_lines(state: State) -> list[str]:
    record = GAME.deal_record(state)
    return [" ".join(record["hands"][0]), " ".join(record["hands"][1]), " ".join(record["haggis"])]


def _random_match(seed: int, policy_seed: int) -> dict[str, Any]:
    rng = random.Random(policy_seed)
    state = GAME.new_match(seed)
    deals = [_deal_lines(state)]
    actions = []
    while state.to_move is not None:
        action = rng.choice(GAME.legal_actions(state))
        actions.append(f"{state.round} {state.to_move} {h.format_action(action)}")
        before = state.round
        state = GAME.apply(state, action)
        if state.to_move is not None and state.round != before:
            deals.append(_deal_lines(state))
    assert state.result is not None
    return {
        "seed": seed,
        "policy_seed": policy_seed,
        "deals": deals,
        "actions": actions,
        "rounds": [list(r) for r in state.result.rounds],
        "totals": list(state.result.totals),
        "winner": state.result.winner,
    }


def test_same_seed_same_match() -> None:
    assert _random_match(5, 6) == _random_match(5, 6)
    assert GAME.deal_record(GAME.new_match(5)) != GAME.deal_record(GAME.new_match(6))


# --- sample bots -----------------------------------------------------------------------------


@pytest.mark.integration
def test_sample_bots_play_legal_matches_and_greedy_wins() -> None:
    from arena.referee.local import play_local

    greedy, rand = load_bot("greedy"), load_bot("random")
    wins = 0
    for seed in range(6):
        pair = (greedy, rand) if seed % 2 == 0 else (rand, greedy)
        result = play_local("haggis", pair, seed)
        wins += result.winner == seed % 2
    assert wins >= 5
    result = play_local("haggis", (rand, rand), 99, {"target": 100})
    assert result.totals[0] >= 100 or result.totals[1] >= 100


# --- issue 25: why an action is illegal, each seat's last decision ----------------------------


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("pass", "the leader must play a combination"),
        ("set 9: 9R", "you do not hold those cards"),
        ("set 5: 5R bet 15", ""),
    ],
)
def test_explain_illegal_when_leading(text: str, reason: str) -> None:
    state = state_with(("5R 6R 2G", "7R 8R 2B"), to_move=A)
    assert GAME.explain_illegal(state, act(text)) == reason
    assert GAME.is_legal(state, act(text)) == (reason == "")


@pytest.mark.parametrize(
    ("played", "text", "reason"),
    [
        ("set 5: 5R", "set 2: 2B",
         "does not beat the current combination (same kind and shape, higher; or a bomb)"),
        ("set 5: 5R|set 7: 7R", "pass bet 15",
         "you can bet only once, before your first card play"),
    ],
)
def test_explain_illegal_when_following(played: str, text: str, reason: str) -> None:
    state = state_with(("5R 6R 2G", "7R 8R 2B"), to_move=A)
    for move in played.split("|"):
        state = GAME.apply(state, act(move))
    assert GAME.explain_illegal(state, act(text)) == reason
    with pytest.raises(IllegalActionError, match=f"^illegal action '{text}': "):
        GAME.apply(state, act(text))


def test_last_actions_are_each_seats_latest_decision_of_the_round() -> None:
    state = state_with(("5R 6R 2G", "7R 8R 2B"), to_move=A)
    assert GAME.observation(state, B).last_actions == (None, None)
    state = GAME.apply(state, act("set 5: 5R bet 15"))
    assert GAME.observation(state, B).last_actions == (act("set 5: 5R bet 15"), None)
    state = GAME.apply(state, act("pass bet 30"))
    lasts = GAME.observation(state, A).last_actions
    assert lasts == (act("set 5: 5R bet 15"), act("pass bet 30"))
    assert GAME.observation(state, B).last_actions == lasts
    state = GAME.apply(state, act("set 6: 6R"))
    assert GAME.observation(state, B).last_actions == (act("set 6: 6R"), act("pass bet 30"))


def test_last_actions_start_empty_every_round_and_survive_the_codec() -> None:
    rng = random.Random(4)
    state = GAME.new_match(4, {"target": 150})
    rounds = 0
    while state.to_move is not None:
        seat, before = state.to_move, state.round
        action = rng.choice(GAME.legal_actions(state))
        state = GAME.apply(state, action)
        if state.to_move is not None and state.round != before:
            assert state.last_actions == (None, None)
            rounds += 1
        else:
            assert state.last_actions[seat] == action
        for viewer in (A, B):
            view = GAME.observation(state, viewer)
            assert CODEC.observation_from_proto(CODEC.observation_to_proto(view)) == view
    assert rounds >= 1


def test_leak_last_actions_hold_nothing_of_the_opponents_hidden_cards() -> None:
    """The opponent's unplayed number cards and the Haggis are hidden: swapped before the
    opponent's decision, the seat's observation bytes after it do not move."""
    from arena.wire import observation_bytes

    checked = 0
    for state in random_states(14, 80):
        mover = state.to_move
        if mover is None:
            continue
        action = GAME.legal_actions(state)[-1]
        used = 0 if action.combo is None else action.combo.mask
        spare = [x for x in h.cards_of(state.hands[mover] & h.NUMBER_MASK & ~used)]
        haggis = h.cards_of(state.haggis)
        if not spare:
            continue
        x, y = spare[0], haggis[0]
        hands = _swap(state.hands, mover, state.hands[mover] & ~(1 << x) | 1 << y)
        twin = dataclasses.replace(state, hands=hands, haggis=state.haggis & ~(1 << y) | 1 << x)
        after, twin_after = GAME.apply(state, action), GAME.apply(twin, action)
        if after.round != state.round:
            continue
        watcher = 1 - mover
        assert GAME.observation(after, watcher).last_actions[mover] == action
        assert observation_bytes("haggis", GAME.observation(after, watcher)) == (
            observation_bytes("haggis", GAME.observation(twin_after, watcher)))
        checked += 1
    assert checked >= 20


def _swap(pair: tuple[int, int], seat: int, value: int) -> tuple[int, int]:
    return (value, pair[1]) if seat == 0 else (pair[0], value)


# --- the caches behind the speed (issue 25) ---------------------------------------------------


def fresh_legal(state: State) -> tuple[Action, ...]:
    """The legal list enumerated from scratch (every cache emptied first, then put back as it
    was, so that the playout's own caches keep deriving)."""
    from arena.games.haggis import combos as haggis_combos

    caches = (haggis_combos._HANDS, haggis_combos._FOLLOWS, h._LEGAL)
    saved = [dict(cache) for cache in caches]
    h.clear_caches()
    try:
        return GAME.legal_actions(state)
    finally:
        for cache, entries in zip(caches, saved, strict=True):
            cache.clear()
            cache.update(entries)


@pytest.mark.integration
def test_cached_legal_lists_are_fresh_enumerations() -> None:
    """A hand's list derived from a larger hand's, a follower's filtered from its cached list,
    a list asked again: each is exactly the list enumerated from scratch, in order, in every
    position of interleaved matches (caches shared between them) and of hand-edited states."""
    rng = random.Random(21)
    states = [GAME.new_match(seed, {"target": 150}) for seed in range(3)]
    seen = 0
    while any(GAME.to_move(s) is not None for s in states):
        for index, state in enumerate(states):
            if GAME.to_move(state) is None:
                continue
            cached = GAME.legal_actions(state)
            edits = [  # another seat's hand, the bets open or closed: no stale list
                dataclasses.replace(state, hands=(state.hands[1], state.hands[0])),
                dataclasses.replace(state, bets=(None, None), played=(False, False)),
                dataclasses.replace(state, bets=(0, 0), played=(True, True)),
            ]
            cached_edits = [GAME.legal_actions(edit) for edit in edits]
            assert cached == fresh_legal(state)
            for edit, cached_edit in zip(edits, cached_edits, strict=True):
                assert cached_edit == fresh_legal(edit)
            for follow in (GAME.legal_actions(state), fresh_legal(state)):
                assert follow == cached
            states[index] = GAME.apply(state, rng.choice(cached))
            seen += 1
    assert seen > 200


def test_caches_stay_bounded_and_threads_share_them() -> None:
    """Playouts in four threads at once (a bot searching in threads) get the lists a single
    thread enumerates from scratch, nothing raises, and no cache grows past its bound."""
    import threading

    from arena.games.haggis import combos as haggis_combos

    found: list[tuple[State, tuple[Action, ...]]] = []
    errors: list[BaseException] = []

    def playouts(seed: int) -> None:
        rng = random.Random(seed)
        try:
            for match in range(2):
                state = GAME.new_match(seed * 10 + match, {"target": 60})
                while GAME.to_move(state) is not None:
                    legal = GAME.legal_actions(state)
                    if rng.random() < 0.1:
                        found.append((state, legal))
                    state = GAME.apply(state, rng.choice(legal))
        except BaseException as exc:  # noqa: BLE001 — reported below
            errors.append(exc)

    threads = [threading.Thread(target=playouts, args=(seed,)) for seed in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert len(found) > 20
    assert len(haggis_combos._HANDS) <= haggis_combos._CACHE_SIZE
    assert len(haggis_combos._FOLLOWS) <= haggis_combos._CACHE_SIZE
    assert len(h._LEGAL) <= h._LEGAL_CACHE_SIZE
    for state, legal in found:
        assert legal == fresh_legal(state)
