"""The per-game codec protocol: game views and actions <-> arena.v1 protobuf messages.

Codecs are pure (no I/O) and are the only game code that touches generated protobuf types.
``observation_from_proto(observation_to_proto(v)) == v`` and the same for actions must hold
(checked by the conformance suite).
"""

from __future__ import annotations

from typing import Any, Protocol

from google.protobuf.message import Message


class GameCodec(Protocol):
    game_id: str
    """The game's registry id."""
    field: str
    """The field name of the game in the ``Observation`` / ``Action`` oneofs (e.g. lost_cities)."""

    def observation_to_proto(self, view: Any) -> Message: ...

    def observation_from_proto(self, message: Any) -> Any: ...

    def action_to_proto(self, action: Any) -> Message: ...

    def action_from_proto(self, message: Any) -> Any:
        """Decode a typed action; raises ``InvalidActionError`` when it names no valid action."""
        ...
