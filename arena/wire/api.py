"""The per-game codec protocol: game views and actions <-> arena.v1 protobuf messages.

Codecs are pure (no I/O) and are the only game code that touches generated protobuf types.
``observation_from_proto(observation_to_proto(v)) == v`` and the same for actions must hold
(checked by the conformance suite).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol

from google.protobuf.message import Message


class HistoryBytes:
    """A seat's observation history on the wire, extended entry by entry.

    Every decision request carries the seat's whole history (a bot keeps no state between
    decisions), and a match's history only grows. Building every entry's message again for
    every decision made encoding quadratic in the match's length: 170 of the 210 µs that a
    Lost Cities request cost at the end of a 3-round match (391 entries), measured. A codec
    appends ``of(history)``, the serialized repeated field, to a message built without it
    (``MergeFromString``: the bytes are exactly those of the field set entry by entry). The
    referee keeps one per seat and match, so a history is extended only when the one it saw
    last is a prefix of it (anything else is encoded from scratch): one seat's earlier
    bytes can only ever be reused for the same seat.
    """

    def __init__(self, entry_bytes: Callable[[Any], bytes]) -> None:
        self._entry_bytes = entry_bytes
        """One history entry as its serialized field (tag, length, entry)."""
        self._history: tuple[Any, ...] = ()
        self._data = b""

    def of(self, history: tuple[Any, ...]) -> bytes:
        """The serialized history field holding every entry of ``history``, in order."""
        known = len(self._history)
        if len(history) < known or history[:known] != self._history:
            known, self._data = 0, b""
        if len(history) > known:
            self._data += b"".join(map(self._entry_bytes, history[known:]))
        self._history = history
        return self._data


def set_history(message: Any, entries: tuple[Any, ...], entry: Callable[[Any], Message],
                history: HistoryBytes | None) -> None:
    """Fill the ``history`` field of an observation built without it: through ``history``
    when given (the referee's per-seat encoding), else entry by entry (one view: messages
    are faster than bytes)."""
    if history is None:
        message.history.extend(map(entry, entries))
    else:
        message.MergeFromString(history.of(entries))


def history_entry_bytes(observation_type: Callable[..., Message], entry: Message) -> bytes:
    """One history entry as the serialized ``history`` field of ``observation_type``."""
    data: bytes = observation_type(history=[entry]).SerializeToString()
    return data


class HistoryDecoder:
    """A seat's observation history decoded entry by entry (the SDK keeps one per match).

    The referee sends a seat the whole history with every decision, and within a match it
    only ever grows; decoding all of it every time cost a Lost Cities bot 90 µs per decision
    on average over a 3-round match (a Haggis bot parses every action text again), measured.
    Only the entries after the ones decoded last are decoded, provided the message has at
    least as many entries and its entry at the last known position decodes to the same
    value; otherwise everything is decoded again.
    """

    def __init__(self, entry: Callable[[Any], Any]) -> None:
        self._entry = entry
        """One history entry message -> its value in ``view.history``."""
        self._known: tuple[Any, ...] = ()

    def of(self, entries: Sequence[Any]) -> tuple[Any, ...]:
        """The decoded history of ``entries`` (a repeated history field)."""
        known = len(self._known)
        if known and (len(entries) < known or self._entry(entries[known - 1]) != self._known[-1]):
            known, self._known = 0, ()
        if len(entries) > known:
            self._known += tuple(map(self._entry, entries[known:]))
        return self._known


PLUGIN_FIELD = "plugin"
"""The ``Observation`` / ``Action`` oneof field (a ``google.protobuf.Any``) that carries a plugin
game's own messages."""


class GameCodec(Protocol):
    """A game's wire codec. A built-in game names its own field of the ``Observation`` /
    ``Action`` oneofs; a plugin game's codec has ``field = ""`` and the class attributes
    ``observation_message`` and ``action_message`` (its generated message classes), which
    travel packed in the oneofs' ``plugin`` field (an ``Any``)."""

    game_id: str
    """The game's registry id."""
    field: str
    """The field name of the game in the ``Observation`` / ``Action`` oneofs (e.g. lost_cities);
    empty for a plugin game (its messages travel in ``plugin``)."""

    def observation_to_proto(self, view: Any, history: HistoryBytes | None = None) -> Message:
        """The view's message; its history through ``history`` when given (see HistoryBytes)."""
        ...

    def history_entry_bytes(self, entry: Any) -> bytes:
        """One entry of ``view.history`` as the serialized history field of an observation."""
        ...

    def observation_from_proto(self, message: Any, history: HistoryDecoder | None = None
                               ) -> Any:
        """The message's view; its history through ``history`` when given (HistoryDecoder)."""
        ...

    def history_entry_from_proto(self, entry: Any) -> Any:
        """One history entry message as its value in ``view.history``."""
        ...

    def action_to_proto(self, action: Any) -> Message: ...

    def action_from_proto(self, message: Any) -> Any:
        """Decode a typed action; raises ``InvalidActionError`` when it names no valid action."""
        ...
