"""How a ladder looks on the terminal: the live views of a run and the report renderers.

The renderers are pure (data in, rich renderables out); ``LiveView`` is the live view's model:
it folds the runner's events into the latest snapshot and renders it when rich asks, with the
schedule type's state (``Progress.schedule``: ``arena.render.schedule``) between the matches
in flight and the standings. ``SprtLiveView`` is the same for an SPRT test (`arena sprt`): the
LLR between its bounds. Every recorded string (a bot's name, a version, a match id, a worker, a
detail, a pairing reason, a path) is shown through ``arena.render.text.plain``: as literal
text, never markup, with no control characters.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence

from rich.console import Group, RenderableType
from rich.progress_bar import ProgressBar
from rich.table import Table
from rich.text import Text

from arena.ladder.config import LadderConfig
from arena.ladder.reports import (
    Crosstable,
    Standings,
    VersionRow,
    format_when,
    given_up_text,
    rates_versions,
    ratio_note,
    seat_version,
    standings_of,
)
from arena.ladder.runner import LadderEvent, LadderEventKind, Progress, RunSummary
from arena.ladder.schedules.schedule import ScheduledMatch
from arena.ladder.schedules.status import AdaptiveStatus, ScheduleStatus
from arena.ladder.store import StoredMatch, VoidAttempt
from arena.model import MatchResult
from arena.render.schedule import format_clock, render_schedule
from arena.render.tables import Col, Look, fitted_table, natural_width
from arena.render.text import Fitted, plain
from arena.sprt.run import SprtEvent, SprtStatus

REFIT_EVERY_S = 0.5
"""The live standings are refitted at most this often (and once more at the end)."""


# --- live view -------------------------------------------------------------------------------
class LiveView:
    """Collects run events; renders the latest immutable snapshot (rich calls ``__rich__``).

    A continuous ladder rates versions, which a run's events do not name (a result names bots):
    its live standings are refitted from ``reload`` (the ladder's recorded matches, read again
    from the store) instead of from the events."""

    def __init__(self, config: LadderConfig, previous: Sequence[StoredMatch],
                 reload: Callable[[], Sequence[StoredMatch]] | None = None) -> None:
        self.config = config
        self.results: list[StoredMatch] = list(previous)
        """The ladder's recorded matches: those before the run, then this run's new ones."""
        self.progress: Progress | None = None
        self.reload = reload if rates_versions(config) else None
        """Reads the recorded matches again (a continuous ladder's live standings)."""
        self.table: Standings | None = self._standings({})
        self._refit_at = 0.0

    def update(self, event: LadderEvent) -> None:
        """The runner's event sink."""
        self.progress = event.progress
        if event.kind is not LadderEventKind.MATCH_FINISHED:
            return
        if event.result is None or event.match is None:
            return
        if event.applied:
            self.results.append(stored_from_result(event.result, event.match))
        now = time.monotonic()
        if now - self._refit_at > REFIT_EVERY_S or event.progress.done == event.progress.planned:
            if self.reload is not None:
                self.results = list(self.reload())
            self.table = self._standings(event.progress.elo)
            self._refit_at = now

    def _standings(self, live: Mapping[str, float]) -> Standings | None:
        if all(m.void for m in self.results):
            return None
        return standings_of(self.config.name, self.results, prior=self.config.rating.prior,
                            live=live, versions=rates_versions(self.config))

    def __rich__(self) -> RenderableType:
        return render_live(self.config.name, self.progress, self.table, time.monotonic(),
                           wall=time.time())


def stored_from_result(result: MatchResult, m: ScheduledMatch) -> StoredMatch:
    """A result as the store would read it back (for the live standings)."""
    return StoredMatch(
        match_id=result.match_id, encounter_id=m.encounter_id, cycle=m.cycle, leg=m.leg,
        game=result.game, game_version=result.game_version, seed=result.seed, bots=result.bots,
        winner=result.winner, termination=result.termination, faulty_seat=result.faulty_seat,
        void=result.void, detail=result.detail, rounds=result.rounds, totals=result.totals,
        log_path=result.log, duration_s=result.duration_s, finished_at=time.time(),
    )


def render_live(name: str, progress: Progress | None, table: Standings | None,
                now: float, *, wall: float | None = None) -> RenderableType:
    """The live view of a run: progress bar with ETA, the matches the cluster gave up on (if
    any), the cluster's workers (matches in flight and finished, matches/min), matches in
    flight, the schedule type's state (``wall``: ``time.time()`` now, for the ages), standings
    (pure)."""
    parts: list[RenderableType] = []
    if progress is None:
        parts.append(plain(f"ladder {name}: starting…"))
    else:
        parts.append(_progress_line(progress, now))
        if progress.given_up:
            parts.append(Text(given_up_text(progress.given_up), style="yellow"))
        if progress.hosts:
            parts.append(_hosts_table(progress))
        parts.append(_in_flight_table(progress, now))
        if progress.schedule is not None:
            parts.append(render_schedule(progress.schedule, wall))
    if table is not None:
        parts.append(render_standings(table, live=True))
    return Group(*parts)


def _progress_line(p: Progress, now: float) -> RenderableType:
    elapsed = now - p.started
    state = " [stopping: finishing nothing new]" if p.stopping else ""
    if _runs_until_stopped(p.schedule):
        return plain(f"ladder {p.ladder}: {p.done} matches this run  elapsed "
                     f"{format_clock(elapsed)}  runs until stopped (Ctrl-C){state}")
    eta = "--:--"
    if p.done and p.planned > p.done:
        eta = format_clock(elapsed / p.done * (p.planned - p.done))
    elif p.planned and p.done >= p.planned:
        eta = "0:00"
    head = plain(
        f"ladder {p.ladder}: {p.done}/{p.planned} matches this run "
        f"({p.already + p.done}/{p.scheduled} of the schedule)  "
        f"elapsed {format_clock(elapsed)}  ETA {eta}{state}"
    )
    bar = ProgressBar(total=max(p.planned, 1), completed=p.done, width=60)
    line = Table.grid()  # a grid row ends the bar's line (a bare ProgressBar does not)
    line.add_row(bar)
    return Group(head, line)


def _runs_until_stopped(status: ScheduleStatus | None) -> bool:
    """A continuous ladder: no plan, no ETA."""
    return isinstance(status, AdaptiveStatus) and status.budget is None


def _hosts_table(p: Progress) -> Fitted:
    """Per worker of the cluster: matches in flight now, finished, per minute."""
    columns = (Col("worker", keep=True), Col("host"), Col("in flight", "right"),
               Col("done", "right"), Col("matches/min", "right", drop=1))
    cells = [(plain(h.worker), plain(h.host), str(h.in_flight), str(h.done),
              f"{h.per_min:.1f}") for h in p.hosts]
    return fitted_table(columns, cells, look=Look("Workers", title_justify="left"))


def _in_flight_table(p: Progress, now: float) -> Fitted:
    """The matches being played: the match id whole (`arena watch --match`), who plays whom."""
    columns = (Col("match", keep=True), Col("seat 0"), Col("seat 1"), Col("time"))
    cells = [(plain(f.match_id), plain(f.bots[0]), plain(f.bots[1]), f"{now - f.started:.1f}s")
             for f in sorted(p.in_flight, key=lambda f: f.started)]
    return fitted_table(columns, cells, look=Look("In flight", title_justify="left"))


# --- live view of an SPRT test --------------------------------------------------------------
class SprtLiveView:
    """Keeps the latest event of a test's run; renders it when rich asks."""

    def __init__(self, title: str) -> None:
        self.title = title
        """What the view's first line says (the test and who plays whom)."""
        self.event: SprtEvent | None = None

    def update(self, event: SprtEvent) -> None:
        """The test's event sink."""
        self.event = event

    def __rich__(self) -> RenderableType:
        return render_sprt_live(self.title, self.event, time.monotonic())


def render_sprt_live(title: str, event: SprtEvent | None, now: float) -> RenderableType:
    """The live view of a test: the LLR bar between the bounds, the pentanomial counts, pairs,
    Elo with its 95% interval, matches per minute, the pairs still expected, the matches in
    flight (pure)."""
    if event is None:
        return plain(f"{title}: starting…")
    status, progress = event.status, event.progress
    elapsed = now - progress.started
    per_minute = 60.0 * progress.done / elapsed if elapsed > 0 else 0.0
    state = "  [stopping: finishing nothing new]" if progress.stopping else ""
    return Group(
        plain(f"{title}  elapsed {format_clock(elapsed)}{state}"),
        llr_bar(status),
        Text(f"{sprt_counts_line(status)}\n{sprt_estimate_line(status)}  "
             f"{per_minute:.1f} matches/min  {progress.done} played this run"),
        _in_flight_table(progress, now),
    )


def llr_bar(status: SprtStatus, width: int = 50) -> RenderableType:
    """``LLR  lower [bar] upper  now`` with the bar filled from the lower bound to the LLR."""
    lower, upper = status.params.bounds
    line = Table.grid(padding=(0, 1))
    line.add_row(Text(f"LLR {lower:+.2f}"),
                 ProgressBar(total=1.0, completed=llr_fill(status), width=width),
                 Text(f"{upper:+.2f}  now {status.llr:+.2f} ({status.decision})"))
    return line


def llr_fill(status: SprtStatus) -> float:
    """Where the LLR stands between the bounds: 0 at the lower one, 1 at the upper one."""
    lower, upper = status.params.bounds
    return min(max((status.llr - lower) / (upper - lower), 0.0), 1.0)


def sprt_counts_line(status: SprtStatus) -> str:
    """The pentanomial counts, the pairs against the budget and the pairs still expected."""
    counts = " ".join(str(n) for n in status.counts.counts)
    budget = f" of at most {status.max_pairs}" if status.max_pairs is not None else ""
    expected = status.expected_pairs
    ahead = "--" if expected is None else f"~{expected:.0f}"
    return (f"pentanomial [LL LD WL/DD WD WW]: {counts}  pairs {status.pairs}{budget}  "
            f"expected still: {ahead} pairs")


def sprt_estimate_line(status: SprtStatus) -> str:
    """The Elo estimate with its 95% interval and the LOS (nothing before the first pair)."""
    unit = status.params.model.unit
    if status.result is None:
        return f"{unit}: -- (no complete pair yet)"
    est = status.result.estimate
    return (f"{unit} {est.elo:+.1f} (95%: {est.low:+.1f} to {est.high:+.1f})  "
            f"LOS {100 * est.los:.1f}%")


# --- reports ---------------------------------------------------------------------------------
def render_summary(summary: RunSummary, status: ScheduleStatus | None = None) -> Text:
    """One line on what the run did (and one on the matches the cluster gave up on, one on why
    the schedule is over). A continuous ladder (``status``) has nothing "still to play": it runs
    until stopped."""
    state = "stopped early" if summary.interrupted else "done"
    line = (f"{state}: {summary.played} matches played in {format_clock(summary.duration_s)} "
            f"({summary.void} void), {summary.skipped} already recorded")
    if _runs_until_stopped(status):
        line += "; a continuous ladder runs until stopped: run it again to carry on"
    else:
        line += f", {summary.remaining} still to play"
    if summary.given_up:
        line += f"\n{given_up_text(summary.given_up)}"
    if summary.stopped:
        line += f"\nfinished: {summary.stopped}"
    return plain(line)


def render_report(s: Standings) -> RenderableType:
    """The standings table, the matches the cluster gave up on (if any), then what the
    duplicate deals bought."""
    given_up = [Text(given_up_text(s.given_up))] if s.given_up else []
    return Group(render_standings(s), *given_up, render_pairing(s))


def render_standings(s: Standings, *, live: bool = False) -> Fitted:
    """The standings table (with the live Elo column in the live view, unless the ladder rates
    versions: the live Elo is kept by name). The bot is never cut; at 80 columns the points per
    match, the score and the W/D/L go first."""
    live_elo = live and not s.by_version
    title = plain(f"Ladder {s.ladder}: {s.rated} rated matches"
                  + (f", {s.void} void" if s.void else "")
                  + (_versions_note(s) if s.by_version else ""))
    columns = [Col("#", "right"), Col("bot", keep=True), Col("rating", "right"),
               Col("95% CI", "right"), Col("matches", "right"), Col("W/D/L", "right", drop=3),
               Col("score", "right", drop=2), Col("pts/match", "right", drop=1)]
    if live_elo:
        columns.append(Col("live Elo", "right"))
    rows: list[list[str | Text]] = []
    for r in s.rows:
        cells: list[str | Text] = [
            str(r.rank), plain(r.bot), f"{r.rating:.0f}",
            f"{r.rating - r.ci95:.0f}..{r.rating + r.ci95:.0f}",
            str(r.matches), f"{r.wins}/{r.draws}/{r.losses}", f"{100 * r.score_rate:.1f}%",
            f"{r.points_per_match:.1f}",
        ]
        if live_elo:
            cells.append("" if r.live_elo is None else f"{r.live_elo:.0f}")
        rows.append(cells)
    caption = ("rating: Bradley-Terry fit, precision-weighted mean 1500; 95% CI: the larger of "
               "the Fisher and encounter-clustered estimates")
    if live:
        caption = "rating: Bradley-Terry fit so far" + (
            "; live Elo: incremental" if live_elo else "")
    return fitted_table(columns, rows, look=Look(title, caption, title_justify="left"))


def _versions_note(s: Standings) -> str:
    if not s.retired:
        return "; each bot at its current version"
    retired = "1 retired version" if s.retired == 1 else f"{s.retired} retired versions"
    return f"; each bot at its current version, {retired} (--versions lists them)"


def render_pairing(s: Standings) -> RenderableType:
    """What the duplicate deals bought (measured variance ratios, pentanomial counts)."""
    p = s.pairing
    if p.encounters == 0:
        return Text("duplicate deals: no complete encounters yet")
    lines = [f"duplicate deals: {p.encounters} complete encounters (same deal, seats swapped)"]
    for label, ratio, note in (("score (W/D/L)", p.score_ratio, p.score_note),
                               ("point margin", p.margin_ratio, p.margin_note)):
        if ratio is None:
            lines.append(f"  {label}: {ratio_note(note)}")
        else:
            gain = f", worth {1 / ratio:.1f}x as many unpaired games" if ratio > 0 else ""
            lines.append(f"  {label}: paired variance = {ratio:.2f} x unpaired "
                         f"({100 * (1 - ratio):+.0f}% reduction{gain})")
    table = Table(title="Pentanomial (per encounter, first bot's score)", title_justify="left")
    longest = max((len(name) for pair in p.pentanomial for name in pair), default=4)
    table.add_column("pair", min_width=longest + 3)  # "a vs" wraps before b, never in a name
    for col in ("0", "1/4", "1/2", "3/4", "1"):
        table.add_column(col, justify="right")
    for (a, b), counts in sorted(p.pentanomial.items()):
        table.add_row(plain(f"{a} vs {b}"), *(str(c) for c in counts))
    return Group(Text("\n".join(lines)), table)


def render_crosstable(cross: Crosstable) -> Fitted:
    """Head-to-head: row bot's W-D-L (score rate) against the column bot. Where the bots'
    names as column headers do not fit, the rows are numbered and the columns say the numbers
    (each name whole in its row)."""
    return Fitted(lambda width: _crosstable(cross, width))


def _crosstable(cross: Crosstable, width: int) -> Table:
    table = _crosstable_of(cross, numbered=False)
    if natural_width(table, width) > width:
        table = _crosstable_of(cross, numbered=True)
    return table


def _crosstable_of(cross: Crosstable, *, numbered: bool) -> Table:
    names = list(cross.order) or sorted({a for a, _ in cross.cells})
    table = Table(title="Head-to-head (row vs column: W-D-L, score)", title_justify="left")
    if numbered:
        table.add_column("#", justify="right")
    longest = max((len(name) for name in names), default=3)
    table.add_column("bot", no_wrap=True, min_width=longest)
    for number, name in enumerate(names, 1):
        table.add_column(str(number) if numbered else plain(name), justify="center")
    for number, a in enumerate(names, 1):
        row: list[str | Text] = [str(number)] if numbered else []
        row.append(plain(a))
        for b in names:
            cell = cross.cells.get((a, b))
            if a == b:
                row.append("—")
            elif cell is None or cell.games == 0:
                row.append("")
            else:
                row.append(f"{cell.wins}-{cell.draws}-{cell.losses} "
                           f"({100 * cell.score_rate:.0f}%)")
        table.add_row(*row)
    return table


def render_matches(found: Sequence[StoredMatch]) -> Fitted:
    """The match list; each seat's bot with its version and the first hex digits of its code
    identity (as recorded) below it; void matches are marked. The match id is never cut; at
    80 columns the log path (the match id names it) and the termination go first."""
    columns = (Col("match", keep=True), Col("seat 0"), Col("seat 1"), Col("outcome"),
               Col("termination", drop=2), Col("log", drop=1))
    cells = [(plain(m.match_id), _seat(m, 0), _seat(m, 1), plain(_outcome(m)),
              str(m.termination) + (" (VOID, not rated)" if m.void else ""),
              plain(m.log_path or "")) for m in found]
    return fitted_table(columns, cells, title=f"{len(found)} matches")


def _seat(m: StoredMatch, seat: int) -> Text:
    """A seat's bot, and its version below it (dim) when one was recorded."""
    text = plain(m.bots[seat])
    version = seat_version(m, seat)
    if version:
        text.append("\n")
        text.append_text(plain(version, style="dim"))
    return text


def render_versions(rows: Sequence[VersionRow]) -> Fitted:
    """Every version of every bot (`arena standings --versions`): each rated as a player
    of its own, with its encounters, when it first and last played, current or retired. The
    player and its identity are never cut (a player wider than the terminal wraps); at 80
    columns the times and the interval go first."""
    columns = (Col("player", keep=True), Col("identity", keep=True), Col("rating", "right"),
               Col("95% CI", "right", drop=2), Col("enc.", "right"),
               Col("first / last played", drop=1), Col("state"))
    cells = []
    for r in rows:
        rating, interval = "—", "—"
        if r.rating is not None and r.ci95 is not None:
            rating = f"{r.rating:.0f}"
            interval = f"{r.rating - r.ci95:.0f}..{r.rating + r.ci95:.0f}"
        cells.append((plain(r.player), plain(r.short_identity), rating, interval,
                      str(r.encounters),
                      f"{format_minute(r.first_played)}\n{format_minute(r.last_played)}",
                      "current" if r.current else "retired"))
    caption = ("each version rated as a player of its own (Bradley-Terry over every version's "
               "matches); enc.: encounters with a rated match; times in UTC; current: the "
               "bot's latest version, retired: replaced by a newer one")
    return fitted_table(columns, cells, look=Look(f"{len(rows)} versions", caption,
                                                  title_justify="left"))


def format_minute(timestamp: float) -> str:
    """A ``time.time()`` value as ``YYYY-MM-DD HH:MM`` (UTC)."""
    return time.strftime("%Y-%m-%d %H:%M", time.gmtime(timestamp))


def render_void_attempts(attempts: Sequence[VoidAttempt]) -> Fitted:
    """The matches the cluster gave up on: when, and why (the match id never cut)."""
    columns = (Col("match", keep=True), Col("seat 0"), Col("seat 1"), Col("given up at"),
               Col("detail"))
    cells = [(plain(a.match_id), plain(a.bots[0]), plain(a.bots[1]), format_when(a.finished_at),
              plain(a.detail)) for a in attempts]
    return fitted_table(columns, cells, look=Look(given_up_text(len(attempts)),
                                                  title_justify="left"))


def _outcome(m: StoredMatch) -> str:
    if m.void:
        return "void"
    score = f"{m.totals[0]}:{m.totals[1]}"
    if m.winner is None:
        return f"draw {score}"
    fault = " (forfeit)" if m.faulty_seat is not None else ""
    return f"{m.bots[m.winner]} wins {score}{fault}"
