"""How a schedule type's state looks on the terminal: an adaptive or continuous ladder's pairing
decisions and players, a knockout's bracket, a Swiss's table, round and score groups.

Pure renderers (a status of ``arena.ladder.status`` in, rich renderables out), used by the live
view of `arena run-ladder` and by `arena ladder standings`. Every player key, reason and state
is shown through ``arena.render.text.plain`` (literal text, never markup) and folds rather than
widens a table, so a 138-character version key still reads in 100 columns.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from rich.tree import Tree

from arena.ladder.encounters import EncounterResult
from arena.ladder.knockout import Bracket, Tie
from arena.ladder.reports import format_when
from arena.ladder.status import AdaptiveStatus, Decision, PlayerActivity, ScheduleStatus
from arena.ladder.swiss import SwissRound, SwissState
from arena.render.text import plain

PLAYER_WIDTH = 40
"""The widest a player column gets before its names fold onto more lines."""


def render_schedule(status: ScheduleStatus, wall: float | None = None) -> RenderableType:
    """The state of a schedule type: ``wall`` is the time now (``time.time()``) the ages are
    measured from; None shows the recorded times instead."""
    if isinstance(status, AdaptiveStatus):
        return render_adaptive(status, wall)
    if isinstance(status, Bracket):
        return render_bracket(status)
    return render_swiss(status)


# --- adaptive and continuous ladders ---------------------------------------------------------
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


def render_adaptive(status: AdaptiveStatus, wall: float | None = None) -> RenderableType:
    """The headline, the latest pairing decisions (one line each, newest first) and each
    player's state, encounters, matches in the last hour and the time since its last match."""
    parts: list[RenderableType] = [plain(adaptive_headline(status), style="bold")]
    if status.notice:
        parts.append(plain(f"note: {status.notice}", style="yellow"))
    if status.decisions:
        parts.append(Text("Latest pairings (newest first):"))
        parts.extend(_decision_line(d, wall) for d in status.decisions)
    if status.players:
        parts.append(_players_table(status.players, wall))
    return Group(*parts)


def _decision_line(decision: Decision, wall: float | None) -> Text:
    line = Text("  ")
    line.append(_when(decision.at, wall), style="dim")
    line.append("  ")
    line.append_text(plain(decision.reason))
    return line


def _players_table(players: Sequence[PlayerActivity], wall: float | None) -> Table:
    table = Table(title="Players", title_justify="left")
    table.add_column("player", overflow="fold", max_width=PLAYER_WIDTH)
    table.add_column("state", overflow="fold")
    for column in ("encounters", "matches in 1 h", "last match"):
        table.add_column(column, justify="right", no_wrap=True)
    for p in players:
        last = "never" if p.last_match_at is None else _when(p.last_match_at, wall)
        table.add_row(plain(p.player), plain(p.state), str(p.encounters),
                      str(p.matches_last_hour), last)
    return table


def _when(at: float, wall: float | None) -> str:
    """How long ago ``at`` was (``3:05 ago``), or the time itself without a ``wall``."""
    if wall is None:
        return format_when(at)
    return f"{format_clock(wall - at)} ago"


def format_clock(seconds: float) -> str:
    """Whole seconds as m:ss, or h:mm:ss from an hour on (negative: 0:00)."""
    s = int(max(seconds, 0))
    if s >= 3600:
        return f"{s // 3600}:{s % 3600 // 60:02d}:{s % 60:02d}"
    return f"{s // 60}:{s % 60:02d}"


def percent(fraction: float) -> str:
    """0.95 → ``95%`` (one decimal only where it matters: ``97.5%``)."""
    return f"{100 * fraction:.1f}".removesuffix(".0") + "%"


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


def render_bracket(bracket: Bracket) -> RenderableType:
    """The bracket as a tree: the final at the root, each tie's branches the ties that fed it
    (slots ``2s`` and ``2s + 1`` of the round before). Each tie: its players with their seeds,
    each encounter's score (the better seed's first) and point margin, the winner and how the
    tie was decided, or what it waits for."""
    tree = Tree(plain(bracket_headline(bracket), style="bold"), guide_style="dim")
    if bracket.rounds:
        last = len(bracket.rounds) - 1
        for tie in bracket.rounds[last]:
            _grow(tree, bracket, tie)
    return tree


def _grow(parent: Tree, bracket: Bracket, tie: Tie) -> None:
    node = parent.add(tie_text(tie, len(bracket.rounds)))
    if tie.round == 0:
        return
    before = bracket.rounds[tie.round - 1]
    for slot in (2 * tie.slot, 2 * tie.slot + 1):
        if slot < len(before):
            _grow(node, bracket, before[slot])


def tie_text(tie: Tie, rounds: int) -> Text:
    """A tie in a few lines (see ``render_bracket``)."""
    name = round_name(tie.round, rounds)
    if rounds - 1 - tie.round >= 1:
        name += f" {tie.slot + 1}"
    text = Text(f"{name}: ", style="bold")
    if tie.decided_by == "bye":
        seat = 0 if tie.players[0] is not None else 1
        text.append_text(plain(f"{seeded(tie, seat)}: bye"))
        return text
    text.append_text(plain(f"{seeded(tie, 0)} vs {seeded(tie, 1)}"))
    scores = [encounter_score(r, tie.players[0]) for r in tie.results]
    if scores:
        text.append("\n  encounters: " + ", ".join(scores))
    if tie.winner is not None:
        text.append("\n  ")
        text.append_text(plain(f"→ {tie.winner} through ({tie.decided_by})", style="green"))
    elif None in tie.players:
        text.append("\n  waiting for the tie before it", style="dim")
    else:
        text.append(f"\n  {len(tie.results)} of {tie.needed} encounters played", style="dim")
    return text


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


def render_swiss(state: SwissState) -> RenderableType:
    """The headline, the table (rank, player, score, Buchholz, Sonneborn-Berger, byes,
    opponents), then the score groups and the pairings of the round being played."""
    parts: list[RenderableType] = [plain(swiss_headline(state), style="bold"),
                                   swiss_table(state)]
    if not state.finished:
        if state.groups:
            parts.append(plain(f"Score groups before round {state.current + 1}: "
                               + groups_text(state.groups)))
        current = next((r for r in state.rounds if r.index == state.current), None)
        if current is not None:
            parts.append(plain(f"Round {current.index + 1}: " + pairings_text(current)))
    return Group(*parts)


def swiss_table(state: SwissState) -> Table:
    """The standings of a Swiss after its finished rounds."""
    table = Table(title=f"Swiss standings after {min(state.current, state.rounds_total)} "
                        f"of {state.rounds_total} rounds", title_justify="left")
    table.add_column("#", justify="right")
    table.add_column("player", overflow="fold", max_width=PLAYER_WIDTH)
    for column in ("score", "Buchholz", "SB", "byes"):
        table.add_column(column, justify="right")
    table.add_column("opponents", overflow="fold")
    for row in state.table:
        table.add_row(str(row.rank), plain(row.player), f"{row.score:g}", f"{row.buchholz:g}",
                      f"{row.sonneborn_berger:g}", str(row.byes),
                      plain(", ".join(row.opponents)))
    table.caption = ("score: 1 a won round (more than half the encounter's points), 1/2 a "
                     "level one, a bye 1; Buchholz: the opponents' scores; SB "
                     "(Sonneborn-Berger): the scores of the opponents beaten, half of those "
                     "drawn")
    return table


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
