"""Haggis cards: card ids, masks, card text and card points (pure, standard library only).

Cards are small ints: number card ``(rank - 2) * 4 + suit`` (0..35, suits R G B Y), then
``J = 36``, ``Q = 37``, ``K = 38``. A hand is a bit mask of card ids (each player holds their own
J, Q and K, so a hand never holds two Js); captured piles are tuples (both players' Js end up in
piles). Ranks are 2..10 for number cards and 11/12/13 for J/Q/K.

The rules are in ``docs/games/haggis.md``; ``arena.games.haggis`` re-exports the public names.
"""

from __future__ import annotations

from collections.abc import Iterable

from arena.errors import InvalidActionError

SUITS = "RGBY"
"""Suit letters; suit index = position (red, green, blue, yellow)."""
JACK, QUEEN, KING = 36, 37, 38
"""Card ids of the face (wild) cards."""
WILDS = (JACK, QUEEN, KING)
NUMBER_MASK = (1 << 36) - 1
WILD_MASK = 7 << 36

RANK_TEXT = {r: str(r) for r in range(2, 11)} | {11: "J", 12: "Q", 13: "K"}
"""Text of a rank: ``2``..``10``, ``J``, ``Q``, ``K``."""
RANK_OF_TEXT = {text: r for r, text in RANK_TEXT.items()}
"""Inverse of ``RANK_TEXT``."""
_POINT_OF_RANK = {3: 1, 5: 1, 7: 1, 9: 1, 11: 2, 12: 3, 13: 5}


def card_rank(card: int) -> int:
    """Rank of a card: 2..10 for number cards, 11/12/13 for J/Q/K."""
    return card // 4 + 2 if card < 36 else card - 25


def card_suit(card: int) -> int | None:
    """Suit index (0..3, see ``SUITS``) of a number card; None for a face card."""
    return card % 4 if card < 36 else None


def number_card(rank: int, suit: int) -> int:
    """The id of the number card of this rank (2..10) and suit index (0..3)."""
    return (rank - 2) * 4 + suit


CARD_POINTS: tuple[int, ...] = tuple(_POINT_OF_RANK.get(card_rank(c), 0) for c in range(39))
"""Card points by card id (3/5/7/9: 1, J: 2, Q: 3, K: 5, others 0)."""


def card_text(card: int) -> str:
    """``5R``, ``10Y``, ``J``."""
    if card >= 36:
        return RANK_TEXT[card - 25]
    return f"{card // 4 + 2}{SUITS[card % 4]}"


def parse_card(text: str) -> int:
    """Inverse of ``card_text``; raises ``InvalidActionError``."""
    if text in ("J", "Q", "K"):
        return JACK + "JQK".index(text)
    rank = RANK_OF_TEXT.get(text[:-1])
    if rank is None or rank > 10 or len(text) < 2 or text[-1] not in SUITS:
        raise InvalidActionError(f"unknown card {text!r} (cards: 2R..10Y, J, Q, K)")
    return number_card(rank, SUITS.index(text[-1]))


def cards_of(mask: int) -> tuple[int, ...]:
    """The card ids in a mask, ascending."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return tuple(out)


def mask_of(cards: Iterable[int]) -> int:
    """The mask of some distinct cards."""
    mask = 0
    for card in cards:
        mask |= 1 << card
    return mask


def points_of(cards: Iterable[int]) -> int:
    """Sum of card points."""
    return sum(CARD_POINTS[c] for c in cards)


def rank_bits(mask: int, rank: int) -> int:
    """The 4 suit bits of ``rank`` (2..10) in a mask."""
    return (mask >> ((rank - 2) * 4)) & 15
