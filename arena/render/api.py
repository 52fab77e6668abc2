"""Per-game terminal renderers for `arena watch` (pure: state or view in, rich renderable out)."""

from __future__ import annotations

from typing import Any, Protocol

from rich.console import RenderableType


class GameRenderer(Protocol):
    game_id: str

    def render_state(self, state: Any) -> RenderableType:
        """The omniscient view of a full game state (both hands, everything)."""
        ...

    def render_view(self, view: Any) -> RenderableType:
        """Only what one seat saw: built from ``game.observation(state, seat)`` alone."""
        ...
