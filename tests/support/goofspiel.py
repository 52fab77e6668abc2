"""What the Goofspiel tests share: the installed package (skipping nothing: a test that needs it
fails with the command that installs it), its sample bots, and a few positions."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "goofspiel"
BOTS = EXAMPLE / "bots"
RANDOM = BOTS / "random"
GREEDY = BOTS / "greedy"
INSTALL = "pip install ./examples/goofspiel"


def goofspiel() -> Any:
    """The installed Goofspiel engine; the test fails (never skips) when it is not installed."""
    from arena.errors import UnknownGameError
    from arena.games import get_game

    try:
        return get_game("goofspiel")
    except UnknownGameError as exc:
        pytest.fail(f"the Goofspiel example is not installed ({exc}): run `{INSTALL}`",
                    pytrace=False)


def play(game: Any, state: Any, *texts: str) -> Any:
    """``state`` after the actions ``texts`` (in turn order)."""
    for text in texts:
        state = game.apply(state, game.parse_action(text))
    return state
