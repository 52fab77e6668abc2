"""Wire layer: where the arena's values meet protobuf (each game's codec, the legal-action
lists, the conversation's frames: ``arena.wire.conversation``).

Not the only code that touches protobuf types: the gRPC ends build and read the messages they
carry (the referee's seat, remote player, server, client and gate; the SDK's client; the
competition server, its client and views; `arena logs`). Game views and actions cross into
protobuf here only.
"""

from __future__ import annotations

from typing import Any

from arena.errors import InvalidActionError
from arena.games import game_part
from arena.v1 import bot_pb2
from arena.wire.api import PLUGIN_FIELD, GameCodec, HistoryBytes, HistoryDecoder


def codec_for(game_id: str) -> GameCodec:
    """The wire codec of an installed game (its plugin's ``codec``)."""
    codec: GameCodec = game_part(game_id, "codec")
    return codec


def _field_of(codec: GameCodec) -> str:
    """The oneof field a game's messages travel in: its own, or the plugin envelope."""
    return codec.field or PLUGIN_FIELD


def _put(target: Any, codec: GameCodec, message: Any) -> None:
    """Set ``target``'s game field (an Observation or Action) to ``message``."""
    if codec.field:
        getattr(target, codec.field).CopyFrom(message)
    else:
        target.plugin.Pack(message)


def _take(source: Any, codec: GameCodec, kind: str, game_id: str) -> Any:
    """``source``'s game message for ``codec`` (``kind``: observation or action);
    ``InvalidActionError`` when it holds another game's."""
    which = source.WhichOneof("game")
    if which != _field_of(codec):
        raise InvalidActionError(f"{kind} for {which or 'no game'}, expected {game_id}")
    if codec.field:
        return getattr(source, codec.field)
    message = getattr(codec, f"{kind}_message")()
    if not source.plugin.Unpack(message):
        raise InvalidActionError(f"{kind} of type {source.plugin.TypeName()!r}, expected "
                                 f"{message.DESCRIPTOR.full_name} ({game_id})")
    return message


def encode_observation(game_id: str, view: Any) -> bot_pb2.Observation:
    codec = codec_for(game_id)
    message = bot_pb2.Observation()
    _put(message, codec, codec.observation_to_proto(view))
    return message


class ObservationEncoder:
    """Encodes one seat's successive observations in one match (the referee keeps one per
    seat): each history entry is encoded once, not once per decision (``HistoryBytes``)."""

    def __init__(self, game_id: str) -> None:
        self._codec = codec_for(game_id)
        self._history = HistoryBytes(self._codec.history_entry_bytes)

    def encode_into(self, target: bot_pb2.Observation, view: Any) -> None:
        """Set ``target`` (e.g. a request's ``observation`` field) to the view's message."""
        _put(target, self._codec, self._codec.observation_to_proto(view, self._history))


class ObservationDecoder:
    """Decodes one seat's successive observations in one match (the SDK keeps one per
    match): each history entry is decoded once (``HistoryDecoder``)."""

    def __init__(self, game_id: str) -> None:
        self._game_id = game_id
        self._codec = codec_for(game_id)
        self._history = HistoryDecoder(self._codec.history_entry_from_proto)

    def decode(self, message: bot_pb2.Observation) -> Any:
        """The view; ``InvalidActionError`` when the observation is for another game."""
        inner = _take(message, self._codec, "observation", self._game_id)
        return self._codec.observation_from_proto(inner, self._history)


def decode_observation(game_id: str, message: bot_pb2.Observation) -> Any:
    """The view of an observation; ``InvalidActionError`` when it is for another game."""
    codec = codec_for(game_id)
    return codec.observation_from_proto(_take(message, codec, "observation", game_id))


def encode_action(game_id: str, action: Any) -> bot_pb2.Action:
    codec = codec_for(game_id)
    message = bot_pb2.Action()
    _put(message, codec, codec.action_to_proto(action))
    return message


def decode_action(game_id: str, message: bot_pb2.Action) -> Any:
    """Decode a typed action; raises ``InvalidActionError`` if it is for another game or invalid."""
    codec = codec_for(game_id)
    return codec.action_from_proto(_take(message, codec, "action", game_id))


def observation_bytes(game_id: str, view: Any) -> bytes:
    """Deterministic wire bytes of a view (what the leak tests compare)."""
    data: bytes = encode_observation(game_id, view).SerializeToString(deterministic=True)
    return data
