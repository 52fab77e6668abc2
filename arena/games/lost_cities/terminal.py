"""Lost Cities terminal renderer (rich): one table of both players' expeditions per colour around
the discard piles, plus hands, deck count, round scores and the stall-guard counter.

Laid out for the width it is rendered at (``arena.render.text.Fitted``): under ``NARROW``
columns the colours are their letters and the discard header is short, the expeditions wrap
between cards, and the points columns never shrink below their numbers; the header's items wrap
whole."""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from arena.games.api import totals_of
from arena.games.lost_cities.rules import (
    COLOUR_NAMES,
    COLOURS,
    N_COLOURS,
    Card,
    State,
    View,
    expedition_score,
    round_score,
)
from arena.render.text import NARROW, Fitted, flow

_STYLES = ("bold yellow", "bold blue", "bold white", "bold green", "bold red")
_POINTS_WIDTH = 4
"""Widest expedition or round score: -80 (three wagers alone) to 156, a round -400 and up."""


def _cards(cards: Sequence[Card]) -> Text:
    text = Text()
    for i, card in enumerate(cards):
        if i:
            text.append(" ")
        text.append(str(card), style=_STYLES[card.colour])
    return text


def _board(
    expeditions: tuple[tuple[tuple[Card, ...], ...], ...],
    piles: tuple[tuple[Card, ...], ...],
    names: tuple[str, str],
    width: int,
) -> Table:
    narrow = width < NARROW
    table = Table(expand=False, show_lines=False, pad_edge=False)
    table.add_column("" if narrow else "colour", no_wrap=True)
    table.add_column(names[0])
    table.add_column("pts", justify="right", no_wrap=True, min_width=_POINTS_WIDTH)
    table.add_column("discard" if narrow else "discard (top, size)", no_wrap=True)
    table.add_column(names[1])
    table.add_column("pts", justify="right", no_wrap=True, min_width=_POINTS_WIDTH)
    for colour in range(N_COLOURS):
        mine, theirs = expeditions[0][colour], expeditions[1][colour]
        pile = piles[colour]
        pile_text = Text("-", style="dim")
        if pile:
            pile_text = _cards((pile[-1],))
            pile_text.append(f" ({len(pile)})", style="dim")
        label = COLOURS[colour] if narrow else f"{COLOURS[colour]} {COLOUR_NAMES[colour]}"
        table.add_row(
            Text(label, style=_STYLES[colour]),
            _cards(mine),
            str(expedition_score(mine)) if mine else "",
            pile_text,
            _cards(theirs),
            str(expedition_score(theirs)) if theirs else "",
        )
    table.add_row(
        Text("round", style="bold"),
        "",
        Text(str(round_score(expeditions[0])), style="bold"),
        "",
        "",
        Text(str(round_score(expeditions[1])), style="bold"),
    )
    return table


def _header(
    round_index: int,
    rounds: int,
    deck_count: int,
    turn: int,
    guard: int,
    to_move: int | None,
    finished: tuple[tuple[int, int], ...],
    width: int,
) -> Text:
    items = [Text(f"Round {round_index + 1}/{rounds}", style="bold"), Text(f"deck {deck_count}"),
             Text(f"turn {turn}")]
    if turn >= guard:
        items.append(Text(f"stall guard {guard} reached: deck draws only", style="bold red"))
    else:
        items.append(Text(f"stall guard at {guard} ({guard - turn} to go)"))
    items.append(Text("match over" if to_move is None else f"seat {to_move} to move"))
    text = flow(items, width)
    if finished:
        parts = ", ".join(f"{a}:{b}" for a, b in finished)
        totals = totals_of(finished)
        text.append("\n")
        text.append_text(flow([f"Round scores {parts}", f"totals {totals[0]}:{totals[1]}"],
                              width))
    return text


class LostCitiesRenderer:
    """The renderer registered for ``lost-cities``."""

    game_id = "lost-cities"

    def render_state(self, state: State) -> RenderableType:
        """Everything: both hands, the board, the deck count and the scores."""
        hands = Text()
        for seat in (0, 1):
            hands.append(f"seat {seat} hand: ")
            hands.append_text(_cards(state.hands[seat]))
            if seat == 0:
                hands.append("\n")

        def build(width: int) -> RenderableType:
            header = _header(state.round_index, state.rules.rounds, state.deck_count,
                             state.turn, state.rules.stall_guard_turns, state.player,
                             state.finished, width)
            board = _board(state.expeditions, state.piles, ("seat 0", "seat 1"), width)
            return Group(header, board, hands)

        return Panel(Fitted(build), title="Lost Cities", width=100)

    def render_view(self, view: View) -> RenderableType:
        """What one seat sees: its own hand and only the size of the opponent's."""
        names = tuple("you" if s == view.seat else f"seat {s}" for s in (0, 1))
        hand = Text(f"seat {view.seat} (you) hand: ")
        hand.append_text(_cards(view.hand))
        hand.append(f"\nopponent hand: {view.opponent_hand_size} cards")
        if view.history:
            last = view.history[-1]
            hand.append(f"\nlast action: seat {last[1]} {last[2]}", style="dim")

        def build(width: int) -> RenderableType:
            header = _header(view.round, view.rounds, view.deck_count, view.turn,
                             view.stall_guard_turns, view.to_move, view.finished_rounds, width)
            board = _board(view.expeditions, view.piles, (names[0], names[1]), width)
            return Group(header, board, hand)

        return Panel(Fitted(build), title=f"Lost Cities — seat {view.seat}", width=100)


RENDERER = LostCitiesRenderer()
"""The registered renderer instance."""
