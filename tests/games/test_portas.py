"""PORTAS rules engine: every rule of docs/games/portas.md, invariants, leaks."""

from __future__ import annotations

import importlib.util
import json
import random
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from arena.errors import IllegalActionError, InvalidActionError, OptionsError
from arena.games.portas import (
    GAME,
    PASS,
    PORT_DECK,
    TREASURES,
    Chest,
    Pass,
    Play,
    State,
    Taken,
    determinize,
    starter,
    unseen_deck,
)
from arena.games.portas.codec import CODEC
from arena.sdk.decision import Decision

pytestmark = pytest.mark.unit

ALL_ACTIONS = [PASS] + [Play(c, t) for c in range(1, 7) for t in TREASURES]


def chest(value: int, mine: tuple[int, ...] = (), theirs: tuple[int, ...] = ()) -> Chest:
    """A chest with seat 0's and seat 1's cards."""
    return Chest(value, (mine, theirs), sum(mine) + sum(theirs))


def position(
    hand: tuple[int, ...], chests: tuple[Chest, ...], mover: int = 0, **kw: object
) -> State:
    """A game-1 state with the mover's hand and open chests set (the rest from seed 1)."""
    base = GAME.new_match(1)
    hands = (hand, base.hands[1]) if mover == 0 else (base.hands[0], hand)
    return replace(base, hands=hands, chests=chests, mover=mover, **kw)  # type: ignore[arg-type]


def random_playout(seed: int, options: dict[str, int] | None = None) -> list[State]:
    """Every state of a seeded uniformly random match."""
    rng = random.Random(seed)
    state = GAME.new_match(seed, options)
    states = [state]
    while GAME.to_move(state) is not None:
        state = GAME.apply(state, rng.choice(GAME.legal_actions(state)))
        states.append(state)
    return states


def obs_bytes(state: State, seat: int) -> bytes:
    """The wire bytes of the seat's observation (registry helper when available)."""
    view = GAME.observation(state, seat)
    try:
        from arena.wire import observation_bytes
    except ImportError:  # pragma: no cover - until every game's codec exists
        from arena.games.portas.codec import CODEC

        return CODEC.observation_to_proto(view).SerializeToString(deterministic=True)
    return observation_bytes("portas", view)


# --- set-up ----------------------------------------------------------------------------------
def test_deal_has_the_published_components() -> None:
    state = GAME.new_match(5)
    assert sum(PORT_DECK) == 45 and sum(TREASURES) == 65
    for seat in (0, 1):
        assert len(state.hands[seat]) == 4
        assert list(state.hands[seat]) == sorted(state.hands[seat])
        assert Counter(state.hands[seat] + state.decks[seat]) == Counter(PORT_DECK)
        assert len(state.decks[seat]) == 10
    assert len(state.chests) == 2 and len(state.hidden) == 3
    assert sorted([c.value for c in state.chests] + list(state.hidden)) == list(TREASURES)
    assert [c.value for c in state.chests] == sorted(c.value for c in state.chests)
    assert state.mover == 0 and state.scores == (0, 0)
    record = GAME.deal_record(state)
    assert json.loads(json.dumps(record)) == record
    assert record["decks"][0][:4] == [str(c) for c in state.deal[0][:4]]
    assert [int(t) for t in record["treasures"][:2]] == [t for t in state.deal[2][:2]]


def test_same_seed_same_deal_and_playthrough_other_seed_differs() -> None:
    a = random_playout(3)
    b = random_playout(3)
    assert a == b
    assert GAME.new_match(3).deal != GAME.new_match(4).deal


def test_options() -> None:
    assert GAME.options_of(GAME.new_match(1)) == {"games": 3}
    assert GAME.options_of(GAME.new_match(1, {"games": 1})) == {"games": 1}
    for bad in ({"games": 2}, {"games": "x"}, {"rounds": 3}):
        with pytest.raises(OptionsError):
            GAME.new_match(1, bad)
    assert len(random_playout(2, {"games": 1})[-1].finished) == 1
    assert len(random_playout(2, {"games": 3})[-1].finished) == 3


# --- legality (rules 6, 7) -------------------------------------------------------------------
def test_chest_11_holding_8() -> None:
    state = position((2, 3, 4, 6), (chest(11, (5,), (3,)), chest(15)))
    assert not GAME.is_legal(state, Play(4, 11))
    assert GAME.is_legal(state, Play(3, 11))
    assert GAME.is_legal(state, Play(2, 11))
    assert not GAME.is_legal(state, Play(6, 11))
    with pytest.raises(IllegalActionError):
        GAME.apply(state, Play(4, 11))
    after = GAME.apply(state, Play(3, 11))
    assert after.scores == (8, 0)
    assert after.taken[-1].chest.placed == 11
    assert 11 not in [c.value for c in after.chests]


def test_forced_pass_when_nothing_fits() -> None:
    state = position((3, 4, 5, 6), (chest(12, (4, 6)), chest(14, (6,), (6, 1))))
    assert GAME.legal_actions(state) == (PASS,)
    assert GAME.is_legal(state, PASS)
    assert not any(GAME.is_legal(state, a) for a in ALL_ACTIONS if a != PASS)


def test_the_one_must_be_played_no_voluntary_pass() -> None:
    state = position((1, 5, 6, 6), (chest(12, (4, 6)), chest(14, (6,), (6, 1))))
    assert GAME.legal_actions(state) == (Play(1, 12), Play(1, 14))
    assert not GAME.is_legal(state, PASS)
    with pytest.raises(IllegalActionError):
        GAME.apply(state, PASS)


def test_legality_table() -> None:
    state = position((1, 2, 2, 6), (chest(12, (3,), (4,)), chest(15, (), (10,))))
    expected = {Play(1, 12), Play(2, 12), Play(1, 15), Play(2, 15)}
    assert set(GAME.legal_actions(state)) == expected
    for action in ALL_ACTIONS:
        assert GAME.is_legal(state, action) == (action in expected)
    # a card not in hand, a chest not open
    assert not GAME.is_legal(state, Play(3, 12))
    assert not GAME.is_legal(state, Play(1, 13))


def test_empty_hand_passes() -> None:
    state = position((), (chest(12), chest(13)), decks=((), GAME.new_match(1).decks[1]))
    assert GAME.legal_actions(state) == (PASS,)


# --- filling a chest and scoring -------------------------------------------------------------
def test_seed_example_a_6_b_4_a_1_scores_7_and_0() -> None:
    base = position((1, 2, 3, 5), (chest(11, (6,), (4,)), chest(13, (), (2,))))
    state = replace(base, hidden=(15, 12, 14), scores=(3, 5))
    after = GAME.apply(state, Play(1, 11))
    assert after.scores == (3 + 7, 5)
    assert [c.value for c in after.chests] == [13, 15]
    assert after.hidden == (12, 14)
    assert after.taken[-1].taker == 0
    assert after.taken[-1].chest.cards == ((6, 1), (4,))
    assert after.mover == 1  # strict alternation: the player who did not score moves


def test_opponent_may_use_and_take_any_chest() -> None:
    state = position((1, 2, 3, 5), (chest(11, (6,), (4,)), chest(13)), mover=1)
    after = GAME.apply(state, Play(1, 11))
    assert after.scores == (0, 5)


def test_last_treasure_revealed_then_one_chest_then_game_end() -> None:
    state = position((2, 3, 3, 5), (chest(12, (5,), (5,)), chest(13, (6,), (5,))), hidden=())
    after = GAME.apply(state, Play(2, 12))
    assert [c.value for c in after.chests] == [13] and after.mover == 1
    assert after.scores == (7, 0)
    # five emptied ends the game at once and deals game 2, started by seat 1
    four = after.taken + tuple(Taken(chest(v, (v,)), 0) for v in (11, 14, 15))
    final = replace(after, taken=four, mover=0, hands=((2, 3, 5), after.hands[1]))
    end = GAME.apply(final, Play(2, 13))
    assert end.finished == ((7 + 8, 0),)
    assert end.round == 1 and end.mover == 1 and end.scores == (0, 0)
    assert len(end.chests) == 2 and end.taken == ()


# --- turns, refill, end (rules 5, 9, 10) -----------------------------------------------------
def test_refill_at_start_of_the_movers_turn() -> None:
    state = GAME.new_match(11)
    action = GAME.legal_actions(state)[0]
    after = GAME.apply(state, action)
    assert len(after.hands[0]) == 3 and len(after.decks[0]) == 10  # no draw until its turn
    assert len(after.hands[1]) == 4 and len(after.decks[1]) == 10  # full first hand
    after2 = GAME.apply(after, GAME.legal_actions(after)[0])
    assert len(after2.hands[0]) == 4 and len(after2.decks[0]) == 9
    assert after2.decks[0] == state.decks[0][1:]
    assert state.decks[0][0] in after2.hands[0]


def test_refill_from_empty_deck_draws_nothing() -> None:
    base = position((4,), (chest(15), chest(14)), mover=1)
    state = replace(base, hands=((4,), (1, 2, 3, 5)), decks=((), base.decks[1]))
    after = GAME.apply(state, Play(1, 15))
    assert after.hands[0] == (4,) and after.decks[0] == ()


def test_two_passes_in_a_row_end_the_game() -> None:
    chests = (chest(12, (4, 6)), chest(14, (6,), (6, 1)))
    state = position((3, 4, 5, 6), chests)
    state = replace(state, hands=((3, 4, 5, 6), (4, 5, 6, 6)), decks=((), ()), scores=(4, 2))
    one = GAME.apply(state, PASS)
    assert one.mover == 1 and one.passes == 1
    two = GAME.apply(one, PASS)
    assert two.finished == ((4, 2),) and two.round == 1


def test_a_play_resets_the_pass_count() -> None:
    chests = (chest(12, (4, 6)), chest(14, (6,), (6,)))
    state = position((3, 4, 5, 6), chests)
    state = replace(state, hands=((3, 4, 5, 6), (1, 5, 6, 6)), decks=((), ()))
    one = GAME.apply(state, PASS)
    two = GAME.apply(one, Play(1, 14))
    assert two.passes == 0 and two.mover == 0 and two.round == 0


def test_starter_rule() -> None:
    assert starter(()) == 0
    assert starter(((30, 0),)) == 1
    assert starter(((10, 20), (5, 0))) == 0  # seat 0 behind (15 < 20)
    assert starter(((20, 10), (0, 5))) == 1  # seat 1 behind
    assert starter(((10, 10), (5, 5))) == 0  # tie: first seat
    states = random_playout(8)
    firsts = [s for i, s in enumerate(states) if i == 0 or s.round != states[i - 1].round]
    assert [s.mover for s in firsts[:2]] == [0, 1]
    assert firsts[2].mover == starter(firsts[2].finished)


def test_outcome_and_draws() -> None:
    state = random_playout(9)[-1]
    result = GAME.outcome(state)
    assert result is not None
    t0 = sum(s[0] for s in state.finished)
    t1 = sum(s[1] for s in state.finished)
    assert result.totals == (t0, t1) and result.rounds == state.finished
    assert result.winner == (0 if t0 > t1 else 1 if t1 > t0 else None)
    drawn = replace(state, finished=((10, 5), (5, 10), (3, 3)))
    assert GAME.outcome(drawn).winner is None  # type: ignore[union-attr]
    assert GAME.outcome(GAME.new_match(1)) is None
    assert GAME.legal_actions(state) == () and GAME.to_move(state) is None
    assert not GAME.is_legal(state, PASS)


# --- invariants over many seeded games -------------------------------------------------------
@pytest.mark.integration
def test_invariants_over_many_random_matches() -> None:
    for seed in range(150):
        states = random_playout(seed)
        for state in states:
            for seat in (0, 1):
                on_table = [c for ch in state.chests for c in ch.cards[seat]]
                on_table += [c for t in state.taken for c in t.chest.cards[seat]]
                all_cards = state.hands[seat] + state.decks[seat] + tuple(on_table)
                assert Counter(all_cards) == Counter(PORT_DECK)
            for ch in state.chests:
                assert ch.placed == sum(ch.cards[0]) + sum(ch.cards[1]) < ch.value
            for t in state.taken:
                assert sum(t.chest.cards[0]) + sum(t.chest.cards[1]) == t.chest.value
                assert t.chest.placed == t.chest.value
            emptied = sum(t.chest.value for t in state.taken)
            assert max(state.scores) <= 45
            assert sum(state.scores) <= emptied <= 65
            assert state.scores == (
                sum(sum(t.chest.cards[0]) for t in state.taken if t.taker == 0),
                sum(sum(t.chest.cards[1]) for t in state.taken if t.taker == 1),
            )
            if state.mover is not None:
                assert len(state.hands[state.mover]) == 4 or not state.decks[state.mover]
        for score in states[-1].finished:
            assert max(score) <= 45 and sum(score) <= 65


def test_legal_actions_sorted_unique_and_agree_with_is_legal() -> None:
    for seed in range(40):
        for state in random_playout(seed):
            legal = GAME.legal_actions(state)
            if state.mover is None:
                assert legal == ()
                continue
            assert legal and len(set(legal)) == len(legal)
            plays = [a for a in legal if isinstance(a, Play)]
            assert plays == sorted(plays, key=lambda a: (a.card, a.chest))
            assert (legal == (PASS,)) or not any(isinstance(a, Pass) for a in legal)
            for action in ALL_ACTIONS:
                assert GAME.is_legal(state, action) == (action in legal)


# --- grammar ---------------------------------------------------------------------------------
def test_grammar_round_trip_over_legal_actions() -> None:
    for seed in range(30):
        for state in random_playout(seed):
            for action in GAME.legal_actions(state):
                text = GAME.format_action(action)
                assert GAME.parse_action(text) == action
    assert GAME.format_action(Play(3, 14)) == "3@14"
    assert GAME.format_action(PASS) == "pass"
    for action in ALL_ACTIONS:
        assert GAME.parse_action(GAME.format_action(action)) == action


@pytest.mark.parametrize(
    "text",
    [
        "",
        "PASS",
        "Pass",
        " pass",
        "pass ",
        "3@14 ",
        " 3@14",
        "3 @14",
        "03@14",
        "3@014",
        "7@11",
        "0@11",
        "3@10",
        "3@16",
        "3-14",
        "3",
        "@14",
        "play 3 14",
        "3@14@15",
    ],
)
def test_parse_is_strict(text: str) -> None:
    with pytest.raises(InvalidActionError):
        GAME.parse_action(text)


def test_format_rejects_non_actions() -> None:
    with pytest.raises(InvalidActionError):
        GAME.format_action(Play(7, 11))


# --- observation, leaks, determinize ---------------------------------------------------------
def test_observation_holds_everything_public() -> None:
    state = random_playout(12)[20]
    view = GAME.observation(state, 1)
    assert view.hands == state.hands and view.chests == state.chests
    assert view.deck_sizes == (len(state.decks[0]), len(state.decks[1]))
    assert view.hidden_values == tuple(sorted(state.hidden))
    assert view.hidden_count == len(state.hidden)
    assert view.history == state.history and view.scores == state.scores
    assert view.to_move == state.mover and view.seat == 1
    assert unseen_deck(view, 0) == tuple(sorted(state.decks[0]))


def test_leak_deck_and_treasure_order_are_invisible() -> None:
    for seed in range(20):
        for state in random_playout(seed)[::5]:
            if state.mover is None:
                continue
            rng = random.Random(seed)
            decks = [list(d) for d in state.decks]
            for d in decks:
                rng.shuffle(d)
            hidden = list(state.hidden)
            hidden.reverse()
            other = replace(
                state,
                decks=(tuple(decks[0]), tuple(decks[1])),
                hidden=tuple(hidden),
                seed=state.seed + 1,
            )
            for seat in (0, 1):
                assert obs_bytes(state, seat) == obs_bytes(other, seat)
    # a public difference (a hand card) is visible to both seats
    state = GAME.new_match(4)
    other_hand = (1, 1, 1, 2) if state.hands[0] != (1, 1, 1, 2) else (5, 5, 6, 6)
    changed = replace(state, hands=(other_hand, state.hands[1]))
    for seat in (0, 1):
        assert obs_bytes(state, seat) != obs_bytes(changed, seat)


def test_no_hidden_order_in_observation_bytes() -> None:
    state = GAME.new_match(21)
    assert len(set(state.hidden)) == 3
    for seat in (0, 1):
        view = GAME.observation(state, seat)
        assert view.hidden_values == tuple(sorted(state.hidden))
        assert not hasattr(view, "decks") and not hasattr(view, "seed")


def test_determinize_is_consistent_with_the_view() -> None:
    rng = random.Random(0)
    for seed in range(15):
        for state in random_playout(seed)[::3]:
            if state.mover is None:
                continue
            for seat in (0, 1):
                view = GAME.observation(state, seat)
                sample = determinize(view, rng)
                assert GAME.observation(sample, seat) == view
                assert GAME.legal_actions(sample) == GAME.legal_actions(state)
                action = rng.choice(GAME.legal_actions(sample))
                GAME.apply(sample, action)


# --- sample bots -----------------------------------------------------------------------------
BOTS = Path(__file__).resolve().parents[2] / "sample_bots" / "portas"


def load_bot(name: str) -> Callable[[Decision], Any]:
    """The ``choose`` policy of a sample bot (loaded from its directory)."""
    spec = importlib.util.spec_from_file_location(f"portas_bot_{name}", BOTS / name / "bot.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    policy: Callable[[Decision], Any] = module.choose
    return policy


@pytest.mark.integration
def test_sample_bots_play_legal_full_matches() -> None:
    from arena.referee.local import play_local

    names = ("random", "greedy", "expectimax")
    for i, a in enumerate(names):
        for b in names[i:]:
            result = play_local("portas", (load_bot(a), load_bot(b)), seed=100 + i)
            assert len(result.rounds) == 3
            assert all(max(r) <= 45 and sum(r) <= 65 for r in result.rounds)
    for name in names:
        assert (BOTS / name / "bot.toml").read_text().count('game = "portas"') == 1
        assert "USER 65534:65534" in (BOTS / name / "Dockerfile").read_text()


def test_random_bot_is_reproducible() -> None:
    from arena.referee.local import play_local

    bot = load_bot("random")
    assert play_local("portas", (bot, bot), seed=3) == play_local("portas", (bot, bot), seed=3)


def _wins(strong: str, weak: str, seeds: range) -> tuple[int, int]:
    from arena.referee.local import play_local

    s, w = load_bot(strong), load_bot(weak)
    won = lost = 0
    for seed in seeds:
        seat = seed % 2
        pair = (s, w) if seat == 0 else (w, s)
        result = play_local("portas", pair, seed=seed)
        won += result.winner == seat
        lost += result.winner == 1 - seat
    return won, lost


def test_greedy_beats_random() -> None:
    won, lost = _wins("greedy", "random", range(20))
    assert won >= 16 and won > 3 * lost


@pytest.mark.integration
def test_expectimax_beats_greedy() -> None:
    won, lost = _wins("expectimax", "greedy", range(12))
    assert won > 2 * lost


# --- issue 25: why an action is illegal, each seat's last action -----------------------------
@pytest.mark.parametrize(
    ("action", "reason"),
    [
        (Play(3, 12), "no 3 in your hand"),
        (Play(1, 13), "chest 13 is not open: the open chests are 12, 15"),
        (Play(6, 12), "6 does not fit chest 12: 5 left in it"),
        (PASS, "pass only when no hand card fits an open chest, and 1@12 fits"),
        (Play(2, 15), ""),
    ],
)
def test_explain_illegal_names_the_rule(action: Pass | Play, reason: str) -> None:
    state = position((1, 2, 2, 6), (chest(12, (3,), (4,)), chest(15, (), (10,))))
    assert GAME.explain_illegal(state, action) == reason
    assert GAME.is_legal(state, action) == (reason == "")
    if reason:
        with pytest.raises(IllegalActionError, match=re.escape(f"not legal now: {reason}; legal:")):
            GAME.apply(state, action)


def test_explain_illegal_once_the_match_is_over() -> None:
    assert GAME.explain_illegal(random_playout(3)[-1], PASS) == "the match is over"


def test_last_actions_are_each_seats_latest_action_of_the_game() -> None:
    rng = random.Random(9)
    state = GAME.new_match(9)
    assert GAME.observation(state, 0).last_actions == (None, None)
    new_games = 0
    while state.mover is not None:
        seat, game = state.mover, state.round
        action = rng.choice(GAME.legal_actions(state))
        state = GAME.apply(state, action)
        if state.mover is not None and state.round != game:
            assert state.last_actions == (None, None)
            new_games += 1
        else:
            assert state.last_actions[seat] == action
        views = [GAME.observation(state, viewer) for viewer in (0, 1)]
        assert views[0].last_actions == views[1].last_actions == state.last_actions
        for view in views:
            assert CODEC.observation_from_proto(CODEC.observation_to_proto(view)) == view
    assert new_games == 2


def test_leak_last_actions_hold_no_deck_or_treasure_order() -> None:
    """The order of the mover's deck and of the hidden treasures is hidden: changed before the
    mover's action, the other seat's observation bytes after it do not move."""
    checked = 0
    for state in random_playout(12)[:-1]:
        mover = state.mover
        assert mover is not None
        action = GAME.legal_actions(state)[0]
        after = GAME.apply(state, action)
        if after.round != state.round or len(after.taken) != len(state.taken):
            continue  # a chest emptied reveals the next treasure: not hidden any more
        deck = state.decks[mover][::-1]
        twin = replace(state, decks=_swap(state.decks, mover, deck), hidden=state.hidden[::-1])
        twin_after = GAME.apply(twin, action)
        watcher = 1 - mover
        assert GAME.observation(after, watcher).last_actions[mover] == action
        assert obs_bytes(after, watcher) == obs_bytes(twin_after, watcher)
        checked += 1
    assert checked >= 20


def _swap(pair: tuple[tuple[int, ...], tuple[int, ...]], seat: int,
          value: tuple[int, ...]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    return (value, pair[1]) if seat == 0 else (pair[0], value)
