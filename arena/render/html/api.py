"""What a game's HTML board draws (the HTML sibling of ``arena.render.api.GameRenderer``)."""

from __future__ import annotations

from typing import Any, Protocol

from arena.render.html.markup import Markup


class HtmlBoard(Protocol):
    """Draws one frame of a game as HTML: a state (everything) or one seat's view."""

    game_id: str
    round_name: str
    """What the game calls a round of the match (``round``; PORTAS: ``game``)."""

    def state(self, state: Any, names: tuple[str, str]) -> Markup:
        """The omniscient board of a full state (both hands, the deck, everything)."""
        ...

    def view(self, view: Any, names: tuple[str, str]) -> Markup:
        """Only what one seat saw: built from ``game.observation(state, seat)`` alone."""
        ...


def seat_label(names: tuple[str, str], seat: int) -> str:
    """``greedy (seat 0)``."""
    return f"{names[seat]} (seat {seat})"


def to_move_text(names: tuple[str, str], to_move: int | None) -> str:
    """Who decides next, or that the match is over."""
    return "match over" if to_move is None else f"{seat_label(names, to_move)} to move"
