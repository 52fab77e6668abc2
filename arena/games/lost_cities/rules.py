"""Lost Cities (the classic 60-card, 5-colour, two-player card game): the pure rules engine.

Implements the rules in ``docs/games/lost-cities.md`` exactly: 60 cards, 8-card hands, one
decision per turn (card, place or discard, draw source), the re-draw ban, the round ending on the
last deck draw, scoring with the multiplier and the unmultiplied 8-card bonus, matches of 3 (or
1) rounds decided by the total, the starter rules and the arena's stall guard.

The cards, the actions and their texts are in :mod:`~arena.games.lost_cities.cards`, what a seat
sees and the helpers for bots that search in :mod:`~arena.games.lost_cities.view`; this module
names them too (as it did when it held them), so ``rules.View`` and ``rules.Card`` still work.

Arena rule (not printed): after ``stall_guard_turns`` turns in a round (default 150), drawing from
a discard pile is illegal, so the round ends within 44 more turns.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from arena.errors import IllegalActionError
from arena.games.api import (
    GameResult,
    Options,
    OptionSpec,
    result_of_rounds,
    round_seed,
    totals_of,
    validate_options,
)
from arena.games.lost_cities.cards import (
    _ACTION_BY_TEXT,
    _ACTIONS,
    _TEXT_OF,
    BONUS,
    BONUS_LENGTH,
    CARDS,
    COLOUR_NAMES,
    COLOURS,
    DECK_SIZE,
    EXPEDITION_COST,
    FULL_DECK,
    GAME_ID,
    HAND_SIZE,
    N_COLOURS,
    NO_LAST_ACTIONS,
    WAGER_LETTER,
    Action,
    Card,
    Deal,
    Expeditions,
    Hand,
    HistoryEntry,
    LastAction,
    LastActions,
    card_of,
    format_action,
    parse_action,
    parse_card,
)
from arena.games.lost_cities.view import (
    View,
    _hidden_cards,
    known_opponent_cards,
    round_history,
    unseen_cards,
)

__all__ = [  # (the names this module held before the cards and the view moved out, and its own)
    "BONUS", "BONUS_LENGTH", "CARDS", "COLOUR_NAMES", "COLOURS", "DECK_SIZE", "EXPEDITION_COST",
    "FULL_DECK", "GAME", "GAME_ID", "HAND_SIZE", "N_COLOURS", "NO_LAST_ACTIONS", "OPTION_SPECS",
    "WAGER_LETTER", "Action", "Card", "Deal", "Expeditions", "Hand", "HistoryEntry",
    "LastAction", "LastActions", "Log", "LostCitiesGame", "Move", "Rules", "Stack", "State",
    "View", "can_place", "card_of", "determinize", "expedition_score", "format_action",
    "known_opponent_cards", "last_action", "next_starter", "parse_action", "parse_card",
    "round_history", "round_score", "unseen_cards",
]


# --- the actions by card and by index ----------------------------------------------------------


def _build_tables() -> tuple[tuple[tuple[Action, ...], ...], tuple[tuple[Action, ...], ...]]:
    """Per card code and 5-bit mask of drawable piles: the legal actions in canonical order.

    ``play[code * 32 + mask]`` and ``discard[...]`` (the latter without the own colour's pile).
    """
    play: list[tuple[Action, ...]] = []
    discard: list[tuple[Action, ...]] = []
    for card in CARDS:
        for mask in range(32):
            srcs = [None] + [c for c in range(N_COLOURS) if mask >> c & 1]
            play.append(tuple(_ACTIONS[(int(card), False, s)] for s in srcs))
            discard.append(tuple(_ACTIONS[(int(card), True, s)] for s in srcs if s != card.colour))
    return tuple(play), tuple(discard)


_PLAY_TABLE, _DISCARD_TABLE = _build_tables()


def _action_index(code: int, discard: bool, draw: int | None) -> int:
    """A small int naming an action: ``code * 12 + 6 * discard + (0 for the deck, 1 + pile)``."""
    return code * 12 + (6 if discard else 0) + (0 if draw is None else draw + 1)


_TEXT_BY_INDEX: tuple[str, ...] = tuple(
    _TEXT_OF.get((index // 12, index % 12 >= 6, None if index % 6 == 0 else index % 6 - 1), "")
    for index in range(N_COLOURS * 10 * 12)
)
"""The canonical text of every action, by :func:`_action_index`."""

# --- legal actions by colour -----------------------------------------------------------------
# The legal actions of the seat to move depend on three things only: which distinct cards it
# holds, which of them it may place on its expeditions, and which discard piles may be drawn
# from. The engine keeps, per seat and colour, one int key up to date in ``apply``:
#     colour << 20 | threshold << 16 | numbers held << 7 | wagers held << 5
# (numbers: a bit per rank 1..9, rank r at bit r + 6; wagers: their count 0..3; threshold: the
# lowest placeable rank, 0 for the wagers, 10 when none). A card leaves or joins the hand by
# subtracting or adding its ``_CARD_BITS``. A colour key names (cached) the indices of its held
# cards in ``_CARD_TABLES[mask]``, the cards' legal actions when the piles of the 5-bit mask may
# be drawn from (a cache by key and mask would hold ten times the keys: random play would meet
# a new one every few turns). The key also names the colour's part of the sorted hand.

_THRESHOLD_SHIFT = 16
_THRESHOLD_BITS = 15 << _THRESHOLD_SHIFT
_COLOUR_SHIFT = 20
_RANK_BITS = (1 << 5,) + tuple(1 << (rank + 6) for rank in range(1, 10))
"""What a card of each rank adds to its colour key in hand (a wager: one to the count)."""
_HELD_BITS = (3 << 5,) + _RANK_BITS[1:]
"""The bits of a colour key that say a card of each rank is held."""
_CARD_BITS = _RANK_BITS * N_COLOURS
"""``_RANK_BITS`` by card code."""
_CARD_TABLES: tuple[tuple[tuple[Action, ...], ...], ...] = tuple(
    tuple(
        (_PLAY_TABLE[code * 32 + mask] if placeable else ()) + _DISCARD_TABLE[code * 32 + mask]
        for code in range(N_COLOURS * 10)
        for placeable in (0, 1)
    )
    for mask in range(32)
)
"""Per mask of drawable piles, a card's legal actions at ``code * 2 + placeable``: its plays
(when placeable) then its discards, each drawing from the deck or a pile of the mask."""
_BASES: dict[int, tuple[int, ...]] = {}
"""The ``_CARD_TABLES`` indices ``code * 2 + placeable`` of the cards a colour key holds, in
card order; filled on demand (random play meets some 20,000 keys in 1,000 matches)."""
_CACHE_LIMIT = 100_000
"""``_BASES`` and ``_SEAT_EXPEDITIONS`` are each emptied when they hold this many keys (about
15 MB each)."""


def _bases(key: int) -> tuple[int, ...]:
    """The table indices of a colour key's held cards (cached)."""
    found = _BASES.get(key)
    if found is None:
        if len(_BASES) >= _CACHE_LIMIT:
            _BASES.clear()
        colour, threshold = key >> _COLOUR_SHIFT & 7, key >> _THRESHOLD_SHIFT & 15
        found = _BASES[key] = tuple(
            (colour * 10 + rank) * 2 + (rank >= threshold)
            for rank in range(10)
            if key & _HELD_BITS[rank]
        )
    return found


_HAND_PARTS: dict[int, tuple[Card, ...]] = {}
"""The cards a colour key holds, sorted, by key without its threshold; filled on demand."""
_HAND_PART_BITS = ~_THRESHOLD_BITS


def _hand_part(key: int) -> tuple[Card, ...]:
    """The cards a colour key holds, sorted (cached)."""
    key &= _HAND_PART_BITS
    found = _HAND_PARTS.get(key)
    if found is None:
        first = (key >> _COLOUR_SHIFT & 7) * 10
        found = _HAND_PARTS[key] = (CARDS[first],) * (key >> 5 & 3) + tuple(
            CARDS[first + rank] for rank in range(1, 10) if key & _HELD_BITS[rank]
        )
    return found


def _threshold(expedition: Sequence[Card]) -> int:
    """The lowest rank (``code % 10``) still placeable on an expedition: 0 while it holds no
    number (any card), the top number's rank + 1 after (10: nothing)."""
    rank = int(expedition[-1]) % 10 if expedition else 0
    return rank + 1 if rank else 0


def _colour_keys(hand: Hand, expeditions: Expeditions | None) -> tuple[int, ...]:
    """A seat's five colour keys (see above) computed from its hand and expeditions (None:
    none placed yet)."""
    keys = list(_EMPTY_KEYS) if expeditions is None else [
        colour << _COLOUR_SHIFT | _threshold(expeditions[colour]) << _THRESHOLD_SHIFT
        for colour in range(N_COLOURS)]
    for card in hand:
        keys[int(card) // 10] += _CARD_BITS[card]
    return tuple(keys)


_EMPTY_KEYS = tuple(colour << _COLOUR_SHIFT for colour in range(N_COLOURS))
"""The colour keys of an empty hand with no expedition started."""


_CODES: dict[object, int] = {code: code for code in range(N_COLOURS * 10)}


def _code_of(card: object) -> int:
    """The code of a card given in an action (a ``Card``, or a number equal to one: what
    ``card in hand`` would find), -1 for anything else."""
    try:
        return _CODES.get(card, -1)
    except TypeError:  # unhashable
        return -1


Move = tuple[int, int, int, bool, int | None, int, int, int, int, int]
"""An action as the engine checks and plays it: (card code, colour, rank, discard, draw,
:func:`_action_index`, the threshold bits of the card's expedition once it is placed; then what
``_legal_move`` checks: the colour key's bits that hold the card, the highest threshold bits
that allow it (any for a discard), the bit of the pile drawn from in the pile mask (0 for the
deck; 32, never set, for the pile just discarded onto))."""


def _move(index: int) -> Move:
    """The :data:`Move` of an :func:`_action_index`."""
    code, discard, source = index // 12, index % 12 >= 6, index % 6
    colour, rank = code // 10, code % 10
    draw = None if source == 0 else source - 1
    return (code, colour, rank, discard, draw, index,
            (rank + 1 if rank else 0) << _THRESHOLD_SHIFT, _HELD_BITS[rank],
            _THRESHOLD_BITS if discard else rank << _THRESHOLD_SHIFT,
            0 if draw is None else 32 if discard and draw == colour else 1 << draw)


_MOVES: tuple[Move, ...] = tuple(_move(index) for index in range(N_COLOURS * 10 * 12))
_MOVE_BY_ID: dict[int, Move] = {
    id(action): _MOVES[_action_index(int(action.card), action.discard, action.draw)]
    for action in _ACTIONS.values()
}
"""The moves of the interned actions (those ``legal_actions`` and ``parse_action`` return), by
``id``: they live as long as the module, so no other object has their ids."""
_TEXT_BY_ID: dict[int, str] = {id(action): text for text, action in _ACTION_BY_TEXT.items()}
"""The canonical texts of the interned actions, by ``id`` (as ``_MOVE_BY_ID``)."""


def _move_of(action: object) -> Move | None:
    """The move of any action value, None when it is not a well-formed Lost Cities action."""
    if not isinstance(action, Action):
        return None
    code, draw = _code_of(action.card), action.draw
    if code < 0 or not (draw is None or isinstance(draw, int) and 0 <= draw < N_COLOURS):
        return None
    return _MOVES[_action_index(code, bool(action.discard), draw)]


_MOVE_BY_TEXT: dict[str, Move] = {
    text: _MOVES[index] for index, text in enumerate(_TEXT_BY_INDEX) if text}
"""The move of every action text (for replaying histories)."""
_LAST: dict[int, LastAction] = {}
"""Interned ``LastAction`` values by action index * 64 + (drawn code + 1, or 0)."""
_ACTION_BY_INDEX: tuple[Action | None, ...] = tuple(
    _ACTION_BY_TEXT.get(text) for text in _TEXT_BY_INDEX)


def last_action(action: Action, drawn: Card | None) -> LastAction:
    """The (interned) ``LastAction`` of a turn: ``drawn`` is the card taken from a discard
    pile, None for a deck draw."""
    return _last_of(_action_index(int(action.card), action.discard, action.draw), drawn)


def _last_of(index: int, drawn: Card | None) -> LastAction:
    """``last_action`` of the action with this :func:`_action_index`."""
    return _last_by_key(index * 64 + (0 if drawn is None else int(drawn) + 1))


def _last_by_key(key: int) -> LastAction:
    """The interned ``LastAction`` of a ``_LAST`` key (action index * 64 + drawn code + 1, or
    0 for a deck draw)."""
    found = _LAST.get(key)
    if found is None:
        action = _ACTION_BY_INDEX[key >> 6]
        assert action is not None
        drawn = key & 63
        found = _LAST[key] = LastAction(action, CARDS[drawn - 1] if drawn else None)
    return found


def _last_key(last: LastAction) -> int:
    """The ``_LAST`` key of a last action."""
    action, drawn = last.action, last.drawn
    index = _action_index(int(action.card), action.discard, action.draw)
    return index * 64 + (0 if drawn is None else int(drawn) + 1)


# --- options and state -------------------------------------------------------------------------

OPTION_SPECS: tuple[OptionSpec, ...] = (
    OptionSpec("rounds", 3, choices=(3, 1), help="rounds per match (3, or 1 for a short match)"),
    OptionSpec(
        "starter_rule",
        "previous_round",
        choices=("previous_round", "cumulative"),
        help="who starts rounds 2 and 3: higher previous-round score, or higher running total",
    ),
    OptionSpec(
        "stall_guard_turns",
        150,
        minimum=0,
        maximum=100_000,
        help="arena rule: after this many turns in a round, drawing from discard piles is illegal",
    ),
)


@dataclass(frozen=True, slots=True)
class Rules:
    """The validated options of a match."""

    rounds: int = 3
    starter_rule: str = "previous_round"
    stall_guard_turns: int = 150


_DEFAULT_RULES = Rules(**validate_options(OPTION_SPECS, None))
"""The rules of a match with no options given (the options' defaults)."""


@dataclass(frozen=True)
class State:
    """The full (omniscient) state of a match. Immutable; ``GAME.apply`` returns a new one.

    Besides the public fields it carries what makes a turn cheap, kept up to date by ``apply``
    and derived afresh whenever a state is built by ``State(...)`` or ``dataclasses.replace``:
    both seats' colour keys (the hands and what may be placed: see "legal actions by colour"),
    the mask of non-empty piles, the expeditions as one int, the piles as linked stacks, each
    seat's last action as an int, and the history as a linked log shared by lines of play.
    ``apply`` builds none of ``hands``, ``expeditions``, ``piles``, ``history`` and
    ``last_actions`` for a state whose fields were not read: they are made from the private
    fields on first read, then kept (see ``_Made`` and ``_carry_made``). ``pickle`` and
    ``copy`` keep the history, not the log (see ``__getstate__``).
    """

    rules: Rules
    seed: int
    round_index: int
    """0-based index of the round being played (the last round once the match is over)."""
    finished: tuple[tuple[int, int], ...]
    """Score pairs of the finished rounds."""
    starter: int
    """The seat that started the current round."""
    player: int | None
    """The seat to move, None once the match is over."""
    hands: tuple[Hand, Hand]
    """Both hands, each sorted."""
    expeditions: tuple[Expeditions, Expeditions]
    """``expeditions[seat][colour]``."""
    piles: tuple[tuple[Card, ...], ...]
    """The five discard piles, bottom first (the last card is the top)."""
    deck: tuple[Card, ...]
    """This round's draw deck in drawing order; cards before ``deck_pos`` have been drawn."""
    deck_pos: int
    turn: int
    """Turns played in the current round."""
    history: tuple[HistoryEntry, ...]
    """Every action of the match so far (public)."""
    deal: Deal
    """The round's deal as dealt: seat 0's hand, seat 1's hand, the deck (for match logs)."""
    last_actions: LastActions
    """Each seat's most recent action in the current round (public), None before its first."""
    _keys0: tuple[int, ...] = field(init=False, repr=False, compare=False)
    """Seat 0's five colour keys (its hand, and what it may place)."""
    _keys1: tuple[int, ...] = field(init=False, repr=False, compare=False)
    """Seat 1's five colour keys."""
    _mask: int = field(init=False, repr=False, compare=False)
    """Bit ``colour`` set when that discard pile is not empty."""
    _exp: int = field(init=False, repr=False, compare=False)
    """Both seats' expeditions, 12 bits each (see ``_EXP_ADD``)."""
    _pile0: Stack = field(init=False, repr=False, compare=False)
    """The yellow discard pile as a linked stack (see ``Stack``); ``_pile1`` .. ``_pile4``:
    blue, white, green, red."""
    _pile1: Stack = field(init=False, repr=False, compare=False)
    _pile2: Stack = field(init=False, repr=False, compare=False)
    _pile3: Stack = field(init=False, repr=False, compare=False)
    _pile4: Stack = field(init=False, repr=False, compare=False)
    _last0: int = field(init=False, repr=False, compare=False)
    """Seat 0's last action as a ``_LAST`` key (-1: none yet)."""
    _last1: int = field(init=False, repr=False, compare=False)
    """Seat 1's last action as a ``_LAST`` key (-1: none yet)."""
    _made: bool = field(init=False, repr=False, compare=False)
    """Whether the instance dict may hold some of the public fields ``apply`` does not build
    (given to ``State(...)``, made when read, or carried over: see ``_Made``)."""
    _log: Log = field(init=False, repr=False, compare=False)
    """What ``history`` is made from: the history given to ``State(...)``, or after ``apply``
    a node of the linked log (see ``Log``), shared by every line of play through it."""

    def __post_init__(self) -> None:
        """Derive the private fields from the public ones (a state built by ``State(...)`` or
        ``dataclasses.replace``)."""
        _derive(self.__dict__)

    @property
    def deck_count(self) -> int:
        """Cards left in the draw deck."""
        return len(self.deck) - self.deck_pos

    def __getstate__(self) -> dict[str, Any]:
        """What ``pickle`` and ``copy`` keep: the fields, the linked log as its history (a
        long line of play would nest too deep for them)."""
        fields = dict(self.__dict__)
        fields["_log"] = self.history
        return fields


Stack = tuple[int, Any] | None
"""A discard pile as a linked stack: ``(top card code, the stack below)``, None when empty."""
_PILE_NAMES = ("_pile0", "_pile1", "_pile2", "_pile3", "_pile4")
"""The ``State`` fields of the piles as stacks, by colour."""


def _stack_of(pile: Sequence[Card]) -> Stack:
    """The linked stack of a pile given bottom first."""
    stack: Stack = None
    for card in pile:
        stack = (card, stack)
    return stack


def _derive(fields: dict[str, Any]) -> None:
    """Add to the instance dict of a state built from its public fields (by ``State(...)``,
    ``dataclasses.replace`` or ``determinize``) the private fields derived from them."""
    hands, expeditions, piles = fields["hands"], fields["expeditions"], fields["piles"]
    fields["_keys0"] = _colour_keys(hands[0], expeditions[0])
    fields["_keys1"] = _colour_keys(hands[1], expeditions[1])
    fields["_mask"] = _pile_mask(piles)
    fields["_exp"] = _exp_of(expeditions)
    for seat, last in enumerate(fields["last_actions"]):
        fields[_LAST_NAMES[seat]] = -1 if last is None else _last_key(last)
    for name, pile in zip(_PILE_NAMES, piles, strict=True):
        fields[name] = _stack_of(pile)
    history = fields["history"]  # (a list given would read as a node of the log)
    fields["_log"] = history if history.__class__ is tuple else tuple(history)
    fields["_made"] = True


def _piles_of(state: State) -> tuple[tuple[Card, ...], ...]:
    """The five piles, bottom first, made from the linked stacks."""
    piles = []
    fields = state.__dict__
    for name in _PILE_NAMES:
        stack = fields[name]
        cards: list[Card] = []
        while stack is not None:
            cards.append(CARDS[stack[0]])
            stack = stack[1]
        cards.reverse()
        piles.append(tuple(cards))
    return tuple(piles)


_EXP_BITS = 12
"""Bits per seat and colour in ``State._exp``: the wager count (bits 0-1), then a bit per
number placed (rank r at bit r + 2): an expedition is always its wagers then rising numbers."""
_EXP_ADD: tuple[int, ...] = tuple(
    1 << ((seat * N_COLOURS + code // 10) * _EXP_BITS + (code % 10 + 2 if code % 10 else 0))
    for seat in (0, 1)
    for code in range(N_COLOURS * 10)
)
"""What placing a card adds to ``State._exp``, at ``seat * 50 + code``."""
_EXP_PARTS: dict[int, tuple[Card, ...]] = {}
"""The cards of one expedition by ``colour << 12 | its 12 bits``; filled on demand."""


def _exp_of(expeditions: tuple[Expeditions, Expeditions]) -> int:
    """``State._exp`` of both seats' expeditions."""
    exp = 0
    for seat, first in ((0, 0), (1, 50)):
        for expedition in expeditions[seat]:
            for card in expedition:
                exp += _EXP_ADD[first + card]
    return exp


def _expedition(colour: int, bits: int) -> tuple[Card, ...]:
    """The cards of an expedition of this colour from its 12 bits (cached)."""
    found = _EXP_PARTS.get(colour << _EXP_BITS | bits)
    if found is None:
        first = colour * 10
        found = _EXP_PARTS[colour << _EXP_BITS | bits] = (CARDS[first],) * (bits & 3) + tuple(
            CARDS[first + rank] for rank in range(1, 10) if bits >> (rank + 2) & 1)
    return found


_SEAT_BITS = N_COLOURS * _EXP_BITS
_SEAT_EXPEDITIONS: dict[int, Expeditions] = {}
"""One seat's five expeditions by its ``_SEAT_BITS`` bits of ``State._exp``; filled on demand
(a search reads the same ones again and again: one seat's change at a time)."""


def _seat_expeditions(bits: int) -> Expeditions:
    """One seat's five expeditions from its bits of ``State._exp`` (cached)."""
    found = _SEAT_EXPEDITIONS.get(bits)
    if found is None:
        if len(_SEAT_EXPEDITIONS) >= _CACHE_LIMIT:
            _SEAT_EXPEDITIONS.clear()
        full = (1 << _EXP_BITS) - 1
        found = _SEAT_EXPEDITIONS[bits] = tuple(
            _expedition(colour, bits >> colour * _EXP_BITS & full) for colour in range(N_COLOURS))
    return found


def _expeditions_of(state: State) -> tuple[Expeditions, Expeditions]:
    """Both seats' expeditions, made from ``State._exp``."""
    exp = state._exp
    return (_seat_expeditions(exp & (1 << _SEAT_BITS) - 1), _seat_expeditions(exp >> _SEAT_BITS))


def _hands_of(state: State) -> tuple[Hand, Hand]:
    """Both hands, made from the colour keys."""
    hands = []
    for y, b, w, g, r in (state._keys0, state._keys1):
        try:
            parts, bits = _HAND_PARTS, _HAND_PART_BITS
            hands.append(parts[y & bits] + parts[b & bits] + parts[w & bits] + parts[g & bits]
                         + parts[r & bits])
        except KeyError:
            hands.append(_hand_part(y) + _hand_part(b) + _hand_part(w) + _hand_part(g)
                         + _hand_part(r))
    return hands[0], hands[1]


Log = tuple[HistoryEntry, ...] | list[Any]
"""The history as ``apply`` keeps it: a node ``[entry, the node or history before it, the
history made at this node or None]`` whose first ancestor that is not a node is the history
given to ``State(...)``. Branching from a state shares its node; reading a state's history
walks up to the nearest history made (taking it from that node: a line of play read turn by
turn walks one node each time) and keeps the result at the state's own node."""


def _history_of(state: State) -> tuple[HistoryEntry, ...]:
    """The history, made from the linked log."""
    node = state._log
    if node.__class__ is not list:
        return node  # type: ignore[return-value]
    entries = []
    above: Any = node
    while above.__class__ is list:
        made = above[2]
        if made is not None:
            if above is not node:
                above[2] = None  # (taken along: only this line's next states read it again)
            break
        entries.append(above[0])
        above = above[1]
    else:
        made = above
    entries.reverse()
    history: tuple[HistoryEntry, ...] = made + tuple(entries)
    node[2] = history
    return history


def _last_actions_of(state: State) -> LastActions:
    """Each seat's last action, made from its ``_LAST`` key."""
    first, second = state._last0, state._last1
    return (None if first < 0 else _LAST.get(first) or _last_by_key(first),
            None if second < 0 else _LAST.get(second) or _last_by_key(second))


class _Made:
    """A public field of ``State`` that ``apply`` does not build: ``State(...)`` stores the
    value given in the instance dict; after ``apply`` it is made from the private fields on
    first read and stored there (this descriptor only answers while the dict has no value).
    ``_made`` says whether the dict may hold one; ``apply`` then carries them into the next
    state as the turn changes them, or leaves them out (see ``_carry_made``)."""

    def __init__(self, name: str, make: Callable[[State], Any]) -> None:
        self.name = name
        self.make = make

    def __get__(self, state: State | None, owner: type | None = None) -> Any:
        if state is None:
            return self
        value = self.make(state)
        fields = state.__dict__
        fields["_made"] = True  # (before the value: a copy that has the value has the flag)
        fields[self.name] = value
        return value


_MADE_NAMES = ("hands", "expeditions", "piles", "history", "last_actions")


def _carry_made(fields: dict[str, Any], seat: int, move: Move) -> None:
    """The public fields made on a state, in the copy of its instance dict that becomes the
    next state: the piles and expeditions changed by the turn (as the turn changes them: a
    search reads them on every state), the hands, history and last actions left out (made
    when read, from the private fields)."""
    code, colour, _, discard, draw, _, _, _, _, _ = move
    fields.pop("hands", None)
    fields.pop("history", None)
    fields.pop("last_actions", None)
    piles = fields.get("piles")
    if piles is not None and (discard or draw is not None):
        changed = list(piles)
        if discard:
            changed[colour] = (*changed[colour], CARDS[code])
        if draw is not None:
            changed[draw] = tuple(changed[draw][:-1])
        fields["piles"] = tuple(changed)
    expeditions = fields.get("expeditions")
    if expeditions is not None and not discard:
        mine = list(expeditions[seat])
        mine[colour] = (*mine[colour], CARDS[code])
        fields["expeditions"] = ((tuple(mine), expeditions[1]) if seat == 0
                                 else (expeditions[0], tuple(mine)))
    fields["_made"] = "piles" in fields or "expeditions" in fields


for _name, _make in zip(_MADE_NAMES, (_hands_of, _expeditions_of, _piles_of, _history_of,
                                       _last_actions_of), strict=True):
    setattr(State, _name, _Made(_name, _make))  # after @dataclass made __init__ and __eq__


_new_object = object.__new__
_set_attribute = object.__setattr__
_LAST_NAMES = ("_last0", "_last1")
_KEY_NAMES = ("_keys0", "_keys1")


def _legal_move(state: State, action: Action) -> Move | None:
    """The action as a :data:`Move` when it is legal in ``state``, else None (the one check of
    ``is_legal`` and ``apply``)."""
    seat = state.player
    if seat is None:
        return None
    move = _MOVE_BY_ID.get(id(action)) or _move_of(action)
    if move is None:
        return None
    _, colour, _, _, _, _, _, held, highest, pile = move
    key = (state._keys1 if seat else state._keys0)[colour]
    if (key & held  # in hand
            and key & _THRESHOLD_BITS <= highest  # not below the expedition
            and (not pile or state._mask & pile and state.turn < state.rules.stall_guard_turns)):
        return move
    return None


# --- scoring -----------------------------------------------------------------------------------


def expedition_score(cards: Sequence[Card]) -> int:
    """The score of one expedition (docs/games/lost-cities.md, "Scoring"): 0 if empty, else
    (sum - 20) * (1 + wagers) [+20 with 8 or more cards]."""
    if not cards:
        return 0
    wagers = 0
    total = 0
    for card in cards:
        rank = int(card) % 10
        if rank:
            total += rank + 1
        else:
            wagers += 1
    score = (total - EXPEDITION_COST) * (1 + wagers)
    if len(cards) >= BONUS_LENGTH:
        score += BONUS
    return score


def round_score(expeditions: Expeditions) -> int:
    """A player's round score: the sum over the five expeditions."""
    return sum(expedition_score(e) for e in expeditions)


_EXP_SCORES: dict[int, int] = {}
"""``expedition_score`` by ``colour << 12 | an expedition's 12 bits``; filled on demand."""


def _round_scores(exp: int) -> tuple[int, int]:
    """Both seats' round scores from ``State._exp``."""
    full, scores = (1 << _EXP_BITS) - 1, [0, 0]
    for part in range(2 * N_COLOURS):
        key = part % N_COLOURS << _EXP_BITS | exp >> part * _EXP_BITS & full
        score = _EXP_SCORES.get(key)
        if score is None:
            score = _EXP_SCORES[key] = expedition_score(_expedition(key >> _EXP_BITS, key & full))
        scores[part // N_COLOURS] += score
    return scores[0], scores[1]


def can_place(expedition: Sequence[Card], card: Card) -> bool:
    """Whether ``card`` may be placed on ``expedition`` (same colour assumed; "Legal moves")."""
    return not expedition or card >= expedition[-1]


# --- the game ----------------------------------------------------------------------------------


_SHUFFLE_STEPS: tuple[tuple[int, int, int], ...] = tuple(
    (i, i + 1, (i + 1).bit_length()) for i in reversed(range(1, len(FULL_DECK))))
"""``random.shuffle``'s steps for the 60 cards: (position, choices, bits drawn per try)."""


def _deal(seed: int, round_index: int) -> Deal:
    """The deal of a round of the match with this seed: the cards shuffled exactly as
    ``random.Random(round_seed(...)).shuffle`` does (Fisher-Yates from the end, each index drawn
    by ``getrandbits`` with rejection: ``Random._randbelow``), written out to save its calls."""
    cards = list(FULL_DECK)
    bits = random.Random(round_seed(seed, round_index, GAME_ID)).getrandbits
    for i, n, k in _SHUFFLE_STEPS:
        j = bits(k)
        while j >= n:
            j = bits(k)
        cards[i], cards[j] = cards[j], cards[i]
    return (
        tuple(sorted(cards[:HAND_SIZE])),
        tuple(sorted(cards[HAND_SIZE : 2 * HAND_SIZE])),
        tuple(cards[2 * HAND_SIZE :]),
    )


_NO_PILES: dict[str, Stack] = dict.fromkeys(_PILE_NAMES)


def _start_round(
    rules: Rules,
    seed: int,
    round_index: int,
    finished: tuple[tuple[int, int], ...],
    starter: int,
    log: Log,
    deal: Deal,
) -> State:
    """Round ``round_index`` as dealt (``deal``), ``starter`` to move, after the history of
    ``log`` (a history, or the linked log of the previous round's last state)."""
    fields = {
        "rules": rules, "seed": seed, "round_index": round_index, "finished": finished,
        "starter": starter, "player": starter, "deck": deal[2], "deck_pos": 0, "turn": 0,
        "deal": deal, "_made": False,
        "_keys0": _colour_keys(deal[0], None), "_keys1": _colour_keys(deal[1], None),
        "_mask": 0, "_exp": 0, "_last0": -1, "_last1": -1, "_log": log, **_NO_PILES}
    state = _new_object(State)  # (what State(...) derives, known for a round as dealt; the
    # public fields it is given are made when read)
    _set_attribute(state, "__dict__", fields)
    return state


def next_starter(rules: Rules, finished: Sequence[tuple[int, int]]) -> int:
    """Who starts the next round (rules 17 and 19); ties go to seat 0, round 1's starter."""
    if rules.starter_rule == "cumulative":
        a, b = totals_of(finished)
    else:
        a, b = finished[-1]
    return 1 if b > a else 0


def _pile_mask(piles: tuple[tuple[Card, ...], ...]) -> int:
    mask = 0
    for colour in range(N_COLOURS):
        if piles[colour]:
            mask |= 1 << colour
    return mask


class LostCitiesGame:
    """The Lost Cities rules engine (see the module docstring)."""

    id = GAME_ID
    version = 1
    title = "Lost Cities"
    option_specs = OPTION_SPECS

    # --- set-up and queries ----------------------------------------------------------------
    def new_match(self, seed: int, options: Options | None = None) -> State:
        """Deal round 1; raises ``OptionsError`` on bad options."""
        if options:
            opts = validate_options(self.option_specs, options)
            rules = Rules(opts["rounds"], opts["starter_rule"], opts["stall_guard_turns"])
        else:  # (what validating no options gives)
            rules = _DEFAULT_RULES
        return _start_round(rules, seed, 0, (), 0, (), _deal(seed, 0))

    def options_of(self, state: State) -> dict[str, Any]:
        rules = state.rules
        return {
            "rounds": rules.rounds,
            "starter_rule": rules.starter_rule,
            "stall_guard_turns": rules.stall_guard_turns,
        }

    def to_move(self, state: State) -> int | None:
        return state.player

    def playout(self, state: State, rng: random.Random) -> tuple[int, int]:
        """The score pair of the running round of ``state`` once a cheap heuristic has played
        it out for both seats (the protocol's optional search hook; ``playout``)."""
        from arena.games.lost_cities.playout import playout

        return playout(state)

    def round_index(self, state: State) -> int:
        return state.round_index

    def finished_rounds(self, state: State) -> tuple[tuple[int, int], ...]:
        return state.finished

    def legal_actions(self, state: State) -> tuple[Action, ...]:
        """Every legal action, ordered by card, then play before discard, then deck, Y..R."""
        seat = state.player
        if seat is None:
            return ()
        mask = state._mask if state.turn < state.rules.stall_guard_turns else 0
        y, b, w, g, r = state._keys1 if seat else state._keys0
        known = _BASES
        try:
            bases = known[y] + known[b] + known[w] + known[g] + known[r]
        except KeyError:
            bases = _bases(y) + _bases(b) + _bases(w) + _bases(g) + _bases(r)
        table = _CARD_TABLES[mask]
        out: list[Action] = []
        for index in bases:
            out += table[index]
        return tuple(out)

    def legal_texts(self, state: State) -> tuple[str, ...]:
        """``format_action`` of each legal action, in order (the referee sends them with every
        decision): the texts of the engine's own action values, looked up."""
        return tuple(map(_TEXT_BY_ID.__getitem__, map(id, self.legal_actions(state))))

    def is_legal(self, state: State, action: Action) -> bool:
        return _legal_move(state, action) is not None

    # --- transitions -------------------------------------------------------------------------
    def apply(self, state: State, action: Action) -> State:
        """Play one turn; raises ``IllegalActionError`` if the action is not legal now.

        The hot path of every search: it updates the private fields (colour keys, pile mask,
        expeditions, piles, last actions, the linked history log) and leaves the public fields
        they stand for to be made when first read (or, on a line that reads them, carries the
        piles and expeditions over as the turn changes them)."""
        move = _legal_move(state, action)
        if move is None:
            raise IllegalActionError(self._why_illegal(state, action))
        fields = state.__dict__.copy()  # the next state: a copy with some fields changed
        seat: int = fields["player"]
        code, colour, rank, discard, draw, index, threshold, _, _, _ = move
        if fields["_made"]:
            _carry_made(fields, seat, move)
        keys = list(fields[_KEY_NAMES[seat]])
        keys[colour] -= _CARD_BITS[code]
        if discard:
            name = _PILE_NAMES[colour]
            fields[name] = (code, fields[name])
            fields["_mask"] |= 1 << colour
        else:
            fields["_exp"] += _EXP_ADD[seat * 50 + code]
            if rank:  # (a wager keeps the threshold at 0)
                keys[colour] = keys[colour] & ~_THRESHOLD_BITS | threshold
        if draw is None:
            deck_pos = fields["deck_pos"]
            drawn = state.deck[deck_pos]
            fields["deck_pos"] = deck_pos = deck_pos + 1
            fields[_LAST_NAMES[seat]] = index * 64
        else:
            name = _PILE_NAMES[draw]
            drawn, below = fields[name]
            fields[name] = below
            if below is None:
                fields["_mask"] &= ~(1 << draw)
            fields[_LAST_NAMES[seat]] = index * 64 + drawn + 1
            deck_pos = -1  # (the round goes on)
        keys[drawn // 10] += _CARD_BITS[drawn]
        fields[_KEY_NAMES[seat]] = tuple(keys)
        fields["_log"] = [(fields["round_index"], seat, _TEXT_BY_INDEX[index]), fields["_log"],
                          None]
        fields["player"] = 1 - seat
        fields["turn"] += 1
        after = _new_object(State)
        _set_attribute(after, "__dict__", fields)
        if deck_pos == len(state.deck):
            return self._end_round(after)
        return after

    def _end_round(self, after: State) -> State:
        """The state after the last deck card was drawn (``after``: the round's last turn
        played): the next round dealt, or the match over."""
        finished = after.finished + (_round_scores(after._exp),)
        rules = after.rules
        if len(finished) < rules.rounds:
            starter = next_starter(rules, finished)
            index = after.round_index + 1
            deal = _deal(after.seed, index)
            return _start_round(rules, after.seed, index, finished, starter, after._log, deal)
        fields = after.__dict__.copy()  # (its public fields made from the same private ones)
        fields["finished"], fields["player"] = finished, None
        over = _new_object(State)
        _set_attribute(over, "__dict__", fields)
        return over

    def _why_illegal(self, state: State, action: Action) -> str:
        """The error of ``apply`` for an illegal action: its text and the reason."""
        if state.player is None or not isinstance(action, Action):
            return self.explain_illegal(state, action)
        return f"{format_action(action)}: {self.explain_illegal(state, action)}"

    def explain_illegal(self, state: State, action: Action) -> str:
        """Why ``action`` is illegal in ``state``, in one short sentence naming only what the
        seat to move sees (its hand, the table, the turn count); "" for a legal action."""
        if state.player is None:
            return "the match is over"
        if not isinstance(action, Action):
            return f"not a Lost Cities action: {action!r}"
        if self.is_legal(state, action):
            return ""
        card, draw = action.card, action.draw
        if card not in state.hands[state.player]:
            return f"{card} is not in your hand"
        colour = int(card) // 10
        exp = state.expeditions[state.player][colour]
        if not action.discard and exp and card < exp[-1]:
            return f"{card} cannot follow {exp[-1]} on your expedition"
        if not isinstance(draw, int) or not 0 <= draw < N_COLOURS:  # (a deck draw is legal here)
            return f"no discard pile {draw!r}"
        if state.turn >= state.rules.stall_guard_turns:
            return "stall guard reached, only the deck may be drawn from"
        if action.discard and draw == colour:
            return "cannot draw from the pile just discarded onto"
        return f"the {COLOUR_NAMES[draw]} discard pile is empty"

    # --- information -------------------------------------------------------------------------
    def observation(self, state: State, seat: int) -> View:
        """Exactly what ``seat`` may know (docs/games/lost-cities.md, "What a bot sees")."""
        return View(
            seat=seat,
            hand=state.hands[seat],
            opponent_hand_size=len(state.hands[1 - seat]),
            expeditions=state.expeditions,
            piles=state.piles,
            deck_count=state.deck_count,
            to_move=state.player,
            round=state.round_index,
            rounds=state.rules.rounds,
            starter_rule=state.rules.starter_rule,
            starter=state.starter,
            turn=state.turn,
            stall_guard_turns=state.rules.stall_guard_turns,
            finished_rounds=state.finished,
            history=state.history,
            last_actions=state.last_actions,
        )

    def outcome(self, state: State) -> GameResult | None:
        if state.player is not None:
            return None
        return result_of_rounds(state.finished)

    def parse_action(self, text: str) -> Action:
        return parse_action(text)

    def format_action(self, action: Action) -> str:
        return format_action(action)

    def deal_record(self, state: State) -> dict[str, Any]:
        """The current round's deal: both hands as dealt and the deck in drawing order."""
        return {
            "round": state.round_index,
            "starter": state.starter,
            "hands": [[str(c) for c in state.deal[0]], [str(c) for c in state.deal[1]]],
            "deck": [str(c) for c in state.deal[2]],
        }

    def round_summary(self, state: State, round_index: int) -> dict[str, Any]:
        """What decided a finished round: each seat's expedition scores, colour by colour
        (``COLOURS`` order), rebuilt from the round's plays; they add up to the round score."""
        expeditions: list[list[list[Card]]] = [[[] for _ in COLOURS] for _ in (0, 1)]
        for round_, seat, text in state.history:
            if round_ == round_index and text.startswith("play "):
                card = _ACTION_BY_TEXT[text].card
                expeditions[seat][card.colour].append(card)
        return {"expedition_scores": [[expedition_score(e) for e in expeditions[seat]]
                                      for seat in (0, 1)]}

    def determinize(self, view: View, rng: random.Random) -> State:
        """A full state consistent with ``view``: the opponent's known cards (taken from discard
        piles) stay in their hand, the rest of their hand and the deck are drawn at random from
        the unseen cards. The result can be played on with ``GAME.apply``; its ``seed`` is 0, so
        rounds after the current one are dealt from seed 0 (not the real future deals)."""
        if view.to_move is None:
            raise IllegalActionError("the match is over: nothing to determinize")
        known, hidden = _hidden_cards(view)
        unknown = list(hidden)
        rng.shuffle(unknown)
        need = view.opponent_hand_size - len(known)
        opponent = tuple(sorted((*known, *unknown[:need])))
        deck = tuple(unknown[need:])
        hands = (view.hand, opponent) if view.seat == 0 else (opponent, view.hand)
        fields = {  # (what State(...) would take, without its per-field calls)
            "rules": Rules(view.rounds, view.starter_rule, view.stall_guard_turns),
            "seed": 0, "round_index": view.round, "finished": view.finished_rounds,
            "starter": view.starter, "player": view.to_move, "hands": hands,
            "expeditions": view.expeditions, "piles": view.piles, "deck": deck, "deck_pos": 0,
            "turn": view.turn, "history": view.history, "deal": (hands[0], hands[1], deck),
            "last_actions": view.last_actions}
        _derive(fields)
        state = _new_object(State)
        _set_attribute(state, "__dict__", fields)
        return state


GAME = LostCitiesGame()
"""The registered engine instance."""


determinize = GAME.determinize
"""``GAME.determinize(view, rng)``: a full state consistent with ``view`` (for bots that search)."""
