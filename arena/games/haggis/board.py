"""The Haggis board as HTML: both hands (in a seat's view the opponent's number cards face down,
its face cards shown), each seat's bet, captured points and total, the trick on the table, the
Haggis (omniscient only) and the last round's summary. Pure."""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache

from arena.games.haggis import rules as h
from arena.render.html.api import seat_label, to_move_text
from arena.render.html.markup import Markup, el, leaf, text

_SUIT_CLASSES = ("hg-r", "hg-g", "hg-b", "hg-y")


@cache
def card(c: int, small: bool = False) -> str:
    """One face-up card (``data-card`` holds its text, e.g. ``5R``, ``J``)."""
    suit = h.card_suit(c)
    cls = "hg-w" if suit is None else _SUIT_CLASSES[suit]
    shown = h.card_text(c) if suit is None else h.card_text(c)[:-1]
    return leaf("span", f"card {cls}{' small' if small else ''}", shown, data_card=h.card_text(c))


def cards(ids: Iterable[int], small: bool = False) -> Markup:
    """Face-up cards in the given order."""
    return tuple(card(c, small) for c in ids)


def _bet(bet: int | None) -> str:
    return "no bet yet" if bet is None else f"bet {bet}"


def _seat(names: tuple[str, str], seat: int, hand: Markup, size: int, bet: int | None,
          captured: tuple[int, ...], total: int) -> Markup:
    facts = (f"{size} cards · {_bet(bet)} · captured {h.points_of(captured)} pts "
             f"({len(captured)} cards) · total {total}")
    return el("div", "zone",
              el("div", "hand", leaf("span", f"who seat{seat}", seat_label(names, seat)), hand,
                 data_zone=f"hand-{seat}"),
              leaf("div", "dim", facts))


def _trick(trick: tuple[tuple[int, h.Combo], ...], leader: int, names: tuple[str, str]
           ) -> Markup:
    if not trick:
        return el("div", "trick", leaf("span", "dim", f"{seat_label(names, leader)} to lead"),
                  data_zone="trick")
    plays: list[Markup] = []
    for index, (seat, combo) in enumerate(trick):
        top = index == len(trick) - 1
        name = h.format_combo(combo).split(":", 1)[0]
        plays.append(el("div", "play top" if top else "play",
                        leaf("span", f"seat{seat}", names[seat]), leaf("span", None, name),
                        cards(combo.cards, small=True)))
    return el("div", "trick", *plays, data_zone="trick")


def _last_round(summaries: tuple[h.RoundSummary, ...], names: tuple[str, str]) -> Markup:
    if not summaries:
        return ""
    last = summaries[-1]
    loser = 1 - last.out
    return el("div", "zone dim",
              leaf("div", None, f"Round {len(summaries)}: {seat_label(names, last.out)} went "
                   f"out · scores {last.scores[0]} – {last.scores[1]} · bets {last.bets[0]} / "
                   f"{last.bets[1]}"),
              el("div", "hand", leaf("span", "who", f"{names[loser]} kept"),
                 cards(last.leftover, small=True) or leaf("span", None, "nothing"),
                 leaf("span", "who", "Haggis"), cards(last.haggis, small=True)),
              data_zone="last-round")


def _status(round_index: int, target: int, leader: int, to_move: int | None,
            names: tuple[str, str]) -> Markup:
    return el("p", "status", text(f"Round {round_index + 1} · game to {target} · "
                                  f"{seat_label(names, leader)} led · "),
              leaf("span", "to-move", to_move_text(names, to_move)))


class HaggisBoard:
    """The HTML board registered for ``haggis``."""

    game_id = "haggis"
    round_name = "round"

    def state(self, state: h.State, names: tuple[str, str]) -> Markup:
        """Both hands and the Haggis face up, seat 0 at the bottom."""
        def seat(s: int) -> Markup:
            hand = h.cards_of(state.hands[s])
            return _seat(names, s, cards(hand), len(hand), state.bets[s], state.captured[s],
                         state.totals[s])

        return (
            _status(state.round, state.target, state.leader, state.to_move, names),
            seat(1),
            _trick(state.trick, state.leader, names),
            seat(0),
            el("div", "hand", leaf("span", "who", "Haggis"), cards(h.cards_of(state.haggis)),
               data_zone="haggis"),
            _last_round(state.summaries, names),
        )

    def view(self, view: h.View, names: tuple[str, str]) -> Markup:
        """The seat's own hand at the bottom; of the opponent only its face cards and size."""
        def seat(s: int) -> Markup:
            if s == view.seat:
                hand: Markup = cards(view.hand)
            else:
                hidden = view.hand_sizes[s] - len(view.face_cards[s])
                hand = (tuple(leaf("span", "card back", "") for _ in range(hidden)),
                        cards(view.face_cards[s]))
            return _seat(names, s, hand, view.hand_sizes[s], view.bets[s], view.captured[s],
                         view.totals[s])

        return (
            _status(view.round, view.target, view.leader, view.to_move, names),
            seat(1 - view.seat),
            _trick(view.trick, view.leader, names),
            seat(view.seat),
            _last_round(view.summaries, names),
        )


BOARD = HaggisBoard()
"""The registered board."""
