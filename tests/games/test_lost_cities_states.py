"""Lost Cities states stay what they were, however a search uses them.

``apply`` builds none of the public fields ``hands``, ``expeditions``, ``piles``, ``history`` and
``last_actions`` (they are made on first read and kept in the instance dict), keeps the history
as a linked log shared by every line through a state, and deals each round with the shuffle
written out. These tests branch from states read and unread, walk histories in every order,
pickle lines too deep for a nested structure, and compare deals and determinized states with
what the plain definitions give.
"""

from __future__ import annotations

import copy
import dataclasses
import pickle
import random
from typing import Any

import pytest

from arena.games.api import round_seed
from arena.games.lost_cities.codec import LostCitiesCodec
from arena.games.lost_cities.rules import (
    FULL_DECK,
    GAME,
    GAME_ID,
    HAND_SIZE,
    Action,
    State,
    _deal,
    determinize,
    format_action,
    known_opponent_cards,
    unseen_cards,
)

pytestmark = pytest.mark.unit

CODEC = LostCitiesCodec()
PUBLIC = tuple(f.name for f in dataclasses.fields(State) if not f.name.startswith("_"))


def line(seed: int, turns: int, options: dict[str, Any] | None = None,
         prefer_piles: bool = False) -> State:
    """The state after ``turns`` random turns of match ``seed`` (pile draws first if asked)."""
    rng = random.Random(seed)
    state = GAME.new_match(seed, options)
    for _ in range(turns):
        legal = GAME.legal_actions(state)
        piles = [a for a in legal if a.draw is not None]
        state = GAME.apply(state, rng.choice(piles if prefer_piles and piles else legal))
    return state


def everything(state: State) -> tuple[Any, ...]:
    """Every public field, each seat's observation as the bytes a bot gets, the legal list."""
    observed = tuple(CODEC.observation_to_proto(GAME.observation(state, seat)).SerializeToString()
                     for seat in (0, 1))
    return (tuple(getattr(state, name) for name in PUBLIC), state.deck_count, observed,
            GAME.legal_actions(state), GAME.to_move(state), GAME.outcome(state))


def search_from(parent: State, depth: int, read_every: int) -> list[tuple[Action, list[State]]]:
    """Every legal action applied to ``parent``, each followed by a random line (reading every
    ``read_every``-th state's fields on the way, so that some are made and some are not)."""
    lines = []
    for index, action in enumerate(GAME.legal_actions(parent)):
        states = [GAME.apply(parent, action)]
        rng = random.Random(index)
        while len(states) <= depth and GAME.to_move(states[-1]) is not None:
            if len(states) % read_every == 0:
                everything(states[-1])
            states.append(GAME.apply(states[-1], rng.choice(GAME.legal_actions(states[-1]))))
        lines.append((action, states))
    return lines


@pytest.mark.integration
def test_a_searched_state_keeps_every_field_its_observations_and_legal_actions() -> None:
    """One state branched from many times (every legal action, lines of up to 40 turns through
    a round's end), read before the search or only after: its fields, both observations'
    bytes and its legal list stay those of the same position replayed untouched; the first
    state of each line is the one a single apply gives."""
    for seed, turns in ((3, 40), (11, 0), (5, 125)):
        read_first = line(seed, turns)
        before = everything(read_first)
        not_read = line(seed, turns)
        lines = search_from(read_first, 40, 3) + search_from(not_read, 40, 5)
        assert everything(read_first) == before == everything(not_read)
        assert everything(read_first) == everything(line(seed, turns))
        for action, states in lines:
            alone = GAME.apply(line(seed, turns), action)
            assert everything(states[0]) == everything(alone)


def test_no_state_gets_the_fields_made_on_its_parent() -> None:
    """Fields read (made) on a state before it is applied to are not carried into the next
    state: each child shows its own hand, table and history."""
    for seed, turns in ((8, 30), (2, 137)):
        parent = line(seed, turns)
        everything(parent)  # made and kept on the parent
        for action in GAME.legal_actions(parent):
            child = GAME.apply(parent, action)
            assert everything(child) == everything(GAME.apply(line(seed, turns), action))
            assert child.history[-1] == (parent.round_index, parent.player,
                                         format_action(action))


def test_histories_read_in_any_order_along_branching_lines() -> None:
    """The history of every state of a tree, read in several orders (children before parents,
    siblings one after the other, a line turn by turn and backwards), is its own."""
    root = line(4, 20)
    tree: list[State] = []

    def grow(state: State, depth: int, rng: random.Random) -> None:
        tree.append(state)
        if depth == 0:
            return
        for action in rng.sample(GAME.legal_actions(state), 3):
            grow(GAME.apply(state, action), depth - 1, rng)

    grow(root, 3, random.Random(1))
    truth = {id(state): _replayed_history(state) for state in tree}
    for order in (list(reversed(tree)), tree, random.Random(2).sample(tree, len(tree))):
        for state in order:  # each read afresh (its made history left out)
            twin = object.__new__(State)
            object.__setattr__(twin, "__dict__", {
                name: value for name, value in vars(state).items() if name != "history"})
            assert twin.history == truth[id(state)]
            assert state.history == truth[id(state)]


def _replayed_history(state: State) -> tuple[Any, ...]:
    """A state's history rebuilt from its linked log the slow way (no made history used)."""
    node: Any = state._log
    entries = []
    while node.__class__ is list:
        entries.append(node[0])
        node = node[1]
    return tuple(node) + tuple(reversed(entries))


@pytest.mark.integration
def test_a_long_line_pickles_and_copies() -> None:
    """A round of 3,000 turns (a stall guard far off, pile draws first) nests its log 3,000
    deep: pickling, deep-copying and copying its last state still work and play on alike."""
    state = line(6, 3_000, {"stall_guard_turns": 100_000}, prefer_piles=True)
    assert state.turn == 3_000 and len(state.history) == 3_000
    action = GAME.legal_actions(state)[0]
    for twin in (pickle.loads(pickle.dumps(state)), copy.deepcopy(state), copy.copy(state)):
        assert everything(twin) == everything(state)
        assert everything(GAME.apply(twin, action)) == everything(GAME.apply(state, action))


def test_deals_are_the_seeded_shuffles_of_the_deck() -> None:
    """The shuffle written out in ``_deal`` deals what ``random.Random(seed).shuffle`` does."""
    for seed in range(200):
        for round_index in range(3):
            cards = list(FULL_DECK)
            random.Random(round_seed(seed, round_index, GAME_ID)).shuffle(cards)
            assert _deal(seed, round_index) == (
                tuple(sorted(cards[:HAND_SIZE])), tuple(sorted(cards[HAND_SIZE:2 * HAND_SIZE])),
                tuple(cards[2 * HAND_SIZE:]))


def test_determinized_states_are_the_states_their_fields_build() -> None:
    """``determinize`` builds its state without ``State(...)``: it equals the state built from
    the same fields, derives the same private fields, and offers the real legal actions."""
    rng = random.Random(3)
    for seed in range(6):
        state = line(seed, 20 + 17 * seed)
        if GAME.to_move(state) is None:
            continue
        seat = GAME.to_move(state)
        assert seat is not None
        sample = determinize(GAME.observation(state, seat), rng)
        built = dataclasses.replace(sample)
        assert everything(sample) == everything(built)
        assert {k: v for k, v in vars(sample).items() if k.startswith("_") and k != "_made"} == {
            k: v for k, v in vars(built).items() if k.startswith("_") and k != "_made"}
        assert GAME.legal_actions(sample) == GAME.legal_actions(state)


def test_a_state_built_with_a_list_history_plays_on() -> None:
    """``State(...)`` given its history as a list (a bot building one from decoded data): the
    states after it carry that history and their own moves."""
    state = line(7, 9)
    given = dataclasses.replace(state, history=list(state.history))
    rng = random.Random(1)
    after = given
    for _ in range(5):
        after = GAME.apply(after, rng.choice(GAME.legal_actions(after)))
    assert after.history[:9] == state.history and len(after.history) == 14
    assert everything(after) == everything(
        dataclasses.replace(after, history=tuple(after.history)))


def test_determinizing_views_in_turn_gives_each_its_own_hidden_cards() -> None:
    """``determinize`` keeps the last view's hidden cards: views of other matches, seats and
    rounds determinized in turn (and an equal view built afresh) each give states whose
    observation for the seat is exactly that view, with the opponent's known cards in hand."""
    views = []
    for seed, turns in ((1, 30), (2, 60), (3, 160), (4, 7)):
        state = line(seed, turns)
        for seat in (0, 1):
            views.append(GAME.observation(state, seat))
    rng = random.Random(9)
    for view in views + views[::-1] + [dataclasses.replace(v) for v in views]:
        if view.to_move is None:
            continue
        sample = determinize(view, rng)
        assert CODEC.observation_to_proto(GAME.observation(sample, view.seat)) == (
            CODEC.observation_to_proto(view))
        opponent = sample.hands[1 - view.seat]
        assert all(card in opponent for card in known_opponent_cards(view))
        assert sorted((*opponent, *sample.deck)) == unseen_cards(view)


def test_legal_texts_are_the_legal_actions_formatted() -> None:
    """``legal_texts`` (what the referee sends) is ``format_action`` of each legal action, in
    order, in every position of random matches, a round's end and the match's end included."""
    rng = random.Random(4)
    for seed in range(6):
        state = GAME.new_match(seed)
        while True:
            legal = GAME.legal_actions(state)
            assert GAME.legal_texts(state) == tuple(map(format_action, legal))
            if not legal:
                break
            state = GAME.apply(state, rng.choice(legal))
