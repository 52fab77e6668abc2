"""Sample bot ``ismcts``: information-set Monte-Carlo tree search (``arena.sdk.ismcts``), written
only against the game protocol, so the same bot plays every game; 200 ms of CPU a decision (at
most a quarter of what the decision may take)."""

from __future__ import annotations

from arena.sdk.ismcts import Ismcts

BUDGET_MS = 200.0
"""CPU time a decision searches for."""

choose = Ismcts(budget_ms=BUDGET_MS).decide

if __name__ == "__main__":
    from arena.sdk import run

    run(choose, name="ismcts")
