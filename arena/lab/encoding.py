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

    def __init__(self, game: Any, options: dict[str, Any]) -> None:
        self.game = game
        declared = getattr(game, "action_space", None)
        self.actions: tuple[Any, ...] | None = (tuple(declared(options))
                                                if declared is not None else None)
        self.fixed = self.actions is not None
        """Whether an id means the same action in every state."""
        if self.actions is not None:
            self.size = len(self.actions)
            self._index = {action: i for i, action in enumerate(self.actions)}
        else:
            bound = getattr(game, "max_legal_actions", None)
            self.size = int(bound(options)) if bound is not None else MAX_LEGAL_ACTIONS
            self._index = {}

    def legal_ids(self, state: Any) -> list[int]:
        """The ids of the legal actions of ``state``, ascending."""
        legal = self.game.legal_actions(state)
        if self.actions is not None:
            index = self._index
            return sorted(index[action] for action in legal)
        if len(legal) > self.size:
            raise ValueError(
                f"game {self.game.id}: a state has {len(legal)} legal actions, more than the "
                f"{self.size} its legal-index encoding holds; its engine can declare "
                "max_legal_actions(options) (docs/lab.md)")
        return list(range(len(legal)))

    def action(self, state: Any, action_id: int) -> Any:
        """The game's action of ``action_id`` in ``state`` (``ValueError`` if it names none)."""
        if self.actions is not None:
            if 0 <= action_id < self.size:
                return self.actions[action_id]
        else:
            legal = self.game.legal_actions(state)
            if 0 <= action_id < len(legal):
                return legal[action_id]
        raise ValueError(f"game {self.game.id}: action id {action_id} names no action here")

    def action_id(self, state: Any, action: Any) -> int:
        """The id of ``action`` (a legal action of ``state``)."""
        if self.actions is not None:
            return self._index[action]
        return list(self.game.legal_actions(state)).index(action)

    def text(self, state: Any, action_id: int) -> str:
        """The action text of ``action_id`` in ``state`` (``#<id>`` when it names none)."""
        try:
            return str(self.game.format_action(self.action(state, action_id)))
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


def text_of(view: Any) -> str:
    """A seat's view as one line of text (its ``repr``: the view's own field names)."""
    return repr(view)

