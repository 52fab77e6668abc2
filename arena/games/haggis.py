"""Haggis for two players: a pure rules engine (standard library only).

The rules are exactly ``shared/rules/haggis.md``. A match is a game to ``target`` points (250 by
default, 350 for a long game) made of rounds; a round is dealt from ``round_seed(seed, round,
"haggis")``.

Cards are small ints: number card ``(rank - 2) * 4 + suit`` (0..35, suits R G B Y), then
``J = 36``, ``Q = 37``, ``K = 38``. A hand is a bit mask of card ids (each player holds their own
J, Q and K, so a hand never holds two Js); captured piles are tuples (both players' Js end up in
piles). A combination (``Combo``) carries its *reading* (set of rank r, run from a to b of width
w, or which bomb) and the mask of its physical cards; the wild cards' stand-in ranks follow from
the reading (canonical assignment: the wild cards in J, Q, K order fill the missing places in
ascending rank order).

Action text grammar (canonical; ``parse_action`` accepts nothing else)::

    action := "pass" [" bet " ("0" | "15" | "30")]
            | combo  [" bet " ("15" | "30")]
    combo  := "set " RANK ": " cards                 a set of rank RANK (J/Q/K: a single face card)
            | "run " RANK "-" RANK "x" W ": " cards  ranks a..b, W cards per rank (W = 1..4)
            | "bomb " BOMB ": " cards                BOMB: rainbow JQ JK QK JQK suited (low → high)
    cards  := card (" " card)*   number cards by rank then suit R G B Y, then J, Q, K
    card   := RANK SUIT          a number card: 2R .. 10Y
            | WILD ["=" RANK]    J/Q/K; "=RANK" when it stands for a lower rank (always in sets)

Examples: ``set 5: 5R 5G J=5``, ``set K: K``, ``run 2-5x1: 2G 5G J=3 K=4``,
``run 10-Jx2: 10R 10G J Q=J``, ``bomb JQ: J Q``, ``bomb rainbow: 3R 5G 7B 9Y``,
``pass bet 15``, ``run 3-4x2: 3R 3G J=4 Q=4 bet 30``.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations
from typing import Any

from arena.errors import IllegalActionError, InvalidActionError
from arena.games.api import GameResult, Options, OptionSpec, round_seed, validate_options

# --- cards ---------------------------------------------------------------------------------

SUITS = "RGBY"
"""Suit letters; suit index = position (red, green, blue, yellow)."""
JACK, QUEEN, KING = 36, 37, 38
"""Card ids of the face (wild) cards."""
WILDS = (JACK, QUEEN, KING)
NUMBER_MASK = (1 << 36) - 1
WILD_MASK = 7 << 36
MAX_ROUNDS = 40
"""The hard cap on rounds (rules page, rule 17)."""
BETS = (0, 15, 30)
HAND_SIZE = 14
"""Number cards dealt to each player (plus their J, Q, K)."""

SET, RUN, BOMB = 0, 1, 2
"""Combination kinds."""
KIND_NAMES = ("set", "run", "bomb")
RAINBOW, BOMB_JQ, BOMB_JK, BOMB_QK, BOMB_JQK, SUITED = 1, 2, 3, 4, 5, 6
"""Bomb levels, lowest to highest."""
BOMB_NAMES = {1: "rainbow", 2: "JQ", 3: "JK", 4: "QK", 5: "JQK", 6: "suited"}
_BOMB_BY_NAME = {name: level for level, name in BOMB_NAMES.items()}
_WILD_BOMBS = {
    BOMB_JQ: 1 << JACK | 1 << QUEEN,
    BOMB_JK: 1 << JACK | 1 << KING,
    BOMB_QK: 1 << QUEEN | 1 << KING,
    BOMB_JQK: WILD_MASK,
}
_ODD_RANKS = (3, 5, 7, 9)

_RANK_TEXT = {r: str(r) for r in range(2, 11)} | {11: "J", 12: "Q", 13: "K"}
_RANK_OF_TEXT = {text: r for r, text in _RANK_TEXT.items()}
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
        return _RANK_TEXT[card - 25]
    return f"{card // 4 + 2}{SUITS[card % 4]}"


def parse_card(text: str) -> int:
    """Inverse of ``card_text``; raises ``InvalidActionError``."""
    if text in ("J", "Q", "K"):
        return JACK + "JQK".index(text)
    rank = _RANK_OF_TEXT.get(text[:-1])
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


def _rank_bits(mask: int, rank: int) -> int:
    """The 4 suit bits of ``rank`` (2..10) in a mask."""
    return (mask >> ((rank - 2) * 4)) & 15


# --- combinations and actions ----------------------------------------------------------------


@dataclass(frozen=True)
class Combo:
    """A combination with its reading."""

    kind: int
    """SET, RUN or BOMB."""
    low: int
    """Set: its rank (11..13 for a single face card); run: lowest rank; bomb: its level 1..6."""
    high: int
    """Set: its rank; run: top rank (up to 13); bomb: its level."""
    width: int
    """Set and bomb: number of cards; run: cards per rank (1..4)."""
    mask: int
    """The physical cards (bit mask of card ids)."""

    @property
    def cards(self) -> tuple[int, ...]:
        """The physical cards, ascending ids (number cards by rank and suit, then J, Q, K)."""
        return cards_of(self.mask)

    @property
    def size(self) -> int:
        """Number of cards."""
        return self.mask.bit_count()


@dataclass(frozen=True)
class Action:
    """A decision: a pass (``combo is None``) or a play, optionally declaring a bet."""

    combo: Combo | None = None
    bet: int | None = None
    """The bet declared with this decision (0/15/30 on a pass, 15/30 on a play), or None."""


PASS = Action()


def combo_error(combo: Combo) -> str | None:
    """Why ``combo`` is not a valid combination with its reading, or None when it is."""
    for value in (combo.kind, combo.low, combo.high, combo.width, combo.mask):
        if type(value) is not int:
            return "combination fields must be integers"
    if combo.mask <= 0 or combo.mask >> 39:
        return "no cards"
    if combo.kind == SET:
        return _set_error(combo)
    if combo.kind == RUN:
        return _run_error(combo)
    if combo.kind == BOMB:
        return _bomb_error(combo)
    return f"unknown combination kind {combo.kind}"


def _set_error(c: Combo) -> str | None:
    rank = c.low
    if c.high != rank or not 2 <= rank <= 13:
        return "a set has one rank 2..10 (or a single J, Q or K)"
    if c.width != c.mask.bit_count():
        return "set width must be its number of cards"
    if rank > 10:
        return None if c.mask == 1 << (rank + 25) else "a J, Q or K alone is a single of its rank"
    numbers = c.mask & NUMBER_MASK
    if not numbers:
        return "a set needs a number card (face cards alone are a bomb)"
    if numbers & ~(15 << ((rank - 2) * 4)):
        return f"every number card of a set of {rank} must be a {rank}"
    return None


def _run_slots(c: Combo) -> list[int] | str:
    """The ranks the wild cards fill (ascending), or an error message."""
    a, b, w = c.low, c.high, c.width
    if not (2 <= a < b <= 13 and 1 <= w <= 4):
        return "a run goes from a lower to a higher rank (2..K) with width 1..4"
    if (w == 1 and b - a < 2) or c.size != w * (b - a + 1):
        return "a run of singles needs 3 ranks, of pairs or more 2 ranks, w cards per rank"
    numbers = c.mask & NUMBER_MASK
    if not numbers:
        return "a run needs a number card"
    if a > 10 or numbers >> ((min(b, 10) - 1) * 4) or numbers & ((1 << ((a - 2) * 4)) - 1):
        return "a number card lies outside the run's ranks"
    union = 0
    slots: list[int] = []
    for rank in range(a, b + 1):
        bits = _rank_bits(numbers, rank) if rank <= 10 else 0
        union |= bits
        slots.extend([rank] * (w - bits.bit_count()))
    if union.bit_count() > w:
        return "a run uses the same suits at every rank"
    wilds = cards_of(c.mask & WILD_MASK)
    if len(wilds) != len(slots):
        return "too many cards at one rank"
    for wild, slot in zip(wilds, slots, strict=True):
        if wild - 25 < slot:
            return "a wild card stands only for its own or a lower rank"
    return slots


def _run_error(c: Combo) -> str | None:
    slots = _run_slots(c)
    return slots if isinstance(slots, str) else None


def _bomb_error(c: Combo) -> str | None:
    level = c.low
    if c.high != level or c.width != c.mask.bit_count():
        return "a bomb's reading is its level and its number of cards"
    if level in _WILD_BOMBS:
        return None if c.mask == _WILD_BOMBS[level] else f"not the {BOMB_NAMES[level]} bomb"
    if level not in (RAINBOW, SUITED):
        return f"unknown bomb level {level}"
    if c.mask & WILD_MASK or c.width != 4:
        return "number bombs are 3, 5, 7, 9 without wild cards"
    suits = [_rank_bits(c.mask, r) for r in _ODD_RANKS]
    if any(bits.bit_count() != 1 for bits in suits):
        return "number bombs are one 3, 5, 7 and 9"
    if level == SUITED:
        return None if len(set(suits)) == 1 else "the suited bomb is 3-5-7-9 of one suit"
    return None if len(set(suits)) == 4 else "the rainbow bomb is 3-5-7-9 in four suits"


def beats(combo: Combo, top: Combo) -> bool:
    """Whether ``combo`` may be played on ``top`` (both valid combinations)."""
    if combo.kind == BOMB:
        return top.kind != BOMB or combo.low > top.low
    if top.kind == BOMB or combo.kind != top.kind or combo.width != top.width:
        return False
    if combo.kind == SET:
        return combo.low > top.low
    return combo.high - combo.low == top.high - top.low and combo.high > top.high


def wild_readings(combo: Combo) -> tuple[tuple[int, int], ...]:
    """(wild card, rank it stands for) for every wild card of a valid combination."""
    wilds = cards_of(combo.mask & WILD_MASK)
    if combo.kind == SET:
        return tuple((w, combo.low) for w in wilds)
    if combo.kind == RUN:
        slots = _run_slots(combo)
        assert not isinstance(slots, str)
        return tuple(zip(wilds, slots, strict=True))
    return tuple((w, w - 25) for w in wilds)


@lru_cache(maxsize=8192)
def format_combo(combo: Combo) -> str:
    """Canonical text of a (valid) combination."""
    parts = [card_text(c) for c in cards_of(combo.mask & NUMBER_MASK)]
    for wild, rank in wild_readings(combo):
        parts.append(card_text(wild) + ("" if rank == wild - 25 else f"={_RANK_TEXT[rank]}"))
    cards = " ".join(parts)
    if combo.kind == SET:
        head = f"set {_RANK_TEXT[combo.low]}"
    elif combo.kind == RUN:
        head = f"run {_RANK_TEXT[combo.low]}-{_RANK_TEXT[combo.high]}x{combo.width}"
    else:
        head = f"bomb {BOMB_NAMES[combo.low]}"
    return f"{head}: {cards}"


def format_action(action: Action) -> str:
    """Canonical text of an action (see the module docstring)."""
    text = "pass" if action.combo is None else format_combo(action.combo)
    return text if action.bet is None else f"{text} bet {action.bet}"


def parse_action(text: str) -> Action:
    """Parse the canonical text of an action; raises ``InvalidActionError``."""
    if not isinstance(text, str):
        raise InvalidActionError(f"an action is text, got {type(text).__name__}")
    body, bet = text, None
    if " bet " in text:
        body, _, bet_text = text.rpartition(" bet ")
        if bet_text not in ("0", "15", "30"):
            raise InvalidActionError(f"bet must be 0, 15 or 30 in {text!r}")
        bet = int(bet_text)
    if body == "pass":
        return Action(None, bet)
    if bet == 0:
        raise InvalidActionError("a play declares no bet by itself: write no bet instead of bet 0")
    combo = _parse_combo(body)
    action = Action(combo, bet)
    canonical = format_action(action)
    if canonical != text:
        raise InvalidActionError(f"not canonical: {text!r}; write {canonical!r}")
    return action


def _parse_combo(text: str) -> Combo:
    head, sep, card_text_ = text.partition(": ")
    words = head.split(" ")
    if not sep or len(words) != 2 or words[0] not in KIND_NAMES:
        raise InvalidActionError(
            f"cannot parse {text!r}: expected 'pass', 'set R: cards', 'run A-BxW: cards' "
            "or 'bomb NAME: cards'"
        )
    mask = 0
    for token in card_text_.split(" "):
        card = parse_card(token.split("=", 1)[0])
        if mask >> card & 1:
            raise InvalidActionError(f"card {card_text(card)} named twice in {text!r}")
        mask |= 1 << card
    kind, reading = KIND_NAMES.index(words[0]), words[1]
    if kind == SET:
        rank = _parse_rank(reading, text)
        combo = Combo(SET, rank, rank, mask.bit_count(), mask)
    elif kind == BOMB:
        level = _BOMB_BY_NAME.get(reading)
        if level is None:
            raise InvalidActionError(f"unknown bomb {reading!r}; bombs: {' '.join(_BOMB_BY_NAME)}")
        combo = Combo(BOMB, level, level, mask.bit_count(), mask)
    else:
        span, x, width = reading.rpartition("x")
        low, dash, high = span.partition("-")
        if not (x and dash and width in ("1", "2", "3", "4")):
            raise InvalidActionError(f"a run reads 'run A-BxW', e.g. 'run 3-5x1', in {text!r}")
        combo = Combo(RUN, _parse_rank(low, text), _parse_rank(high, text), int(width), mask)
    error = combo_error(combo)
    if error is not None:
        raise InvalidActionError(f"no combination: {text!r}: {error}")
    return combo


def _parse_rank(text: str, whole: str) -> int:
    rank = _RANK_OF_TEXT.get(text)
    if rank is None:
        raise InvalidActionError(f"unknown rank {text!r} in {whole!r} (ranks 2..10, J, Q, K)")
    return rank


# --- enumerating combinations ----------------------------------------------------------------

_SUIT_SETS = {w: [m for m in range(16) if m.bit_count() == w] for w in range(1, 5)}
_CANON_SUITS = [[0] * 5 for _ in range(16)]
"""_CANON_SUITS[union][w]: the suit set a run of width w with number suits ``union`` is listed
under (the union plus the lowest other suits), so each run is enumerated once."""
for _union in range(16):
    for _w in range(1, 5):
        _s = _union
        for _bit in (1, 2, 4, 8):
            if _s.bit_count() < _w and not _s & _bit:
                _s |= _bit
        _CANON_SUITS[_union][_w] = _s


def _wild_subsets(hand: int) -> list[list[tuple[int, ...]]]:
    wilds = cards_of(hand & WILD_MASK)
    return [list(combinations(wilds, k)) for k in range(len(wilds) + 1)]


def set_combos(hand: int, size: int | None = None, above: int = 0) -> list[Combo]:
    """Every set in ``hand`` (of ``size`` cards and rank > ``above`` when given)."""
    out: list[Combo] = []
    wilds = cards_of(hand & WILD_MASK)
    wild_masks = [
        (mask_of(sub), k) for k in range(len(wilds) + 1) for sub in combinations(wilds, k)
    ]
    for rank in range(max(2, above + 1), 11):
        bits = _rank_bits(hand, rank)
        sub = bits
        while sub:
            n = sub.bit_count()
            numbers = sub << ((rank - 2) * 4)
            for wmask, k in wild_masks:
                if size is None or n + k == size:
                    out.append(Combo(SET, rank, rank, n + k, numbers | wmask))
            sub = (sub - 1) & bits
    if size in (None, 1):
        for wild in wilds:
            if wild - 25 > above:
                out.append(Combo(SET, wild - 25, wild - 25, 1, 1 << wild))
    return out


def run_combos(
    hand: int, width: int | None = None, length: int | None = None, above: int = 0
) -> list[Combo]:
    """Every run in ``hand`` (of that width and length, top rank > ``above``, when given)."""
    out: list[Combo] = []
    wild_subsets = _wild_subsets(hand)
    budget = len(wild_subsets) - 1
    for w in (width,) if width else (1, 2, 3, 4):
        min_len = 3 if w == 1 else 2
        for suits in _SUIT_SETS[w]:
            lowest = 2 if length is None else max(2, above - length + 2)
            for a in range(lowest, 13):
                _extend(hand, suits, w, a, a, 0, 0, [], budget, min_len, length, wild_subsets, out)
    return out


def _extend(
    hand: int,
    suits: int,
    w: int,
    a: int,
    rank: int,
    numbers: int,
    union: int,
    slots: list[int],
    budget: int,
    min_len: int,
    length: int | None,
    wild_subsets: list[list[tuple[int, ...]]],
    out: list[Combo],
) -> None:
    """Add rank ``rank`` to a run started at ``a`` in every possible way (depth-first)."""
    avail = _rank_bits(hand, rank) & suits if rank <= 10 else 0
    sub = avail
    while True:
        need = w - sub.bit_count()
        if len(slots) + need <= budget:
            new_numbers = numbers | (sub << ((rank - 2) * 4)) if sub else numbers
            new_union = union | sub
            new_slots = slots + [rank] * need if need else slots
            run_len = rank - a + 1
            if (
                run_len >= min_len
                and new_numbers
                and (length is None or run_len == length)
                and _CANON_SUITS[new_union][w] == suits
            ):
                _emit(a, rank, w, new_numbers, new_slots, wild_subsets, out)
            if rank < 13 and (length is None or run_len < length):
                _extend(
                    hand,
                    suits,
                    w,
                    a,
                    rank + 1,
                    new_numbers,
                    new_union,
                    new_slots,
                    budget,
                    min_len,
                    length,
                    wild_subsets,
                    out,
                )
        if not sub:
            break
        sub = (sub - 1) & avail


def _emit(
    a: int,
    b: int,
    w: int,
    numbers: int,
    slots: list[int],
    wild_subsets: list[list[tuple[int, ...]]],
    out: list[Combo],
) -> None:
    for wilds in wild_subsets[len(slots)]:
        if all(wild - 25 >= slot for wild, slot in zip(wilds, slots, strict=True)):
            out.append(Combo(RUN, a, b, w, numbers | mask_of(wilds)))


def bomb_combos(hand: int, above: int = 0) -> list[Combo]:
    """Every bomb in ``hand`` with level > ``above``."""
    out: list[Combo] = []
    held = [[c for c in range(r * 4 - 8, r * 4 - 4) if hand >> c & 1] for r in _ODD_RANKS]
    if above < RAINBOW:
        for cards in _product(held):
            if len({c % 4 for c in cards}) == 4:
                out.append(Combo(BOMB, RAINBOW, RAINBOW, 4, mask_of(cards)))
    for level, mask in _WILD_BOMBS.items():
        if level > above and hand & mask == mask:
            out.append(Combo(BOMB, level, level, mask.bit_count(), mask))
    if above < SUITED:
        for suit in range(4):
            mask = mask_of(number_card(r, suit) for r in _ODD_RANKS)
            if hand & mask == mask:
                out.append(Combo(BOMB, SUITED, SUITED, 4, mask))
    return out


def _product(groups: list[list[int]]) -> Iterator[tuple[int, ...]]:
    if not groups:
        yield ()
        return
    for card in groups[0]:
        for rest in _product(groups[1:]):
            yield (card, *rest)


def _combo_key(c: Combo) -> tuple[int, int, int, int, int]:
    return (c.kind, c.low, c.high, c.width, c.mask)


@lru_cache(maxsize=32)
def lead_combos(hand: int) -> tuple[Combo, ...]:
    """Every combination in ``hand`` (what a leader may play), in the stable sorted order."""
    combos = set_combos(hand) + run_combos(hand) + bomb_combos(hand)
    combos.sort(key=_combo_key)
    return tuple(combos)


@lru_cache(maxsize=32)
def follow_combos(hand: int, top: Combo) -> tuple[Combo, ...]:
    """Every combination in ``hand`` that beats ``top``, in the stable sorted order."""
    if top.kind == BOMB:
        combos = bomb_combos(hand, top.low)
    elif top.kind == SET:
        combos = set_combos(hand, top.width, top.low) + bomb_combos(hand)
    else:
        length = top.high - top.low + 1
        combos = run_combos(hand, top.width, length, top.high) + bomb_combos(hand)
    combos.sort(key=_combo_key)
    return tuple(combos)


# --- states, views ----------------------------------------------------------------------------


@dataclass(frozen=True)
class RoundSummary:
    """The public result of a finished round."""

    scores: tuple[int, int]
    """What each seat scored in the round."""
    out: int
    """The seat that went out."""
    bets: tuple[int, int]
    """Each seat's final bet (0, 15 or 30)."""
    leftover: tuple[int, ...]
    """The cards left in the other seat's hand (revealed at the round's end)."""
    haggis: tuple[int, ...]
    """The Haggis (revealed at the round's end)."""


@dataclass(frozen=True)
class State:
    """A full (omniscient) match state. Treat as opaque; use the game's methods."""

    seed: int
    target: int
    round: int
    """0-based index of the round being played (the last round once the match is over)."""
    hands: tuple[int, int]
    """Hand masks (number and face cards)."""
    haggis: int
    bets: tuple[int | None, int | None]
    """Declared bets; None = not declared yet (counts as 0)."""
    played: tuple[bool, bool]
    """Whether each seat has played a card this round (then it can no longer bet)."""
    to_move: int | None
    leader: int
    """The seat that led the current trick."""
    trick: tuple[tuple[int, Combo], ...]
    """The plays of the current trick, (seat, combo), oldest first."""
    captured: tuple[tuple[int, ...], tuple[int, ...]]
    """The cards each seat captured this round (sorted)."""
    history: tuple[tuple[int, int, Action], ...]
    """(round, seat, action) of every decision of the match."""
    summaries: tuple[RoundSummary, ...]
    totals: tuple[int, int]
    deal: tuple[int, int, int]
    """The round's deal: both hand masks and the Haggis mask."""
    result: GameResult | None = None


@dataclass(frozen=True)
class View:
    """What one seat may know (rules page, "What each player may know")."""

    seat: int
    round: int
    target: int
    to_move: int | None
    leader: int
    """The seat that led the current trick."""
    hand: tuple[int, ...]
    """Own cards (ids, ascending), face cards included."""
    face_cards: tuple[tuple[int, ...], tuple[int, ...]]
    """Both seats' unplayed face cards (public)."""
    hand_sizes: tuple[int, int]
    bets: tuple[int | None, int | None]
    """Declared bets; None = not declared yet."""
    played: tuple[bool, bool]
    """Whether each seat has played a card this round (then it can no longer bet)."""
    trick: tuple[tuple[int, Combo], ...]
    """The current trick's plays (seat, combo), oldest first; empty when a lead is due."""
    captured: tuple[tuple[int, ...], tuple[int, ...]]
    """Cards each seat captured this round."""
    history: tuple[tuple[int, int, Action], ...]
    """(round, seat, action) of every decision of the match (public)."""
    summaries: tuple[RoundSummary, ...]
    """Every finished round (scores, who went out, bets, the revealed leftover hand and Haggis)."""
    totals: tuple[int, int]


# --- the game --------------------------------------------------------------------------------


def _deal(seed: int, round_index: int) -> tuple[int, int, int]:
    rng = random.Random(round_seed(seed, round_index, "haggis"))
    deck = list(range(36))
    rng.shuffle(deck)
    return (
        mask_of(deck[:HAND_SIZE]) | WILD_MASK,
        mask_of(deck[HAND_SIZE : 2 * HAND_SIZE]) | WILD_MASK,
        mask_of(deck[2 * HAND_SIZE :]),
    )


def _new_round(prev: State | None, seed: int, target: int, leader: int, index: int) -> State:
    deal = _deal(seed, index)
    return State(
        seed=seed,
        target=target,
        round=index,
        hands=(deal[0], deal[1]),
        haggis=deal[2],
        bets=(None, None),
        played=(False, False),
        to_move=leader,
        leader=leader,
        trick=(),
        captured=((), ()),
        history=prev.history if prev else (),
        summaries=prev.summaries if prev else (),
        totals=prev.totals if prev else (0, 0),
        deal=deal,
    )


def _pair(pair: tuple[Any, Any], seat: int, value: Any) -> tuple[Any, Any]:
    return (value, pair[1]) if seat == 0 else (pair[0], value)


def _trick_cards(trick: tuple[tuple[int, Combo], ...]) -> tuple[int, ...]:
    """Every card of the trick (both players' face cards share ids, so no mask union)."""
    out: tuple[int, ...] = ()
    for _, combo in trick:
        out += cards_of(combo.mask)
    return out


def _take_trick(state: State, winner: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The captured piles after the trick goes to ``winner`` (to the other seat on a bomb)."""
    receiver = 1 - winner if state.trick[-1][1].kind == BOMB else winner
    pile = tuple(sorted(state.captured[receiver] + _trick_cards(state.trick)))
    return _pair(state.captured, receiver, pile)


class HaggisGame:
    """Haggis for two players as a ``Game`` (see arena/games/api.py)."""

    id = "haggis"
    version = 1
    title = "Haggis (two players)"
    option_specs: tuple[OptionSpec, ...] = (
        OptionSpec(
            "target",
            250,
            minimum=1,
            maximum=10_000,
            help="points that end the game (250 short game, 350 long game)",
        ),
    )

    # -- set-up --
    def new_match(self, seed: int, options: Options | None = None) -> State:
        """Deal round 1 (seat 0 leads, seat 1 deals). Raises ``OptionsError``."""
        opts = validate_options(self.option_specs, options)
        return _new_round(None, int(seed), opts["target"], 0, 0)

    def options_of(self, state: State) -> dict[str, Any]:
        return {"target": state.target}

    # -- queries --
    def to_move(self, state: State) -> int | None:
        return state.to_move

    def legal_actions(self, state: State) -> tuple[Action, ...]:
        """Every legal action: passes first (bets 0/15/30 after the plain one), then plays in
        the order of (kind, low, high, width, cards), each followed by its bets 15 and 30."""
        seat = state.to_move
        if seat is None:
            return ()
        hand = state.hands[seat]
        if state.trick:
            combos = follow_combos(hand, state.trick[-1][1])
        else:
            combos = lead_combos(hand)
        can_bet = state.bets[seat] is None and not state.played[seat]
        out: list[Action] = []
        if state.trick:
            out.append(PASS)
            if can_bet:
                out.extend(Action(None, bet) for bet in BETS)
        if can_bet:
            for combo in combos:
                out.extend((Action(combo), Action(combo, 15), Action(combo, 30)))
        else:
            out.extend(Action(combo) for combo in combos)
        return tuple(out)

    def is_legal(self, state: State, action: Action) -> bool:
        return self._illegal_reason(state, action) is None

    def _illegal_reason(self, state: State, action: Action) -> str | None:
        seat = state.to_move
        if seat is None:
            return "the match is over"
        if not isinstance(action, Action):
            return "not a Haggis action"
        combo, bet = action.combo, action.bet
        if bet is not None:
            if bet not in BETS or type(bet) is not int or (combo is not None and bet == 0):
                return "a bet is 0, 15 or 30 (a play carries 15 or 30)"
            if state.bets[seat] is not None or state.played[seat]:
                return "you can bet only once, before your first card play"
        if combo is None:
            return None if state.trick else "the leader must play a combination"
        if not isinstance(combo, Combo):
            return "not a combination"
        error = combo_error(combo)
        if error is not None:
            return error
        if combo.mask & ~state.hands[seat]:
            return "you do not hold those cards"
        if state.trick and not beats(combo, state.trick[-1][1]):
            return "does not beat the current combination (same kind and shape, higher; or a bomb)"
        return None

    # -- transitions --
    def apply(self, state: State, action: Action) -> State:
        """The state after ``action``; raises ``IllegalActionError``."""
        reason = self._illegal_reason(state, action)
        if reason is not None:
            text = format_action(action) if isinstance(action, Action) else repr(action)
            raise IllegalActionError(f"illegal action {text!r}: {reason}")
        return self._apply(state, action)

    def _apply(self, state: State, action: Action) -> State:
        seat = state.to_move
        assert seat is not None
        bets = state.bets if action.bet is None else _pair(state.bets, seat, action.bet)
        history = state.history + ((state.round, seat, action),)
        combo = action.combo
        if combo is None:
            winner = state.trick[-1][0]
            return _replace(
                state,
                bets=bets,
                history=history,
                captured=_take_trick(state, winner),
                trick=(),
                leader=winner,
                to_move=winner,
            )
        if bets[seat] is None:
            bets = _pair(bets, seat, 0)
        hand = state.hands[seat] & ~combo.mask
        state = _replace(
            state,
            bets=bets,
            history=history,
            hands=_pair(state.hands, seat, hand),
            played=_pair(state.played, seat, True),
            trick=state.trick + ((seat, combo),),
            to_move=1 - seat,
        )
        return self._end_round(state, seat) if hand == 0 else state

    def _end_round(self, state: State, out: int) -> State:
        other = 1 - out
        captured = _take_trick(state, out)
        left = cards_of(state.hands[other])
        haggis = cards_of(state.haggis)
        bets = (state.bets[0] or 0, state.bets[1] or 0)
        won = points_of(captured[out]) + points_of(left) + points_of(haggis)
        score_out = won + 5 * len(left) + bets[0] + bets[1]
        scores = _pair((0, 0), out, score_out)
        scores = _pair(scores, other, points_of(captured[other]))
        totals = (state.totals[0] + scores[0], state.totals[1] + scores[1])
        summary = RoundSummary(scores, out, bets, left, haggis)
        ended = _replace(
            state,
            captured=captured,
            trick=(),
            to_move=None,
            summaries=state.summaries + (summary,),
            totals=totals,
        )
        finished = state.round + 1
        if game_over(totals, state.target, finished):
            rounds = tuple(s.scores for s in ended.summaries)
            return _replace(ended, result=GameResult(_leader_of(totals), totals, rounds))
        leader = next_leader(totals, out)
        return _new_round(ended, state.seed, state.target, leader, finished)

    # -- observations and records --
    def observation(self, state: State, seat: int) -> View:
        hands = state.hands
        return View(
            seat=seat,
            round=state.round,
            target=state.target,
            to_move=state.to_move,
            leader=state.leader,
            hand=cards_of(hands[seat]),
            face_cards=(cards_of(hands[0] & WILD_MASK), cards_of(hands[1] & WILD_MASK)),
            hand_sizes=(hands[0].bit_count(), hands[1].bit_count()),
            bets=state.bets,
            played=state.played,
            trick=state.trick,
            captured=state.captured,
            history=state.history,
            summaries=state.summaries,
            totals=state.totals,
        )

    def outcome(self, state: State) -> GameResult | None:
        return state.result

    def parse_action(self, text: str) -> Action:
        return parse_action(text)

    def format_action(self, action: Action) -> str:
        return format_action(action)

    def round_index(self, state: State) -> int:
        return state.round

    def finished_rounds(self, state: State) -> tuple[tuple[int, int], ...]:
        return tuple(s.scores for s in state.summaries)

    def deal_record(self, state: State) -> dict[str, Any]:
        """The round's deal: both 17-card hands and the Haggis (card texts), and the leader."""
        hand0, hand1, haggis = state.deal
        return {
            "round": state.round,
            "hands": [[card_text(c) for c in cards_of(h)] for h in (hand0, hand1)],
            "haggis": [card_text(c) for c in cards_of(haggis)],
        }


def game_over(totals: tuple[int, int], target: int, rounds_played: int) -> bool:
    """After a round: someone reached ``target`` and one player alone leads, or the round cap."""
    decided = max(totals) >= target and totals[0] != totals[1]
    return decided or rounds_played >= MAX_ROUNDS


def _leader_of(totals: tuple[int, int]) -> int | None:
    """The seat with the higher total, None on equal totals."""
    return None if totals[0] == totals[1] else (0 if totals[0] > totals[1] else 1)


def next_leader(totals: tuple[int, int], out: int) -> int:
    """Who leads the next round: the lower running total; on a tie, the seat that did not go
    out first in the previous round (``out`` went out)."""
    if totals[0] != totals[1]:
        return 0 if totals[0] < totals[1] else 1
    return 1 - out


def _replace(state: State, **changes: Any) -> State:
    """A lean ``dataclasses.replace`` (no re-validation, no deep copies)."""
    fields = dict(state.__dict__)
    fields.update(changes)
    new = object.__new__(State)
    new.__dict__.update(fields)
    return new


def determinize(view: View, rng: random.Random) -> State:
    """A full state consistent with ``view``: the unseen number cards (the opponent's and the
    Haggis) dealt at random. The seed of later rounds is drawn from ``rng`` too."""
    opp = 1 - view.seat
    own = mask_of(view.hand)
    seen = own
    for pile in view.captured:
        seen |= mask_of(c for c in pile if c < 36)
    for _, combo in view.trick:
        seen |= combo.mask & NUMBER_MASK
    unseen = [c for c in range(36) if not seen >> c & 1]
    rng.shuffle(unseen)
    n_opp = view.hand_sizes[opp] - len(view.face_cards[opp])
    opp_hand = mask_of(unseen[:n_opp]) | mask_of(view.face_cards[opp])
    haggis = mask_of(unseen[n_opp:])
    hands = _pair((own, own), opp, opp_hand)
    return State(
        seed=rng.getrandbits(63),
        target=view.target,
        round=view.round,
        hands=hands,
        haggis=haggis,
        bets=view.bets,
        played=view.played,
        to_move=view.to_move,
        leader=view.leader,
        trick=view.trick,
        captured=view.captured,
        history=view.history,
        summaries=view.summaries,
        totals=view.totals,
        deal=(hands[0], hands[1], haggis),
        result=_result_of(view) if view.to_move is None else None,
    )


def _result_of(view: View) -> GameResult:
    return GameResult(_leader_of(view.totals), view.totals, tuple(s.scores for s in view.summaries))


GAME = HaggisGame()
"""The registered Haggis game."""
