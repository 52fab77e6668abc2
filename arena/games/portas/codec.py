"""PORTAS codec: ``arena.games.portas.View`` / actions <-> ``arena.v1`` Portas messages.

Cards travel as integers (port cards 1..6, chests by printed value 11..15).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from arena.errors import InvalidActionError
from arena.games.portas.rules import PASS, TREASURES, Action, Chest, Pass, Play, Taken, View
from arena.v1 import portas_pb2
from arena.wire.api import HistoryBytes, HistoryDecoder, history_entry_bytes, set_history
from arena.wire.entries import EntryCache


def _cards(message: Any) -> tuple[int, ...]:
    return tuple(int(c) for c in message.cards)


def _pair(messages: Sequence[Any]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    if len(messages) != 2:
        raise InvalidActionError(f"expected a pair of card lists, got {len(messages)}")
    return _cards(messages[0]), _cards(messages[1])


def _chest_to_proto(chest: Chest) -> portas_pb2.PortasChest:
    return portas_pb2.PortasChest(
        value=chest.value,
        cards_by_seat=[portas_pb2.PortasCards(cards=list(c)) for c in chest.cards],
    )


def _chest_from_proto(message: Any) -> Chest:
    cards = _pair(message.cards_by_seat)
    return Chest(int(message.value), cards, sum(cards[0]) + sum(cards[1]))


class PortasCodec:
    """The PORTAS wire codec (implements ``arena.wire.api.GameCodec``)."""

    game_id = "portas"
    field = "portas"

    def __init__(self) -> None:
        self._last_actions = EntryCache(portas_pb2.PortasObservation, "last_actions",
                                        self._last_action, self._last_action_from_proto)
        """Both seats' last actions, encoded and decoded once per distinct value."""

    def _last_action(self, action: Action | None) -> portas_pb2.PortasLastAction:
        if action is None:
            return portas_pb2.PortasLastAction()
        return portas_pb2.PortasLastAction(action=self.action_to_proto(action))

    def _last_action_from_proto(self, message: Any) -> Action | None:
        return self.action_from_proto(message.action) if message.HasField("action") else None

    def observation_to_proto(self, view: View, history: HistoryBytes | None = None
                             ) -> portas_pb2.PortasObservation:
        """Encode a view (only what the seat may know: the View holds nothing else)."""
        message = portas_pb2.PortasObservation(
            seat=view.seat,
            games=view.rounds,
            game=view.round,
            to_move=-1 if view.to_move is None else view.to_move,
            hands=[portas_pb2.PortasCards(cards=list(h)) for h in view.hands],
            deck_sizes=list(view.deck_sizes),
            chests=[_chest_to_proto(c) for c in view.chests],
            hidden_values=list(view.hidden_values),
            taken=[
                portas_pb2.PortasTakenChest(chest=_chest_to_proto(t.chest), taker=t.taker)
                for t in view.taken
            ],
            scores=list(view.scores),
            finished_games=[portas_pb2.PortasGameScore(scores=list(s))
                            for s in view.finished_rounds],
            passes_in_a_row=view.passes,
        )
        message.MergeFromString(self._last_actions.field_bytes(view.last_actions))
        set_history(message, view.history, self._history_entry, history)
        return message

    def _history_entry(self, entry: tuple[int, int, str]) -> portas_pb2.PortasHistoryEntry:
        g, s, a = entry
        return portas_pb2.PortasHistoryEntry(game=g, seat=s, action=a)

    def history_entry_bytes(self, entry: tuple[int, int, str]) -> bytes:
        return history_entry_bytes(portas_pb2.PortasObservation, self._history_entry(entry))

    def observation_from_proto(self, message: Any, history: HistoryDecoder | None = None
                               ) -> View:
        """Decode a ``PortasObservation`` into a View."""
        sizes = tuple(int(n) for n in message.deck_sizes)
        scores = tuple(int(n) for n in message.scores)
        if len(sizes) != 2 or len(scores) != 2:
            raise InvalidActionError("deck_sizes and scores must hold two entries")
        finished = []
        for pair in message.finished_games:
            if len(pair.scores) != 2:
                raise InvalidActionError("finished_games entries must hold two scores")
            finished.append((int(pair.scores[0]), int(pair.scores[1])))
        return View(
            seat=int(message.seat),
            rounds=int(message.games),
            round=int(message.game),
            to_move=None if message.to_move < 0 else int(message.to_move),
            hands=_pair(message.hands),
            deck_sizes=(sizes[0], sizes[1]),
            chests=tuple(_chest_from_proto(c) for c in message.chests),
            hidden_values=tuple(int(v) for v in message.hidden_values),
            taken=tuple(Taken(_chest_from_proto(t.chest), int(t.taker)) for t in message.taken),
            scores=(scores[0], scores[1]),
            finished_rounds=tuple(finished),
            passes=int(message.passes_in_a_row),
            history=(history or HistoryDecoder(self.history_entry_from_proto)).of(
                message.history),
            last_actions=self._last_actions.seat_pair(message.last_actions),
        )

    def history_entry_from_proto(self, entry: Any) -> tuple[int, int, str]:
        return (int(entry.game), int(entry.seat), str(entry.action))

    def action_to_proto(self, action: Action) -> portas_pb2.PortasAction:
        """Encode an action."""
        if isinstance(action, Play):
            return portas_pb2.PortasAction(
                play=portas_pb2.PortasPlay(card=action.card, chest=action.chest)
            )
        if isinstance(action, Pass):
            return portas_pb2.PortasAction(pass_turn=portas_pb2.PortasPass())
        raise InvalidActionError(f"not a PORTAS action: {action!r}")

    def action_from_proto(self, message: Any) -> Action:
        """Decode a typed action; raises ``InvalidActionError`` on an unknown card or chest."""
        which = message.WhichOneof("kind")
        if which == "pass_turn":
            return PASS
        if which != "play":
            raise InvalidActionError("PortasAction names no action (set play or pass_turn)")
        card, chest = int(message.play.card), int(message.play.chest)
        if not 1 <= card <= 6:
            raise InvalidActionError(f"unknown PORTAS port card {card} (expected 1..6)")
        if chest not in TREASURES:
            raise InvalidActionError(f"unknown PORTAS chest {chest} (expected 11..15)")
        return Play(card, chest)


CODEC = PortasCodec()
"""The registered PORTAS codec."""
