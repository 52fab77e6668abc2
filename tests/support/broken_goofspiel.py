"""Two deliberately broken copies of the Goofspiel plugin, for the conformance gate's tests.

They are not installed: a test makes one visible with ``arena.games.registered(...)``, or the
gate is pointed at it (``arena games check tests.support.broken_goofspiel:LEAKY``). Each wraps
the real engine and changes one thing:

- ``LEAKY``: seat 1's observation carries seat 0's pending bid (in the view's ``bid`` field,
  which the codec puts on the wire): the leak test must name it.
- ``NONDETERMINISTIC``: the first round's prize order comes from the global ``random`` instead
  of the match seed: the same seed and actions give other states and logs.
"""

from __future__ import annotations

import random
from dataclasses import replace as with_fields
from typing import Any

from arena_goofspiel import PLUGIN
from arena_goofspiel.engine import GoofspielGame, State, View

from arena.games.api import Options, replace


class LeakyGoofspiel(GoofspielGame):
    """Goofspiel whose seat 1 sees the card seat 0 has just bid."""

    def observation(self, state: State, seat: int) -> View:
        """The real view, plus seat 0's pending bid in seat 1's ``bid`` field (the leak)."""
        view = super().observation(state, seat)
        if seat == 1 and state.pending is not None:
            return with_fields(view, bid=state.pending)
        return view


class NondeterministicGoofspiel(GoofspielGame):
    """Goofspiel whose first deal ignores the seed (the global ``random`` shuffles it)."""

    def new_match(self, seed: int, options: Options | None = None) -> State:
        """A first round whose prize order is drawn from the global ``random`` (the bug)."""
        state = super().new_match(seed, options)
        prizes = list(state.prizes)
        random.shuffle(prizes)
        return replace(state, prizes=tuple(prizes), deal=tuple(prizes))


LEAKY_GAME = LeakyGoofspiel()
"""The leaking engine."""
NONDETERMINISTIC_GAME = NondeterministicGoofspiel()
"""The engine that is not a function of its seed."""


def _copy(engine: str) -> Any:
    return with_fields(PLUGIN, engine=f"{__name__}:{engine}", distribution="",
                       dist_version="", entry_point="")


LEAKY = _copy("LEAKY_GAME")
"""The Goofspiel plugin with the leaking engine (id ``goofspiel``: it hides the installed one
while registered)."""
NONDETERMINISTIC = _copy("NONDETERMINISTIC_GAME")
"""The Goofspiel plugin with the nondeterministic engine."""
