"""PORTAS: the pure rules engine (standard library only).

The rules as the arena plays them are in ``docs/games/portas.md``. Each player owns a 14-card
port deck (1 1 1 2 2 2 3 3 4 4 5 5 6 6); hands of 4 cards are public. Two of the five treasures
(11..15) lie open as chests; a player puts one hand card on an open chest without exceeding its
value, and the player whose card makes a chest's contents equal its value scores their own cards
on it. A match is ``games`` games (option: 1 or 3); the arena protocol calls them rounds.

Action grammar (canonical, strict):

* ``<card>@<chest>`` — put port card ``<card>`` (1..6) on the open chest of value ``<chest>``
  (11..15), e.g. ``3@14``. Chests are named by their printed value (values are unique).
* ``pass`` — legal only when no hand card fits any open chest (no voluntary pass, arena rule);
  then it is the only legal action. The referee never passes for a bot.

Refill happens at the start of the mover's turn and is applied by ``apply`` as soon as the turn
passes, so in every state the mover's hand is already refilled (the other seat usually holds 3).
"""

from __future__ import annotations

import _random
import random
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from dataclasses import fields as dataclass_fields
from dataclasses import replace as dataclass_replace
from typing import TYPE_CHECKING, Any

from arena.errors import IllegalActionError, InvalidActionError
from arena.games.api import (
    GameResult,
    Options,
    OptionSpec,
    renamed,
    result_of_rounds,
    round_seed,
    validate_options,
)

PORT_DECK: tuple[int, ...] = (1, 1, 1, 2, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6)
"""Every player's 14 port cards (sum 45)."""
TREASURES: tuple[int, ...] = (11, 12, 13, 14, 15)
"""The five treasure values (sum 65)."""
HAND_SIZE = 4
SALT = "portas"

Cards = tuple[int, ...]
Pair = tuple[Cards, Cards]
HistoryEntry = tuple[int, int, str]
"""(game index, seat, action text)."""
Deal = tuple[Cards, Cards, Cards]
"""A game's deal: the port decks of seat 0 and seat 1 (top first), the treasure order."""


# --- values ------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Play:
    """Put port card ``card`` on the open chest whose printed value is ``chest``."""

    card: int
    chest: int

    def __str__(self) -> str:
        return f"{self.card}@{self.chest}"


@dataclass(frozen=True, slots=True)
class Pass:
    """The forced pass (legal only when no hand card fits any open chest)."""

    def __str__(self) -> str:
        return "pass"


Action = Play | Pass
PASS = Pass()
_PLAYS: dict[tuple[int, int], Play] = {(c, t): Play(c, t) for c in range(1, 7) for t in TREASURES}
_PLAY_TEXT: dict[str, Play] = {str(p): p for p in _PLAYS.values()}
_GRID: list[list[Play | None]] = [[_PLAYS.get((c, t)) for t in range(16)] for c in range(7)]
"""_GRID[card][chest]: the canonical ``Play`` (None off the board): a list lookup, no hashing."""
_GRID_TEXT: list[list[str]] = [[f"{c}@{t}" for t in range(16)] for c in range(7)]
"""_GRID_TEXT[card][chest]: the play's text as the history records it."""
Move = tuple[Action, int, int, int, str, int, tuple[int, ...], Cards]
"""A legal action as ``apply`` uses it: (the canonical action, card, chest, the card's
``_BIT``, text, the chest's index in ``State._open``, what the card adds to ``State._parts``
by what the chest held before (``_DELTAS``), the card alone: ``(card,)``); ``_PASS_MOVE`` for
the pass."""
_PASS_MOVE: Move = (PASS, 0, 0, 0, "pass", -1, (), ())
LegalEntry = tuple[tuple[Action, ...], dict[int, Move], tuple[str, ...]]
"""The legal actions of a position, their moves by the ``id`` of the canonical action, and
their texts (``legal_texts``)."""
_LEGAL: dict[int, LegalEntry] = {}
"""The legal actions and their moves by ``State._lk`` (``_legal_key``)."""
_OVER: LegalEntry = ((), {}, ())
"""The legal entry once the match is over: no action."""
_LEGAL_LIMIT = 1 << 14
"""``_LEGAL`` is emptied when it holds this many lists (bounded memory)."""
LastActions = tuple[Action | None, Action | None]
"""Each seat's most recent action in the current game, None before its first."""
NO_LAST_ACTIONS: LastActions = (None, None)


@dataclass(frozen=True, slots=True)
class Chest:
    """An open (or emptied) treasure chest and the port cards each seat put on it."""

    value: int
    """The printed treasure value (11..15)."""
    cards: Pair
    """The cards of seat 0 and of seat 1 on the chest, in the order they were played."""
    placed: int = 0
    """The sum of all cards on the chest (always <= value)."""

    @property
    def remaining(self) -> int:
        """How much is still in the chest."""
        return self.value - self.placed


_new = object.__new__
_SET_CHEST = tuple(Chest.__dict__[name].__set__ for name in ("value", "cards", "placed"))
"""The slot setters of ``Chest`` (``_chest``)."""


def _chest(value: int, cards: Pair, placed: int) -> Chest:
    """``Chest(value, cards, placed)`` without the frozen ``__init__``'s checks (same slots,
    equality and hash)."""
    chest = _new(Chest)
    set_value, set_cards, set_placed = _SET_CHEST
    set_value(chest, value)
    set_cards(chest, cards)
    set_placed(chest, placed)
    return chest


OpenChest = tuple[int, int, Cards, Cards]
"""An open chest as ``State`` keeps it: (value, placed, cards of seat 0, cards of seat 1)."""
_SIZE_SHIFT = 24
"""A hand's count key: 4 bits per card value 1..6, the number of cards from this bit on."""
_BIT: tuple[int, ...] = tuple(1 << 4 * (card - 1) | 1 << _SIZE_SHIFT if card else 0
                              for card in range(7))
"""``_BIT[card]``: one card of that value in a hand's count key."""
_ONE = 1 << _SIZE_SHIFT
"""One card in a count key's number of cards."""
_FULL = HAND_SIZE * _ONE
"""A count key below this is a hand of fewer than ``HAND_SIZE`` cards."""
_HANDS: dict[int, Cards] = {}
"""A hand's count key -> the hand (sorted); every hand of up to 4 cards, more when met."""


def _key_of(hand: Cards) -> int:
    """A hand's count key: the sum of its cards' ``_BIT``."""
    key = 0
    for card in hand:
        key += _BIT[card]
    return key


def _hand_of(key: int) -> Cards:
    """The sorted hand of a count key (kept in ``_HANDS``)."""
    hand = _HANDS.get(key)
    if hand is None:
        hand = _HANDS[key] = tuple(card for card in range(1, 7)
                                   for _ in range(key >> 4 * (card - 1) & 15))
    return hand


def _values(key: int) -> int:
    """The card values in a hand (bit ``card - 1`` set for each) from its count key."""
    values = _VALUES.get(key)
    if values is None:
        values = _VALUES[key] = sum(1 << card - 1 for card in range(1, 7)
                                    if key >> 4 * (card - 1) & 15)
    return values


_VALUES: dict[int, int] = {}
"""A hand's count key -> its card values (``_values``)."""
_UPTO: tuple[int, ...] = tuple((1 << min(left, 6)) - 1 for left in range(16))
"""``_UPTO[left]``: the card values (bit ``card - 1``) that fit in a chest with ``left`` in it."""


_PART: tuple[tuple[int, ...], ...] = tuple(
    tuple((value - 10) << 6 | _UPTO[max(value - placed, 0)] for placed in range(16))
    for value in range(16))
"""``_PART[value][placed]``: an open chest in ``State._parts``."""
_DELTAS: dict[tuple[int, int, int], tuple[int, ...]] = {
    (value, card, index): tuple(
        _PART[value][min(placed + card, 15)] - _PART[value][placed] << 9 * index
        for placed in range(16))
    for value in TREASURES for card in range(1, 7) for index in range(len(TREASURES))}
"""``_DELTAS[value, card, index][placed]``: what putting ``card`` on the open chest ``index``
of that value holding ``placed`` adds to ``State._parts``."""
_ALL_VALUES = 63
"""Every card value 1..6 (bit ``card - 1``)."""


def _legal_key(values: int, opened: tuple[OpenChest, ...]) -> int:
    """All the legal actions depend on (``State._lk``): for open chest ``i``, in bits
    ``9i..9i+8``, its value - 10 << 6 | which of the mover's card ``values`` fit in it.
    ``_legal_key(_ALL_VALUES, opened)`` is ``State._parts``."""
    key = 0
    for index, (value, placed, _, _) in enumerate(opened):
        key |= ((value - 10) << 6 | values & _UPTO[value - placed]) << 9 * index
    return key


def _parts_of(opened: tuple[OpenChest, ...]) -> int:
    """``State._parts``: ``_legal_key(_ALL_VALUES, opened)`` (written out for two chests)."""
    if len(opened) == 2:
        (value0, placed0, _, _), (value1, placed1, _, _) = opened
        return _PART[value0][placed0] | _PART[value1][placed1] << 9
    return _legal_key(_ALL_VALUES, opened)


def _spread(key: int) -> int:
    """A hand's card values (``_values`` of its count key) as a mask of ``State._parts``:
    ``_parts & _spread(key)`` is the legal key of that hand."""
    spread = _SPREAD.get(key)
    if spread is None:
        part = _values(key) | 7 << 6
        spread = _SPREAD[key] = sum(part << 9 * index for index in range(len(TREASURES)))
    return spread


_SPREAD: dict[int, int] = {}
"""A hand's count key -> ``_spread``."""


def _all_hands(size: int, low: int = 1) -> list[Cards]:
    """Every sorted hand of ``size`` cards of values ``low``..6."""
    if size == 0:
        return [()]
    return [(card, *rest) for card in range(low, 7) for rest in _all_hands(size - 1, card)]


for _size in range(HAND_SIZE + 1):
    for _hand in _all_hands(_size):
        _HANDS[_key_of(_hand)] = _hand
        _spread(_key_of(_hand))


@dataclass(frozen=True, slots=True)
class Taken:
    """A chest emptied during the current game."""

    chest: Chest
    taker: int
    """The seat that played the last card and scored its own cards on it."""


_SET_TAKEN = tuple(Taken.__dict__[name].__set__ for name in ("chest", "taker"))
"""The slot setters of ``Taken`` (``_taken``)."""


def _taken(value: int, cards: Pair, taker: int) -> Taken:
    """``Taken(Chest(value, cards, value), taker)`` without the frozen ``__init__``'s checks."""
    taken = _new(Taken)
    set_chest, set_taker = _SET_TAKEN
    set_chest(taken, _chest(value, cards, value))
    set_taker(taken, taker)
    return taken


Turn = tuple[Any, ...]
"""``State._t``, all a state holds: (mover, passes, then four pairs: the hand keys, the deck
sources, the deck offsets, the last actions; open chests, parts, legal entry, the state before
and the text of the action that made this one from it (the history's last entry; None and ""
at a new match or for a state built by ``State(...)``), ``GameFields``). Each pair is
seat-relative, the mover's first, so that a turn swaps them instead of branching by seat
(``_by_seat``); once the match is over (no mover) they are in seat order. A deck is its source
(the dealt deck, or the deck given to ``State(...)``) from its offset on."""
_MOVER, _PASSES, _KEYS, _DECKS, _OFFSETS, _LASTS, _OPEN, _PARTS, _ENTRY, _BEFORE, _TEXT, \
    _GAME = 0, 1, 2, 4, 6, 8, 10, 11, 12, 13, 14, 15
"""Where each item (each pair's first) is in ``State._t``."""
GameFields = tuple[Any, ...]
"""``State._t[_GAME]``: (seed, games, round, finished, hidden, taken, scores, deal): what
changes only when a chest is taken or a game ends; ``taken`` as ``TakenChest`` tuples."""
TakenChest = tuple[int, Cards, Cards, int]
"""A chest taken, as ``State`` keeps it: (value, cards of seat 0, cards of seat 1, taker)."""


@dataclass(frozen=True)
class State:
    """The full (omniscient) state of a PORTAS match. Immutable: ``GAME.apply`` returns a new one.

    A state holds one tuple, ``_t`` (``Turn``), in its one slot; the public fields are read
    from it (``hands``, ``decks``, ``chests``, ``taken``, ``last_actions`` and ``history`` are
    made on first read and kept in the instance dict), so that a turn builds one tuple and sets
    one slot. ``State(...)`` and ``dataclasses.replace`` derive ``_t`` afresh from the public
    fields (``__post_init__``); copies and pickles are made that way too (``__reduce__``)."""

    __slots__ = ("_t", "__dict__", "__weakref__")  # (weak references, as before the slot)

    seed: int
    games: int
    round: int
    """0-based index of the game being played (the last one once the match is over)."""
    finished: tuple[tuple[int, int], ...]
    mover: int | None
    """The seat to move; None once the match is over."""
    hands: Pair
    """Both hands, sorted ascending (public)."""
    decks: Pair
    """Both port decks, next draw first (hidden order)."""
    chests: tuple[Chest, ...]
    """The open chests, sorted by value."""
    hidden: Cards
    """The hidden treasures, next reveal first (hidden order)."""
    taken: tuple[Taken, ...]
    scores: tuple[int, int]
    """Scores of the current game."""
    passes: int
    """Passes in a row (2 ends the game)."""
    history: tuple[HistoryEntry, ...]
    deal: Deal
    """This game's full deal: deck of seat 0, deck of seat 1 (top first), treasure order."""
    last_actions: LastActions
    """Each seat's most recent action in the current game (public), None before its first."""
    if TYPE_CHECKING:  # the slot, not a field: what the type checker knows of it
        _t: Turn = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        """Derive ``_t`` from the public fields (a state built by ``State(...)`` or
        ``dataclasses.replace``); the made fields keep the values given."""
        given = self.__dict__
        taken = tuple((t.chest.value, *t.chest.cards, t.taker) for t in self.taken)
        game = tuple(taken if name == "taken" else given.pop("_given_" + name)
                     for name in _IN_GAME)
        hands = self.hands
        _SET_TURN(self, _turn(
            given.pop("_given_mover"), given.pop("_given_passes"),
            (_key_of(hands[0]), _key_of(hands[1])), self.decks, (0, 0), self.last_actions,
            tuple((c.value, c.placed, c.cards[0], c.cards[1]) for c in self.chests),
            None, "", game))

    def __reduce__(self) -> tuple[type[State], tuple[Any, ...]]:
        """Copies and pickles: ``State(...)`` of the public fields."""
        return State, tuple(getattr(self, name) for name in _PUBLIC)

    @property
    def _keys(self) -> tuple[int, int]:
        """Each hand as a count key, in seat order: 4 bits per card value and the number of
        cards (``_BIT[card]`` counts one card)."""
        keys: tuple[int, int] = _by_seat(self._t, _KEYS)
        return keys

    @property
    def _open(self) -> tuple[OpenChest, ...]:
        """What ``chests`` is made from: each open chest as (value, placed, cards of seat 0,
        cards of seat 1), in the order of ``chests``."""
        opened: tuple[OpenChest, ...] = self._t[_OPEN]
        return opened

    @property
    def _parts(self) -> int:
        """Each open chest's value and which card values fit in it (``_legal_key`` of all
        values): what the legal keys of both seats are cut from."""
        parts: int = self._t[_PARTS]
        return parts

    @property
    def _lk(self) -> int | None:
        """The legal actions' key in ``_LEGAL`` (``_legal_key``) of the entry the state holds;
        None once the match is over."""
        turn = self._t
        return None if turn[_MOVER] is None else turn[_PARTS] & _spread(turn[_KEYS])


_SET_TURN = State.__dict__["_t"].__set__
"""Sets ``State._t`` (a frozen dataclass refuses ``setattr``)."""
_PUBLIC = tuple(field.name for field in dataclass_fields(State))
"""The public fields of ``State``, in the order ``State(...)`` takes them."""
_IN_GAME = ("seed", "games", "round", "finished", "hidden", "taken", "scores", "deal")
"""The public fields kept in ``GameFields``, in its order."""
_TAKEN = _IN_GAME.index("taken")
"""Where the taken chests (``TakenChest`` tuples) are in ``GameFields``."""


def _seat_order(mover: int | None, mine: Any, other: Any) -> tuple[Any, Any]:
    """A pair of the mover's and the other seat's, in seat order (seat 0's first when nobody
    moves); and back (the same swap)."""
    return (other, mine) if mover == 1 else (mine, other)


def _by_seat(turn: Turn, at: int) -> tuple[Any, Any]:
    """The seat-relative pair ``turn[at]``, ``turn[at + 1]`` in seat order."""
    return _seat_order(turn[_MOVER], turn[at], turn[at + 1])


def _turn(mover: int | None, passes: int, keys: tuple[int, int], decks: Pair,
          offsets: tuple[int, int], lasts: LastActions, opened: tuple[OpenChest, ...],
          before: State | None, text: str, game: GameFields) -> Turn:
    """``State._t`` from its pairs in seat order (the parts and the legal entry derived)."""
    if mover == 1:
        keys, decks, offsets, lasts = keys[::-1], decks[::-1], offsets[::-1], lasts[::-1]
    parts = _parts_of(opened)
    entry = _OVER if mover is None else _entry(parts & _spread(keys[0]))
    return (mover, passes, *keys, *decks, *offsets, *lasts, opened, parts, entry, before, text,
            game)


class _Kept:
    """A public field of ``State`` read from ``State._t`` (``State(...)`` stores the value
    given in the instance dict until ``__post_init__`` moves it there)."""

    def __init__(self, name: str, index: int, in_game: bool) -> None:
        self.given = "_given_" + name
        self.index = index
        self.in_game = in_game

    def __get__(self, state: State | None, owner: type | None = None) -> Any:
        if state is None:
            return self
        turn = state._t
        return turn[_GAME][self.index] if self.in_game else turn[self.index]

    def __set__(self, state: State, value: Any) -> None:
        state.__dict__[self.given] = value


class _Made:
    """A public field of ``State`` that ``apply`` does not build: made from ``State._t`` on
    first read and kept in the instance dict as ``_made_<name>`` (``State(...)`` keeps the
    value given there). Threads reading it at once make equal values."""

    def __init__(self, name: str, make: Callable[[Turn], Any]) -> None:
        self.slot = "_made_" + name
        self.make = make

    def __get__(self, state: State | None, owner: type | None = None) -> Any:
        if state is None:
            return self
        fields = state.__dict__
        value = fields.get(self.slot)
        if value is None:
            value = fields[self.slot] = self.make(state._t)
        return value

    def __set__(self, state: State, value: Any) -> None:
        state.__dict__[self.slot] = value


def _history_of(turn: Turn) -> tuple[HistoryEntry, ...]:
    """``State.history``, made from the chain of states before (``apply`` copies no history):
    walked back to the nearest one whose history is made (or given to ``State(...)``), or to
    the start of the match; each step adds the entry of the action that made the next."""
    entries = []
    history: tuple[HistoryEntry, ...] | None = None
    while history is None:
        before = turn[_BEFORE]
        if before is None:  # the start of the match
            history = ()
            break
        turn, text = before._t, turn[_TEXT]
        entries.append((turn[_GAME][2], turn[_MOVER], text))
        history = before.__dict__.get(_HISTORY)
    entries.reverse()
    return history + tuple(entries)


def _chests_of_open(opened: tuple[OpenChest, ...]) -> tuple[Chest, ...]:
    """Open chests as ``Chest`` values."""
    return tuple(_chest(value, (cards0, cards1), placed)
                 for value, placed, cards0, cards1 in opened)


def _decks_of(turn: Turn) -> Pair:
    """Both decks, in seat order: each source from its offset on."""
    source0, source1 = _by_seat(turn, _DECKS)
    offset0, offset1 = _by_seat(turn, _OFFSETS)
    return source0[offset0:], source1[offset1:]


def _hands_of(turn: Turn) -> Pair:
    """Both hands, in seat order, made from the count keys."""
    key0, key1 = _by_seat(turn, _KEYS)
    return _hand_of(key0), _hand_of(key1)


def _taken_of(turn: Turn) -> tuple[Taken, ...]:
    """The chests taken this game as ``Taken`` values."""
    return tuple(_taken(value, (cards0, cards1), taker)
                 for value, cards0, cards1, taker in turn[_GAME][_TAKEN])


for _made in (_Made("hands", _hands_of), _Made("decks", _decks_of),
              _Made("chests", lambda turn: _chests_of_open(turn[_OPEN])),
              _Made("taken", _taken_of), _Made("last_actions", lambda turn: _by_seat(turn, _LASTS)),
              _Made("history", _history_of)):  # after @dataclass made __init__ and __eq__
    setattr(State, _made.slot[len("_made_"):], _made)
_HISTORY = State.__dict__["history"].slot
"""Where a state keeps its history once made (or given)."""
State.mover = _Kept("mover", _MOVER, False)  # type: ignore[assignment]
State.passes = _Kept("passes", _PASSES, False)  # type: ignore[assignment]
for _index, _name in enumerate(_IN_GAME):
    if _name != "taken":
        setattr(State, _name, _Kept(_name, _index, True))


@dataclass(frozen=True, slots=True)
class View:
    """What one seat may know: everything except the order of the decks and hidden treasures."""

    seat: int
    rounds: int
    """Games in the match (option ``games``): a PORTAS match's rounds are its games."""
    round: int
    """The game being played, from 0 (the last one once the match is over)."""
    to_move: int | None
    hands: Pair
    """Both hands (public), sorted ascending, seat order."""
    deck_sizes: tuple[int, int]
    chests: tuple[Chest, ...]
    """The open chests, sorted by value, with each seat's cards on them."""
    hidden_values: Cards
    """The values not yet revealed, sorted (public knowledge; their order is not)."""
    taken: tuple[Taken, ...]
    """The chests emptied this game, in order."""
    scores: tuple[int, int]
    """Each seat's treasure points in the current game."""
    finished_rounds: tuple[tuple[int, int], ...]
    """Score pairs (seat 0, seat 1) of the finished games."""
    passes: int
    history: tuple[HistoryEntry, ...]
    """Every action of the match: (game index, seat, action text)."""
    last_actions: LastActions = NO_LAST_ACTIONS
    """Each seat's most recent action in the current game (a play or the forced pass), None
    before its first; all public."""

    @property
    def hidden_count(self) -> int:
        """How many treasures are still hidden."""
        return len(self.hidden_values)

    @property
    def games(self) -> int:
        """Deprecated, read :attr:`rounds` (the old name, kept one release)."""
        result: int = renamed(self, "games", "rounds")
        return result

    @property
    def finished(self) -> tuple[tuple[int, int], ...]:
        """Deprecated, read :attr:`finished_rounds` (the old name, kept one release)."""
        result: tuple[tuple[int, int], ...] = renamed(self, "finished", "finished_rounds")
        return result


# --- helpers -----------------------------------------------------------------------------


def _set(pair: Pair, seat: int, value: Cards) -> Pair:
    return (value, pair[1]) if seat == 0 else (pair[0], value)


def unseen_deck(view: View, seat: int) -> Cards:
    """The multiset of cards still in ``seat``'s deck (sorted): derivable from public data."""
    counts = Counter(PORT_DECK)
    counts.subtract(view.hands[seat])
    for chest in view.chests:
        counts.subtract(chest.cards[seat])
    for taken in view.taken:
        counts.subtract(taken.chest.cards[seat])
    return tuple(sorted(counts.elements()))


def starter(games_scores: tuple[tuple[int, int], ...]) -> int:
    """The seat that starts the next game given the finished games (docs/games/portas.md,
    "The match")."""
    index = len(games_scores)
    if index == 0:
        return 0
    if index == 1:
        return 1
    t0 = sum(s[0] for s in games_scores)
    t1 = sum(s[1] for s in games_scores)
    return 1 if t1 < t0 else 0


# --- the game ----------------------------------------------------------------------------
class PortasGame:
    """The PORTAS rules engine (implements ``arena.games.api.Game``)."""

    id = "portas"
    version = 1
    title = "PORTAS"
    option_specs: tuple[OptionSpec, ...] = (
        OptionSpec(
            "games",
            3,
            choices=(1, 3),
            help="games per match: 3 (arena match) or 1 (the printed single game)",
        ),
    )

    # match set-up
    def new_match(self, seed: int, options: Options | None = None) -> State:
        """Deal the first game. Raises ``OptionsError`` on bad options."""
        games = _DEFAULT_GAMES if options is None else validate_options(
            self.option_specs, options)["games"]
        return _start_round(seed, games, 0, (), _deal(seed, 0))

    def options_of(self, state: State) -> dict[str, Any]:
        """The validated options of the match."""
        return {"games": state.games}

    # queries
    def to_move(self, state: State) -> int | None:
        """The seat to move, None once the match is over."""
        mover: int | None = state._t[0]
        return mover

    def legal_actions(self, state: State) -> tuple[Action, ...]:
        """Plays sorted by (card, chest); ``pass`` alone when nothing fits; () when over.

        The state holds them (its legal entry, shared through ``_LEGAL``)."""
        actions: tuple[Action, ...] = state._t[_ENTRY][0]
        return actions

    def legal_texts(self, state: State) -> tuple[str, ...]:
        """The texts of ``legal_actions(state)``, in order, kept in the same entry."""
        texts: tuple[str, ...] = state._t[_ENTRY][2]
        return texts

    def is_legal(self, state: State, action: Action) -> bool:
        """Whether ``action`` is legal now (no enumeration)."""
        if state.mover is None:
            return False
        if isinstance(action, Play):
            return _open_index(state, action) >= 0
        if isinstance(action, Pass):
            return self.legal_actions(state) == (PASS,)
        return False

    def explain_illegal(self, state: State, action: Action) -> str:
        """Why ``action`` is illegal in ``state`` (one short sentence about the public table:
        hands, open chests); "" for a legal action."""
        if state.mover is None:
            return "the match is over"
        if self.is_legal(state, action):
            return ""
        hand = state.hands[state.mover]
        if isinstance(action, Pass):
            fits = next(a for a in self.legal_actions(state) if isinstance(a, Play))
            return f"pass only when no hand card fits an open chest, and {fits} fits"
        if not isinstance(action, Play):
            return f"not a PORTAS action: {action!r}"
        if action.card not in hand:
            return f"no {action.card} in your hand"
        chest = next((ch for ch in state.chests if ch.value == action.chest), None)
        if chest is None:
            opened = ", ".join(str(ch.value) for ch in state.chests) or "none"
            return f"chest {action.chest} is not open: the open chests are {opened}"
        return f"{action.card} does not fit chest {chest.value}: {chest.remaining} left in it"

    def apply(self, state: State, action: Action) -> State:
        """The state after ``action``; raises ``IllegalActionError`` if it is not legal.

        A canonical action (``legal_actions``', ``parse_action``'s) is checked by one lookup
        in the legal entry the state holds; any other by ``is_legal``."""
        (seat, passes, mine, other, mine_deck, other_deck, mine_at, other_at, _, other_last,
         opened, parts, entry, _, _, game) = state._t
        try:
            move = entry[1][id(action)]
        except KeyError:  # not a canonical action, or not legal
            move = self._checked(state, action)
        play, card, value, bit, text, index, deltas, alone = move
        if index < 0:  # the forced pass
            if passes:
                return self._two_passes(state)
            passes = 1
        else:
            passes = 0
            _, placed, cards0, cards1 = opened[index]
            if seat:
                cards1 += alone
            else:
                cards0 += alone
            now = placed + card
            if now < value:
                chest = (value, now, cards0, cards1)
                parts += deltas[placed]
                if len(opened) == 2:  # (always, in play)
                    opened = (opened[0], chest) if index else (chest, opened[1])
                else:
                    opened = opened[:index] + (chest,) + opened[index + 1 :]
            else:  # the card empties the chest
                game, opened, parts = _take(seat, value, index, (cards0, cards1), opened, game)
                if len(game[_TAKEN]) == len(TREASURES):  # the fifth: the game is over
                    return self._end_round(state, mine - bit, opened, game, text, play)
        # the turn is over: the other seat's hand refilled, the other seat to move
        try:
            while other < _FULL:  # (one card short: always, in play)
                other += _BIT[other_deck[other_at]]
                other_at += 1
        except IndexError:  # the deck is used up
            pass
        try:
            entry = _LEGAL[parts & _SPREAD[other]]
        except KeyError:  # met for the first time (or the legal lists emptied)
            entry = _entry(parts & _spread(other))
        after = _new(State)
        _SET_TURN(after, (1 - seat, passes, other, mine - bit, other_deck, mine_deck, other_at,
                          mine_at, other_last, play, opened, parts, entry, state, text, game))
        return after

    def _checked(self, state: State, action: Action) -> Move:
        """The move of a legal ``action`` that is not a canonical object; raises
        ``IllegalActionError``."""
        if not self.is_legal(state, action):
            raise IllegalActionError(
                f"{_text(action)} is not legal now: {self.explain_illegal(state, action)}; "
                "legal: "
                f"{' '.join(self.format_action(a) for a in self.legal_actions(state)) or 'none'}"
            )
        canonical = _PLAYS[action.card, action.chest] if isinstance(action, Play) else PASS
        move: Move = state._t[_ENTRY][1][id(canonical)]
        return move

    def _two_passes(self, state: State) -> State:
        """The forced pass that ends the game (the second in a row)."""
        turn = state._t
        return self._end_round(state, turn[_KEYS], turn[_OPEN], turn[_GAME], "pass", PASS)

    def _end_round(self, state: State, mine: int, opened: tuple[OpenChest, ...],
                   game: GameFields, text: str, action: Action) -> State:
        """The state after the game's last action, ``action`` (``text``: its text; ``mine``:
        the mover's hand key after it; ``opened`` and ``game`` as it left them): the next game
        as dealt, or the match over (nobody to move, no refill, the passes as they were)."""
        turn = state._t
        seat = turn[_MOVER]
        seed, games, round_, finished, hidden, taken, scores, deal = game
        finished += (scores,)
        if len(finished) < games:
            return _start_round(seed, games, round_ + 1, finished, _deal(seed, round_ + 1),
                                state, text)
        after = _new(State)
        _SET_TURN(after, _turn(
            None, turn[_PASSES], _seat_order(seat, mine, turn[_KEYS + 1]),
            _by_seat(turn, _DECKS), _by_seat(turn, _OFFSETS),
            _seat_order(seat, action, turn[_LASTS + 1]), opened, state, text,
            (seed, games, round_, finished, hidden, taken, scores, deal)))
        return after

    def observation(self, state: State, seat: int) -> View:
        """Everything ``seat`` may know (all public: only deck and treasure order are hidden)."""
        return View(
            seat=seat,
            rounds=state.games,
            round=state.round,
            to_move=state.mover,
            hands=state.hands,
            deck_sizes=(len(state.decks[0]), len(state.decks[1])),
            chests=state.chests,
            hidden_values=tuple(sorted(state.hidden)),
            taken=state.taken,
            scores=state.scores,
            finished_rounds=state.finished,
            passes=state.passes,
            history=state.history,
            last_actions=state.last_actions,
        )

    def outcome(self, state: State) -> GameResult | None:
        """The result once the match is over (higher total wins; equal totals draw)."""
        if state.mover is not None:
            return None
        return result_of_rounds(state.finished)

    # grammar
    def parse_action(self, text: str) -> Action:
        """Parse ``<card>@<chest>`` or ``pass``; raises ``InvalidActionError`` otherwise."""
        if text == "pass":
            return PASS
        play = _PLAY_TEXT.get(text)
        if play is None:
            raise InvalidActionError(
                f"bad PORTAS action {text!r}: expected '<card>@<chest>' with card 1..6 and "
                "chest 11..15 (e.g. '3@14'), or 'pass'"
            )
        return play

    def format_action(self, action: Action) -> str:
        """The canonical text of an action."""
        return _text(action)

    def round_index(self, state: State) -> int:
        """0-based index of the game being played."""
        return state.round

    def finished_rounds(self, state: State) -> tuple[tuple[int, int], ...]:
        """The score pairs of the finished games."""
        return state.finished

    def deal_record(self, state: State) -> dict[str, Any]:
        """The current game's deal: both decks (top first) and the treasure order."""
        deck0, deck1, treasures = state.deal
        return {
            "game": state.round,
            "decks": [[str(c) for c in deck0], [str(c) for c in deck1]],
            "treasures": [str(t) for t in treasures],
        }

    def round_summary(self, state: State, round_index: int) -> dict[str, Any]:
        """Why a finished game ended and where its points came from: ``end`` is
        ``all_chests_taken`` (the fifth chest was emptied) or ``two_passes`` (two passes in a
        row); ``taken`` lists the emptied chests in order (value, taker, each seat's cards on
        it: the taker scores its own cards); ``open`` lists the chests still open at the end
        (the cards on them score nothing). Chest values and cards are texts, as in the deal.
        The game is played again from its deal (the seed's) up to its last action."""
        actions = [(seat, text) for game, seat, text in state.history if game == round_index]
        before = _start_round(
            state.seed, state.games, round_index, state.finished[:round_index],
            _deal(state.seed, round_index),
            history=tuple(h for h in state.history if h[0] < round_index),
        )
        for _, text in actions[:-1]:
            before = self.apply(before, self.parse_action(text))
        last_seat, last = actions[-1]
        taken = [(t.chest, t.taker) for t in before.taken]
        chests = list(before.chests)
        if last != "pass":
            play = _PLAY_TEXT[last]
            chest = next(c for c in chests if c.value == play.chest)
            chests.remove(chest)
            cards = _set(chest.cards, last_seat, chest.cards[last_seat] + (play.card,))
            taken.append((Chest(chest.value, cards, chest.value), last_seat))
        return {
            "end": "two_passes" if last == "pass" else "all_chests_taken",
            "taken": [{"chest": str(c.value), "taker": taker, "cards": _texts(c.cards)}
                      for c, taker in taken],
            "open": [{"chest": str(c.value), "cards": _texts(c.cards)} for c in chests],
        }

    def determinize(self, view: View, rng: random.Random) -> State:
        """A full state consistent with ``view``: unseen deck cards and hidden treasures shuffled.

        The match seed is unknown to a seat, so later games are dealt from a seed drawn from
        ``rng``."""
        decks: list[Cards] = []
        for seat in (0, 1):
            rest = list(unseen_deck(view, seat))
            rng.shuffle(rest)
            decks.append(tuple(rest))
        hidden = list(view.hidden_values)
        rng.shuffle(hidden)
        deal = (
            view.hands[0] + decks[0],
            view.hands[1] + decks[1],
            tuple(t.chest.value for t in view.taken)
            + tuple(c.value for c in view.chests)
            + tuple(hidden),
        )
        dealt = _start_round(rng.getrandbits(63), view.rounds, view.round, view.finished_rounds,
                             deal, history=view.history)
        return dataclass_replace(
            dealt,
            mover=view.to_move,
            hands=view.hands,
            decks=(decks[0], decks[1]),
            chests=view.chests,
            hidden=tuple(hidden),
            taken=view.taken,
            scores=view.scores,
            passes=view.passes,
            last_actions=view.last_actions,
        )


def _take(seat: int, value: int, index: int, cards: Pair, opened: tuple[OpenChest, ...],
          game: GameFields) -> tuple[GameFields, tuple[OpenChest, ...], int]:
    """The chest ``opened[index]`` (of ``value``) emptied by ``seat`` (``cards``: each seat's
    cards on it, the last included): the seat scores its own cards on it, the next hidden
    treasure opens. ``GameFields`` with the score, the hidden and the taken chests changed, the
    open chests and their parts."""
    seed, games, round_, finished, hidden, taken, scores, deal = game
    gain = sum(cards[seat])
    scores = (scores[0] + gain, scores[1]) if seat == 0 else (scores[0], scores[1] + gain)
    taken += ((value, cards[0], cards[1], seat),)
    if hidden:  # the next hidden treasure takes the chest's place, the chests kept sorted
        revealed = (hidden[0], 0, (), ())
        if len(opened) == 2:  # (always, in play)
            kept = opened[1 - index]
            opened = (kept, revealed) if kept[0] < revealed[0] else (revealed, kept)
        else:
            opened = tuple(sorted((*opened[:index], *opened[index + 1 :], revealed)))
        hidden = hidden[1:]
    else:
        opened = opened[:index] + opened[index + 1 :]
    return ((seed, games, round_, finished, hidden, taken, scores, deal), opened,
            _parts_of(opened))


def _texts(cards: Pair) -> list[list[str]]:
    """Both seats' cards on a chest as card texts (a log writes every card as text)."""
    return [[str(c) for c in cards[0]], [str(c) for c in cards[1]]]


def _text(action: object) -> str:
    """The canonical text of an action; ``InvalidActionError`` for anything else (a ``Play``
    whose card or chest is not an int of the board, unhashable ones included)."""
    if (isinstance(action, Play) and type(action.card) is int and type(action.chest) is int
            and (action.card, action.chest) in _PLAYS):
        return str(action)
    if isinstance(action, Pass):
        return "pass"
    raise InvalidActionError(f"not a PORTAS action: {action!r}")


def _open_index(state: State, play: Play) -> int:
    """The index in ``state._open`` of the chest ``play`` goes on if it is legal, else -1."""
    mover = state.mover
    if mover is None:
        return -1
    card = play.card
    if card not in state.hands[mover]:
        return -1
    for index, (value, placed, _, _) in enumerate(state._open):
        if value == play.chest:
            return index if placed + card <= value else -1
    return -1


def _entry(legal_key: int) -> LegalEntry:
    """The legal actions of ``legal_key`` and their moves, kept or made (``_legal_entry``)."""
    return _LEGAL.get(legal_key) or _legal_entry(legal_key)


def _legal_entry(legal_key: int) -> LegalEntry:
    """The legal actions of ``legal_key`` (``State._lk``) and their moves, kept in ``_LEGAL``:
    plays sorted by (card, chest), or ``pass`` alone."""
    key = legal_key
    moves: list[Move] = []
    chests = []
    while key:  # each chest's part is at least 64 (its value - 10 << 6)
        chests.append((10 + (key >> 6 & 7), key & 63))
        key >>= 9
    for card in range(1, 7):
        for index, (value, fits) in enumerate(chests):
            if fits >> card - 1 & 1:
                moves.append((_GRID[card][value], card, value, _BIT[card],  # type: ignore
                              _GRID_TEXT[card][value], index, _DELTAS[value, card, index],
                              (card,)))
    if not moves:
        moves.append(_PASS_MOVE)
    if len(_LEGAL) >= _LEGAL_LIMIT:
        _LEGAL.clear()
    entry = (tuple(move[0] for move in moves), {id(move[0]): move for move in moves},
             tuple(move[4] for move in moves))
    _LEGAL[legal_key] = entry
    return entry


def _deal(seed: int, index: int) -> Deal:
    """The deal of game ``index`` of the match with this seed: both port decks and the
    treasures shuffled in turn by one ``random.Random`` seeded with ``round_seed`` (its base
    class, which seeds an int and draws bits alike, without the subclass's set-up in Python)."""
    getrandbits = _random.Random(round_seed(seed, index, SALT)).getrandbits
    return (_shuffled(PORT_DECK, getrandbits), _shuffled(PORT_DECK, getrandbits),
            _shuffled(TREASURES, getrandbits))


_SWAPS: dict[int, tuple[tuple[int, int, int], ...]] = {
    size: tuple((i, i + 1, (i + 1).bit_length()) for i in reversed(range(1, size)))
    for size in (len(PORT_DECK), len(TREASURES))
}
"""Per length, the steps of ``random.shuffle``: (position, bound, bits of a draw)."""


def _shuffled(cards: Cards, getrandbits: Callable[[int], int]) -> Cards:
    """``cards`` shuffled exactly as ``random.Random.shuffle`` does with that generator (the
    same draws: ``_randbelow`` by rejection of ``getrandbits``), without its per-swap calls."""
    items = list(cards)
    for i, bound, bits in _SWAPS[len(items)]:
        j = getrandbits(bits)
        while j >= bound:
            j = getrandbits(bits)
        items[i], items[j] = items[j], items[i]
    return tuple(items)


def _start_round(
    seed: int,
    games: int,
    index: int,
    finished: tuple[tuple[int, int], ...],
    deal: Deal,
    before: State | None = None,
    text: str = "",
    history: tuple[HistoryEntry, ...] = (),
) -> State:
    """Game ``index`` as dealt (``deal``), the starter to move: what ``State(...)`` would
    derive from the public fields (``tests/games/test_portas_speed.py`` checks they are the
    same). The history so far: the state before the last game's last action and that action
    (``State._t``), or ``history`` as given."""
    deck0, deck1, treasures = deal
    first, second = treasures[0], treasures[1]
    if second < first:
        first, second = second, first
    state = _new(State)
    _SET_TURN(state, _turn(
        starter(finished), 0, (_key_of(deck0[:HAND_SIZE]), _key_of(deck1[:HAND_SIZE])),
        (deck0, deck1), (HAND_SIZE, HAND_SIZE), NO_LAST_ACTIONS,
        ((first, 0, (), ()), (second, 0, (), ())), before, text,
        (seed, games, index, finished, treasures[2:], (), (0, 0), deal)))
    if history:
        state.__dict__[_HISTORY] = history
    return state


_DEFAULT_GAMES: int = validate_options(PortasGame.option_specs, None)["games"]
"""The number of games of a match given no options (``new_match`` does not validate None)."""

GAME = PortasGame()
"""The registered PORTAS engine."""

determinize = GAME.determinize
"""``GAME.determinize(view, rng)``: a full state consistent with ``view`` (for bots that search)."""
