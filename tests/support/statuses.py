"""Schedule statuses built by hand from the contract's types (``arena.ladder.schedules.status``,
``knockout``, ``swiss``), for the views' tests: names with markup, an escape sequence and the
longest keys a version can have."""

from __future__ import annotations

from arena.ladder.schedules.knockout import Bracket, Tie
from arena.ladder.schedules.status import AdaptiveStatus, Decision, PlayerActivity
from arena.ladder.schedules.swiss import SwissRound, SwissRow, SwissState
from arena.stats.encounters import EncounterResult

MARKUP = "[red]beta[/]"
"""A name rich would read as markup (an old catalogue row may hold one)."""
LONG = "l" * 64 + "@" + "v" * 64 + "+0123abcd"
"""The longest version key there can be."""
NOW = 1_700_000_000.0
"""The status's "now" (seconds since the epoch)."""


def result(encounter: str, players: tuple[str, str], score: float, margin: int,
           legs: int = 2) -> EncounterResult:
    """An encounter seen from ``players[0]``."""
    return EncounterResult(encounter, players, legs, legs, score, margin, NOW - 600)


def bracket() -> Bracket:
    """Five seeds in an 8-slot bracket: byes for seeds 1 to 3; delta beat eps in round 1 on
    the point margin after a level score; alpha beat delta; beta and gamma are half-way
    through their tie; the final waits."""
    seeds = ("alpha", MARKUP, "gamma", "delta", "eps")
    first = (
        Tie(0, 0, ("alpha", None), (1, None), (), "alpha", "bye", 0),
        Tie(0, 1, ("delta", "eps"), (4, 5),
            (result("k-k00-s001-e00", ("delta", "eps"), 1.0, 37),), "delta",
            "point margin +37 after a level score", 1),
        Tie(0, 2, (MARKUP, None), (2, None), (), MARKUP, "bye", 0),
        Tie(0, 3, ("gamma", None), (3, None), (), "gamma", "bye", 0),
    )
    second = (
        Tie(1, 0, ("alpha", "delta"), (1, 4),
            (result("k-k01-s000-e00", ("alpha", "delta"), 2.0, 55),), "alpha",
            "score 2-0", 1),
        Tie(1, 1, (MARKUP, "gamma"), (2, 3),
            (result("k-k01-s001-e00", (MARKUP, "gamma"), 1.5, 12),), None, "", 2),
    )
    final = (Tie(2, 0, ("alpha", None), (1, None), (), None, "", 0),)
    return Bracket(seeds, 1, (first, second, final), None)


def decided() -> Bracket:
    """The same bracket once the final is played: alpha is the champion."""
    b = bracket()
    second = (b.rounds[1][0], Tie(1, 1, (MARKUP, "gamma"), (2, 3), (
        result("k-k01-s001-e00", (MARKUP, "gamma"), 1.5, 12),
        result("k-k01-s001-e01", (MARKUP, "gamma"), 1.0, 4)), MARKUP, "score 2.5-1.5", 2))
    final = (Tie(2, 0, ("alpha", MARKUP), (1, 2),
                  (result("k-k02-s000-e00", ("alpha", MARKUP), 0.5, -8),), MARKUP,
                  "score 1.5-0.5", 1),)
    return Bracket(b.seeds, 1, (b.rounds[0], second, final), MARKUP)


def swiss() -> SwissState:
    """Five players, round 2 of 3 being played (eps had the bye in round 1)."""
    players = ("alpha", MARKUP, "gamma", "delta", "eps")
    first = SwissRound(0, (("alpha", "delta"), (MARKUP, "gamma")), "eps", (1.0, 0.5))
    second = SwissRound(1, (("alpha", "eps"), (MARKUP, "gamma")), "delta", (None, 1.0))
    table = (
        SwissRow(1, "alpha", 1.0, 0.0, 0.0, 0, ("delta",)),
        SwissRow(2, "eps", 1.0, 0.0, 0.0, 1, ()),
        SwissRow(3, MARKUP, 0.5, 0.5, 0.25, 0, ("gamma",)),
        SwissRow(4, "gamma", 0.5, 0.5, 0.25, 0, (MARKUP,)),
        SwissRow(5, "delta", 0.0, 1.0, 0.0, 0, ("alpha",)),
    )
    groups = ((1.0, ("alpha", "eps")), (0.5, (MARKUP, "gamma")), (0.0, ("delta",)))
    return SwissState(players, 3, (first, second), 1, table, groups)


def adaptive(kind: str = "continuous", budget: int | None = None) -> AdaptiveStatus:
    """A continuous (or adaptive) ladder with two decisions and four players: one in
    placement, one playing, one retired, one refused for a reason its author wrote."""
    decisions = (
        Decision("c-a0012", ("greedy@2", "strong@1"), "greedy@2 vs strong@1: intervals "
                 "overlap 38%", NOW - 65),
        Decision("c-a0011", (LONG, MARKUP + "@1"),
                 f"placement 1/4: {LONG} vs {MARKUP}@1 (rank 2 of 3)", NOW - 3700),
    )
    players = (
        PlayerActivity("strong@1", "strong", "1", "playing", 12, 4, NOW - 65),
        PlayerActivity(LONG, "l" * 64, "v" * 64, "placement 1/4", 1, 2, NOW - 3700),
        PlayerActivity(MARKUP + "@1", MARKUP, "1", "retired (replaced by " + MARKUP + "@2)",
                       9, 0, NOW - 7200),
        PlayerActivity("odd@1", "odd", "1", "refused: \x1b[2Jbot.toml says [link=x]y[/link]",
                       0, 0, None),
    )
    return AdaptiveStatus(kind, 12, budget, decisions, players, 1, 2, 0.95)
