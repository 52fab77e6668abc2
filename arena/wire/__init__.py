"""Wire layer: the only place (with the referee server and the SDK) that touches protobuf types."""

from __future__ import annotations

from typing import Any

from arena.errors import InvalidActionError
from arena.games import game_module
from arena.v1 import bot_pb2
from arena.wire.api import GameCodec, HistoryBytes, HistoryDecoder


def codec_for(game_id: str) -> GameCodec:
    """The wire codec of a registered game (``arena.wire.<name>.CODEC``)."""
    codec: GameCodec = game_module("wire", game_id).CODEC
    return codec


def encode_observation(game_id: str, view: Any) -> bot_pb2.Observation:
    codec = codec_for(game_id)
    message = bot_pb2.Observation()
    getattr(message, codec.field).CopyFrom(codec.observation_to_proto(view))
    return message


class ObservationEncoder:
    """Encodes one seat's successive observations in one match (the referee keeps one per
    seat): each history entry is encoded once, not once per decision (``HistoryBytes``)."""

    def __init__(self, game_id: str) -> None:
        self._codec = codec_for(game_id)
        self._history = HistoryBytes(self._codec.history_entry_bytes)

    def encode_into(self, target: bot_pb2.Observation, view: Any) -> None:
        """Set ``target`` (e.g. a request's ``observation`` field) to the view's message."""
        codec = self._codec
        getattr(target, codec.field).CopyFrom(codec.observation_to_proto(view, self._history))


class ObservationDecoder:
    """Decodes one seat's successive observations in one match (the SDK keeps one per
    match): each history entry is decoded once (``HistoryDecoder``)."""

    def __init__(self, game_id: str) -> None:
        self._game_id = game_id
        self._codec = codec_for(game_id)
        self._history = HistoryDecoder(self._codec.history_entry_from_proto)

    def decode(self, message: bot_pb2.Observation) -> Any:
        """The view; ``InvalidActionError`` when the observation is for another game."""
        codec = self._codec
        if message.WhichOneof("game") != codec.field:
            raise InvalidActionError(f"observation is not for {self._game_id}")
        return codec.observation_from_proto(getattr(message, codec.field), self._history)


def decode_observation(game_id: str, message: bot_pb2.Observation) -> Any:
    codec = codec_for(game_id)
    if message.WhichOneof("game") != codec.field:
        raise InvalidActionError(f"observation is not for {game_id}")
    return codec.observation_from_proto(getattr(message, codec.field))


def encode_action(game_id: str, action: Any) -> bot_pb2.Action:
    codec = codec_for(game_id)
    message = bot_pb2.Action()
    getattr(message, codec.field).CopyFrom(codec.action_to_proto(action))
    return message


def decode_action(game_id: str, message: bot_pb2.Action) -> Any:
    """Decode a typed action; raises ``InvalidActionError`` if it is for another game or invalid."""
    codec = codec_for(game_id)
    which = message.WhichOneof("game")
    if which != codec.field:
        raise InvalidActionError(f"typed action for {which or 'no game'}, expected {codec.field}")
    return codec.action_from_proto(getattr(message, codec.field))


def observation_bytes(game_id: str, view: Any) -> bytes:
    """Deterministic wire bytes of a view (what the leak tests compare)."""
    data: bytes = encode_observation(game_id, view).SerializeToString(deterministic=True)
    return data
