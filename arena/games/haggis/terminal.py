"""Terminal renderer for Haggis (pure: a state or a view in, a rich renderable out). The header's
items wrap whole to the width; the hands wrap between cards; the number columns never shrink
below their numbers."""

from __future__ import annotations

from collections.abc import Iterable

from rich import box
from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from arena.games.haggis import rules as h
from arena.render.text import NARROW, Fitted, flow

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


def _header(round_: int, target: int, to_move: int | None, totals: tuple[int, int]
            ) -> RenderableType:
    turn = "match over" if to_move is None else f"seat {to_move} to move"
    items = [Text(item, style="bold") for item in (
        "Haggis", f"round {round_ + 1}", f"target {target}", f"totals {totals[0]}–{totals[1]}",
        turn)]
    return Fitted(lambda width: flow(items, width, sep=" · "))


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


def _table(title: str, rows: list[tuple[RenderableType, ...]]) -> RenderableType:
    """Both seats' rows (seat, hand, cards, bet, captured points, total), fitted to the width:
    under ``NARROW`` columns "Captured pts" is "pts", so the hand has the room."""

    def build(width: int) -> Table:
        narrow = width < NARROW
        table = Table(box=box.SIMPLE_HEAD, title=title, title_justify="left", expand=False)
        table.add_column("Seat", no_wrap=True)
        table.add_column("Hand", max_width=62)
        for name in ("Cards", "Bet", "pts" if narrow else "Captured pts", "Total"):
            table.add_column(name, justify="right", no_wrap=True)
        for row in rows:
            table.add_row(*row)
        return table

    return Fitted(build)


class HaggisRenderer:
    """The ``GameRenderer`` of Haggis."""

    game_id = "haggis"

    def render_state(self, state: h.State) -> RenderableType:
        """Everything: both hands, the Haggis, the trick, captured points, bets and scores."""
        rows: list[tuple[RenderableType, ...]] = []
        for seat in (0, 1):
            hand = h.cards_of(state.hands[seat])
            rows.append((
                f"seat {seat}",
                _cards(hand),
                str(len(hand)),
                _bet(state.bets[seat]),
                str(h.points_of(state.captured[seat])),
                str(state.totals[seat]),
            ))
        haggis = Text("Haggis: ")
        haggis.append_text(_cards(h.cards_of(state.haggis)))
        return self._frame(
            _header(state.round, state.target, state.to_move, state.totals),
            _table("all hands", rows),
            haggis,
            _trick(state.trick, state.leader),
            state.summaries,
        )

    def render_view(self, view: h.View) -> RenderableType:
        """One seat's view: its own hand, the opponent's face cards and hand size."""
        rows: list[tuple[RenderableType, ...]] = []
        for seat in (0, 1):
            if seat == view.seat:
                hand = _cards(view.hand)
            else:
                hand = Text(f"{view.hand_sizes[seat] - len(view.face_cards[seat])} hidden + ")
                hand.append_text(_cards(view.face_cards[seat], empty="no face cards"))
            rows.append((
                f"seat {seat}" + (" (you)" if seat == view.seat else ""),
                hand,
                str(view.hand_sizes[seat]),
                _bet(view.bets[seat]),
                str(h.points_of(view.captured[seat])),
                str(view.totals[seat]),
            ))
        return self._frame(
            _header(view.round, view.target, view.to_move, view.totals),
            _table(f"seen by seat {view.seat}", rows),
            None,
            _trick(view.trick, view.leader),
            view.summaries,
        )

    @staticmethod
    def _frame(
        header: RenderableType,
        table: RenderableType,
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
