"""PORTAS sample bot: depth-limited expectiminimax.

Everything in PORTAS is public except the order of the decks and of the hidden treasures, so the
only uncertainty is the next draw (one card from a known multiset) and the next revealed treasure.
The bot searches its move, the opponent's reply (a minimiser) and its own next move, with exact
chance nodes for draws and reveals in between, on a compact model of the current game; leaves are
scored by the score difference plus the best chest the player to move could empty right away.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from arena.games.portas import PORT_DECK, Pass, Play, View
from arena.sdk.decision import Decision

DEPTH = 3
"""Plies searched (mine, the opponent's, mine)."""
BUDGET = 2000
"""Most last-ply expansions per decision (about 50 ms on one core); a bigger tree is searched
with one ply less instead, so decisions stay fast and reproducible (no clock involved)."""
TAKE_WEIGHT = 0.8
"""How much of an immediately available chest the leaf evaluation counts for the mover."""

# A node, always from the bot's frame (player 0 = the bot, 1 = the opponent):
# (hands, decks, chests, hidden, diff, mover, passes)
#   hands: (sorted tuple, sorted tuple); decks: (counts[0..6], counts[0..6]);
#   chests: tuple of (value, placed, share0, share1); hidden: tuple of values; diff: my - opp.
Node = tuple[Any, ...]


def root_node(view: View) -> Node:
    """The bot-frame node of a view (the bot is to move)."""
    me, opp = view.seat, 1 - view.seat
    decks = []
    for seat in (me, opp):
        counts = Counter(PORT_DECK)
        counts.subtract(view.hands[seat])
        for chest in view.chests:
            counts.subtract(chest.cards[seat])
        for taken in view.taken:
            counts.subtract(taken.chest.cards[seat])
        decks.append(tuple(max(0, counts[i]) for i in range(7)))
    chests = tuple((c.value, c.placed, sum(c.cards[me]), sum(c.cards[opp])) for c in view.chests)
    diff = view.scores[me] - view.scores[opp]
    return (
        (view.hands[me], view.hands[opp]),
        (decks[0], decks[1]),
        chests,
        view.hidden_values,
        diff,
        0,
        view.passes,
    )


def _moves(node: Node) -> list[tuple[int, int]]:
    hands, _, chests, _, _, mover, _ = node
    out = []
    for card in sorted(set(hands[mover])):
        for i, (value, placed, _, _) in enumerate(chests):
            if placed + card <= value:
                out.append((card, i))
    return out


def _after_move(node: Node, move: tuple[int, int] | None) -> list[tuple[float, Node | float]]:
    """Chance outcomes after ``move`` (None = pass): (probability, node or terminal diff)."""
    hands, decks, chests, hidden, diff, mover, passes = node
    reveal: list[tuple[float, tuple[Any, ...], tuple[int, ...]]]
    if move is None:
        if passes + 1 >= 2:
            return [(1.0, float(diff))]
        new_hands = hands
        reveal = [(1.0, chests, hidden)]
        passes += 1
    else:
        card, index = move
        hand = list(hands[mover])
        hand.remove(card)
        new_hands = (tuple(hand), hands[1]) if mover == 0 else (hands[0], tuple(hand))
        value, placed, s0, s1 = chests[index]
        placed += card
        if mover == 0:
            s0 += card
        else:
            s1 += card
        passes = 0
        if placed == value:
            diff += s0 if mover == 0 else -s1
            rest = chests[:index] + chests[index + 1 :]
            if not hidden:
                if not rest:
                    return [(1.0, float(diff))]
                reveal = [(1.0, rest, hidden)]
            else:
                p = 1.0 / len(hidden)
                reveal = [
                    (p, rest + ((v, 0, 0, 0),), tuple(h for h in hidden if h != v)) for v in hidden
                ]
        else:
            reveal = [
                (1.0, chests[:index] + ((value, placed, s0, s1),) + chests[index + 1 :], hidden)
            ]
    nxt = 1 - mover
    deck = decks[nxt]
    total = sum(deck)
    outcomes: list[tuple[float, Node | float]] = []
    for p_rev, new_chests, new_hidden in reveal:
        if len(new_hands[nxt]) >= 4 or total == 0:
            outcomes.append((p_rev, (new_hands, decks, new_chests, new_hidden, diff, nxt, passes)))
            continue
        for c in range(1, 7):
            if deck[c]:
                drawn_hand = tuple(sorted(new_hands[nxt] + (c,)))
                counts = deck[:c] + (deck[c] - 1,) + deck[c + 1 :]
                h2 = (drawn_hand, new_hands[1]) if nxt == 0 else (new_hands[0], drawn_hand)
                d2 = (counts, decks[1]) if nxt == 0 else (decks[0], counts)
                outcomes.append(
                    (p_rev * deck[c] / total, (h2, d2, new_chests, new_hidden, diff, nxt, passes))
                )
    return outcomes


def evaluate(node: Node) -> float:
    """Score difference plus most of the best chest the mover can empty now."""
    hands, _, chests, _, diff, mover, _ = node
    best = 0
    hand = hands[mover]
    for value, placed, s0, s1 in chests:
        rest = value - placed
        if rest in hand:
            gain = (s0 if mover == 0 else s1) + rest
            if gain > best:
                best = gain
    return diff + (TAKE_WEIGHT * best if mover == 0 else -TAKE_WEIGHT * best)


def _expect(outcomes: list[tuple[float, Node | float]], depth: int) -> float:
    total = 0.0
    for p, child in outcomes:
        total += p * (child if isinstance(child, float) else search(child, depth))
    return total


def _last_ply(node: Node) -> float:
    """``search(node, 1)`` without building the leaves: the mover picks the move whose expected
    leaf (score difference minus most of the best chest the other player can then empty, over
    the other player's draw) is best. Revealed chests (11..15) never matter here: no card fits
    them whole."""
    hands, decks, chests, _, diff, mover, passes = node
    sign = 1 if mover == 0 else -1
    other = 1 - mover
    deck = decks[other]
    total = sum(deck)
    other_hand = hands[other]
    draws = total > 0 and len(other_hand) < 4
    moves = _moves(node)
    if not moves:
        if passes + 1 >= 2:
            return float(diff)
        return _leaf_after(diff, chests, other, other_hand, deck, total, draws)
    best = float("-inf")
    for card, index in moves:
        value, placed, s0, s1 = chests[index]
        placed += card
        d = diff
        if mover == 0:
            s0 += card
        else:
            s1 += card
        if placed == value:
            d += s0 if mover == 0 else -s1
            rest = chests[:index] + chests[index + 1 :]
            if not rest and not node[3]:
                leaf = float(d)
                if sign * leaf > best:
                    best = sign * leaf
                continue
        else:
            rest = chests[:index] + ((value, placed, s0, s1),) + chests[index + 1 :]
        leaf = _leaf_after(d, rest, other, other_hand, deck, total, draws)
        if sign * leaf > best:
            best = sign * leaf
    return sign * best


def _leaf_after(
    diff: int,
    chests: tuple[Any, ...],
    who: int,
    hand: tuple[int, ...],
    deck: tuple[int, ...],
    total: int,
    draws: bool,
) -> float:
    """Expected ``evaluate`` when ``who`` is about to move (after its draw, if any)."""
    gain_for = [0] * 7
    for value, placed, s0, s1 in chests:
        rest = value - placed
        if rest <= 6:
            gain = (s0 if who == 0 else s1) + rest
            if gain > gain_for[rest]:
                gain_for[rest] = gain
    base = max((gain_for[c] for c in hand), default=0)
    if draws:
        expected = 0.0
        for c in range(1, 7):
            if deck[c]:
                expected += deck[c] * max(base, gain_for[c])
        base_value = expected / total
    else:
        base_value = float(base)
    return diff + (TAKE_WEIGHT * base_value if who == 0 else -TAKE_WEIGHT * base_value)


class _OverBudget(Exception):
    """The depth-3 tree is larger than ``BUDGET`` last-ply expansions."""


_expansions = [0]


def search(node: Node, depth: int) -> float:
    """The expectiminimax value of ``node`` (bot frame) with ``depth`` plies left."""
    if depth == 0:
        return evaluate(node)
    if depth == 1:
        _expansions[0] += 1
        if _expansions[0] > BUDGET:
            raise _OverBudget
        return _last_ply(node)
    moves = _moves(node)
    if not moves:
        return _expect(_after_move(node, None), depth - 1)
    values = (_expect(_after_move(node, m), depth - 1) for m in moves)
    return max(values) if node[5] == 0 else min(values)


def choose(decision: Decision) -> Any:
    """The legal action with the best expectiminimax value (ties: the stable order)."""
    actions = decision.legal_actions
    if len(actions) == 1 or isinstance(actions[0], Pass):
        return actions[0]
    node = root_node(decision.observation)
    _expansions[0] = 0
    try:
        return best_action(node, actions, DEPTH)
    except _OverBudget:
        _expansions[0] = -(10**9)  # the shallower search is small: no limit
        return best_action(node, actions, DEPTH - 1)


def best_action(node: Node, actions: tuple[Any, ...], depth: int) -> Any:
    """The play with the best ``depth``-ply value (ties: the stable order)."""
    chests = node[2]
    best: Any = actions[0]
    best_value = float("-inf")
    for action in actions:
        if not isinstance(action, Play):
            continue
        index = next(i for i, c in enumerate(chests) if c[0] == action.chest)
        value = _expect(_after_move(node, (action.card, index)), depth - 1)
        if value > best_value + 1e-9:
            best, best_value = action, value
    return best


if __name__ == "__main__":
    from arena.sdk import run

    run(choose, name="expectimax")
