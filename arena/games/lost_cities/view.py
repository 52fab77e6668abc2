"""What a Lost Cities seat sees (:class:`View`, the observation sent to a bot) and the helpers
for bots that search, built from a view alone: the current round's history, the cards known to be
in the opponent's hand, the cards the seat has not seen (``GAME.determinize`` in
:mod:`~arena.games.lost_cities.rules` deals those out into a full state). Pure, standard library
only; ``arena.games.lost_cities`` re-exports the public names.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import chain, repeat

from arena.games.api import renamed
from arena.games.lost_cities.cards import (
    _ACTION_BY_TEXT,
    CARDS,
    FULL_DECK,
    N_COLOURS,
    NO_LAST_ACTIONS,
    Action,
    Card,
    Expeditions,
    Hand,
    HistoryEntry,
    LastActions,
)


@dataclass(frozen=True, slots=True)
class View:
    """What one seat may know (the observation sent to a bot)."""

    seat: int
    """The observing seat."""
    hand: Hand
    """The seat's own hand, sorted."""
    opponent_hand_size: int
    expeditions: tuple[Expeditions, Expeditions]
    """Both players' expeditions, ``expeditions[seat][colour]``, cards in the order played."""
    piles: tuple[tuple[Card, ...], ...]
    """The five discard piles (Y B W G R), whole contents, bottom first."""
    deck_count: int
    to_move: int | None
    """The seat to move, None once the match is over."""
    round: int
    """The round being played, from 0 (the last one once the match is over)."""
    rounds: int
    """Rounds in the match (option ``rounds``)."""
    starter_rule: str
    starter: int
    """The seat that started the current round."""
    turn: int
    """Turns played in the current round (both seats count)."""
    stall_guard_turns: int
    """From this turn count on, drawing from discard piles is illegal (arena rule)."""
    finished_rounds: tuple[tuple[int, int], ...]
    """Score pairs (seat 0, seat 1) of the finished rounds."""
    history: tuple[HistoryEntry, ...]
    """Every action of the match, (round, seat, action text); deck draws never name the card."""
    last_actions: LastActions = NO_LAST_ACTIONS
    """Each seat's most recent action in the current round, None before its first: what it
    played or discarded where, where it drew from, and the card it took from a discard pile
    (never the card drawn from the deck)."""

    @property
    def round_index(self) -> int:
        """Deprecated, read :attr:`round` (the old name, kept one release)."""
        result: int = renamed(self, "round_index", "round")
        return result


# --- helpers for bots that search -------------------------------------------------------------


def round_history(view: View) -> list[tuple[int, Action]]:
    """The (seat, action) pairs of the current round, oldest first."""
    return [
        (seat, _ACTION_BY_TEXT[text])
        for round_, seat, text in view.history
        if round_ == view.round
    ]


_PUBLIC_BY_TEXT: dict[str, tuple[int, int, bool, int | None]] = {
    text: (int(action.card), action.card.colour, action.discard, action.draw)
    for text, action in _ACTION_BY_TEXT.items()}
"""Card code, colour, discard and draw source of every action text (for replaying a round)."""


def _round_entries(view: View) -> Sequence[HistoryEntry]:
    """The history entries of the view's current round (its last ``turn`` entries, when they
    are; else found by their round index)."""
    history, current = view.history, view.round
    first = len(history) - view.turn
    if 0 <= first <= len(history) and (first == len(history) or history[first][0] == current) and (
            first == 0 or history[first - 1][0] != current):
        return history[first:]
    return [entry for entry in history if entry[0] == current]


def known_opponent_cards(view: View) -> list[Card]:
    """Cards known to be in the opponent's hand: taken from a discard pile this round and not
    played or discarded since (replays the round's public history)."""
    piles: list[list[int]] = [[] for _ in range(N_COLOURS)]
    known: list[int] = []
    me, public = view.seat, _PUBLIC_BY_TEXT
    for _, seat, text in _round_entries(view):
        code, colour, discard, draw = public[text]
        if seat != me and code in known:
            known.remove(code)
        if discard:
            piles[colour].append(code)
        if draw is not None and piles[draw]:
            taken = piles[draw].pop()
            if seat != me:
                known.append(taken)
    return [CARDS[code] for code in sorted(known)]


_HIDDEN: dict[str, tuple[View, tuple[Card, ...], tuple[Card, ...]]] = {}
"""The last view ``determinize`` was given (kept, so that no other object takes its identity),
its ``known_opponent_cards`` and the other unseen cards: a search determinizes one view again
and again."""


def _hidden_cards(view: View) -> tuple[tuple[Card, ...], tuple[Card, ...]]:
    """The opponent's known cards, and the unseen cards but those, sorted (kept for the last
    view)."""
    last = _HIDDEN.get("last")
    if last is not None and last[0] is view:
        return last[1], last[2]
    unknown = unseen_cards(view)
    known = known_opponent_cards(view)
    for card in known:
        unknown.remove(card)
    _HIDDEN["last"] = (view, tuple(known), tuple(unknown))
    return tuple(known), tuple(unknown)


_DECK_COUNTS: tuple[int, ...] = tuple(FULL_DECK.count(card) for card in CARDS)
"""How many of each card the deck holds, by code."""


def unseen_cards(view: View) -> list[Card]:
    """All cards the seat has not seen anywhere: the opponent's hand plus the deck (sorted)."""
    counts = list(_DECK_COUNTS)
    for card in view.hand:
        counts[card] -= 1
    for cards in (*view.expeditions[0], *view.expeditions[1], *view.piles):
        for card in cards:
            counts[card] -= 1
    return list(chain.from_iterable(map(repeat, CARDS, counts)))
