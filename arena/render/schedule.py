"""How a schedule type's state looks on the terminal: an adaptive or continuous ladder's pairing
decisions and players, a knockout's bracket, a Swiss's table, round and score groups.

Pure renderers (a status of ``arena.ladder.schedules.status`` in, rich renderables out), used by
the live view of `arena run-ladder` and by `arena standings`. Every player key, reason and state
is shown through ``arena.render.text.plain`` (literal text, never markup); a player is never
cut and stays whole on its line unless it is wider than the terminal (a 138-character version
key wraps rather than widen every line of a 100-column table).
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Group, RenderableType
from rich.text import Text
from rich.tree import Tree

from arena.ladder.reports import format_when
from arena.ladder.schedules.knockout import Bracket, Tie
from arena.ladder.schedules.status import AdaptiveStatus, Decision, PlayerActivity, ScheduleStatus
from arena.ladder.schedules.swiss import SwissState
from arena.render.status_text import (
    adaptive_headline,
    bracket_headline,
    encounter_score,
    groups_text,
    pairings_text,
    round_name,
    seeded,
    swiss_headline,
)
from arena.render.tables import Col, Look, fitted_table
from arena.render.text import Fitted, plain


def render_schedule(status: ScheduleStatus, wall: float | None = None) -> RenderableType:
    """The state of a schedule type: ``wall`` is the time now (``time.time()``) the ages are
    measured from; None shows the recorded times instead."""
    if isinstance(status, AdaptiveStatus):
        return render_adaptive(status, wall)
    if isinstance(status, Bracket):
        return render_bracket(status)
    return render_swiss(status)


# --- adaptive and continuous ladders ---------------------------------------------------------
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


def _players_table(players: Sequence[PlayerActivity], wall: float | None) -> Fitted:
    """Each player whole (a version key wider than the terminal wraps); the state folds."""
    columns = (Col("player", keep=True), Col("state"), Col("encounters", "right"),
               Col("matches in 1 h", "right"), Col("last match", "right"))
    cells = [(plain(p.player), plain(p.state), str(p.encounters), str(p.matches_last_hour),
              "never" if p.last_match_at is None else _when(p.last_match_at, wall))
             for p in players]
    return fitted_table(columns, cells, look=Look("Players", title_justify="left"))


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


# --- knockout --------------------------------------------------------------------------------
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


# --- Swiss -----------------------------------------------------------------------------------
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


def swiss_table(state: SwissState) -> Fitted:
    """The standings of a Swiss after its finished rounds: each player whole (a version key
    wider than the terminal wraps); the opponents fold."""
    columns = (Col("#", "right"), Col("player", keep=True), Col("score", "right"),
               Col("Buchholz", "right"), Col("SB", "right"), Col("byes", "right"),
               Col("opponents"))
    cells = [(str(row.rank), plain(row.player), f"{row.score:g}", f"{row.buchholz:g}",
              f"{row.sonneborn_berger:g}", str(row.byes), plain(", ".join(row.opponents)))
             for row in state.table]
    caption = ("score: 1 a won round (more than half the encounter's points), 1/2 a level one, "
               "a bye 1; Buchholz: the opponents' scores; SB (Sonneborn-Berger): the scores of "
               "the opponents beaten, half of those drawn")
    title = (f"Swiss standings after {min(state.current, state.rounds_total)} of "
             f"{state.rounds_total} rounds")
    return fitted_table(columns, cells, look=Look(title, caption, title_justify="left"))
