"""Goofspiel terminal renderer for ``arena watch`` (pure: a state or a view in, a rich
renderable out). Everything fits 80 columns: a status line, one line per seat (its cards not
yet shown, its points), the prize turned up, and the last turns of the round."""

from __future__ import annotations

from arena.games.api import totals_of
from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.text import Text

from arena_goofspiel.engine import State, Turn, View

SEAT_STYLES = ("bold cyan", "bold magenta")
RECENT_TURNS = 5
"""How many resolved turns of the round are shown (the latest last)."""


def _cards(cards: tuple[int, ...]) -> str:
    return " ".join(str(c) for c in cards) or "-"


def _status(rounds: int, index: int, to_move: int | None, prize: int | None,
            finished: tuple[tuple[int, int], ...]) -> Text:
    totals = totals_of(finished)
    text = Text(f"round {min(index + 1, rounds)}/{rounds}", style="bold")
    text.append(f"  earlier rounds {totals[0]}:{totals[1]}")
    if to_move is None:
        text.append("  match over", style="bold yellow")
        return text
    text.append("  prize ")
    text.append(str(prize), style="bold yellow")
    text.append("  to bid: ")
    text.append(f"seat {to_move}", style=SEAT_STYLES[to_move])
    return text


def _seat(seat: int, hand: tuple[int, ...], score: int, bid: str, viewer: int | None) -> Text:
    name = f"seat {seat}" + (" (you)" if viewer == seat else "")
    text = Text(f"{name:<13}", style=SEAT_STYLES[seat])
    text.append(f"{score:>3} pts  ")
    text.append(_cards(hand))
    if bid:
        text.append(f"  {bid}", style="bold")
    return text


def _turns(history: tuple[Turn, ...], index: int) -> Text:
    recent = [t for t in history if t.round == index][-RECENT_TURNS:]
    text = Text("turns (prize:bids winner): ", style="dim")
    if not recent:
        text.append("-", style="dim")
    for turn in recent:
        winner = turn.winner
        who = "tie" if winner is None else f"s{winner}"
        text.append(f"{turn.prize}:{turn.bids[0]}/{turn.bids[1]} {who}  ")
    return text


class GoofspielRenderer:
    """Renders Goofspiel states (omniscient) and views (one seat's knowledge).

    A seat's line: its points this round, then its cards not yet shown."""

    game_id = "goofspiel"

    def render_state(self, state: State) -> RenderableType:
        """Everything: the pending bid and the order of the prizes to come."""
        bids = ("", "")
        if state.pending is not None:
            bids = (f"bid {state.pending} (face down)", "")
        body = Group(
            _status(state.rounds, state.round, state.mover,
                    state.prizes[0] if state.mover is not None else None, state.finished),
            *(_seat(s, state.hands[s], state.scores[s], bids[s], None) for s in (0, 1)),
            Text(f"prizes to come, in order: {_cards(state.prizes[1:])}", style="dim"),
            _turns(state.history, state.round),
        )
        return Panel(body, title="Goofspiel (referee view)", expand=False)

    def render_view(self, view: View) -> RenderableType:
        """Only the view: the face-down prizes as a set, the opponent's bid as a fact."""
        bids = ["", ""]
        if view.bid is not None:
            bids[view.seat] = f"bid {view.bid} (face down)"
        if view.opponent_bid:
            bids[1 - view.seat] = "has bid (face down)"
        body = Group(
            _status(view.rounds, view.round, view.to_move, view.prize, view.finished_rounds),
            *(_seat(s, view.hands[s], view.scores[s], bids[s], view.seat) for s in (0, 1)),
            Text(f"prizes face down: {_cards(view.unseen_prizes)}", style="dim"),
            _turns(view.history, view.round),
        )
        return Panel(body, title=f"Goofspiel (seat {view.seat})", expand=False)


RENDERER = GoofspielRenderer()
"""The Goofspiel renderer (the plugin's ``renderer``)."""
