"""Lost Cities cards and actions: their values, their texts, and the tuples that states and
views hold (pure, standard library only; ``arena.games.lost_cities`` re-exports the public names).

Cards. Colours ``Y B W G R`` (yellow, blue, white, green, red, in that order); numbers
``2``..``10``; the wager card of a colour is written ``X`` (for "times"; ``W`` is white), so
``RX`` is a red wager, ``R5`` red five, ``Y10`` yellow ten. A card value is a :class:`Card`
(an ``int`` code ``colour * 10 + (0 if wager else value - 1)``, so that cards sort by colour,
wagers first, then by value); its ``str``/``repr`` is the card text.

Action grammar (canonical, strict; one turn = one action)::

    action := verb " " card " " source
    verb   := "play" | "discard"         (play = place on your own expedition of that colour)
    card   := colour ( "X" | "2" | ... | "10" )
    source := "deck" | "draw " colour    (draw the top card of that colour's discard pile)
    colour := "Y" | "B" | "W" | "G" | "R"

Examples: ``play R5 deck``, ``discard Y10 draw B``, ``play GX draw R``.
"""

from __future__ import annotations

from dataclasses import dataclass

from arena.errors import InvalidActionError

COLOURS = "YBWGR"
"""The colour letters in their canonical order (yellow, blue, white, green, red)."""
COLOUR_NAMES = ("yellow", "blue", "white", "green", "red")
N_COLOURS = 5
HAND_SIZE = 8
DECK_SIZE = 60 - 2 * HAND_SIZE
WAGER_LETTER = "X"
EXPEDITION_COST = 20
BONUS_LENGTH = 8
BONUS = 20
GAME_ID = "lost-cities"


class Card(int):
    """One card: an int code (``colour * 10 + 0`` for a wager, ``+ value - 1`` for a number).

    Only the 50 interned instances in :data:`CARDS` exist in states; build one with
    :func:`card_of` or :func:`parse_card`.
    """

    __slots__ = ()

    @property
    def colour(self) -> int:
        """Colour index 0..4 (``COLOURS[colour]`` is its letter)."""
        return int(self) // 10

    @property
    def value(self) -> int:
        """The number 2..10, or 0 for a wager card."""
        rank = int(self) % 10
        return rank + 1 if rank else 0

    @property
    def is_wager(self) -> bool:
        return int(self) % 10 == 0

    def __str__(self) -> str:
        return _CARD_TEXT.get(int(self)) or f"Card({int(self)})"

    def __repr__(self) -> str:
        return str(self)


_CARD_TEXT: dict[int, str] = {}
for _c in range(N_COLOURS):
    for _r in range(10):
        _CARD_TEXT[_c * 10 + _r] = COLOURS[_c] + (WAGER_LETTER if _r == 0 else str(_r + 1))

CARDS: tuple[Card, ...] = tuple(Card(code) for code in range(N_COLOURS * 10))
"""Every distinct card, indexed by code."""
_CARD_BY_TEXT: dict[str, Card] = {str(card): card for card in CARDS}

FULL_DECK: tuple[Card, ...] = tuple(
    sorted(CARDS + tuple(CARDS[c * 10] for c in range(N_COLOURS) for _ in range(2)))
)
"""All 60 cards, sorted (three wagers per colour)."""


def card_of(colour: int, value: int) -> Card:
    """The card of a colour index (0..4) and value (2..10, or 0 for a wager)."""
    if not 0 <= colour < N_COLOURS or not (value == 0 or 2 <= value <= 10):
        raise InvalidActionError(f"no card with colour {colour} and value {value}")
    return CARDS[colour * 10 + (value - 1 if value else 0)]


def parse_card(text: str) -> Card:
    """Parse a card text such as ``R5``, ``Y10`` or ``GX``; raises ``InvalidActionError``."""
    card = _CARD_BY_TEXT.get(text)
    if card is None:
        raise InvalidActionError(
            f"bad card {text!r}: expected a colour letter (Y B W G R) followed by 2..10 "
            f"or {WAGER_LETTER} for a wager, e.g. R5, Y10, G{WAGER_LETTER}"
        )
    return card


# --- actions ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, repr=False)
class Action:
    """One whole turn: play or discard ``card``, then draw from the deck or a discard pile."""

    card: Card
    """The card taken from the hand."""
    discard: bool
    """False: place it on the own expedition of its colour; True: discard it on its pile."""
    draw: int | None
    """None: draw the top card of the deck; 0..4: the top card of that colour's discard pile."""

    def __str__(self) -> str:
        return format_action(self)

    def __repr__(self) -> str:
        return f"Action({format_action(self)!r})"


def format_action(action: Action) -> str:
    """The canonical text of an action, e.g. ``play R5 deck`` or ``discard Y10 draw B``; the
    bad parts of a malformed action (built in Python with a card or pile that does not exist)
    are written as their repr, so that its refusal can say what it was."""
    verb = "discard" if action.discard else "play"
    card, draw = action.card, action.draw
    text = _CARD_TEXT.get(card) if isinstance(card, int) else None
    if draw is None:
        source = "deck"
    elif isinstance(draw, int) and 0 <= draw < N_COLOURS:
        source = "draw " + COLOURS[draw]
    else:
        source = f"draw {draw!r}"
    return f"{verb} {text or repr(card)} {source}"


_SOURCES: tuple[int | None, ...] = (None, 0, 1, 2, 3, 4)
_ACTIONS: dict[tuple[int, bool, int | None], Action] = {}
for _card in CARDS:
    for _discard in (False, True):
        for _src in _SOURCES:
            _ACTIONS[(int(_card), _discard, _src)] = Action(_card, _discard, _src)
_ACTION_BY_TEXT: dict[str, Action] = {format_action(a): a for a in _ACTIONS.values()}
_TEXT_OF: dict[tuple[int, bool, int | None], str] = {
    key: format_action(a) for key, a in _ACTIONS.items()
}


def parse_action(text: str) -> Action:
    """Parse the canonical action text; raises ``InvalidActionError`` with a helpful message."""
    action = _ACTION_BY_TEXT.get(text)
    if action is not None:
        return action
    words = text.split(" ")
    hint = (
        "expected '<play|discard> <card> <deck|draw C>', e.g. 'play R5 deck' or "
        f"'discard Y10 draw B' (colours Y B W G R; wager cards are written {WAGER_LETTER}, "
        f"e.g. G{WAGER_LETTER})"
    )
    if len(words) not in (3, 4) or words[0] not in ("play", "discard"):
        raise InvalidActionError(f"cannot parse action {text!r}: {hint}")
    parse_card(words[1])
    raise InvalidActionError(f"cannot parse action {text!r}: bad draw source; {hint}")


@dataclass(frozen=True, slots=True, repr=False)
class LastAction:
    """A seat's most recent action in the current round, as the other seat saw it too."""

    action: Action
    """The whole turn: the card played or discarded, where, and the draw source."""
    drawn: Card | None
    """The card taken from a discard pile (public: it was that pile's top); None for a draw
    from the deck (the card drawn from the deck is never told)."""

    def __repr__(self) -> str:
        return f"LastAction({format_action(self.action)!r}, drawn={self.drawn!r})"


Hand = tuple[Card, ...]
Expeditions = tuple[tuple[Card, ...], ...]
"""Five expeditions (one per colour, in ``COLOURS`` order), each in the order played."""
HistoryEntry = tuple[int, int, str]
"""One public action: (0-based round, seat, canonical action text)."""
Deal = tuple[Hand, Hand, tuple[Card, ...]]
"""A round's deal: seat 0's hand, seat 1's hand (each sorted), the deck in drawing order."""
LastActions = tuple[LastAction | None, LastAction | None]
"""Each seat's most recent action in the current round, None before its first."""
NO_LAST_ACTIONS: LastActions = (None, None)
