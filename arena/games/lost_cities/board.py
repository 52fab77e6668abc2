"""The Lost Cities board as HTML: both players' expeditions by colour (wagers marked, each
expedition's points), the five discard piles with their top card and size, the deck count, the
hands (the opponent's face down in a seat's view) and the round's progress. Pure."""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

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
from arena.render.html.api import seat_label, to_move_text
from arena.render.html.markup import Markup, el, leaf, text

Expeditions = tuple[tuple[tuple[Card, ...], ...], ...]
_CLASSES = tuple(f"lc-{letter.lower()}" for letter in COLOURS)


@cache
def card(c: Card) -> str:
    """One face-up card (``data-card`` holds its text, e.g. ``R5``, ``GX``)."""
    if c.is_wager:
        return leaf("span", f"card {_CLASSES[c.colour]} wager", "×", data_card=str(c),
                    title=f"{COLOUR_NAMES[c.colour]} wager")
    return leaf("span", f"card {_CLASSES[c.colour]}", c.value, data_card=str(c))


def backs(count: int) -> Markup:
    """``count`` face-down cards."""
    return tuple(leaf("span", "card back", "") for _ in range(count))


def _hand(names: tuple[str, str], seat: int, cards: Markup, note: str = "") -> Markup:
    return el("div", "hand", leaf("span", f"who seat{seat}", seat_label(names, seat)), cards,
              leaf("span", "dim", note) if note else "", data_zone=f"hand-{seat}")


def _expedition_row(names: tuple[str, str], seat: int, expeditions: Expeditions) -> Markup:
    cells: list[Markup] = [leaf("div", f"label seat{seat}",
                                f"{names[seat]}: {round_score(expeditions[seat])} pts")]
    for colour in range(N_COLOURS):
        cards = expeditions[seat][colour]
        points = leaf("span", "pts", f"{expedition_score(cards)} pts") if cards else ""
        cells.append(el("div", "cell", *(card(c) for c in cards), points,
                        data_zone=f"expedition-{seat}-{COLOURS[colour]}"))
    return tuple(cells)


def _pile(pile: Sequence[Card], colour: int) -> Markup:
    if not pile:
        return el("div", "cell pile", leaf("span", "dim", "—"))
    title = "pile, bottom first: " + " ".join(str(c) for c in pile)
    return el("div", "cell pile", card(pile[-1]), leaf("span", "dim", f"({len(pile)})"),
              title=title, data_zone=f"pile-{COLOURS[colour]}")


_HEADS = (leaf("div", "label", ""), *(leaf("div", f"colour {_CLASSES[c]}", COLOUR_NAMES[c])
                                       for c in range(N_COLOURS)))


def _board(expeditions: Expeditions, piles: Sequence[Sequence[Card]], deck_count: int,
           names: tuple[str, str], bottom: int) -> Markup:
    top = 1 - bottom
    piles_row = [leaf("div", "label deck", f"deck {deck_count}")] + [
        _pile(piles[c], c) for c in range(N_COLOURS)]
    return el("div", "lc-board", _HEADS, _expedition_row(names, top, expeditions),
              *piles_row, _expedition_row(names, bottom, expeditions))


def _status(round_index: int, rounds: int, turn: int, guard: int, to_move: int | None,
            names: tuple[str, str]) -> Markup:
    guard_text = (f"stall guard reached at turn {guard}: deck draws only" if turn >= guard
                  else f"stall guard at turn {guard}")
    return el("p", "status", text(f"Round {round_index + 1} of {rounds} · turn {turn} · "
                                  f"{guard_text} · "),
              leaf("span", "to-move", to_move_text(names, to_move)))


class LostCitiesBoard:
    """The HTML board registered for ``lost-cities``."""

    game_id = "lost-cities"
    round_name = "round"

    def state(self, state: State, names: tuple[str, str]) -> Markup:
        """Both hands face up, seat 0 at the bottom."""
        return (
            _status(state.round_index, state.rules.rounds, state.turn,
                    state.rules.stall_guard_turns, state.player, names),
            _hand(names, 1, tuple(card(c) for c in state.hands[1])),
            _board(state.expeditions, state.piles, state.deck_count, names, bottom=0),
            _hand(names, 0, tuple(card(c) for c in state.hands[0])),
        )

    def view(self, view: View, names: tuple[str, str]) -> Markup:
        """The seat's own hand face up at the bottom, the opponent's face down on top."""
        other = 1 - view.seat
        return (
            _status(view.round, view.rounds, view.turn, view.stall_guard_turns,
                    view.to_move, names),
            _hand(names, other, backs(view.opponent_hand_size),
                  f"{view.opponent_hand_size} cards, face down"),
            _board(view.expeditions, view.piles, view.deck_count, names, bottom=view.seat),
            _hand(names, view.seat, tuple(card(c) for c in view.hand)),
        )


BOARD = LostCitiesBoard()
"""The registered board."""
