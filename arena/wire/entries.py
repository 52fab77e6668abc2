"""Small repeated fields of an observation whose entries repeat all match long, encoded and
decoded once per distinct value (a seat's last action: a handful of values per match).

Building the two ``last_actions`` entries of an observation message by message cost a Lost
Cities request about 9 µs and a Haggis one about 22 µs, and decoding them about as much again in
a bot (measured on a loaded host): about a twentieth of a decision's round trip, for two
entries. An ``EntryCache`` keeps each value's serialized entry (appended to a message built
without the field, ``MergeFromString``, as ``arena.wire.api.HistoryBytes`` does for the
history) and each serialized entry's decoded value.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import Any

from google.protobuf.message import Message

from arena.errors import InvalidActionError

CACHE_LIMIT = 4096
"""Values kept per cache and direction before it starts over (Haggis plays are many; the
values of one match are few)."""


class DecodedByBytes:
    """Messages decoded once per distinct value, keyed by their serialized bytes: serializing a
    small message back costs a few hundred ns, while reading its fields builds a Python object
    per element. The same bytes always decode to the same value; a message that does not decode
    raises and is not kept. Bounded (``CACHE_LIMIT``); threads racing only decode twice."""

    def __init__(self, decode: Callable[[Any], Any]) -> None:
        self._decode = decode
        """One message -> its value (raises ``InvalidActionError`` when malformed)."""
        self._values: dict[bytes, Any] = {}

    def __call__(self, message: Message) -> Any:
        """The decoded value of ``message``."""
        key = message.SerializeToString()
        if key in self._values:
            return self._values[key]
        value = self._decode(message)  # a malformed message raises: nothing kept
        if len(self._values) >= CACHE_LIMIT:
            self._values.clear()
        self._values[key] = value
        return value


class EntryCache:
    """One repeated field of an observation type: values to serialized entries and back."""

    def __init__(self, observation_type: Callable[..., Message], field: str,
                 encode: Callable[[Any], Message], decode: Callable[[Any], Any]) -> None:
        self._observation_type = observation_type
        """The observation message class the field belongs to."""
        self._field = field
        """The repeated field's name."""
        self._encode = encode
        """One value -> its entry message."""
        self._value = DecodedByBytes(decode)
        """One entry message -> its value, once per distinct entry."""
        self._bytes: dict[Hashable, bytes] = {}

    def field_bytes(self, values: Sequence[Hashable]) -> bytes:
        """The serialized field holding one entry per value, in order."""
        return b"".join(map(self._entry_bytes, values))

    def values(self, entries: Sequence[Message]) -> tuple[Any, ...]:
        """The decoded value of every entry of the field, in order."""
        return tuple(self._value(entry) for entry in entries)

    def seat_pair(self, entries: Sequence[Message]) -> tuple[Any, Any]:
        """The field as one value per seat (seat 0, seat 1); an observation without it (one
        from before the field existed) reads as ``(None, None)``; ``InvalidActionError`` for
        any other number of entries."""
        if not entries:
            return (None, None)
        if len(entries) != 2:
            raise InvalidActionError(f"{self._field} needs one entry per seat")
        return (self._value(entries[0]), self._value(entries[1]))

    def _entry_bytes(self, value: Hashable) -> bytes:
        found = self._bytes.get(value)
        if found is None:
            message = self._observation_type(**{self._field: [self._encode(value)]})
            found = message.SerializeToString()
            if len(self._bytes) >= CACHE_LIMIT:
                self._bytes.clear()
            self._bytes[value] = found
        return found
