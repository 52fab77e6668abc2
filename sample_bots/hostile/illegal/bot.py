"""Hostile Lost Cities bot ``illegal``: plays an action that parses but is not legal.

Plays the first legal action until its third decision, then attacks. Part of the arena's
hostile-bot suite (tests/sandbox/test_docker_hostile.py): the Docker sandbox must contain it.
"""

from __future__ import annotations

from typing import Any

from arena.sdk.decision import Decision

TRIGGER = 3
_count = 0


def report(line: str) -> None:
    """Print one line of findings to the log the arena keeps."""
    print(f"[hostile] {line}", flush=True)


def attack(decision: Decision) -> Any:
    """The first well-formed action text that is not among the legal ones."""
    from arena.games import get_game

    game = get_game("lost-cities")
    legal = {game.format_action(a) for a in decision.legal_actions}
    for colour in "YBWGR":
        for rank in ("10", "9", "8", "7", "6", "5", "4", "3", "2"):
            for text in (f"play {colour}{rank} deck", f"discard {colour}{rank} deck"):
                if text not in legal:
                    game.parse_action(text)
                    return text
    raise SystemExit("no illegal action found")


def choose(decision: Decision) -> Any:
    """Play normally, attack on the third decision."""
    global _count
    _count += 1
    if _count == TRIGGER:
        result = attack(decision)
        if result is not None:
            return result
    return decision.legal_actions[0]


if __name__ == "__main__":
    from arena.sdk import run

    run(choose, name="illegal")
