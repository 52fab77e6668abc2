"""PORTAS: what the engine's speed rests on changes nothing a caller can see.

``apply`` keeps what makes a turn cheap instead of the public fields (one seat-relative tuple:
hands as count keys, decks as offsets into the deal, the open chests as tuples, the legal entry
shared through a table, the state before and the last action's text) and makes ``hands``,
``decks``, ``chests``, ``taken``, ``last_actions`` and ``history`` on first read. These tests
hold it to the rules: a state never changes once returned, however many lines branch from it
(and from threads, reading a fresh state at once); every state ``apply`` builds equals the state
``State(...)`` derives afresh from its public fields, and both play on alike; deals are exactly
``random.Random.shuffle``'s; a malformed or illegal action is refused by an arena error, with
or without the kept legal lists; copies and pickles play on alike."""

from __future__ import annotations

import copy
import gc
import pickle
import random
import threading
import weakref
from collections.abc import Callable
from dataclasses import fields, replace
from typing import Any

import pytest

from arena.errors import IllegalActionError, InvalidActionError
from arena.games.api import round_seed
from arena.games.portas import GAME, PASS, PORT_DECK, TREASURES, Pass, Play, State
from arena.games.portas import rules as portas
from arena.wire import observation_bytes

pytestmark = pytest.mark.unit

PUBLIC = tuple(f.name for f in fields(State) if not f.name.startswith("_"))
EVERY_ACTION = [PASS] + [Play(c, t) for c in range(1, 7) for t in TREASURES]


def snapshot(state: State) -> tuple[Any, ...]:
    """Everything a caller can read of a state: every public field, both seats' observations
    as wire bytes, the legal actions and ``is_legal`` of every action of the board."""
    return (
        tuple(getattr(state, name) for name in PUBLIC),
        tuple(observation_bytes("portas", GAME.observation(state, seat)) for seat in (0, 1)),
        tuple(GAME.format_action(a) for a in GAME.legal_actions(state)),
        tuple(GAME.is_legal(state, a) for a in EVERY_ACTION),
    )


def run_threads(worker: Callable[[int], None], count: int) -> None:
    """Run ``worker(0)`` .. ``worker(count - 1)`` in threads at once and wait for them all."""
    threads = [threading.Thread(target=worker, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def line(state: State, rng: random.Random) -> list[State]:
    """The states of a uniform-random line from ``state`` to the end of the match."""
    states = [state]
    while GAME.to_move(state) is not None:
        state = GAME.apply(state, rng.choice(GAME.legal_actions(state)))
        states.append(state)
    return states


def entry_after(parent: State, action: portas.Action) -> tuple[int, int, str]:
    """The history entry ``apply(parent, action)`` adds."""
    assert parent.mover is not None
    return (parent.round, parent.mover, GAME.format_action(action))


@pytest.mark.integration
def test_branching_leaves_every_state_as_it_was() -> None:
    for seed in (3, 11):
        rng = random.Random(seed)
        main = line(GAME.new_match(seed), rng)
        before = [snapshot(state) for state in main]
        for parent in main[:-1]:
            for action in GAME.legal_actions(parent):
                child = GAME.apply(parent, action)
                assert child.history[: len(parent.history) + 1] == parent.history + (
                    entry_after(parent, action),)
                deep = line(child, random.Random(seed * 1000 + len(parent.history)))
                assert deep[-1].mover is None
            for action in GAME.legal_actions(parent)[::-1]:  # again, the other way round
                assert GAME.apply(parent, action).history[-1] == entry_after(parent, action) or \
                    GAME.apply(parent, action).round != parent.round
        assert [snapshot(state) for state in main] == before


def test_threads_branching_from_one_state_keep_their_own_histories() -> None:
    base = line(GAME.new_match(5), random.Random(5))[9]
    actions = GAME.legal_actions(base)
    assert len(actions) >= 2
    expected = base.history
    failures: list[str] = []

    def worker(index: int) -> None:
        rng = random.Random(index)
        for _ in range(150):
            action = actions[index % len(actions)]
            child = GAME.apply(base, action)
            if child.history != expected + (entry_after(base, action),):
                failures.append(f"thread {index}: {child.history[-3:]}")
            grandchild = GAME.apply(child, rng.choice(GAME.legal_actions(child)))
            if grandchild.history[: len(child.history)] != child.history:
                failures.append(f"thread {index}: the grandchild changed its parent's line")

    run_threads(worker, 6)
    assert failures == []
    assert base.history == expected


def test_states_made_by_apply_are_those_state_derives_afresh() -> None:
    """``dataclasses.replace(state)`` runs ``State(...)``: the private fields derived from the
    public ones must be the ones ``apply`` (and ``_start_round``) kept up to date."""
    for seed in range(12):
        options = {"games": 1} if seed % 4 == 0 else None
        for state in line(GAME.new_match(seed, options), random.Random(seed)):
            fresh = replace(state)
            assert fresh == state and fresh.history == state.history
            for name in ("hands", "chests", "last_actions", "decks"):
                assert getattr(fresh, name) == getattr(state, name)
            for name in ("_keys", "_open", "_parts", "_lk"):
                assert getattr(fresh, name) == getattr(state, name), (seed, name)
            assert GAME.legal_actions(fresh) == GAME.legal_actions(state)


def test_deals_are_random_shuffles_of_the_round_seed() -> None:
    """``_deal`` shuffles without ``random.shuffle``'s per-swap calls: the same draws, so the
    same deals as ever (old logs replay, golden playthroughs hold)."""
    for seed in list(range(300)) + [2**63 - 1, 10**30]:
        for index in range(3):
            rng = random.Random(round_seed(seed, index, "portas"))
            decks = [list(PORT_DECK), list(PORT_DECK), list(TREASURES)]
            for cards in decks:
                rng.shuffle(cards)
            assert portas._deal(seed, index) == tuple(tuple(cards) for cards in decks)


def test_malformed_and_illegal_actions_are_refused_by_arena_errors() -> None:
    state = GAME.new_match(1)
    legal = GAME.legal_actions(state)
    unfit = next(a for a in EVERY_ACTION if isinstance(a, Play) and a not in legal)
    # an unhashable card raised TypeError from the error message (before this change)
    malformed_plays = (Play([1], 11), Play(1, [11]), Play(7, 11), Play(None, 12))  # type: ignore
    for malformed in (*malformed_plays, "3@14", None, 3):
        with pytest.raises(InvalidActionError):
            GAME.apply(state, malformed)  # type: ignore[arg-type]
    with pytest.raises(IllegalActionError):
        GAME.apply(state, unfit)
    with pytest.raises(IllegalActionError):
        GAME.apply(state, Play(unfit.card, unfit.chest))  # not the canonical object
    with pytest.raises(IllegalActionError):
        GAME.apply(state, Pass())  # plays fit: no pass
    play = legal[0]
    assert isinstance(play, Play)
    assert GAME.apply(state, Play(play.card, play.chest)) == GAME.apply(state, play)
    over = line(state, random.Random(1))[-1]
    for action in (play, PASS):
        with pytest.raises(IllegalActionError):
            GAME.apply(over, action)


def test_play_is_the_same_without_the_kept_legal_lists() -> None:
    """The legal lists are a bounded cache: emptied at any moment (here before every call),
    ``apply`` checks and plays exactly as with them."""
    for seed in (2, 9):
        kept = line(GAME.new_match(seed), random.Random(seed))
        rng = random.Random(seed)
        state = GAME.new_match(seed)
        emptied = [state]
        while GAME.to_move(state) is not None:
            portas._LEGAL.clear()
            action = rng.choice(GAME.legal_actions(state))
            portas._LEGAL.clear()
            state = GAME.apply(state, action)
            emptied.append(state)
        assert [snapshot(s) for s in emptied] == [snapshot(s) for s in kept]


@pytest.mark.integration
def test_copies_and_pickles_play_on_alike() -> None:
    states = line(GAME.new_match(4), random.Random(4))
    for state in states[::7]:
        for twin in (copy.copy(state), copy.deepcopy(state), pickle.loads(pickle.dumps(state))):
            assert twin == state and snapshot(twin) == snapshot(state)
            assert [snapshot(s) for s in line(twin, random.Random(1))] == \
                [snapshot(s) for s in line(state, random.Random(1))]


def test_threads_reading_a_fresh_state_at_once_see_one_set_of_values() -> None:
    """``hands``, ``decks``, ``chests``, ``taken``, ``last_actions`` and ``history`` of a state
    ``apply`` built are made on first read: threads reading a state nobody read before, at the
    same moment and in different orders, all see what one reader sees."""
    expected = [snapshot(state) for state in line(GAME.new_match(8), random.Random(8))]
    fresh = line(GAME.new_match(8), random.Random(8))  # the same line, no field read yet
    workers = 6
    barrier = threading.Barrier(workers)
    seen: list[list[tuple[Any, ...]]] = [[] for _ in range(workers)]

    def worker(index: int) -> None:
        names = PUBLIC if index % 2 else PUBLIC[::-1]
        for state in fresh:
            barrier.wait()
            fields_read = {name: getattr(state, name) for name in names}
            seen[index].append((tuple(fields_read[name] for name in PUBLIC), *snapshot(state)[1:]))

    run_threads(worker, workers)
    assert all(values == expected for values in seen)


def test_histories_read_in_any_order_are_the_line_so_far() -> None:
    """A history is made by walking back the states before: read last-first, shuffled, or a
    child's before its parent's, each is the line's actions up to that state."""
    for seed in (6, 13):
        states = line(GAME.new_match(seed), random.Random(seed))
        expected = [state.history for state in line(GAME.new_match(seed), random.Random(seed))]
        order = list(range(len(states)))
        random.Random(seed).shuffle(order)
        for index in order:
            assert states[index].history == expected[index]
        middle = line(GAME.new_match(seed), random.Random(seed))[len(states) // 2]
        children = [GAME.apply(middle, action) for action in GAME.legal_actions(middle)]
        assert [child.history[:-1] for child in children] == [middle.history] * len(children)


@pytest.mark.integration
def test_states_derived_afresh_play_on_alike_from_either_seat() -> None:
    """``State(...)`` keeps the decks it is given and counts into them (the dealt decks and an
    offset after ``apply``); seat-relative pairs are turned to the mover's. Played on from any
    state, the derived one makes the same line."""
    for seed in (1, 7):
        states = line(GAME.new_match(seed), random.Random(seed))
        movers = {state.mover for state in states}
        assert {0, 1, None} <= movers
        for index, state in enumerate(states[:-1]):
            fresh = replace(state)
            assert fresh == state
            rng = random.Random(index)
            ahead = [snapshot(s) for s in line(state, rng)[:6]]
            rng = random.Random(index)
            assert [snapshot(s) for s in line(fresh, rng)[:6]] == ahead


@pytest.mark.integration
def test_states_are_still_weakly_referenced_like_any_dataclass() -> None:
    """A state keeps what a plain frozen dataclass offers: a weak reference (a cache keyed by
    states, a search's transposition table) holds until the state goes."""
    state = GAME.new_match(3)
    child = GAME.apply(state, GAME.legal_actions(state)[0])
    ref = weakref.ref(child)
    assert ref() is child
    del child
    gc.collect()
    assert ref() is None
