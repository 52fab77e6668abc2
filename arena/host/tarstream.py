"""Reading a tar an adversary wrote: every header and every member bounded before it is read.

``tarfile`` in stream mode reads the body of a GNU long name or of a PAX header whole, however
large its header says it is, before any cap of the caller applies: a 283-byte bzip2 tar whose
long name claimed 8 GiB cost the competition server 774 MiB of memory. Here:

* :class:`Inflated` reads a plain, gzip, bzip2 or xz stream (zstd is refused: the standard
  library has no decoder), one piece of at most :data:`PIECE_BYTES` at a time;
  :class:`Counted` counts (and hashes) what passes through it and refuses past a limit. So a
  bomb costs at most its limit in decompressing, never in memory.
* :class:`TarStream` walks a tar one 512-byte header at a time (parsed by
  ``tarfile.TarInfo.frombuf``, which reads nothing more): a long name or link name of more
  than :data:`LONG_NAME_MAX` bytes and a PAX header of more than :data:`PAX_MAX` are refused
  from the size their header claims, before a byte of them is read. Refused as well: sparse
  members (their bytes do not bound what they unpack to), a directory, link, device or FIFO
  header claiming data (readers disagree on whether it has any), a global header naming a
  path or size, damaged headers. A member's bytes are read through :meth:`TarStream.read`,
  never more than the header said.

Every refusal is a ``ConfigError`` of one line saying what the archive holds.
"""

from __future__ import annotations

import bz2
import hashlib
import lzma
import tarfile
import zlib
from collections.abc import Iterator
from typing import Any, BinaryIO, Protocol

from arena.errors import ConfigError
from arena.model import plain_text

BLOCK = tarfile.BLOCKSIZE
"""A tar header, and the unit members are padded to."""
PIECE_BYTES = 1 << 20
"""The most bytes read, decompressed or copied at a time."""
LONG_NAME_MAX = 4096
"""The longest GNU long name or link name (Linux's PATH_MAX)."""
PAX_MAX = 1 << 20
"""The largest PAX extended header (Go's ``archive/tar``, which the Docker engine uses, allows
the same)."""
HEADER_ONLY = frozenset((tarfile.DIRTYPE, tarfile.SYMTYPE, tarfile.LNKTYPE, tarfile.CHRTYPE,
                         tarfile.BLKTYPE, tarfile.FIFOTYPE))
"""Member types without bytes of their own."""
ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
_ENCODING = "utf-8"
_NAMES_AFTER = {tarfile.GNUTYPE_LONGNAME: "path", tarfile.GNUTYPE_LONGLINK: "linkpath"}


class Reader(Protocol):
    """What the readers here read from: ``read(n)`` gives at most ``n`` bytes, fewer only at
    the end."""

    def read(self, n: int, /) -> bytes: ...


def shown(name: str) -> str:
    """A member's name as a refusal quotes it: plain text, at most 120 characters."""
    return repr(plain_text(name)[:120])


def _size(n: int) -> str:
    return f"{n / (1 << 30):.1f} GiB" if n >= 1 << 30 else \
        f"{n / (1 << 20):g} MiB" if n >= 1 << 20 else f"{n} bytes"


# --- decompressing --------------------------------------------------------------------------
class _Zlib:
    """gzip through ``zlib`` with the interface of ``bz2``'s and ``lzma``'s decompressors."""

    def __init__(self) -> None:
        self._inner = zlib.decompressobj(wbits=31)

    @property
    def eof(self) -> bool:
        return self._inner.eof

    @property
    def needs_input(self) -> bool:
        return not self._inner.unconsumed_tail

    @property
    def unused_data(self) -> bytes:
        return self._inner.unused_data

    def decompress(self, data: bytes, max_length: int) -> bytes:
        return self._inner.decompress(self._inner.unconsumed_tail + data, max_length)


_DECODERS: dict[str, tuple[bytes, Any]] = {
    "gzip": (b"\x1f\x8b", _Zlib),
    "bzip2": (b"BZh", bz2.BZ2Decompressor),
    "xz": (b"\xfd7zXZ\x00", lzma.LZMADecompressor),
}


class Inflated:
    """The plain bytes of a plain, gzip, bzip2 or xz stream (told by its first bytes;
    concatenated streams are read one after the other). ``ConfigError`` for zstd, for damaged
    or truncated compressed data. ``what`` names the stream in refusals."""

    def __init__(self, raw: Reader, what: str) -> None:
        self.raw = raw
        self.what = what
        head = raw.read(8)
        self.compression = next((kind for kind, (magic, _) in _DECODERS.items()
                                 if head.startswith(magic)), "")
        if head.startswith(ZSTD_MAGIC):
            raise ConfigError(f"{what} is zstd-compressed: send it plain, or compressed with "
                              "gzip, bzip2 or xz")
        self._decoder: Any = None
        self._input = head
        self._piece = memoryview(b"")

    def read(self, n: int) -> bytes:
        parts: list[bytes] = []
        while n > 0:
            if not self._piece:
                self._piece = memoryview(self._next_piece())
                if not self._piece:
                    break
            part = self._piece[:n]
            self._piece = self._piece[len(part):]
            parts.append(bytes(part))
            n -= len(part)
        return b"".join(parts)

    def _next_piece(self) -> bytes:
        """The next piece of plain bytes (at most ``PIECE_BYTES``), ``b""`` at the end."""
        if not self.compression:
            data, self._input = self._input or self.raw.read(PIECE_BYTES), b""
            return data
        try:
            return self._decompressed()
        except (OSError, EOFError, ValueError, zlib.error, lzma.LZMAError) as exc:
            raise ConfigError(f"{self.what} is damaged {self.compression} data ({exc}): send "
                              "the archive again") from None

    def _decompressed(self) -> bytes:
        while True:
            if self._decoder is None or self._decoder.eof:
                rest = (self._decoder.unused_data if self._decoder else b"") + self._input
                self._input = b""
                rest = rest or self.raw.read(PIECE_BYTES)
                if self._decoder is not None and not rest.strip(b"\0"):
                    return b""  # the end (zeros after it are padding)
                self._decoder = _DECODERS[self.compression][1]()  # the first or a next stream
                self._input = rest
            data, self._input = self._input, b""
            if not data and self._decoder.needs_input:
                data = self.raw.read(PIECE_BYTES)
            piece: bytes = self._decoder.decompress(data, PIECE_BYTES)
            if piece:
                return piece
            if not data and not self._decoder.eof:  # no input left, nor output pending
                raise ConfigError(f"{self.what} ends inside its {self.compression} data: "
                                  "send the whole archive")


class Counted:
    """Counts, and with ``digest`` hashes (SHA-256), the bytes read through it; past ``limit``
    bytes, ``ConfigError(refusal)``."""

    def __init__(self, inner: Reader, *, limit: int | None = None, refusal: str = "",
                 digest: bool = False) -> None:
        self.inner = inner
        self.limit = limit
        self.refusal = refusal
        self.count = 0
        self.sha256 = hashlib.sha256() if digest else None

    def read(self, n: int) -> bytes:
        data = self.inner.read(n)
        self.count += len(data)
        if self.limit is not None and self.count > self.limit:
            raise ConfigError(self.refusal)
        if self.sha256 is not None:
            self.sha256.update(data)
        return data

    def hexdigest(self) -> str:
        """The SHA-256 of what passed, hex (``digest`` must have been given)."""
        assert self.sha256 is not None
        return self.sha256.hexdigest()


class Window:
    """The next ``size`` bytes of a file, from where it stands."""

    def __init__(self, file: BinaryIO, size: int) -> None:
        self.file = file
        self.left = size

    def read(self, n: int) -> bytes:
        data = self.file.read(min(n, self.left))
        self.left -= len(data)
        return data


# --- walking a tar --------------------------------------------------------------------------
class TarStream:
    """The members of a tar read from ``source``, one header at a time (see the module doc).
    ``what`` names the archive in refusals (``"the bot's tar"``). With ``seekable``, skipped
    bytes are sought past instead of read (``source`` is then a plain file). ``position`` is
    the offset of the next byte (a member's bytes start at its ``offset_data``)."""

    def __init__(self, source: Reader, what: str, *, seekable: bool = False) -> None:
        self.source = source
        self.what = what
        self.seekable = seekable
        self.position = 0
        self._left = 0  # bytes of the current member not read yet
        self._padding = 0
        self._member = ""

    def __iter__(self) -> Iterator[tarfile.TarInfo]:
        while True:
            self._skip(self._left + self._padding)
            self._left = self._padding = 0
            member = self._next_member()
            if member is None:
                return
            member.offset_data = self.position
            self._member = member.name
            self._left = member.size
            self._padding = -member.size % BLOCK
            yield member

    def read(self, n: int) -> bytes:
        """At most ``n`` bytes of the current member (``b""`` at its end); ``ConfigError``
        when the archive ends inside it."""
        want = min(n, self._left)
        if want <= 0:
            return b""
        data = self.source.read(want)
        if not data:
            raise ConfigError(f"{self.what} ends inside {shown(self._member)}: send the whole "
                              "archive")
        self._left -= len(data)
        self.position += len(data)
        return data

    def _exact(self, n: int, *, at_header: bool = False) -> bytes:
        parts: list[bytes] = []
        got = 0
        while got < n:
            data = self.source.read(n - got)
            if not data:
                break
            parts.append(data)
            got += len(data)
        self.position += got
        if got < n and (got or not at_header):
            raise ConfigError(f"{self.what} is not a readable tar (it ends inside a header, "
                              f"at byte {self.position}): send the whole archive as a tar")
        return b"".join(parts)

    def _skip(self, n: int) -> None:
        if n <= 0:
            return
        if self.seekable:
            self.source.seek(n, 1)  # type: ignore[attr-defined]
            self.position += n
            return
        while n > 0:
            data = self.source.read(min(n, PIECE_BYTES))
            if not data:
                raise ConfigError(f"{self.what} ends inside {shown(self._member)}: send the "
                                  "whole archive")
            n -= len(data)
            self.position += len(data)

    def _next_member(self) -> tarfile.TarInfo | None:
        """The next member with its long names and PAX records applied; None at the end."""
        extended: dict[str, str] = {}
        while True:
            start = self.position
            block = self._exact(BLOCK, at_header=True)
            if not block.strip(b"\0"):  # the end: a zero block (or none)
                if extended:
                    raise ConfigError(f"{self.what} ends after an extended header, without "
                                      "its member")
                return None
            try:
                info = tarfile.TarInfo.frombuf(block, _ENCODING, "surrogateescape")
            except tarfile.HeaderError as exc:
                raise ConfigError(f"{self.what} is not a readable tar (a damaged header at "
                                  f"byte {start}: {exc}): send a tar") from None
            if info.type in _NAMES_AFTER:
                body = self._special(info, LONG_NAME_MAX, "a long name")
                extended[_NAMES_AFTER[info.type] + "!gnu"] = body.split(b"\0", 1)[0].decode(
                    _ENCODING, "surrogateescape")
            elif info.type in (tarfile.XHDTYPE, tarfile.SOLARIS_XHDTYPE):
                extended.update(self._pax(self._special(info, PAX_MAX, "a PAX header")))
            elif info.type == tarfile.XGLTYPE:
                self._global(self._pax(self._special(info, PAX_MAX, "a PAX global header")))
            else:
                return self._member_of(info, extended)

    def _special(self, info: tarfile.TarInfo, cap: int, kind: str) -> bytes:
        """The body of a long name or PAX header: refused unread when it claims more than
        ``cap`` bytes."""
        if not 0 <= info.size <= cap:
            raise ConfigError(f"{self.what} holds {kind} of {_size(info.size)} (at most "
                              f"{_size(cap)}): send a plain tar of the files")
        body = self._exact(info.size)
        self._skip(-info.size % BLOCK)
        return body

    def _pax(self, body: bytes) -> dict[str, str]:
        """The records of a PAX header (``"<length> <key>=<value>\\n"``)."""
        records: dict[str, str] = {}
        pos = 0
        while pos < len(body) and body[pos:].strip(b"\0"):
            space = body.find(b" ", pos)
            digits = body[pos:space] if space > pos else b""
            length = int(digits) if digits.isdigit() else 0
            record = body[pos:pos + length]
            if length <= len(digits) + 1 or len(record) != length or not record.endswith(b"\n"):
                raise ConfigError(f"{self.what} holds a damaged PAX header: send a plain tar")
            key, equals, value = record[len(digits) + 1:-1].partition(b"=")
            if not equals:
                raise ConfigError(f"{self.what} holds a damaged PAX header: send a plain tar")
            records[key.decode(_ENCODING, "surrogateescape")] = value.decode(
                _ENCODING, "surrogateescape")
            pos += length
        sparse = next((key for key in records if key.startswith("GNU.sparse")), None)
        if sparse is not None:
            raise ConfigError(f"{self.what} holds a sparse file (PAX {shown(sparse)}): a sparse "
                              "file unpacks to more than its bytes; send plain files")
        return records

    def _global(self, records: dict[str, str]) -> None:
        named = sorted(records.keys() & {"path", "linkpath", "size"})
        if named:
            raise ConfigError(f"{self.what} holds a PAX global header setting {named[0]!r} for "
                              "every member: send a plain tar")

    def _member_of(self, info: tarfile.TarInfo, extended: dict[str, str]) -> tarfile.TarInfo:
        """``info`` with the extended names and size applied (a GNU long name wins over a PAX
        path, as in Go's ``archive/tar``, which the Docker engine reads layers with)."""
        for key, attribute in (("path", "name"), ("linkpath", "linkname")):
            value = extended.get(f"{key}!gnu", extended.get(key))
            if value is not None:
                setattr(info, attribute, value)
        if "size" in extended:
            if not extended["size"].isdigit():
                raise ConfigError(f"{self.what} holds {shown(info.name)} with a PAX size that "
                                  "is not a number")
            info.size = int(extended["size"])
        if info.size < 0:
            raise ConfigError(f"{self.what} holds {shown(info.name)} with a negative size")
        if info.type == tarfile.AREGTYPE and info.name.endswith("/"):
            info.type = tarfile.DIRTYPE
        if info.type == tarfile.GNUTYPE_SPARSE:
            raise ConfigError(f"{self.what} holds {shown(info.name)}, a sparse file: it unpacks "
                              "to more than its bytes; send plain files")
        if info.type in HEADER_ONLY and info.size:
            raise ConfigError(f"{self.what} holds {shown(info.name)}, a directory, link, "
                              "device or FIFO whose header claims bytes: send a plain tar")
        return info
