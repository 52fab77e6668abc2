"""The fast Lost Cities engine against plain oracles: its private representation (colour keys,
the pile mask, the history list shared along a line of play) must never show.

Every state ``apply`` makes is checked against the rules page played on plain lists (hands,
expeditions, piles, legal actions), states keep their contents whatever is applied to them
afterwards (branching, threads), and malformed actions are refused with an
``IllegalActionError``, never a crash."""

from __future__ import annotations

import copy
import dataclasses
import pickle
import random
import threading
from typing import Any

import pytest

from arena.errors import IllegalActionError
from arena.games.lost_cities import (
    CARDS,
    COLOURS,
    GAME,
    Action,
    Card,
    State,
    format_action,
    parse_action,
)

pytestmark = pytest.mark.unit

EVERY_ACTION = tuple(
    Action(card, discard, draw)
    for card in CARDS
    for discard in (False, True)
    for draw in (None, 0, 1, 2, 3, 4)
)
"""Every well-formed action (600), built afresh (not the engine's interned values)."""


def private_fields(state: State) -> dict[str, Any]:
    """What ``apply`` keeps up to date for the next turn (every private field but the cache of
    the public fields made from them, and the history list, compared through ``history``)."""
    return {name: value for name, value in vars(state).items()
            if name.startswith("_") and name not in ("_made", "_log")}


def rules_legal(state: State) -> set[str]:
    """The legal actions by the rules page ("Legal moves"), from the public fields only."""
    seat = state.player
    if seat is None:
        return set()
    legal: set[str] = set()
    for card in set(state.hands[seat]):
        expedition = state.expeditions[seat][card.colour]
        numbers = [c.value for c in expedition if not c.is_wager]
        placeable = not numbers if card.is_wager else not numbers or card.value > max(numbers)
        for discard in (False, True):
            if not discard and not placeable:
                continue
            sources: list[int | None] = [None]
            if state.turn < state.rules.stall_guard_turns:
                sources += [c for c in range(5) if state.piles[c]
                            and not (discard and c == card.colour)]
            legal.update(format_action(Action(card, discard, s)) for s in sources)
    return legal


class Table:
    """The match played on plain lists, action by action (the oracle of the public fields)."""

    def __init__(self, state: State) -> None:
        self.hands = [list(hand) for hand in state.hands]
        self.expeditions = [[list(e) for e in seat] for seat in state.expeditions]
        self.piles = [list(pile) for pile in state.piles]
        self.deck = list(state.deck[state.deck_pos:])

    def play(self, seat: int, action: Action) -> None:
        card = action.card
        self.hands[seat].remove(card)
        (self.piles if action.discard else self.expeditions[seat])[card.colour].append(card)
        drawn = self.deck.pop(0) if action.draw is None else self.piles[action.draw].pop()
        self.hands[seat] = sorted(self.hands[seat] + [drawn])

    def agrees(self, state: State) -> None:
        assert state.hands == tuple(tuple(h) for h in self.hands)
        assert state.expeditions == tuple(tuple(tuple(e) for e in s) for s in self.expeditions)
        assert state.piles == tuple(tuple(p) for p in self.piles)
        assert state.deck_count == len(self.deck)


def decision_kind(state: State, action: Action) -> str:
    """What kind of decision ``action`` is: a wager or a number, played or discarded, then a
    draw from the deck, from a pile, or from the pile of the card just played; and whether the
    stall guard has closed the piles."""
    draw = ("deck" if action.draw is None
            else "own pile" if action.draw == action.card.colour else "pile")
    stalled = " (stall guard)" if state.turn >= state.rules.stall_guard_turns else ""
    return (f"{'wager' if action.card.is_wager else 'number'} "
            f"{'discarded' if action.discard else 'played'}, {draw}{stalled}")


@pytest.mark.integration
def test_every_state_agrees_with_the_rules_played_on_lists() -> None:
    """Six random matches (about 2,350 states, 600 actions tried on each): every kind of
    decision (``decision_kind``: a wager or a number, played or discarded, drawn from the deck,
    a pile or the card's own pile) comes up, and so do the stall guard's closed piles (12
    states: seeds 3, 4 and 5; eight matches reached no other kind, at a third more time)."""
    rng = random.Random(5)
    kinds: set[str] = set()
    for seed in range(6):
        state = GAME.new_match(seed)
        table, history = Table(state), list(state.history)
        while state.player is not None:
            legal = GAME.legal_actions(state)
            assert {format_action(a) for a in legal} == rules_legal(state)
            assert len(set(legal)) == len(legal)
            assert [a for a in EVERY_ACTION if GAME.is_legal(state, a)] == sorted(
                legal, key=EVERY_ACTION.index)
            fresh = dataclasses.replace(state)  # its private fields derived from scratch
            assert GAME.legal_actions(fresh) == legal
            assert private_fields(fresh) == private_fields(state)
            action = rng.choice(legal)
            kinds.add(decision_kind(state, action))
            seat, round_index = state.player, state.round_index
            state = GAME.apply(state, action)
            history.append((round_index, seat, format_action(action)))
            assert state.history == tuple(history)
            if state.round_index == round_index and state.player is not None:
                table.play(seat, action)
                table.agrees(state)
            elif state.player is not None:
                table = Table(state)
    assert {kind.removesuffix(" (stall guard)") for kind in kinds} == {
        f"{card} {how}, {draw}" for card in ("wager", "number") for how in ("played", "discarded")
        for draw in ("deck", "pile", "own pile") if not (how == "discarded" and draw == "own pile")}
    assert any(kind.endswith("(stall guard)") for kind in kinds)


def mid_round(seed: int, turns: int) -> State:
    rng = random.Random(seed)
    state = GAME.new_match(seed)
    for _ in range(turns):
        state = GAME.apply(state, rng.choice(GAME.legal_actions(state)))
    return state


def snapshot(state: State) -> tuple[Any, ...]:
    return (state.hands, state.expeditions, state.piles, state.history, state.last_actions,
            GAME.legal_actions(state), GAME.observation(state, 0), GAME.observation(state, 1))


def test_branching_leaves_every_state_as_it_was() -> None:
    """A search applies many actions to one state, and goes on from each: the state, its
    children and their lines keep their own contents, read before or after the branching."""
    parent = mid_round(3, 40)
    untouched = mid_round(3, 40)  # the same position, read only at the end
    before = snapshot(parent)
    lines = []
    for index, action in enumerate(GAME.legal_actions(parent)):
        child = GAME.apply(parent, action)
        line = [child]
        rng = random.Random(index)
        for _ in range(index % 4):
            line.append(GAME.apply(line[-1], rng.choice(GAME.legal_actions(line[-1]))))
        lines.append((action, line))
    assert snapshot(parent) == before == snapshot(untouched)
    for action, line in lines:
        first = line[0]
        assert first.history == parent.history + ((0, parent.player, format_action(action)),)
        assert len(line[-1].history) == len(parent.history) + len(line)
        assert line[-1].history[: len(first.history)] == first.history
        assert first == GAME.apply(parent, action)


def test_threads_branching_from_the_same_states() -> None:
    """Bots may search in threads: children made at the same time from the same states each
    have their own history."""
    parents = [mid_round(seed, 30) for seed in range(4)]
    problems: list[str] = []

    def search(worker: int) -> None:
        rng = random.Random(worker)
        for _ in range(300):
            parent = rng.choice(parents)
            action = rng.choice(GAME.legal_actions(parent))
            child = GAME.apply(parent, action)
            grandchild = GAME.apply(child, rng.choice(GAME.legal_actions(child)))
            if child.history[-1][2] != format_action(action) or grandchild.history[:-1] != (
                    child.history) or len(child.history) != len(parent.history) + 1:
                problems.append(f"worker {worker}: {action} gave {child.history[-3:]}")

    threads = [threading.Thread(target=search, args=(worker,)) for worker in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not problems
    assert [len(p.history) for p in parents] == [30] * 4


def test_copies_and_pickles_play_on_alike() -> None:
    state = mid_round(9, 25)
    action = GAME.legal_actions(state)[-1]
    for twin in (pickle.loads(pickle.dumps(state)), copy.deepcopy(state), copy.copy(state)):
        assert twin == state
        assert GAME.legal_actions(twin) == GAME.legal_actions(state)
        assert GAME.apply(twin, action) == GAME.apply(state, action)


MALFORMED: tuple[Any, ...] = (
    "play R5 deck",
    None,
    Action("R5", False, None),  # type: ignore[arg-type]
    Action([1], False, None),  # type: ignore[arg-type]
    Action(Card(999), True, None),
    Action(CARDS[41], True, 7),
    Action(CARDS[41], True, -1),
    Action(CARDS[41], True, "x"),  # type: ignore[arg-type]
    Action(CARDS[41], True, 1.0),  # type: ignore[arg-type]
)


@pytest.mark.parametrize("action", MALFORMED, ids=[str(i) for i in range(len(MALFORMED))])
def test_malformed_actions_are_refused_not_crashed_on(action: Any) -> None:
    """An in-process Python bot may return anything: a clear refusal naming it, no crash."""
    state = dataclasses.replace(mid_round(2, 10), hands=(
        tuple(CARDS[c] for c in (1, 2, 3, 11, 21, 31, 41, 42)),) * 2)
    assert not GAME.is_legal(state, action)
    with pytest.raises(IllegalActionError) as refused:
        GAME.apply(state, action)
    assert GAME.explain_illegal(state, action) in str(refused.value)


def test_an_equal_action_built_by_a_bot_plays_like_the_engines_own() -> None:
    state = mid_round(4, 12)
    for action in GAME.legal_actions(state):
        twin = Action(Card(int(action.card)), action.discard, action.draw)
        assert twin is not action and GAME.is_legal(state, twin)
        assert GAME.apply(state, twin) == GAME.apply(state, action)
    played = GAME.apply(state, parse_action(format_action(GAME.legal_actions(state)[0])))
    assert played.history[-1][2] == format_action(GAME.legal_actions(state)[0])
    assert {str(c)[0] for c in CARDS} == set(COLOURS)
