"""What the lab's bridges share: a game's actions as integers and a seat's observation as a
vector, both derived through the game protocol (arena/games/api.py) alone, for every installed
game (docs/lab.md, "Encodings").

Actions. A game whose engine declares ``action_space(options)`` (an optional hook: every action
the game can ever make with those options, in a fixed order) gets a **fixed encoding**: an
action's id is its index in that tuple, the same in every state. Any other game gets the
**legal-index encoding**: an id is an index into ``legal_actions(state)`` (which the protocol
keeps sorted in a stable order), so id ``k`` means the ``k``-th legal action of the state at
hand; its size is the engine's ``max_legal_actions(options)`` when declared, else
:data:`MAX_LEGAL_ACTIONS`. A state with more legal actions than the encoding holds raises
``ValueError`` naming the hook.

Observations. :func:`features` hashes a seat's view into a fixed-size vector: every leaf of the
view (a number, text or flag, found by walking its dataclass fields, tuples and lists) is one
token ``path=value`` counted in bucket ``crc32(token) % size``. Sequences are bags (order is
lost, counts are kept); unrelated tokens may share a bucket. It reads the seat's observation
only, so it leaks nothing the observation does not hold.
"""

from __future__ import annotations

import dataclasses
import enum
import zlib
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

MAX_LEGAL_ACTIONS = 32768
"""The legal-index encoding's size for a game that declares no ``max_legal_actions``: the worst
Haggis lead found has 19,026 legal actions (benchmarks/README.md)."""

FEATURES = 512
"""The default length of a seat's observation vector (:func:`features`)."""


class ActionEncoding:
    """A game's actions as the integers ``0 .. size - 1`` (module docstring)."""

    def __init__(self, game: Any, options: dict[str, Any], max_actions: int = 0) -> None:
        """``max_actions`` (> 0): the legal-index encoding's size, instead of the engine's
        ``max_legal_actions`` or :data:`MAX_LEGAL_ACTIONS` (no effect on a fixed encoding)."""
        self.game = game
        declared = getattr(game, "action_space", None)
        self.actions: tuple[Any, ...] | None = (tuple(declared(options))
                                                if declared is not None else None)
        self.fixed = self.actions is not None
        """Whether an id means the same action in every state."""
        if self.actions is not None:
            self.size = len(self.actions)
            self._index = {action: i for i, action in enumerate(self.actions)}
            self._by_identity = {id(action): self._index[action] for action in self.actions}
            """The id of an action of the space itself, found without hashing it (for an
            engine that hands out its space's own objects: the tuple keeps them alive, so
            an ``id`` here is theirs)."""
        else:
            bound = getattr(game, "max_legal_actions", None)
            self.size = (max_actions if max_actions > 0 else int(bound(options))
                         if bound is not None else MAX_LEGAL_ACTIONS)
            self._index = {}
            self._by_identity = {}

    def legal_ids(self, state: Any, legal: Sequence[Any] | None = None) -> list[int]:
        """The ids of the legal actions of ``state`` (``legal``: its legal actions, when
        known), ascending."""
        if legal is None:
            legal = self.game.legal_actions(state)
        if self.actions is not None:
            try:
                return sorted(map(self._by_identity.__getitem__, map(id, legal)))
            except KeyError:
                pass  # an equal action, not the space's own object
            index = self._index
            try:
                return sorted(index[action] for action in legal)
            except KeyError as missing:
                raise ValueError(
                    f"game {self.game.id}: the legal action "
                    f"{self.game.format_action(missing.args[0])!r} is not in the engine's "
                    "action_space(options): it must list every action the game can make "
                    "(docs/lab.md)") from None
        if len(legal) > self.size:
            raise ValueError(
                f"game {self.game.id}: a state has {len(legal)} legal actions, more than the "
                f"{self.size} its legal-index encoding holds; its engine can declare "
                "max_legal_actions(options), or ask for more with max_actions (docs/lab.md)")
        return list(range(len(legal)))

    def action(self, state: Any, action_id: int, legal: Sequence[Any] | None = None) -> Any:
        """The game's action of ``action_id`` in ``state`` (``legal``: its legal actions, when
        known); ``ValueError`` if it names none."""
        if self.actions is not None:
            if 0 <= action_id < self.size:
                return self.actions[action_id]
        else:
            if legal is None:
                legal = self.game.legal_actions(state)
            if 0 <= action_id < len(legal):
                return legal[action_id]
        raise ValueError(f"game {self.game.id}: action id {action_id} names no action here")

    def action_id(self, state: Any, action: Any) -> int:
        """The id of ``action`` (a legal action of ``state``)."""
        if self.actions is not None:
            return self._index[action]
        return list(self.game.legal_actions(state)).index(action)

    def text(self, state: Any, action_id: int, legal: Sequence[Any] | None = None) -> str:
        """The action text of ``action_id`` in ``state`` (``#<id>`` when it names none;
        ``legal``: its legal actions, when known)."""
        try:
            return str(self.game.format_action(self.action(state, action_id, legal)))
        except ValueError:
            return f"#{action_id}"


def features(view: Any, size: int = FEATURES,
             out: npt.NDArray[np.float32] | None = None) -> npt.NDArray[np.float32]:
    """A seat's view as a vector of ``size`` token counts (module docstring)."""
    vector = np.zeros(size, np.float32) if out is None else out
    if out is not None:
        vector.fill(0.0)
    buckets: list[int] = []
    _walk(view, "", buckets, size)
    np.add.at(vector, np.asarray(buckets, dtype=np.intp), 1.0)
    return vector


def _walk(value: Any, path: str, buckets: list[int], size: int) -> None:
    if isinstance(value, (tuple, list)):
        for item in value:
            _walk(item, path, buckets, size)
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        for field in dataclasses.fields(value):
            _walk(getattr(value, field.name), f"{path}.{field.name}", buckets, size)
    else:
        if isinstance(value, enum.Enum):
            value = value.name
        buckets.append(zlib.crc32(f"{path}={value}".encode()) % size)


_SEQUENCE: tuple[str, ...] = ("<sequence>",)
"""The kind of a tuple or list in :class:`Featurizer`'s walk (compared by identity)."""
_LEAF: tuple[str, ...] = ("<leaf>",)
"""The kind of a leaf (a number, text, flag or any other object)."""


class Featurizer:
    """:func:`features` with a memory, for the views of one seat along a match: a token's
    bucket is computed once, and a sequence of :data:`LONG` items or more that extends the one
    met last at the same path (a match's history grows by one entry a turn) walks only its new
    items. The vector is :func:`features`'s, to the bit."""

    LONG = 8
    """The shortest sequence the memory keeps."""
    TOKENS = 200_000
    """How many token buckets it keeps before it starts again."""

    def __init__(self, size: int = FEATURES) -> None:
        self.size = size
        self._buckets: dict[tuple[str, Any], int] = {}
        self._sequences: dict[tuple[str, int], tuple[tuple[Any, ...],
                                                     npt.NDArray[np.float32]]] = {}
        self._fields: dict[type, tuple[str, ...]] = {}
        self._met: dict[str, int] = {}
        """How many long sequences each path has had in the view being walked (the memory
        keeps one per path and occurrence: a pair of hands is two)."""

    def __call__(self, view: Any, out: npt.NDArray[np.float32] | None = None
                 ) -> npt.NDArray[np.float32]:
        buckets: list[int] = []
        counts: list[npt.NDArray[np.float32]] = []
        self._met.clear()
        self._walk(view, "", buckets, counts)
        vector = np.bincount(np.asarray(buckets, dtype=np.intp),
                             minlength=self.size).astype(np.float32)
        for part in counts:
            vector += part
        if out is None:
            return vector
        out[:] = vector
        return out

    def _walk(self, value: Any, path: str, buckets: list[int],
              counts: list[npt.NDArray[np.float32]]) -> None:
        kind = self._fields.get(type(value))
        if kind is None:
            kind = self._kind(value)
        if kind is _SEQUENCE:
            if len(value) >= self.LONG and isinstance(value, tuple):
                counts.append(self._sequence(value, path))
                return
            for item in value:
                self._walk(item, path, buckets, counts)
            return
        if kind is not _LEAF:  # a dataclass (a field-less one adds nothing, as in features)
            for name in kind:
                self._walk(getattr(value, name), f"{path}.{name}", buckets, counts)
            return
        if isinstance(value, enum.Enum):
            value = value.name
        try:
            bucket = self._buckets[path, value]
        except KeyError:
            bucket = zlib.crc32(f"{path}={value}".encode()) % self.size
            if len(self._buckets) >= self.TOKENS:
                self._buckets.clear()
            self._buckets[path, value] = bucket
        except TypeError:  # an unhashable leaf
            bucket = zlib.crc32(f"{path}={value}".encode()) % self.size
        buckets.append(bucket)

    def _kind(self, value: Any) -> tuple[str, ...]:
        """What a type is to the walk: a sequence, a dataclass (its field names) or a leaf."""
        kind = _LEAF
        if isinstance(value, (tuple, list)):
            kind = _SEQUENCE
        elif dataclasses.is_dataclass(value) and not isinstance(value, type):
            kind = tuple(field.name for field in dataclasses.fields(value))
        self._fields[type(value)] = kind
        return kind

    def _sequence(self, items: tuple[Any, ...], path: str) -> npt.NDArray[np.float32]:
        key = (path, self._met.get(path, 0))
        self._met[path] = key[1] + 1
        known = self._sequences.get(key)
        start, base = 0, None
        if known is not None and len(known[0]) <= len(items) \
                and items[:len(known[0])] == known[0]:
            start, base = len(known[0]), known[1]
        buckets: list[int] = []
        counts: list[npt.NDArray[np.float32]] = []
        for item in items[start:]:
            self._walk(item, path, buckets, counts)
        vector = np.bincount(np.asarray(buckets, dtype=np.intp),
                             minlength=self.size).astype(np.float32)
        for part in counts:
            vector += part
        if base is not None:
            vector += base
        self._sequences[key] = (items, vector)
        return vector


def text_of(view: Any) -> str:
    """A seat's view as one line of text (its ``repr``: the view's own field names)."""
    return repr(view)

