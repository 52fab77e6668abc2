"""Lost Cities wire codec: ``View`` <-> ``LostCitiesObservation``, ``Action`` <->
``LostCitiesAction`` (cards travel as card texts such as ``R5`` or ``GX``)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from arena.errors import InvalidActionError
from arena.games.lost_cities.rules import (
    CARDS,
    Action,
    Card,
    LastAction,
    View,
    last_action,
    parse_card,
)
from arena.v1 import lost_cities_pb2 as pb
from arena.wire.api import HistoryBytes, HistoryDecoder, history_entry_bytes, set_history
from arena.wire.entries import DecodedByBytes, EntryCache

_DRAW_TO_PROTO: dict[int | None, pb.LostCitiesDrawSource] = {
    None: pb.LOST_CITIES_DRAW_SOURCE_DECK,
    0: pb.LOST_CITIES_DRAW_SOURCE_YELLOW,
    1: pb.LOST_CITIES_DRAW_SOURCE_BLUE,
    2: pb.LOST_CITIES_DRAW_SOURCE_WHITE,
    3: pb.LOST_CITIES_DRAW_SOURCE_GREEN,
    4: pb.LOST_CITIES_DRAW_SOURCE_RED,
}
_DRAW_FROM_PROTO: dict[int, int | None] = {v: k for k, v in _DRAW_TO_PROTO.items()}


def _texts(cards: Iterable[Card]) -> list[str]:
    return [str(c) for c in cards]


_CARD_OF_TEXT: dict[str, Card] = {str(card): card for card in CARDS}
"""Each card by its text: a bot decodes about 26 cards per observation, one lookup each."""


def _cards(texts: Iterable[str]) -> tuple[Card, ...]:
    try:
        return tuple(map(_CARD_OF_TEXT.__getitem__, texts))
    except (KeyError, TypeError):  # not a card: parse_card names the fault
        return tuple(parse_card(t) for t in texts)


def _row_cards(row: pb.LostCitiesCardRow) -> tuple[Card, ...]:
    return _cards(row.cards)


def _tableau_cards(tableau: pb.LostCitiesTableau) -> tuple[tuple[Card, ...], ...]:
    return tuple(_cards(row.cards) for row in tableau.expeditions)


def _rows(rows: Sequence[Sequence[Card]]) -> list[pb.LostCitiesCardRow]:
    return [pb.LostCitiesCardRow(cards=_texts(row)) for row in rows]


class LostCitiesCodec:
    """The codec registered for ``lost-cities`` (field ``lost_cities`` of the oneofs)."""

    game_id = "lost-cities"
    field = "lost_cities"

    def __init__(self) -> None:
        self._last_actions = EntryCache(pb.LostCitiesObservation, "last_actions",
                                        self._last_action, self._last_action_from_proto)
        """Both seats' last actions, encoded and decoded once per distinct value."""
        self._tableau = DecodedByBytes(_tableau_cards)
        """A tableau decoded once per distinct value (most do not change between two
        observations)."""
        self._pile = DecodedByBytes(_row_cards)
        """A discard pile decoded once per distinct value."""

    def observation_to_proto(self, view: View, history: HistoryBytes | None = None
                             ) -> pb.LostCitiesObservation:
        message = pb.LostCitiesObservation(
            seat=view.seat,
            hand=_texts(view.hand),
            opponent_hand_size=view.opponent_hand_size,
            expeditions=[pb.LostCitiesTableau(expeditions=_rows(e)) for e in view.expeditions],
            discard_piles=_rows(view.piles),
            deck_count=view.deck_count,
            to_move=-1 if view.to_move is None else view.to_move,
            round=view.round,
            rounds=view.rounds,
            starter_rule=view.starter_rule,
            starter=view.starter,
            turn=view.turn,
            stall_guard_turns=view.stall_guard_turns,
            finished_rounds=[
                pb.LostCitiesRoundScore(seat0=a, seat1=b) for a, b in view.finished_rounds
            ],
        )
        message.MergeFromString(self._last_actions.field_bytes(view.last_actions))
        set_history(message, view.history, self._history_entry, history)
        return message

    def _last_action(self, last: LastAction | None) -> pb.LostCitiesLastAction:
        if last is None:
            return pb.LostCitiesLastAction()
        drawn = "" if last.drawn is None else str(last.drawn)
        return pb.LostCitiesLastAction(action=self.action_to_proto(last.action), drawn=drawn)

    def _last_action_from_proto(self, message: pb.LostCitiesLastAction) -> LastAction | None:
        if not message.HasField("action"):
            return None
        action = self.action_from_proto(message.action)
        drawn = parse_card(message.drawn) if message.drawn else None
        if (drawn is None) != (action.draw is None) or (
                drawn is not None and drawn.colour != action.draw):
            raise InvalidActionError("LastAction.drawn must name a card of the pile drawn from, "
                                     "and nothing for a deck draw")
        return last_action(action, drawn)

    def _history_entry(self, entry: tuple[int, int, str]) -> pb.LostCitiesHistoryEntry:
        r, s, t = entry
        return pb.LostCitiesHistoryEntry(round=r, seat=s, action=t)

    def history_entry_bytes(self, entry: tuple[int, int, str]) -> bytes:
        return history_entry_bytes(pb.LostCitiesObservation, self._history_entry(entry))

    def observation_from_proto(self, message: pb.LostCitiesObservation,
                               history: HistoryDecoder | None = None) -> View:
        """Decode an observation; raises ``InvalidActionError`` on an unknown card text."""
        tableaus = tuple(map(self._tableau, message.expeditions))
        return View(
            seat=message.seat,
            hand=_cards(message.hand),
            opponent_hand_size=message.opponent_hand_size,
            expeditions=(tableaus[0], tableaus[1]),
            piles=tuple(map(self._pile, message.discard_piles)),
            deck_count=message.deck_count,
            to_move=None if message.to_move < 0 else message.to_move,
            round=message.round,
            rounds=message.rounds,
            starter_rule=message.starter_rule,
            starter=message.starter,
            turn=message.turn,
            stall_guard_turns=message.stall_guard_turns,
            finished_rounds=tuple((r.seat0, r.seat1) for r in message.finished_rounds),
            history=(history or HistoryDecoder(self.history_entry_from_proto)).of(
                message.history),
            last_actions=self._last_actions.seat_pair(message.last_actions),
        )

    def history_entry_from_proto(self, entry: pb.LostCitiesHistoryEntry) -> tuple[int, int, str]:
        return (entry.round, entry.seat, entry.action)

    def action_to_proto(self, action: Action) -> pb.LostCitiesAction:
        move = pb.LOST_CITIES_MOVE_DISCARD if action.discard else pb.LOST_CITIES_MOVE_PLAY
        draw = _DRAW_TO_PROTO[action.draw]
        return pb.LostCitiesAction(card=str(action.card), move=move, draw=draw)

    def action_from_proto(self, message: pb.LostCitiesAction) -> Action:
        """Decode a typed action; raises ``InvalidActionError`` on an unknown card, move or
        draw source."""
        card = parse_card(message.card)
        if message.move == pb.LOST_CITIES_MOVE_PLAY:
            discard = False
        elif message.move == pb.LOST_CITIES_MOVE_DISCARD:
            discard = True
        else:
            raise InvalidActionError("LostCitiesAction.move must be PLAY or DISCARD")
        if message.draw not in _DRAW_FROM_PROTO:
            raise InvalidActionError("LostCitiesAction.draw must be DECK or a pile colour")
        return Action(card, discard, _DRAW_FROM_PROTO[message.draw])


CODEC = LostCitiesCodec()
"""The registered codec instance."""
