"""Legal actions on the wire: the text list when it is small, a compact form when it is not.

A decision's legal actions travel as their texts (``DecisionRequest.legal_actions``). A Haggis
lead can offer ~19,000 actions, 815 kB of text in one request, which every bot in every
language had to parse. When the texts total more than ``TEXTS_BUDGET`` bytes on the wire, the
referee sends them compact instead (``CompactLegalActions``, docs/protocol.md "Legal actions"):

* the list is factored, when it is, as every *body* followed by each of a few *suffixes*, body by
  body (a Haggis lead: each card combination with "", " bet 15" and " bet 30"): found by trying,
  and kept only when the product gives the list back exactly;
* the bodies, joined by line feeds, are compressed with zlib (every language has it; expanding
  needs no rules of the game);
* ``legal_actions`` then holds an evenly spaced sample of the texts (at most ``SAMPLE_BUDGET``
  bytes): a bot written before the compact form still answers a legal action.

The worst Haggis lead known (19,026 actions) becomes a request of about 43 kB (from 853 kB).
Which form a request uses is decided per request; the referee checks an answer against the
game's whole legal set either way (``Game.is_legal``), never against the sample.
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence

from arena.v1 import bot_pb2

TEXTS_BUDGET = 32 * 1024
"""Legal action texts up to this many bytes on the wire travel as the plain list."""

SAMPLE_BUDGET = 8 * 1024
"""The most wire bytes of the sample left in ``legal_actions`` beside the compact form."""

REQUEST_LIMIT = 64 * 1024
"""What a DecisionRequest of any built-in game stays within (tested on playouts of every game
and the worst Haggis lead known)."""

MAX_SUFFIXES = 16
"""The most suffixes tried when factoring a list."""

FAST_LEVEL = 1
"""zlib level tried first (the worst Haggis lead: ~1.5 ms, 36 kB)."""

SMALL_LEVEL = 9
"""zlib level used when the fast one leaves more than ``COMPRESSED_SOFT_LIMIT`` bytes."""

COMPRESSED_SOFT_LIMIT = 40 * 1024
"""Compressed bodies larger than this at ``FAST_LEVEL`` are compressed again, harder."""

_FRAMING = 3
"""Upper bound of the wire bytes a repeated string entry adds to its text (tag and length,
for texts under 16 kB)."""


def fill_legal_actions(request: bot_pb2.DecisionRequest, texts: Sequence[str]) -> None:
    """Put a decision's legal action texts into ``request``: the plain list when it fits
    ``TEXTS_BUDGET``, else the compact form and a sample of the texts."""
    size = wire_size(texts)
    if size <= TEXTS_BUDGET:
        request.legal_actions.extend(texts)
        return
    compact = compact_legal_actions(texts, size)
    if compact is None:  # nothing smaller than the list itself: send the list
        request.legal_actions.extend(texts)
        return
    request.legal_actions.extend(sample_texts(texts, SAMPLE_BUDGET, size))
    request.legal_actions_compact.CopyFrom(compact)


def legal_texts(request: bot_pb2.DecisionRequest) -> tuple[str, ...]:
    """Every legal action text of a received request, in the game's order, whichever form it
    came in. ``ValueError`` when the compact form does not expand to what it says."""
    if request.HasField("legal_actions_compact"):
        return expand_legal_actions(request.legal_actions_compact)
    return tuple(request.legal_actions)


def compact_legal_actions(texts: Sequence[str],
                          size: int | None = None) -> bot_pb2.CompactLegalActions | None:
    """The compact form of ``texts`` (``size``: their ``wire_size``, when known), or None when
    it cannot be used (no texts, a text with a line feed) or is not smaller than the plain
    list."""
    if not texts:
        return None
    bodies, suffixes = factor_suffixes(texts)
    joined = "\n".join(bodies)
    if joined.count("\n") != len(bodies) - 1:  # a body holds a line feed: not splittable
        return None
    raw = joined.encode()
    packed = zlib.compress(raw, FAST_LEVEL)
    if len(packed) > COMPRESSED_SOFT_LIMIT:
        packed = zlib.compress(raw, SMALL_LEVEL)
    compact = bot_pb2.CompactLegalActions(bodies_zlib=packed, bodies_size=len(raw),
                                          suffixes=suffixes, count=len(texts))
    if compact.ByteSize() >= (wire_size(texts) if size is None else size):
        return None
    return compact


def expand_legal_actions(compact: bot_pb2.CompactLegalActions) -> tuple[str, ...]:
    """The legal action texts a compact form stands for (docs/protocol.md "Legal actions");
    ``ValueError`` when it is malformed (bad zlib data, sizes or count that do not agree)."""
    try:
        raw = zlib.decompress(compact.bodies_zlib)
    except zlib.error as exc:
        raise ValueError(f"compact legal actions: the bodies do not decompress ({exc})") from None
    if len(raw) != compact.bodies_size:
        raise ValueError(f"compact legal actions: {len(raw)} bytes of bodies, the request "
                         f"says {compact.bodies_size}")
    bodies = raw.decode().split("\n")
    texts = _product(bodies, tuple(compact.suffixes) or ("",))
    if len(texts) != compact.count:
        raise ValueError(f"compact legal actions: {len(texts)} texts, the request says "
                         f"{compact.count}")
    return texts


def _product(bodies: list[str], suffixes: tuple[str, ...]) -> tuple[str, ...]:
    """Every body followed by each suffix, body by body (one list per suffix, interleaved:
    faster than one concatenation loop)."""
    if suffixes == ("",):
        return tuple(bodies)
    texts: list[str] = [""] * (len(bodies) * len(suffixes))
    for index, suffix in enumerate(suffixes):
        texts[index::len(suffixes)] = [body + suffix for body in bodies] if suffix else bodies
    return tuple(texts)


def factor_suffixes(texts: Sequence[str]) -> tuple[list[str], list[str]]:
    """``texts`` as bodies and suffixes, ``texts == [b + s for b in bodies for s in suffixes]``
    with the first suffix empty: the most suffixes that do it (at most ``MAX_SUFFIXES``), or
    every text a body and the one suffix ``""``."""
    first = texts[0]
    run = 1  # how many texts in a row, from the first, extend it: the candidates
    while run < min(len(texts), MAX_SUFFIXES) and texts[run].startswith(first):
        run += 1
    whole = list(texts)
    for size in range(run, 1, -1):
        if len(texts) % size:
            continue
        suffixes = [text[len(first):] for text in whole[:size]]
        bodies = whole[::size]
        if all(whole[index::size] == [body + suffix for body in bodies]
               for index, suffix in enumerate(suffixes) if index):
            return bodies, suffixes
    return whole, [""]


def sample_texts(texts: Sequence[str], budget: int, size: int | None = None) -> list[str]:
    """Evenly spaced texts of ``texts`` (the first always), in order, at most ``budget`` wire
    bytes (at least one text; ``size``: their ``wire_size``, when known)."""
    average = max(1, (wire_size(texts) if size is None else size) // len(texts))
    step = max(1, -(-len(texts) * average // budget))  # ceil(texts per budget)
    picked: list[str] = []
    used = 0
    for text in texts[::step]:
        used += len(text.encode()) + _FRAMING
        if used > budget and picked:
            break
        picked.append(text)
    return picked


def wire_size(texts: Sequence[str]) -> int:
    """The wire bytes of ``texts`` as a repeated string field, at most (``_FRAMING`` a text).
    One join in C measures them: cheaper than summing their lengths, even for a Lost Cities
    request's 16 texts, and ``isascii`` reads a flag, it does not scan."""
    joined = "".join(texts)
    utf8 = len(joined) if joined.isascii() else len(joined.encode())
    return utf8 + _FRAMING * len(texts)
