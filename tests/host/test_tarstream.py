"""arena.host.tarstream: decompressing a piece at a time, and reading tar members within what
their headers say (the attacks on it are in test_uploads.py and test_image_archive.py)."""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import random
from collections.abc import Callable

import pytest

from arena.errors import ConfigError
from arena.host.tarstream import PIECE_BYTES, Counted, Inflated, TarStream
from tests.support.archives import layer

pytestmark = pytest.mark.unit

PACKERS: dict[str, Callable[[bytes], bytes]] = {
    "gzip": gzip.compress, "bzip2": bz2.compress, "xz": lzma.compress}


def _all(inflated: Inflated) -> bytes:
    return b"".join(iter(lambda: inflated.read(700_000), b""))


@pytest.mark.integration
@pytest.mark.parametrize("kind", sorted(PACKERS))
def test_streams_come_out_whole_across_piece_boundaries(kind: str) -> None:
    """Concatenated streams are read one after the other, zeros after the end are padding,
    and a stream cut short is one refusal (not a short read)."""
    pack = PACKERS[kind]
    rnd = random.Random(7)
    for size in (0, PIECE_BYTES - 1, PIECE_BYTES + 1, 3 * PIECE_BYTES + 17):
        noise = bytes(rnd.getrandbits(8) for _ in range(min(size, 50_000)))
        data = (noise + b"ab" * size)[:size]
        packed, tail = pack(data), pack(b"tail")
        for source, expected in ((packed, data), (packed + tail, data + b"tail"),
                                 (packed + bytes(5000), data)):
            inflated = Inflated(io.BytesIO(source), "the test's stream")
            assert inflated.compression == kind
            assert _all(inflated) == expected
        cut = Inflated(io.BytesIO(packed[:-10]), "the test's stream")
        with pytest.raises(ConfigError, match="the test's stream (ends inside|is damaged) "):
            while cut.read(PIECE_BYTES):
                pass


def test_a_plain_stream_passes_through_and_counting_stops_at_its_limit() -> None:
    data = layer({"a.txt": b"a" * 5000})
    counted = Counted(Inflated(io.BytesIO(data), "x"), limit=len(data), digest=True)
    assert b"".join(iter(lambda: counted.read(999), b"")) == data
    assert counted.count == len(data)
    over = Counted(Inflated(io.BytesIO(data), "x"), limit=len(data) - 1, refusal="too big")
    with pytest.raises(ConfigError, match="too big"):
        while over.read(999):
            pass


def test_members_are_read_within_their_size_and_skipped_when_unread() -> None:
    data = layer({"a.txt": b"a" * 700, "b.txt": b"b" * 3, "c.txt": b""})
    stream = TarStream(io.BytesIO(data), "the test's tar")
    seen = {}
    for member in stream:
        seen[member.name] = stream.read(10_000) if member.name != "a.txt" else b""
    assert seen == {"a.txt": b"", "b.txt": b"bbb", "c.txt": b""}
    truncated = TarStream(io.BytesIO(data[:900]), "the test's tar")
    with pytest.raises(ConfigError, match="the test's tar ends inside 'a.txt'"):
        for _ in truncated:
            pass
