"""The PORTAS board as HTML: the open chests with each seat's cards on them, the chests emptied
in this game, the hidden treasures (their order only in the omniscient view), both open hands,
the port decks (their order only in the omniscient view) and the game's scores. Pure."""

from __future__ import annotations

from functools import cache

from arena.games.portas.rules import Chest, State, Taken, View
from arena.render.html.api import seat_label, to_move_text
from arena.render.html.markup import Markup, el, leaf, text


@cache
def card(value: int, seat: int) -> str:
    """One port card of ``seat`` (``data-card`` is its value)."""
    return leaf("span", f"card pt-s{seat}", value, data_card=str(value))


def cards(values: tuple[int, ...], seat: int) -> Markup:
    """Port cards of one seat, in the given order."""
    return tuple(card(v, seat) for v in values)


@cache
def treasure(value: int) -> str:
    """A treasure card."""
    return leaf("span", "card treasure", value, data_card=f"T{value}")


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


def _share(chest: Chest, seat: int, names: tuple[str, str]) -> Markup:
    mine = chest.cards[seat]
    return el("div", "hand", leaf("span", f"who seat{seat}", f"{names[seat]}: {sum(mine)}"),
              cards(mine, seat))


def _chest(chest: Chest, names: tuple[str, str], top: int) -> Markup:
    return el("div", "chest", leaf("div", "value", f"chest {chest.value}"),
              leaf("div", "dim", f"holds {chest.placed}, {chest.remaining} to fill"),
              _share(chest, top, names), _share(chest, 1 - top, names),
              data_zone=f"chest-{chest.value}")


def _taken(taken: Taken, names: tuple[str, str]) -> Markup:
    gained = sum(taken.chest.cards[taken.taker])
    return el("div", "chest taken", leaf("div", "value", f"chest {taken.chest.value}"),
              leaf("div", None, f"filled by {names[taken.taker]}: +{gained}"),
              el("div", "hand", cards(taken.chest.cards[0], 0), cards(taken.chest.cards[1], 1)))


def _seat(names: tuple[str, str], seat: int, hand: tuple[int, ...], deck: Markup,
          score: int) -> Markup:
    return el("div", "zone",
              el("div", "hand", leaf("span", f"who seat{seat}", seat_label(names, seat)),
                 cards(hand, seat), data_zone=f"hand-{seat}"),
              el("div", "hand dim", leaf("span", "who", f"score {score} · deck"), deck,
                 data_zone=f"deck-{seat}"))


def _table(chests: tuple[Chest, ...], taken: tuple[Taken, ...], hidden: Markup,
           names: tuple[str, str], top: int) -> Markup:
    return (
        el("div", "chests", *(_chest(c, names, top) for c in chests),
           *(_taken(t, names) for t in taken)),
        el("div", "hand", leaf("span", "who", "hidden treasures"), hidden,
           data_zone="hidden"),
    )


def _status(games: int, index: int, scores: tuple[int, int],
            finished: tuple[tuple[int, int], ...], to_move: int | None,
            names: tuple[str, str]) -> Markup:
    totals = (sum(s[0] for s in finished), sum(s[1] for s in finished))
    return el("p", "status", text(f"Game {min(index + 1, games)} of {games} · this game "
                                  f"{scores[0]} : {scores[1]} · earlier games {totals[0]} : "
                                  f"{totals[1]} · "),
              leaf("span", "to-move", to_move_text(names, to_move)))


class PortasBoard:
    """The HTML board registered for ``portas``."""

    game_id = "portas"
    round_name = "game"

    def state(self, state: State, names: tuple[str, str]) -> Markup:
        """Everything, the order of the decks and of the hidden treasures included."""
        def deck(seat: int) -> Markup:
            return (leaf("span", None, _count(len(state.decks[seat]), "card") + ", next first:"),
                    cards(state.decks[seat], seat))

        hidden = (leaf("span", None, _count(len(state.hidden), "treasure") + ", next first:"),
                  tuple(treasure(v) for v in state.hidden))
        return (
            _status(state.games, state.round, state.scores, state.finished, state.mover, names),
            _seat(names, 1, state.hands[1], deck(1), state.scores[1]),
            _table(state.chests, state.taken, hidden, names, top=1),
            _seat(names, 0, state.hands[0], deck(0), state.scores[0]),
        )

    def view(self, view: View, names: tuple[str, str]) -> Markup:
        """What a seat knows: deck sizes and the set of hidden values, never their order."""
        def deck(seat: int) -> Markup:
            return leaf("span", None, _count(view.deck_sizes[seat], "card") + ", order unknown")

        hidden = (leaf("span", None, _count(view.hidden_count, "treasure")
                       + ", values (order unknown):"),
                  tuple(treasure(v) for v in view.hidden_values))
        other = 1 - view.seat
        return (
            _status(view.rounds, view.round, view.scores, view.finished_rounds, view.to_move,
                    names),
            _seat(names, other, view.hands[other], deck(other), view.scores[other]),
            _table(view.chests, view.taken, hidden, names, top=other),
            _seat(names, view.seat, view.hands[view.seat], deck(view.seat),
                  view.scores[view.seat]),
        )


BOARD = PortasBoard()
"""The registered board."""
