"""Goofspiel codec: ``engine.View`` / actions <-> the ``goofspiel.v1`` messages.

The arena packs these messages into arena.v1's ``google.protobuf.Any plugin`` fields
(``field = ""``); cards travel as integers 1..13. Pure: no I/O.
"""

from __future__ import annotations

from typing import Any

from arena.errors import InvalidActionError
from arena.wire.api import HistoryBytes, HistoryDecoder, history_entry_bytes, set_history

from arena_goofspiel import goofspiel_pb2
from arena_goofspiel.engine import BIDS, Action, Bid, Turn, View


def _two(values: Any, what: str) -> tuple[int, int]:
    if len(values) != 2:
        raise InvalidActionError(f"{what} must hold two entries, got {len(values)}")
    return int(values[0]), int(values[1])


def _cards(message: Any) -> tuple[int, ...]:
    return tuple(int(c) for c in message.cards)


class GoofspielCodec:
    """The Goofspiel wire codec (implements ``arena.wire.api.GameCodec``)."""

    game_id = "goofspiel"
    field = ""
    """Not a field of arena.v1's oneofs: the messages travel in its ``plugin`` Any."""
    observation_message = goofspiel_pb2.Observation
    """The generated observation class (packed into ``Observation.plugin``)."""
    action_message = goofspiel_pb2.Action
    """The generated action class (packed into ``Action.plugin``)."""

    def observation_to_proto(self, view: View, history: HistoryBytes | None = None
                             ) -> goofspiel_pb2.Observation:
        """Encode a view (only what the seat may know: the View holds nothing else)."""
        message = goofspiel_pb2.Observation(
            seat=view.seat,
            rounds=view.rounds,
            round=view.round,
            to_move=-1 if view.to_move is None else view.to_move,
            prize=view.prize or 0,
            unseen_prizes=list(view.unseen_prizes),
            hands=[goofspiel_pb2.Cards(cards=list(h)) for h in view.hands],
            bid=view.bid or 0,
            opponent_bid=view.opponent_bid,
            scores=list(view.scores),
            finished_rounds=[goofspiel_pb2.RoundScore(scores=list(s)) for s in view.finished_rounds],
        )
        set_history(message, view.history, self._history_entry, history)
        return message

    def _history_entry(self, turn: Turn) -> goofspiel_pb2.Turn:
        return goofspiel_pb2.Turn(round=turn.round, prize=turn.prize, bids=list(turn.bids))

    def history_entry_bytes(self, entry: Turn) -> bytes:
        """One turn as the serialized ``history`` field of an observation."""
        return history_entry_bytes(goofspiel_pb2.Observation, self._history_entry(entry))

    def observation_from_proto(self, message: Any, history: HistoryDecoder | None = None
                               ) -> View:
        """Decode an ``Observation`` into a View."""
        if len(message.hands) != 2:
            raise InvalidActionError("hands must hold two entries")
        return View(
            seat=int(message.seat),
            rounds=int(message.rounds),
            round=int(message.round),
            to_move=None if message.to_move < 0 else int(message.to_move),
            prize=int(message.prize) or None,
            unseen_prizes=tuple(int(p) for p in message.unseen_prizes),
            hands=(_cards(message.hands[0]), _cards(message.hands[1])),
            bid=int(message.bid) or None,
            opponent_bid=bool(message.opponent_bid),
            scores=_two(message.scores, "scores"),
            finished_rounds=tuple(_two(s.scores, "finished_rounds entries")
                                  for s in message.finished_rounds),
            history=(history or HistoryDecoder(self.history_entry_from_proto)).of(
                message.history),
        )

    def history_entry_from_proto(self, entry: Any) -> Turn:
        """One ``Turn`` message as its ``Turn`` value."""
        return Turn(int(entry.round), int(entry.prize), _two(entry.bids, "a turn's bids"))

    def action_to_proto(self, action: Action) -> goofspiel_pb2.Action:
        """Encode a bid."""
        if not isinstance(action, Bid):
            raise InvalidActionError(f"not a Goofspiel action: {action!r}")
        return goofspiel_pb2.Action(bid=action.card)

    def action_from_proto(self, message: Any) -> Action:
        """Decode a typed bid; ``InvalidActionError`` for a card outside 1..13."""
        bid = BIDS.get(int(message.bid))
        if bid is None:
            raise InvalidActionError(f"unknown Goofspiel card {message.bid} (expected 1..13)")
        return bid


CODEC = GoofspielCodec()
"""The Goofspiel codec (the plugin's ``codec``)."""
