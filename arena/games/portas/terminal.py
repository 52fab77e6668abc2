"""PORTAS terminal renderer (pure: a state or a view in, a rich renderable out). The header's
items wrap whole to the width; the tables wrap between cards and never cut a number."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from arena.games.portas.rules import Chest, State, Taken, View
from arena.render.text import Fitted, flow

SEAT_STYLES = ("bold cyan", "bold magenta")


def _cards(cards: tuple[int, ...]) -> str:
    return " ".join(str(c) for c in cards) or "-"


def _header(
    games: int,
    index: int,
    to_move: int | None,
    finished: tuple[tuple[int, int], ...],
    scores: tuple[int, int],
) -> RenderableType:
    totals = (sum(s[0] for s in finished), sum(s[1] for s in finished))
    items = [Text(f"PORTAS  game {min(index + 1, games)}/{games}", style="bold"),
             Text(f"game score {scores[0]} : {scores[1]}"),
             Text(f"match total {totals[0]} : {totals[1]}")]
    if to_move is None:
        items.append(Text("match over", style="bold yellow"))
    else:
        items.append(Text.assemble("to move: ", (f"seat {to_move}", SEAT_STYLES[to_move])))
    return Fitted(lambda width: flow(items, width))


def _players(
    hands: tuple[tuple[int, ...], tuple[int, ...]],
    decks: list[str],
    scores: tuple[int, int],
    to_move: int | None,
    viewer: int | None,
) -> Table:
    table = Table(title="Players", expand=True)
    table.add_column("seat")
    table.add_column("hand (public)")
    table.add_column("deck")
    table.add_column("score", justify="right")
    for seat in (0, 1):
        name = f"seat {seat}" + (" (you)" if viewer == seat else "")
        marker = " <" if to_move == seat else ""
        table.add_row(
            Text(name + marker, style=SEAT_STYLES[seat]),
            _cards(hands[seat]),
            decks[seat],
            str(scores[seat]),
        )
    return table


def _chests(chests: tuple[Chest, ...], taken: tuple[Taken, ...], hidden: str) -> Table:
    table = Table(title=f"Chests   (hidden treasures: {hidden})", expand=True)
    table.add_column("chest", justify="right")
    table.add_column("left", justify="right")
    table.add_column("seat 0 cards", style=SEAT_STYLES[0])
    table.add_column("seat 1 cards", style=SEAT_STYLES[1])
    table.add_column("status")
    for chest in chests:
        table.add_row(
            str(chest.value), str(chest.remaining), _share(chest, 0), _share(chest, 1), "open"
        )
    for t in taken:
        status = Text(f"emptied by seat {t.taker} (+{sum(t.chest.cards[t.taker])})", style="dim")
        table.add_row(str(t.chest.value), "0", _share(t.chest, 0), _share(t.chest, 1), status)
    return table


def _share(chest: Chest, seat: int) -> str:
    cards = chest.cards[seat]
    return f"{_cards(cards)}  (={sum(cards)})" if cards else "-"


def _history(history: tuple[tuple[int, int, str], ...], index: int) -> Text:
    recent = [h for h in history if h[0] == index][-12:]
    text = Text("last moves: ", style="dim")
    for _, seat, action in recent:
        text.append(f"{seat}:{action} ", style=SEAT_STYLES[seat])
    return text


class PortasRenderer:
    """Renders PORTAS states (omniscient) and views (one seat's knowledge)."""

    game_id = "portas"

    def render_state(self, state: State) -> RenderableType:
        """Everything, deck and treasure order included."""
        decks = [f"{len(d)}: {_cards(d)}" for d in state.decks]
        hidden = f"{len(state.hidden)} in order {_cards(state.hidden)}"
        body = Group(
            _header(state.games, state.round, state.mover, state.finished, state.scores),
            _players(state.hands, decks, state.scores, state.mover, None),
            _chests(state.chests, state.taken, hidden),
            _history(state.history, state.round),
        )
        return Panel(body, title="PORTAS (referee view)", width=100)

    def render_view(self, view: View) -> RenderableType:
        """Only the view: deck sizes and the set of hidden values, never their order."""
        decks = [f"{n} cards" for n in view.deck_sizes]
        hidden = f"{view.hidden_count}, values {{{_cards(view.hidden_values)}}}"
        body = Group(
            _header(view.rounds, view.round, view.to_move, view.finished_rounds, view.scores),
            _players(view.hands, decks, view.scores, view.to_move, view.seat),
            _chests(view.chests, view.taken, hidden),
            _history(view.history, view.round),
        )
        return Panel(body, title=f"PORTAS (seat {view.seat})", width=100)


RENDERER = PortasRenderer()
"""The registered PORTAS renderer."""
