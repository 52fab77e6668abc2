"""A schedule type's state in plain words: the one-line headlines of an adaptive or continuous
ladder, a knockout and a Swiss, a round's name, a seeded player, an encounter's score, a
Swiss's score groups and pairings.

Pure text helpers (a status of ``arena.ladder.schedules.status`` in, a ``str`` out), shared by the
terminal views (``arena.render.schedule``) and the report site (``arena.site.report_page``).
"""

from __future__ import annotations

from collections.abc import Sequence

from arena.ladder.schedules.knockout import Bracket, Tie
from arena.ladder.schedules.status import AdaptiveStatus
from arena.ladder.schedules.swiss import SwissRound, SwissState
from arena.stats.encounters import EncounterResult


def percent(fraction: float) -> str:
    """0.95 → ``95%`` (one decimal only where it matters: ``97.5%``)."""
    return f"{100 * fraction:.1f}".removesuffix(".0") + "%"


def adaptive_headline(status: AdaptiveStatus) -> str:
    """One line: the encounters against the budget (or that it runs until stopped), the
    separation of the standings, and why it stopped, once it has."""
    if status.budget is None:
        head = f"{status.kind}: {status.encounters} encounters, runs until stopped (Ctrl-C)"
    else:
        head = f"{status.kind}: {status.encounters} of at most {status.budget} encounters"
    pairs = f"{status.separated} of {status.adjacent} adjacent pairs separated at " \
            f"{percent(status.confidence)}"
    stopped = f" · stopped: {status.stopped}" if status.stopped else ""
    return f"{head} · {pairs}{stopped}"


# --- knockout --------------------------------------------------------------------------------
def round_name(index: int, rounds: int) -> str:
    """``final``, ``semi-final``, ``quarter-final``, else ``round N`` (1-based)."""
    from_end = rounds - 1 - index
    return {0: "final", 1: "semi-final", 2: "quarter-final"}.get(from_end, f"round {index + 1}")


def bracket_headline(bracket: Bracket) -> str:
    """One line: the field, the encounters per tie, and the champion or the round being
    played."""
    per_tie = "1 encounter" if bracket.encounters_per_tie == 1 else \
        f"{bracket.encounters_per_tie} encounters"
    head = f"knockout: {len(bracket.seeds)} seeds, {per_tie} per tie"
    if bracket.champion is not None:
        return f"{head} · champion: {bracket.champion}"
    playing = next((r for r, ties in enumerate(bracket.rounds)
                    if any(t.winner is None for t in ties)), None)
    if playing is None:
        return head
    return f"{head} · now: the {round_name(playing, len(bracket.rounds))}"


def seeded(tie: Tie, seat: int) -> str:
    """``(3) name``, or ``?`` for a player not known yet."""
    player, seed = tie.players[seat], tie.seeds[seat]
    if player is None:
        return "?"
    return player if seed is None else f"({seed}) {player}"


def encounter_score(result: EncounterResult, player: str | None) -> str:
    """An encounter's score from ``player``'s side with its point margin: ``1.5-0.5 (+37)``;
    an encounter whose legs were all void: ``void``."""
    if result.legs == 0:
        return "void"
    me = player if player in result.players else result.players[0]
    mine = result.score_of(me)
    return f"{mine:g}-{result.legs - mine:g} ({result.margin_of(me):+d})"


# --- Swiss -----------------------------------------------------------------------------------
def swiss_headline(state: SwissState) -> str:
    """One line: the round being played, or that the Swiss is over."""
    if state.finished:
        return f"swiss: finished after {state.rounds_total} rounds, {len(state.players)} players"
    return (f"swiss: round {state.current + 1} of {state.rounds_total}, "
            f"{len(state.players)} players")


def groups_text(groups: Sequence[tuple[float, Sequence[str]]]) -> str:
    """``2: alpha, beta · 1: gamma`` (best group first)."""
    return " · ".join(f"{score:g}: {', '.join(players)}" for score, players in groups)


def pairings_text(round_: SwissRound) -> str:
    """``alpha vs beta 1-0, gamma vs delta (to play), bye: eps``."""
    shown = []
    for (a, b), result in zip(round_.pairings, round_.results, strict=False):
        outcome = "(to play)" if result is None else f"{result:g}-{1 - result:g}"
        shown.append(f"{a} vs {b} {outcome}")
    if round_.bye is not None:
        shown.append(f"bye: {round_.bye}")
    return ", ".join(shown) or "no pairings"
