"""Benchmark bot: answers every decision with the first legal action, at once."""

from __future__ import annotations

from typing import Any

from arena.sdk import Decision


def choose(decision: Decision) -> Any:
    return decision.legal_texts[0]  # the text: no parsing, so the figure is the transport


if __name__ == "__main__":
    from arena.sdk import run

    run(choose, name="first")
