"""Terminal renderer for Haggis (pure: a state or a view in, a rich renderable out)."""

from __future__ import annotations

from collections.abc import Iterable

from rich import box
from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from arena.games import haggis as h

_SUIT_STYLES = ("bold red", "bold green", "bold blue", "bold yellow")
_FACE_STYLE = "bold magenta"


def _card(card: int) -> Text:
    suit = h.card_suit(card)
    style = _FACE_STYLE if suit is None else _SUIT_STYLES[suit]
    return Text(h.card_text(card), style=style)


def _cards(cards: Iterable[int], empty: str = "—") -> Text:
    parts = [_card(c) for c in cards]
    if not parts:
        return Text(empty, style="dim")
    return Text(" ").join(parts)


def _bet(bet: int | None) -> str:
    return "—" if bet is None else str(bet)


def _trick(trick: tuple[tuple[int, h.Combo], ...], leader: int) -> RenderableType:
    if not trick:
        return Text(f"(seat {leader} to lead)", style="dim")
    lines = []
    for seat, combo in trick:
        name = h.format_combo(combo).split(":", 1)[0]
        line = Text(f"seat {seat}  {name:<14} ")
        line.append_text(_cards(combo.cards))
        lines.append(line)
    return Group(*lines)


def _header(round_: int, target: int, to_move: int | None, totals: tuple[int, int]) -> Text:
    turn = "match over" if to_move is None else f"seat {to_move} to move"
    return Text(
        f"Haggis · round {round_ + 1} · target {target} · totals {totals[0]}–{totals[1]} · {turn}",
        style="bold",
    )


def _last_round(summaries: tuple[h.RoundSummary, ...]) -> RenderableType | None:
    if not summaries:
        return None
    last = summaries[-1]
    text = Text(
        f"Last round: seat {last.out} went out, scores {last.scores[0]}–{last.scores[1]}, "
        f"bets {last.bets[0]}/{last.bets[1]}; Haggis "
    )
    text.append_text(_cards(last.haggis))
    return text


class HaggisRenderer:
    """The ``GameRenderer`` of Haggis."""

    game_id = "haggis"

    def render_state(self, state: h.State) -> RenderableType:
        """Everything: both hands, the Haggis, the trick, captured points, bets and scores."""
        table = self._table(title="all hands")
        for seat in (0, 1):
            hand = h.cards_of(state.hands[seat])
            table.add_row(
                f"seat {seat}",
                _cards(hand),
                str(len(hand)),
                _bet(state.bets[seat]),
                str(h.points_of(state.captured[seat])),
                str(state.totals[seat]),
            )
        haggis = Text("Haggis: ")
        haggis.append_text(_cards(h.cards_of(state.haggis)))
        return self._frame(
            _header(state.round, state.target, state.to_move, state.totals),
            table,
            haggis,
            _trick(state.trick, state.leader),
            state.summaries,
        )

    def render_view(self, view: h.View) -> RenderableType:
        """One seat's view: its own hand, the opponent's face cards and hand size."""
        table = self._table(title=f"seen by seat {view.seat}")
        for seat in (0, 1):
            if seat == view.seat:
                hand = _cards(view.hand)
            else:
                hand = Text(f"{view.hand_sizes[seat] - len(view.face_cards[seat])} hidden + ")
                hand.append_text(_cards(view.face_cards[seat], empty="no face cards"))
            table.add_row(
                f"seat {seat}" + (" (you)" if seat == view.seat else ""),
                hand,
                str(view.hand_sizes[seat]),
                _bet(view.bets[seat]),
                str(h.points_of(view.captured[seat])),
                str(view.totals[seat]),
            )
        return self._frame(
            _header(view.round, view.target, view.to_move, view.totals),
            table,
            None,
            _trick(view.trick, view.leader),
            view.summaries,
        )

    @staticmethod
    def _table(title: str) -> Table:
        table = Table(box=box.SIMPLE_HEAD, title=title, title_justify="left", expand=False)
        table.add_column("Seat", no_wrap=True)
        table.add_column("Hand", max_width=62)
        table.add_column("Cards", justify="right")
        table.add_column("Bet", justify="right")
        table.add_column("Captured pts", justify="right")
        table.add_column("Total", justify="right")
        return table

    @staticmethod
    def _frame(
        header: Text,
        table: Table,
        haggis: Text | None,
        trick: RenderableType,
        summaries: tuple[h.RoundSummary, ...],
    ) -> RenderableType:
        parts: list[RenderableType] = [header, table]
        if haggis is not None:
            parts.append(haggis)
        parts.append(Panel(trick, title="current trick", box=box.ROUNDED, expand=False))
        last = _last_round(summaries)
        if last is not None:
            parts.append(last)
        return Group(*parts)


RENDERER = HaggisRenderer()
"""The registered Haggis renderer."""
