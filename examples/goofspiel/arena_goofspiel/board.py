"""The Goofspiel board as HTML: the prize turned up, the prizes still face down (their order
only in the omniscient view), both seats' cards not yet shown, a pending bid (its card only in
the omniscient view and in the bidder's own), the round's points and the turns played. Pure."""

from __future__ import annotations

from functools import cache

from arena.games.api import totals_of
from arena.render.html.api import seat_label, to_move_text
from arena.render.html.markup import Markup, el, leaf, text

from arena_goofspiel.engine import State, Turn, View


@cache
def card(value: int, seat: int) -> str:
    """One bid card of ``seat`` (``data-card`` is its value)."""
    return leaf("span", f"card seat{seat}", value, data_card=str(value))


@cache
def prize(value: int) -> str:
    """A prize card (``data-card`` is ``P`` and its value)."""
    return leaf("span", "card treasure", value, data_card=f"P{value}")


def _cards(values: tuple[int, ...], seat: int) -> Markup:
    return tuple(card(v, seat) for v in values)


def _seat(names: tuple[str, str], seat: int, hand: tuple[int, ...], score: int,
          bid: str) -> Markup:
    return el("div", "zone",
              el("div", "hand", leaf("span", f"who seat{seat}",
                                     f"{seat_label(names, seat)} · {score} points"),
                 _cards(hand, seat), data_zone=f"hand-{seat}"),
              leaf("div", "dim", bid or "no bid yet", data_zone=f"bid-{seat}"))


def _prizes(current: int | None, later: Markup) -> Markup:
    shown = prize(current) if current is not None else leaf("span", "dim", "none")
    return el("div", "hand", leaf("span", "who", "prize"), shown,
              leaf("span", "who", "face down"), later, data_zone="prizes")


def _turns(history: tuple[Turn, ...], index: int, names: tuple[str, str]) -> Markup:
    rows = []
    for turn in history:
        if turn.round != index:
            continue
        winner = turn.winner
        who = "equal bids: discarded" if winner is None else f"to {names[winner]}"
        rows.append(leaf("li", None, f"prize {turn.prize}: {turn.bids[0]} vs {turn.bids[1]}, "
                                     f"{who}"))
    return el("ol", "dim", *rows) if rows else ""


def _status(rounds: int, index: int, finished: tuple[tuple[int, int], ...],
            to_move: int | None, names: tuple[str, str]) -> Markup:
    totals = totals_of(finished)
    return el("p", "status", text(f"Round {min(index + 1, rounds)} of {rounds} · earlier rounds "
                                  f"{totals[0]} : {totals[1]} · "),
              leaf("span", "to-move", to_move_text(names, to_move)))


class GoofspielBoard:
    """The HTML board of ``goofspiel`` (the plugin's ``board``)."""

    game_id = "goofspiel"
    round_name = "round"

    def state(self, state: State, names: tuple[str, str]) -> Markup:
        """Everything: the order of the prizes to come and a pending bid's card."""
        running = state.mover is not None
        bids = (f"bid {state.pending}, face down" if state.pending is not None else "", "")
        later = tuple(prize(v) for v in state.prizes[1:]) if running else ()
        return (
            _status(state.rounds, state.round, state.finished, state.mover, names),
            _seat(names, 1, state.hands[1], state.scores[1], bids[1]),
            _prizes(state.prizes[0] if running else None, later),
            _seat(names, 0, state.hands[0], state.scores[0], bids[0]),
            _turns(state.history, state.round, names),
        )

    def view(self, view: View, names: tuple[str, str]) -> Markup:
        """What a seat knows: the face-down prizes as a set, the opponent's bid as a fact."""
        bids = ["", ""]
        if view.bid is not None:
            bids[view.seat] = f"bid {view.bid}, face down"
        if view.opponent_bid:
            bids[1 - view.seat] = "has bid (face down)"
        later = (leaf("span", None, "(order unknown)"),
                 tuple(prize(v) for v in view.unseen_prizes))
        other = 1 - view.seat
        return (
            _status(view.rounds, view.round, view.finished_rounds, view.to_move, names),
            _seat(names, other, view.hands[other], view.scores[other], bids[other]),
            _prizes(view.prize, later),
            _seat(names, view.seat, view.hands[view.seat], view.scores[view.seat],
                  bids[view.seat]),
            _turns(view.history, view.round, names),
        )


BOARD = GoofspielBoard()
"""The Goofspiel board (the plugin's ``board``)."""
