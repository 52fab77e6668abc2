"""Haggis combinations: readings, validity, ``beats``, text and enumeration (pure).

A combination (``Combo``) carries its *reading* (set of rank r, run from a to b of width w, or
which bomb) and the mask of its physical cards; the wild cards' stand-in ranks follow from the
reading (canonical assignment: the wild cards in J, Q, K order fill the missing places in
ascending rank order). Its canonical text is the ``combo`` rule of the action grammar in
``arena.games.haggis``. The enumerators (``lead_combos``, ``follow_combos`` and the per-kind
``set_combos``, ``run_combos``, ``bomb_combos``) list every combination a hand can play.

The rules are in ``docs/games/haggis.md``; ``arena.games.haggis`` re-exports the public names.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations
from typing import Any

from arena.errors import InvalidActionError
from arena.games.haggis.cards import (
    JACK,
    KING,
    NUMBER_MASK,
    QUEEN,
    RANK_OF_TEXT,
    RANK_TEXT,
    WILD_MASK,
    card_text,
    cards_of,
    mask_of,
    number_card,
    parse_card,
    rank_bits,
)

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


# --- what a combination is --------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
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
        bits = rank_bits(numbers, rank) if rank <= 10 else 0
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
    suits = [rank_bits(c.mask, r) for r in _ODD_RANKS]
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


# --- text -------------------------------------------------------------------------------------


@lru_cache(maxsize=8192)
def format_combo(combo: Combo) -> str:
    """Canonical text of a (valid) combination."""
    parts = [card_text(c) for c in cards_of(combo.mask & NUMBER_MASK)]
    for wild, rank in wild_readings(combo):
        parts.append(card_text(wild) + ("" if rank == wild - 25 else f"={RANK_TEXT[rank]}"))
    cards = " ".join(parts)
    if combo.kind == SET:
        head = f"set {RANK_TEXT[combo.low]}"
    elif combo.kind == RUN:
        head = f"run {RANK_TEXT[combo.low]}-{RANK_TEXT[combo.high]}x{combo.width}"
    else:
        head = f"bomb {BOMB_NAMES[combo.low]}"
    return f"{head}: {cards}"


def parse_combo(text: str) -> Combo:
    """Parse the canonical text of a combination (without a bet); raises
    ``InvalidActionError``. The caller checks that the text is canonical."""
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
    rank = RANK_OF_TEXT.get(text)
    if rank is None:
        raise InvalidActionError(f"unknown rank {text!r} in {whole!r} (ranks 2..10, J, Q, K)")
    return rank


# --- enumerating combinations ----------------------------------------------------------------
#
# Speed (issue 25). The enumerators fill *buckets*: a reading (kind, low, high, width) -> the
# masks of its physical cards, which sort natively (no tuple per combination), and each
# ``Combo`` is built once, in the sorted order, without the frozen dataclass's ``__init__``
# (``_combo``). Runs are extended rank by rank with flat lists of partial runs (no recursion);
# the wild cards that can fill a run's missing places are looked up per (missing ranks, wild
# cards held) once. A hand's combinations are kept (``_HandCombos``: sorted, and grouped by
# shape for following) in a bounded cache; a hand not in it is derived from a cached larger hand
# by filtering, since every combination of a hand with cards removed is one of the larger hand's
# that avoids them: that is how a hand shrinks during a round. A follower with nothing cached
# enumerates only the top's shape, as before.

Head = tuple[int, int, int, int]
"""(kind, low, high, width): a combination's reading; with its mask, its sort key."""
Buckets = dict[Head, list[int]]
"""Reading -> the masks of the combinations with that reading."""

_new = object.__new__


_SET_FIELDS = tuple(getattr(Combo, name).__set__ for name in ("kind", "low", "high", "width",
                                                                "mask"))


def _build(buckets: Buckets) -> list[Combo]:
    """The buckets' combinations in the sorted order of (kind, low, high, width, mask), each
    built without the frozen ``__init__``'s checks (same slots, equality and hash): the slots'
    setters called directly."""
    out: list[Combo] = []
    append = out.append
    set_kind, set_low, set_high, set_width, set_mask = _SET_FIELDS
    for head in sorted(buckets):
        kind, low, high, width = head
        masks = buckets[head]
        masks.sort()
        for mask in masks:
            combo = _new(Combo)
            set_kind(combo, kind)
            set_low(combo, low)
            set_high(combo, high)
            set_width(combo, width)
            set_mask(combo, mask)
            append(combo)
    return out


def _bucket(buckets: Buckets, head: Head) -> list[int]:
    found = buckets.get(head)
    if found is None:
        found = buckets[head] = []
    return found


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
_SUBSETS: list[tuple[tuple[int, int], ...]] = [
    tuple((sub, sub.bit_count()) for sub in range(16) if sub & bits == sub) for bits in range(16)
]
"""_SUBSETS[bits]: every (subset of the suit bits ``bits``, its size), the empty one first."""
_SLOTS = [[(rank,) * need for need in range(5)] for rank in range(14)]
"""_SLOTS[rank][n]: n missing places at ``rank``."""
_FILLS: dict[tuple[tuple[int, ...], int], tuple[int, ...]] = {}
"""(missing ranks ascending, wild cards held) -> the masks of the wild subsets that can fill
them in the canonical assignment (J, Q, K in order fill the places in rising rank order)."""


def _fills(slots: tuple[int, ...], wilds: int) -> tuple[int, ...]:
    """The wild masks (subsets of ``wilds``) that fill ``slots`` (cached: a few dozen keys)."""
    found = _FILLS.get((slots, wilds))
    if found is None:
        found = tuple(
            mask_of(sub)
            for sub in combinations(cards_of(wilds), len(slots))
            if all(wild - 25 >= slot for wild, slot in zip(sub, slots, strict=True))
        )
        _FILLS[(slots, wilds)] = found
    return found


def _set_keys(hand: int, size: int | None, above: int, out: Buckets) -> None:
    wilds = cards_of(hand & WILD_MASK)
    wild_masks = [
        (mask_of(sub), k) for k in range(len(wilds) + 1) for sub in combinations(wilds, k)
    ]
    for rank in range(max(2, above + 1), 11):
        shift = (rank - 2) * 4
        for sub, n in _SUBSETS[(hand >> shift) & 15][1:]:
            numbers = sub << shift
            for wmask, k in wild_masks:
                if size is None or n + k == size:
                    _bucket(out, (SET, rank, rank, n + k)).append(numbers | wmask)
    if size in (None, 1):
        for w in wilds:
            if w - 25 > above:
                out[(SET, w - 25, w - 25, 1)] = [1 << w]


def _run_keys(hand: int, width: int | None, length: int | None, above: int,
              out: Buckets) -> None:
    wilds = hand & WILD_MASK
    budget = wilds.bit_count()
    for w in (width,) if width else (1, 2, 3, 4):
        min_len = 3 if w == 1 else 2
        lowest = 2 if length is None else max(2, above - length + 2)
        reach = budget // w  # all-wild ranks a run can start with
        for suits in _SUIT_SETS[w]:
            held = [rank_bits(hand, rank) & suits for rank in range(2, 11)] + [0, 0, 0]
            subsets = [_SUBSETS[bits] for bits in held]
            for a in range(lowest, 13):
                if any(held[a - 2 : a - 1 + reach]):  # a run holds a number card
                    _runs_from(a, w, suits, subsets, wilds, budget, min_len, length, out)


def _runs_from(
    a: int,
    w: int,
    suits: int,
    subsets: list[tuple[tuple[int, int], ...]],
    wilds: int,
    budget: int,
    min_len: int,
    length: int | None,
    out: Buckets,
) -> None:
    """Every run of width ``w`` in suit set ``suits`` starting at rank ``a`` (rank by rank:
    partial runs are (number cards, their suits, missing places))."""
    partials: list[tuple[int, int, tuple[int, ...]]] = [(0, 0, ())]
    for rank in range(a, 14):
        shift = (rank - 2) * 4
        slots_at = _SLOTS[rank]
        partials = [
            (numbers | (sub << shift), union | sub, slots + slots_at[w - n])
            for numbers, union, slots in partials
            for sub, n in subsets[rank - 2]
            if len(slots) + w - n <= budget
        ]
        if not partials:
            return
        run_len = rank - a + 1
        if run_len >= min_len and (length is None or run_len == length):
            canon = _CANON_SUITS
            masks = None
            for numbers, union, slots in partials:
                if numbers and canon[union][w] == suits:
                    if masks is None:
                        masks = _bucket(out, (RUN, a, rank, w))
                    if slots:
                        masks.extend([numbers | f for f in _fills(slots, wilds)])
                    else:
                        masks.append(numbers)
        if length is not None and run_len >= length:
            return


def _bomb_keys(hand: int, above: int, out: Buckets) -> None:
    held = [[c for c in range(r * 4 - 8, r * 4 - 4) if hand >> c & 1] for r in _ODD_RANKS]
    if above < RAINBOW:
        for cards in _product(held):
            if len({c % 4 for c in cards}) == 4:
                _bucket(out, (BOMB, RAINBOW, RAINBOW, 4)).append(mask_of(cards))
    for level, mask in _WILD_BOMBS.items():
        if level > above and hand & mask == mask:
            out[(BOMB, level, level, mask.bit_count())] = [mask]
    if above < SUITED:
        for suit in range(4):
            mask = mask_of(number_card(r, suit) for r in _ODD_RANKS)
            if hand & mask == mask:
                _bucket(out, (BOMB, SUITED, SUITED, 4)).append(mask)


def _product(groups: list[list[int]]) -> Iterator[tuple[int, ...]]:
    if not groups:
        yield ()
        return
    for card in groups[0]:
        for rest in _product(groups[1:]):
            yield (card, *rest)


def set_combos(hand: int, size: int | None = None, above: int = 0) -> list[Combo]:
    """Every set in ``hand`` (of ``size`` cards and rank > ``above`` when given)."""
    buckets: Buckets = {}
    _set_keys(hand, size, above, buckets)
    return _build(buckets)


def run_combos(
    hand: int, width: int | None = None, length: int | None = None, above: int = 0
) -> list[Combo]:
    """Every run in ``hand`` (of that width and length, top rank > ``above``, when given)."""
    buckets: Buckets = {}
    _run_keys(hand, width, length, above, buckets)
    return _build(buckets)


def bomb_combos(hand: int, above: int = 0) -> list[Combo]:
    """Every bomb in ``hand`` with level > ``above``."""
    buckets: Buckets = {}
    _bomb_keys(hand, above, buckets)
    return _build(buckets)


Shape = tuple[int, int, int]
"""(kind, width, high - low): what a follower must match (bombs: (BOMB, 0, 0))."""


class _HandCombos:
    """Every combination of one hand, sorted, and (made on first use) grouped by shape."""

    __slots__ = ("combos", "groups")

    def __init__(self, combos: tuple[Combo, ...]) -> None:
        self.combos = combos
        self.groups: dict[Shape, list[Combo]] | None = None

    def _grouped(self) -> dict[Shape, list[Combo]]:
        groups: dict[Shape, list[Combo]] = {}
        for c in self.combos:
            shape = (BOMB, 0, 0) if c.kind == BOMB else (c.kind, c.width, c.high - c.low)
            group = groups.get(shape)
            if group is None:
                groups[shape] = [c]
            else:
                group.append(c)
        self.groups = groups
        return groups

    def beating(self, top: Combo) -> tuple[Combo, ...]:
        """The combinations that beat ``top``, sorted."""
        groups = self.groups if self.groups is not None else self._grouped()
        bombs = groups.get((BOMB, 0, 0), [])
        if top.kind == BOMB:
            return tuple(c for c in bombs if c.low > top.low)
        group = groups.get((top.kind, top.width, top.high - top.low), [])
        return tuple([c for c in group if c.low > top.low] + bombs)


_CACHE_SIZE = 32
"""Entries per cache: a round needs a few per seat (its hand shrinking from one cached larger
hand); the worst hand's list is 6,342 combinations, so the bound is also what caps memory."""
_HANDS: dict[int, _HandCombos] = {}
"""Hand mask -> its combinations, the most recently used last (bounded: ``_CACHE_SIZE``)."""
_FOLLOWS: dict[tuple[int, Combo], tuple[Combo, ...]] = {}
"""(hand, top) -> what beats it, for hands whose whole list is not known (bounded)."""


_EVICTING = threading.Lock()


def remember(cache: dict[Any, Any], key: Any, value: Any, size: int = _CACHE_SIZE) -> None:
    """``cache[key] = value``, first dropping the oldest entries so that ``cache`` holds at most
    ``size``. Safe when threads share the cache (a bot searching in threads): inserts take a
    lock; a lookup or a ``pop`` racing with it only makes an entry be recomputed."""
    with _EVICTING:
        while len(cache) >= size:
            try:
                del cache[next(iter(cache))]
            except (RuntimeError, KeyError, StopIteration):  # a pop elsewhere meanwhile
                continue
        cache[key] = value


def _known(hand: int) -> _HandCombos | None:
    """The hand's combinations if cached or derivable from a cached larger hand."""
    found = _HANDS.pop(hand, None)
    if found is None:
        larger = [h for h in list(_HANDS) if not hand & ~h]  # list(): one step, thread-safe
        parent = min(larger, key=int.bit_count, default=None)
        source = None if parent is None else _HANDS.get(parent)
        if parent is None or source is None:
            return None
        removed = parent & ~hand
        found = _HandCombos(tuple(c for c in source.combos if not c.mask & removed))
    remember(_HANDS, hand, found)
    return found


def clear_caches() -> None:
    """Forget every cached enumeration (benchmarks measure a cold enumeration with it)."""
    _HANDS.clear()
    _FOLLOWS.clear()


def lead_combos(hand: int) -> tuple[Combo, ...]:
    """Every combination in ``hand`` (what a leader may play), in the stable sorted order of
    (kind, low, high, width, mask)."""
    found = _known(hand)
    if found is None:
        buckets: Buckets = {}
        _set_keys(hand, None, 0, buckets)
        _run_keys(hand, None, None, 0, buckets)
        _bomb_keys(hand, 0, buckets)
        found = _HandCombos(tuple(_build(buckets)))
        remember(_HANDS, hand, found)
    return found.combos


def follow_combos(hand: int, top: Combo) -> tuple[Combo, ...]:
    """Every combination in ``hand`` that beats ``top``, in the stable sorted order."""
    found = _known(hand)
    if found is not None:
        return found.beating(top)
    beating = _FOLLOWS.get((hand, top))
    if beating is None:
        buckets: Buckets = {}
        if top.kind == SET:
            _set_keys(hand, top.width, top.low, buckets)
        elif top.kind == RUN:
            _run_keys(hand, top.width, top.high - top.low + 1, top.high, buckets)
        _bomb_keys(hand, top.low if top.kind == BOMB else 0, buckets)
        beating = tuple(_build(buckets))
        remember(_FOLLOWS, (hand, top), beating)
    return beating
