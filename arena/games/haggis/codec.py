"""Haggis codec: ``haggis.View`` / ``haggis.Action`` <-> ``arena.v1`` Haggis messages.

Cards travel as their text (``5R``, ``J``); history entries as canonical action texts.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from arena.errors import InvalidActionError
from arena.games.haggis import rules as h
from arena.v1 import haggis_pb2 as pb
from arena.wire.api import HistoryBytes, HistoryDecoder, history_entry_bytes, set_history
from arena.wire.entries import EntryCache

_KINDS = {
    h.SET: pb.HAGGIS_COMBO_KIND_SET,
    h.RUN: pb.HAGGIS_COMBO_KIND_RUN,
    h.BOMB: pb.HAGGIS_COMBO_KIND_BOMB,
}
_KIND_OF = {v: k for k, v in _KINDS.items()}


def _texts(cards: Iterable[int]) -> list[str]:
    return [h.card_text(c) for c in cards]


def _cards(texts: Iterable[str]) -> tuple[int, ...]:
    return tuple(h.parse_card(t) for t in texts)


def _combo_to_proto(combo: h.Combo) -> pb.HaggisCombo:
    return pb.HaggisCombo(
        kind=_KINDS[combo.kind],
        low=combo.low,
        high=combo.high,
        width=combo.width,
        cards=_texts(combo.cards),
    )


def _combo_from_proto(message: pb.HaggisCombo) -> h.Combo:
    """Decode and validate a combination; raises ``InvalidActionError``."""
    if message.kind not in _KIND_OF:
        raise InvalidActionError("combination kind is unspecified")
    cards = _cards(message.cards)
    mask = h.mask_of(cards)
    if mask.bit_count() != len(cards):
        raise InvalidActionError("a card is named twice in the combination")
    combo = h.Combo(_KIND_OF[message.kind], message.low, message.high, message.width, mask)
    error = h.combo_error(combo)
    if error is not None:
        raise InvalidActionError(f"no combination: {error}")
    return combo


def _pair(values: Sequence[Any], what: str) -> tuple[Any, Any]:
    if len(values) != 2:
        raise InvalidActionError(f"{what} needs one entry per seat")
    return (values[0], values[1])


class HaggisCodec:
    """The ``GameCodec`` of Haggis."""

    game_id = "haggis"
    field = "haggis"

    def __init__(self) -> None:
        self._last_actions = EntryCache(pb.HaggisObservation, "last_actions",
                                        self._last_action, self._last_action_from_proto)
        """Both seats' last decisions, encoded and decoded once per distinct value."""

    def _last_action(self, action: h.Action | None) -> pb.HaggisLastAction:
        if action is None:
            return pb.HaggisLastAction()
        return pb.HaggisLastAction(action=self.action_to_proto(action))

    def _last_action_from_proto(self, message: pb.HaggisLastAction) -> h.Action | None:
        return self.action_from_proto(message.action) if message.HasField("action") else None

    def action_to_proto(self, action: h.Action) -> pb.HaggisAction:
        message = pb.HaggisAction()
        if action.combo is None:
            message.pass_turn.SetInParent()
        else:
            message.play.CopyFrom(_combo_to_proto(action.combo))
        if action.bet is not None:
            message.bet = action.bet
        return message

    def action_from_proto(self, message: pb.HaggisAction) -> h.Action:
        """Decode a typed action; raises ``InvalidActionError`` (unknown card, no combination,
        bad bet, neither a pass nor a play)."""
        which = message.WhichOneof("move")
        if which is None:
            raise InvalidActionError("a Haggis action is a pass or a play")
        bet = message.bet if message.HasField("bet") else None
        if bet is not None and bet not in h.BETS:
            raise InvalidActionError(f"bet must be 0, 15 or 30, got {bet}")
        if which == "pass_turn":
            return h.Action(None, bet)
        if bet == 0:
            raise InvalidActionError("a play carries bet 15 or 30 or none")
        return h.Action(_combo_from_proto(message.play), bet)

    def observation_to_proto(self, view: h.View, history: HistoryBytes | None = None
                             ) -> pb.HaggisObservation:
        message = pb.HaggisObservation(
            seat=view.seat,
            round=view.round,
            target=view.target,
            to_move=-1 if view.to_move is None else view.to_move,
            leader=view.leader,
            hand=_texts(view.hand),
            face_cards=[pb.HaggisCards(cards=_texts(f)) for f in view.face_cards],
            hand_sizes=list(view.hand_sizes),
            bets=[-1 if b is None else b for b in view.bets],
            played=list(view.played),
            trick=[pb.HaggisTrickPlay(seat=s, combo=_combo_to_proto(c)) for s, c in view.trick],
            captured=[pb.HaggisCards(cards=_texts(p)) for p in view.captured],
            rounds=[
                pb.HaggisRoundSummary(
                    scores=list(s.scores),
                    out=s.out,
                    bets=list(s.bets),
                    leftover=_texts(s.leftover),
                    haggis=_texts(s.haggis),
                )
                for s in view.summaries
            ],
            totals=list(view.totals),
        )
        message.MergeFromString(self._last_actions.field_bytes(view.last_actions))
        set_history(message, view.history, self._history_entry, history)
        return message

    def _history_entry(self, entry: tuple[int, int, h.Action]) -> pb.HaggisHistoryEntry:
        r, s, a = entry
        return pb.HaggisHistoryEntry(round=r, seat=s, action=h.format_action(a))

    def history_entry_bytes(self, entry: tuple[int, int, h.Action]) -> bytes:
        return history_entry_bytes(pb.HaggisObservation, self._history_entry(entry))

    def history_entry_from_proto(self, entry: pb.HaggisHistoryEntry
                                 ) -> tuple[int, int, h.Action]:
        return (entry.round, entry.seat, h.parse_action(entry.action))

    def observation_from_proto(self, message: pb.HaggisObservation,
                               history: HistoryDecoder | None = None) -> h.View:
        face = _pair(message.face_cards, "face_cards")
        captured = _pair(message.captured, "captured")
        return h.View(
            seat=message.seat,
            round=message.round,
            target=message.target,
            to_move=None if message.to_move < 0 else message.to_move,
            leader=message.leader,
            hand=_cards(message.hand),
            face_cards=(_cards(face[0].cards), _cards(face[1].cards)),
            hand_sizes=_pair(list(message.hand_sizes), "hand_sizes"),
            bets=_pair([None if b < 0 else b for b in message.bets], "bets"),
            played=_pair(list(message.played), "played"),
            trick=tuple((t.seat, _combo_from_proto(t.combo)) for t in message.trick),
            captured=(_cards(captured[0].cards), _cards(captured[1].cards)),
            history=(history or HistoryDecoder(self.history_entry_from_proto)).of(
                message.history),
            summaries=tuple(
                h.RoundSummary(
                    scores=_pair(list(s.scores), "scores"),
                    out=s.out,
                    bets=_pair(list(s.bets), "bets"),
                    leftover=_cards(s.leftover),
                    haggis=_cards(s.haggis),
                )
                for s in message.rounds
            ),
            totals=_pair(list(message.totals), "totals"),
            last_actions=self._last_actions.seat_pair(message.last_actions),
        )


CODEC = HaggisCodec()
"""The registered Haggis codec."""
