"""Goofspiel sample bot: bid the prize's value, or the card closest to it.

Deterministic: among the cards still held, the one whose value is nearest the prize turned up;
on equal distance the lower card (keep the higher one for a later prize).
"""

from __future__ import annotations

from typing import Any

from arena.sdk.decision import Decision

from arena_goofspiel.engine import Bid, View


def choose(decision: Decision) -> Any:
    """The legal bid nearest the prize's value (the lower on equal distance)."""
    view: View = decision.observation
    prize = view.prize or 0
    bids: tuple[Bid, ...] = decision.legal_actions
    return min(bids, key=lambda bid: (abs(bid.card - prize), bid.card))


if __name__ == "__main__":
    from arena.sdk import run

    run(choose, name="greedy")
