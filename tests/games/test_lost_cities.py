"""Lost Cities engine: the checks and worked examples of docs/games/lost-cities.md, legality,
rounds, options, determinism, the leak test and grammar round-trips (the golden playthrough:
test_playthrough.py)."""

from __future__ import annotations

import dataclasses
import json
import random

import pytest

from arena.errors import IllegalActionError, InvalidActionError, OptionsError
from arena.games.lost_cities import (
    FULL_DECK,
    GAME,
    Action,
    Card,
    LastAction,
    State,
    card_of,
    determinize,
    expedition_score,
    known_opponent_cards,
    parse_action,
    parse_card,
    round_score,
    unseen_cards,
)

pytestmark = pytest.mark.unit


def c(text: str) -> Card:
    return parse_card(text)


def cards(texts: str) -> tuple[Card, ...]:
    return tuple(c(t) for t in texts.split())


def a(text: str) -> Action:
    return parse_action(text)


def custom(
    hand0: str,
    hand1: str = "Y2 Y3 Y4 Y5 Y6 Y7 Y8 Y9",
    *,
    mine: dict[int, str] | None = None,
    piles: dict[int, str] | None = None,
    deck: str = "B2 B3 B4",
    turn: int = 0,
    seed: int = 1,
) -> State:
    """A state with seat 0 to move, built from card texts (colour index -> cards)."""
    base = GAME.new_match(seed)
    exps = tuple(cards(mine.get(k, "")) if mine else () for k in range(5))
    pile_t = tuple(cards(piles.get(k, "")) if piles else () for k in range(5))
    return dataclasses.replace(
        base,
        hands=(tuple(sorted(cards(hand0))), tuple(sorted(cards(hand1)))),
        expeditions=(exps, ((), (), (), (), ())),
        piles=pile_t,
        deck=cards(deck),
        deck_pos=0,
        turn=turn,
    )


def random_match(seed: int, options: dict[str, object] | None = None) -> State:
    state = GAME.new_match(seed, options)
    rng = random.Random(seed)
    while GAME.to_move(state) is not None:
        state = GAME.apply(state, rng.choice(GAME.legal_actions(state)))
    return state


# --- cards and scoring ---------------------------------------------------------------------------


def test_sixty_cards_twelve_per_colour() -> None:
    assert len(FULL_DECK) == 60
    for colour in range(5):
        same = [x for x in FULL_DECK if x.colour == colour]
        assert len(same) == 12
        assert sum(1 for x in same if x.is_wager) == 3
        assert sorted(x.value for x in same if not x.is_wager) == list(range(2, 11))


@pytest.mark.parametrize(
    ("wagers", "numbers", "score"),
    [
        (1, [3, 7, 10], 0),
        (1, [3, 7], -20),
        (2, [2, 3, 5, 7, 8, 10], 65),
        (1, [], -40),
        (1, [2, 3, 4, 5, 6, 7, 8], 50),
        (0, [], 0),
        (0, [2], -18),
        (3, [], -80),
        (3, [2, 3, 4, 5, 6, 7, 8, 9, 10], 156),
        (0, [2, 3, 4, 5, 6, 7, 8, 9], 44),
        (0, [2, 3, 4, 5, 6, 7, 8], 15),
        (3, [2, 3, 4, 5, 6], 20),
    ],
)
def test_worked_scoring_examples(wagers: int, numbers: list[int], score: int) -> None:
    expedition = [card_of(4, 0)] * wagers + [card_of(4, n) for n in numbers]
    assert expedition_score(expedition) == score


def test_round_score_sums_colours() -> None:
    exps = (cards("YX Y3 Y7"), (), cards("W2"), (), cards("RX RX RX"))
    assert round_score(exps) == -20 - 18 - 80


# --- grammar -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "card", "discard", "draw"),
    [
        ("play R5 deck", "R5", False, None),
        ("discard Y10 draw B", "Y10", True, 1),
        ("play GX draw R", "GX", False, 4),
        ("discard WX deck", "WX", True, None),
    ],
)
def test_grammar_examples(text: str, card: str, discard: bool, draw: int | None) -> None:
    action = parse_action(text)
    assert action == Action(c(card), discard, draw)
    assert GAME.format_action(action) == text


@pytest.mark.parametrize(
    "text",
    [
        "",
        "play R5",
        "play r5 deck",
        "play R1 deck",
        "play R11 deck",
        "play RW deck",
        "place R5 deck",
        "play R5 draw",
        "play R5 draw X",
        "play R5  deck",
        " play R5 deck",
        "PLAY R5 deck",
        "play R5 deck extra",
        "discard Y10 draw b",
    ],
)
def test_parse_is_strict(text: str) -> None:
    with pytest.raises(InvalidActionError):
        parse_action(text)


def test_wager_notation_does_not_clash_with_white() -> None:
    assert c("WX").colour == 2 and c("WX").is_wager
    with pytest.raises(InvalidActionError):
        parse_card("RW")


def test_round_trip_over_all_legal_actions_in_random_states() -> None:
    rng = random.Random(3)
    for seed in range(6):
        state = GAME.new_match(seed)
        for _ in range(120):
            if GAME.to_move(state) is None:
                break
            legal = GAME.legal_actions(state)
            for action in legal:
                assert GAME.parse_action(GAME.format_action(action)) == action
            state = GAME.apply(state, rng.choice(legal))


# --- legality ------------------------------------------------------------------------------------


def test_wager_legal_only_before_numbers() -> None:
    state = custom("RX R3 R6 R10 B2 B3 B4 B5", mine={4: "RX"})
    assert GAME.is_legal(state, a("play RX deck"))
    state = custom("RX R3 R6 R10 B2 B3 B4 B5", mine={4: "RX R4"})
    assert not GAME.is_legal(state, a("play RX deck"))
    with pytest.raises(IllegalActionError):
        GAME.apply(state, a("play RX deck"))


def test_number_must_exceed_top() -> None:
    state = custom("RX R3 R6 R10 B2 B3 B4 B5", mine={4: "R5"})
    assert not GAME.is_legal(state, a("play R3 deck"))
    assert GAME.is_legal(state, a("play R6 deck"))
    assert GAME.is_legal(state, a("play R10 deck"))
    assert GAME.is_legal(state, a("discard R3 deck"))


def test_redraw_ban_and_drawing_under_a_play() -> None:
    state = custom("R5 B2 B3 B4 B5 B6 B7 B8", piles={4: "R9"})
    assert not GAME.is_legal(state, a("discard R5 draw R"))
    assert GAME.is_legal(state, a("play R5 draw R"))
    after = GAME.apply(state, a("play R5 draw R"))
    assert c("R9") in after.hands[0] and after.piles[4] == ()
    assert after.expeditions[0][4] == cards("R5")
    assert after.deck_count == state.deck_count


def test_empty_pile_and_card_not_in_hand() -> None:
    state = custom("R5 B2 B3 B4 B5 B6 B7 B8")
    assert not GAME.is_legal(state, a("play R5 draw G"))
    assert not GAME.is_legal(state, a("play R6 deck"))
    with pytest.raises(IllegalActionError, match="not in your hand"):
        GAME.apply(state, a("play R6 deck"))


def test_legal_table_of_a_small_position() -> None:
    state = custom("RX RX R3 R5 B2", mine={4: "R4"}, piles={0: "Y9", 4: "R2"})
    texts = [GAME.format_action(x) for x in GAME.legal_actions(state)]
    assert texts == [
        "play B2 deck",
        "play B2 draw Y",
        "play B2 draw R",
        "discard B2 deck",
        "discard B2 draw Y",
        "discard B2 draw R",
        "discard RX deck",
        "discard RX draw Y",
        "discard R3 deck",
        "discard R3 draw Y",
        "play R5 deck",
        "play R5 draw Y",
        "play R5 draw R",
        "discard R5 deck",
        "discard R5 draw Y",
    ]


def test_legal_actions_agree_with_is_legal() -> None:
    rng = random.Random(11)
    every = [
        Action(card, d, s)
        for card in set(FULL_DECK)
        for d in (False, True)
        for s in (None, 0, 1, 2, 3, 4)
    ]
    state = GAME.new_match(4)
    for _ in range(150):
        legal = GAME.legal_actions(state)
        assert len(set(legal)) == len(legal)
        assert set(legal) == {x for x in every if GAME.is_legal(state, x)}
        state = GAME.apply(state, rng.choice(legal))


# --- rounds, matches, options --------------------------------------------------------------------


def test_44_turns_without_pile_draws() -> None:
    state = GAME.new_match(9)
    turns = 0
    while state.round_index == 0:
        seat = GAME.to_move(state)
        deck_only = [x for x in GAME.legal_actions(state) if x.draw is None]
        state = GAME.apply(state, deck_only[0])
        turns += 1
        assert seat is not None
    assert turns == 44
    assert len(GAME.finished_rounds(state)) == 1


def test_round_ends_on_last_deck_draw_and_scores() -> None:
    state = custom("R5 R6 B2 B3 B4 B5 B6 B7", mine={4: "RX R4"}, deck="G2", seed=3)
    after = GAME.apply(state, a("play R5 deck"))
    assert after.finished == ((-22, 0),)
    assert after.round_index == 1 and after.turn == 0 and after.deck_count == 44
    assert GAME.to_move(after) == 1  # seat 1 scored more in round 1


def test_drawing_from_a_pile_delays_the_end() -> None:
    state = custom("R5 B2 B3 B4 B5 B6 B7 B8", piles={1: "B9"}, deck="G2")
    after = GAME.apply(state, a("discard R5 draw B"))
    assert after.round_index == 0 and after.deck_count == 1 and GAME.to_move(after) == 1


def test_match_is_three_rounds_decided_by_total() -> None:
    state = random_match(5)
    result = GAME.outcome(state)
    assert result is not None and len(result.rounds) == 3
    totals = (sum(r[0] for r in result.rounds), sum(r[1] for r in result.rounds))
    assert result.totals == totals
    expected = None if totals[0] == totals[1] else (0 if totals[0] > totals[1] else 1)
    assert result.winner == expected
    assert GAME.legal_actions(state) == ()


def test_total_not_rounds_won_decides() -> None:
    state = dataclasses.replace(
        GAME.new_match(1), finished=((10, 5), (10, 5), (0, 60)), player=None
    )
    result = GAME.outcome(state)
    assert result is not None and result.winner == 1 and result.totals == (20, 70)


def test_equal_totals_is_a_draw() -> None:
    state = dataclasses.replace(GAME.new_match(1), finished=((10, 5), (0, 5)), player=None)
    result = GAME.outcome(state)
    assert result is not None and result.winner is None


def test_one_round_option() -> None:
    state = random_match(2, {"rounds": 1})
    result = GAME.outcome(state)
    assert result is not None and len(result.rounds) == 1


def _finish_round_with(state: State, scores: tuple[int, int]) -> State:
    """End the current round with the given scores: a crafted last turn on the last deck card."""
    exps0 = _expedition_scoring(scores[0])
    exps1 = _expedition_scoring(scores[1])
    last = dataclasses.replace(
        state,
        expeditions=(exps0, exps1),
        hands=(tuple(sorted(cards("Y2 Y3 Y4 Y5 Y6 Y7 Y8 Y9"))), state.hands[1]),
        deck=cards("B2"),
        deck_pos=0,
        player=0,
    )
    return GAME.apply(last, a("discard Y2 deck"))


def _expedition_scoring(score: int) -> tuple[tuple[Card, ...], ...]:
    """Expeditions worth exactly ``score`` (one of the few scores the starter tests use)."""
    table = {
        50: (cards("RX R2 R3 R4 R5 R6 R7 R8"),),
        10: (cards("R2 R3 R4 R5 R6 R10"),),
        0: (),
        30: (cards("R2 R3 R4 R5 R6 R10"), cards("B6 B7 B8 B9 B10")),
    }
    chosen = table[score]
    exps: list[tuple[Card, ...]] = [(), (), (), (), ()]
    for exp in chosen:
        exps[exp[0].colour] = exp
    assert round_score(tuple(exps)) == score
    return tuple(exps)


@pytest.mark.parametrize(("rule", "starter"), [("previous_round", 1), ("cumulative", 0)])
def test_starter_rule_example(rule: str, starter: int) -> None:
    # Rules page: round 1 A 50 / B 10, round 2 A 0 / B 30 -> round 3 starter B or A.
    state = GAME.new_match(8, {"starter_rule": rule})
    state = _finish_round_with(state, (50, 10))
    assert state.finished == ((50, 10),) and GAME.to_move(state) == 0
    state = _finish_round_with(state, (0, 30))
    assert state.finished == ((50, 10), (0, 30))
    assert GAME.to_move(state) == starter and state.starter == starter


def test_tied_round_restarts_with_round_one_starter() -> None:
    state = GAME.new_match(8)
    state = _finish_round_with(state, (10, 50))
    assert GAME.to_move(state) == 1
    state = _finish_round_with(state, (0, 0))
    assert GAME.to_move(state) == 0


def test_stall_guard_forbids_pile_draws() -> None:
    state = custom("R5 B2 B3 B4 B5 B6 B7 B8", piles={1: "B9"}, turn=149)
    assert GAME.is_legal(state, a("play R5 draw B"))
    state = dataclasses.replace(state, turn=150)
    assert not GAME.is_legal(state, a("play R5 draw B"))
    assert all(x.draw is None for x in GAME.legal_actions(state))
    small = GAME.new_match(1, {"stall_guard_turns": 10})
    assert GAME.options_of(small)["stall_guard_turns"] == 10


def test_stall_guard_bounds_random_rounds() -> None:
    for seed in range(3):
        state = GAME.new_match(seed, {"rounds": 1, "stall_guard_turns": 20})
        rng = random.Random(seed)
        while GAME.to_move(state) is not None:
            state = GAME.apply(state, rng.choice(GAME.legal_actions(state)))
        assert state.turn <= 20 + 44


@pytest.mark.parametrize(
    "options",
    [{"rounds": 2}, {"starter_rule": "loser"}, {"stall_guard_turns": -1}, {"colour": 6}],
)
def test_bad_options(options: dict[str, object]) -> None:
    with pytest.raises(OptionsError):
        GAME.new_match(1, options)


def test_options_defaults() -> None:
    assert GAME.options_of(GAME.new_match(1)) == {
        "rounds": 3,
        "starter_rule": "previous_round",
        "stall_guard_turns": 150,
    }


# --- determinism, deal record ---------------------------------------------


def test_same_seed_same_deals_and_playthrough() -> None:
    assert GAME.new_match(42) == GAME.new_match(42)
    assert GAME.new_match(42).deal != GAME.new_match(43).deal
    assert random_match(6).history == random_match(6).history


def test_deal_record_is_the_full_deal() -> None:
    state = GAME.new_match(12)
    record = GAME.deal_record(state)
    json.dumps(record)
    everything = record["hands"][0] + record["hands"][1] + record["deck"]
    assert sorted(everything) == sorted(str(x) for x in FULL_DECK)
    assert len(record["hands"][0]) == 8 and len(record["deck"]) == 44
    assert record["hands"][0] == [str(x) for x in state.hands[0]]
    rounds = {GAME.deal_record(GAME.new_match(12))["round"]}
    assert rounds == {0}


# --- information --------------------------------------------------------------------------------


def _hidden_swap(state: State, seat: int) -> State:
    """The same state with the opponent's hand card and a deck card swapped (hidden from seat)."""
    other = 1 - seat
    hand = list(state.hands[other])
    deck = list(state.deck)
    pos = state.deck_pos + 3
    for i, card in enumerate(hand):
        if card != deck[pos]:
            hand[i], deck[pos] = deck[pos], card
            break
    hands = list(state.hands)
    hands[other] = tuple(sorted(hand))
    deck[state.deck_pos], deck[-1] = deck[-1], deck[state.deck_pos]
    return dataclasses.replace(state, hands=(hands[0], hands[1]), deck=tuple(deck))


def test_leak_hidden_cards_do_not_change_the_observation() -> None:
    from arena.wire import observation_bytes

    def obs_bytes(state: State, seat: int) -> bytes:
        return observation_bytes("lost-cities", GAME.observation(state, seat))

    rng = random.Random(5)
    state = GAME.new_match(5)
    for _ in range(37):
        state = GAME.apply(state, rng.choice(GAME.legal_actions(state)))
    for seat in (0, 1):
        varied = _hidden_swap(state, seat)
        assert varied != state
        assert obs_bytes(varied, seat) == obs_bytes(state, seat)
        assert obs_bytes(varied, 1 - seat) != obs_bytes(state, 1 - seat)


def test_history_never_names_the_deck_card() -> None:
    state = random_match(3)
    for _, _, text in state.history:
        assert text.endswith(" deck") or " draw " in text
        assert parse_action(text)


def test_observation_contents() -> None:
    state = custom("R5 B9 B2 B3 B4 B5 B6 B7", mine={4: "R4"}, deck="G2 G3 G4 G5")
    state = GAME.apply(state, a("discard B9 deck"))
    state = GAME.apply(state, a("discard Y2 draw B"))
    view = GAME.observation(state, 0)
    assert view.hand == state.hands[0] and view.opponent_hand_size == 8
    assert view.piles == ((c("Y2"),), (), (), (), ()) and view.deck_count == 3
    assert view.expeditions == state.expeditions
    assert view.history == ((0, 0, "discard B9 deck"), (0, 1, "discard Y2 draw B"))
    assert view.to_move == 0 and view.turn == 2 and view.stall_guard_turns == 150
    assert view.round == 0 and view.finished_rounds == ()
    assert known_opponent_cards(view) == [c("B9")]
    state = GAME.apply(state, a("play R5 deck"))
    state = GAME.apply(state, a("discard B9 deck"))
    assert known_opponent_cards(GAME.observation(state, 0)) == []


def test_determinize_is_consistent_with_the_view() -> None:
    rng = random.Random(1)
    state = GAME.new_match(21)
    for _ in range(61):
        state = GAME.apply(state, rng.choice(GAME.legal_actions(state)))
    seat = GAME.to_move(state)
    assert seat is not None
    view = GAME.observation(state, seat)
    known = known_opponent_cards(view)
    true_hidden = sorted(state.hands[1 - seat] + state.deck[state.deck_pos :])
    assert sorted(unseen_cards(view)) == true_hidden
    for k in range(5):
        sample = determinize(view, random.Random(k))
        assert GAME.observation(sample, seat) == view
        assert sorted(sample.hands[1 - seat] + sample.deck) == true_hidden
        for card in known:
            assert card in sample.hands[1 - seat] and card in state.hands[1 - seat]
        after = GAME.apply(sample, GAME.legal_actions(sample)[0])
        assert after.turn == view.turn + 1 or after.round_index == view.round + 1


# --- issue 25: why an action is illegal, each seat's last action ------------------------------


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("play R6 deck", "R6 is not in your hand"),
        ("play R3 deck", "R3 cannot follow R4 on your expedition"),
        ("discard R5 draw R", "cannot draw from the pile just discarded onto"),
        ("play R5 draw G", "the green discard pile is empty"),
        ("play R5 deck", ""),
    ],
)
def test_explain_illegal_names_the_rule(text: str, reason: str) -> None:
    state = custom("R5 R3 B2 B3 B4 B5 B6 B7", mine={4: "R4"}, piles={4: "R9"})
    assert GAME.explain_illegal(state, a(text)) == reason
    assert GAME.is_legal(state, a(text)) == (reason == "")
    if reason:
        with pytest.raises(IllegalActionError, match=f"^{text}: {reason}$"):
            GAME.apply(state, a(text))


def test_explain_illegal_after_the_stall_guard_and_the_end() -> None:
    state = custom("R5 B2 B3 B4 B5 B6 B7 B8", piles={0: "Y9"}, turn=150)
    assert GAME.explain_illegal(state, a("play R5 draw Y")) == (
        "stall guard reached, only the deck may be drawn from")
    assert GAME.explain_illegal(random_match(4, {"rounds": 1}), a("play R5 deck")) == (
        "the match is over")


def test_last_actions_say_what_each_seat_did_and_where_it_drew_from() -> None:
    state = custom("R5 B9 B2 B3 B4 B5 B6 B7", deck="G2 G3 G4 G5")
    assert GAME.observation(state, 0).last_actions == (None, None)
    state = GAME.apply(state, a("discard B9 deck"))
    view = GAME.observation(state, 1)
    assert view.last_actions == (LastAction(a("discard B9 deck"), None), None)
    state = GAME.apply(state, a("discard Y2 draw B"))
    lasts = GAME.observation(state, 0).last_actions
    assert lasts == (LastAction(a("discard B9 deck"), None),
                     LastAction(a("discard Y2 draw B"), c("B9")))
    assert GAME.observation(state, 1).last_actions == lasts  # public: both seats see the same
    state = GAME.apply(state, a("play R5 draw Y"))
    assert GAME.observation(state, 1).last_actions[0] == LastAction(a("play R5 draw Y"), c("Y2"))


@pytest.mark.integration
def test_last_actions_start_empty_every_round_and_survive_the_codec() -> None:
    from arena.games.lost_cities.codec import CODEC

    rng = random.Random(8)
    state = GAME.new_match(8)
    seen_pile_draw = False
    while GAME.to_move(state) is not None:
        before = state.round_index
        action = rng.choice(GAME.legal_actions(state))
        seat = state.player
        assert seat is not None
        drawn = None if action.draw is None else state.piles[action.draw][-1]
        state = GAME.apply(state, action)
        if state.player is not None and state.round_index != before:
            assert state.last_actions == (None, None)
            continue
        assert state.last_actions[seat] == LastAction(action, drawn)
        seen_pile_draw |= drawn is not None
        for viewer in (0, 1):
            view = GAME.observation(state, viewer)
            assert CODEC.observation_from_proto(CODEC.observation_to_proto(view)) == view
    assert seen_pile_draw


def test_leak_the_opponents_deck_draw_is_never_in_its_last_action() -> None:
    """The card the opponent drew from the deck is hidden: two states that differ only in it
    give the seat the same observation bytes after the draw (last actions included)."""
    from arena.wire import observation_bytes

    rng = random.Random(6)
    state = GAME.new_match(6)
    checked = 0
    while checked < 20 and GAME.to_move(state) is not None:
        seat = state.player
        assert seat is not None
        action = rng.choice([x for x in GAME.legal_actions(state) if x.draw is None])
        deck = list(state.deck)
        top, later = state.deck_pos, len(deck) - 1
        if state.deck_count > 1 and deck[top] != deck[later]:
            deck[top], deck[later] = deck[later], deck[top]
            twin = dataclasses.replace(state, deck=tuple(deck))
            after, twin_after = GAME.apply(state, action), GAME.apply(twin, action)
            if after.round_index == state.round_index:
                assert after.hands[seat] != twin_after.hands[seat]
                watcher = 1 - seat
                assert GAME.observation(after, watcher).last_actions[seat] == LastAction(
                    action, None)
                assert observation_bytes("lost-cities", GAME.observation(after, watcher)) == (
                    observation_bytes("lost-cities", GAME.observation(twin_after, watcher)))
                checked += 1
        state = GAME.apply(state, action)
    assert checked == 20


def test_determinize_keeps_the_last_actions() -> None:
    rng = random.Random(2)
    state = GAME.new_match(2)
    for _ in range(31):
        state = GAME.apply(state, rng.choice(GAME.legal_actions(state)))
    for seat in (0, 1):
        view = GAME.observation(state, seat)
        assert view.last_actions[0] is not None and view.last_actions[1] is not None
        assert determinize(view, rng).last_actions == view.last_actions
