"""A ladder's report page, the index of its site (PURE: the ladder's data in, one page out).

The standings with their 95% intervals drawn as a chart, what the duplicate deals bought (the
paired variance figures, or why there is not enough to estimate them), the cross-table as a
heat map, the rating history (the official fit after each complete encounter, as `arena ladder
history` exports it; drawn at most ``HISTORY_POINTS`` steps wide) and the newest matches (each
seat's bot with its version and code identity, each match linked to its replay, every match on
the list pages of ``arena.site.match_pages``). A continuous ladder's page also lists every
version of every bot; a schedule type with a state of its own shows it after the standings: a
knockout's bracket (an SVG), a Swiss's table, score groups and round, an adaptive or continuous
ladder's latest pairing decisions and players. When the ladder is an SPRT test (``arena
sprt``: a ladder file with an ``[sprt]`` section), the page opens with the test: its
hypotheses and bounds, the decision, the pentanomial counts, the Elo estimate with its
interval and LOS, and the LLR path over the complete pairs between the two bound lines. The
matches the cluster gave up on (void attempts, never rated, played again) are counted at the
top and listed after the matches. ``arena.site.refresh`` reads the store and writes the site.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from arena.ladder.config import LadderConfig
from arena.ladder.reports import (
    Crosstable,
    HistoryPoint,
    Standings,
    VersionRow,
    format_when,
    given_up_text,
    ratio_note,
)
from arena.ladder.schedules.knockout import Bracket, Tie
from arena.ladder.schedules.status import AdaptiveStatus, ScheduleStatus
from arena.ladder.schedules.swiss import SwissState
from arena.ladder.store import StoredMatch, VoidAttempt
from arena.model import plain_text
from arena.render.html.charts import (
    BracketBox,
    BracketSeat,
    Interval,
    bracket_chart,
    heat_colour,
    interval_chart,
    line_chart,
    llr_chart,
)
from arena.render.html.markup import Markup, el, leaf
from arena.render.html.page import SiteLinks, document
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
from arena.site.match_pages import PAGE_SIZE, MatchLinks, index_matches
from arena.sprt.run import SprtOutcome, SprtStatus
from arena.stats.resources import BotStats, Spread
from arena.stats.sprt import EloModel, accepted_claim
from arena.stats.sprt_pairs import LlrStep, PairBook, llr_path

CELL_NAMES = ("LL", "LD", "WL / DD", "WD", "WW")
"""The pentanomial cells as the candidate's two legs: (L)ost, (D)rawn, (W)on."""
HISTORY_POINTS = 256
"""The rating history chart draws at most this many steps (every k-th, k a power of two, and
the last), so a long ladder's chart stays small."""


@dataclass(frozen=True)
class SprtReport:
    """An SPRT test as the report shows it: where it stands and the LLR path that led there."""

    candidate: str
    """The candidate's name, as recorded."""
    baseline: str
    """The baseline's name, as recorded."""
    status: SprtStatus
    """The complete pairs and what they say (the pair budget: the ladder file's)."""
    path: Sequence[LlrStep]
    """The LLR after each complete pair, in the order the pairs completed."""


def sprt_report(config: LadderConfig, matches: Sequence[StoredMatch],
                given_up: Sequence[VoidAttempt] = ()) -> SprtReport | None:
    """The test of an SPRT ladder from its recorded matches (in recording order) and the legs
    the cluster gave up on, counted as the run counts them (``PairBook``); None for a ladder
    that is not a test."""
    test = config.sprt
    if test is None:
        return None
    book = PairBook.of(matches, [(a.cycle, a.leg) for a in given_up])
    status = SprtStatus.of(test.params, book, test.max_pairs, book.pairs_started)
    first = next(iter(matches), None)
    names = ((first.bots[first.leg], first.bots[1 - first.leg]) if first is not None
             else (Path(test.candidate).name, Path(test.baseline).name))
    return SprtReport(names[0], names[1], status, llr_path(matches, test.params))


@dataclass(frozen=True)
class ReportData:
    """Everything the report page shows, read from the ladder's store."""

    ladder: str
    """The ladder's name."""
    game: str
    """The game id it plays."""
    standings: Standings
    crosstable: Crosstable
    matches: Sequence[StoredMatch]
    """Every recorded match, void ones included, in recording order."""
    history: Sequence[HistoryPoint]
    """The rating history: every player's official rating after each complete encounter."""
    replays: Mapping[str, str] = field(default_factory=dict)
    """match id → the replay page's path relative to index.html."""
    problems: Mapping[str, str] = field(default_factory=dict)
    """match id → why it has no replay (no log, an unreadable log)."""
    sprt: SprtReport | None = None
    """The SPRT test, when the ladder is one."""
    given_up: Sequence[VoidAttempt] = ()
    """The matches the cluster gave up on (void attempts), in recording order."""
    schedule: ScheduleStatus | None = None
    """The schedule type's state: a bracket, a Swiss, an adaptive or continuous ladder's."""
    versions: Sequence[VersionRow] = ()
    """Every version of every bot (a continuous ladder's page lists them)."""
    page_size: int = PAGE_SIZE
    """The newest matches the page lists (every match: on the list pages)."""
    hidden: bool = False
    """The site shows no replays (a competition whose logs are not public)."""
    bot_stats: Sequence[BotStats] = ()
    """Each bot's resource statistics over the newest matches' logs (``stats_over`` of them);
    empty: none read (the section is left out)."""
    stats_over: int = 0
    """How many matches' logs ``bot_stats`` were read from."""

    @property
    def links(self) -> MatchLinks:
        """Where each match's replay is, or why it has none."""
        return MatchLinks(self.replays, self.problems, self.hidden)


# --- the page (pure) -----------------------------------------------------------------------------
def report_page(data: ReportData) -> str:
    """The report's index page."""
    s = data.standings
    title = f"{'SPRT test' if data.sprt is not None else 'Ladder'} {data.ladder} ({data.game})"
    given_up = f" · {given_up_text(len(data.given_up))}" if data.given_up else ""
    body = el(
        "div", "report",
        leaf("h1", None, title),
        leaf("p", "meta", f"{s.rated} rated matches, {s.void} void (recorded, never rated)"
             f"{given_up} · {len(s.rows)} bots"),
        _sprt(data.sprt) if data.sprt is not None else "",
        _standings(s), _schedule(data.schedule), _versions(data.versions), _pairing(s),
        _crosstable(data.crosstable), _history(data.history, [r.bot for r in s.rows]),
        _resources(data.bot_stats, data.stats_over),
        index_matches(data.matches, data.links, data.given_up,
                      data.page_size),
    )
    return document(title, body, site=SiteLinks(""))


def _section(heading: str, *children: Markup, section_id: str) -> Markup:
    return el("section", None, leaf("h2", None, heading), *children, id=section_id)


def _sprt(report: SprtReport) -> Markup:
    """The test: its design, the decision, the figures of the complete pairs, the LLR path."""
    status = report.status
    params = status.params
    unit = params.model.unit
    lower, upper = params.bounds
    model = ("logistic Elo, the unit of the standings" if params.model is EloModel.logistic
             else "normalized Elo: the advantage measured against the noise of the pairs")
    design = leaf(
        "p", None, f"{report.candidate} (candidate) against {report.baseline} (baseline), in "
        f"duplicate pairs. H0: the candidate is at most {params.elo0:g} {unit} stronger; H1: "
        f"at least {params.elo1:g} {unit} stronger ({model}). α = {params.alpha:g}, "
        f"β = {params.beta:g}: LLR bounds {lower:+.2f} (accept H0) and {upper:+.2f} "
        "(accept H1).")
    chart = llr_chart([step.llr for step in report.path], params.bounds,
                      title="LLR after each complete pair")
    note = ("The LLR of the complete pairs after each pair completed, in the order they "
            "completed (a void leg waits for its replay; a lone leg never counts). The test stops "
            "once a bound is reached; the matches already in flight then still count, so the "
            "path may end a little past it.")
    return _section("SPRT test", design,
                    leaf("p", "decision", _verdict(report), data_outcome=str(status.outcome)),
                    _sprt_figures(status, unit), _pentanomial(status),
                    el("div", "chart", chart, id="llr-chart"), leaf("p", "dim", note),
                    section_id="sprt")


def _verdict(report: SprtReport) -> str:
    """One sentence: what the test found so far."""
    status = report.status
    params, pairs = status.params, status.pairs
    claim = accepted_claim(status.decision, params, report.candidate, report.baseline)
    if claim is not None:
        return f"{status.decision} accepted after {pairs} pairs: {claim}."
    if status.outcome is SprtOutcome.INCONCLUSIVE:
        return (f"Inconclusive: the budget of {status.max_pairs} pairs is spent and the LLR "
                "reached neither bound.")
    expected = status.expected_pairs
    pace = "" if expected is None else f" (about {expected:.0f} more pairs at its pace so far)"
    return (f"No decision yet after {pairs} pairs: the LLR is between the bounds{pace}; running "
            "the test again continues it.")


def _sprt_figures(status: SprtStatus, unit: str) -> Markup:
    lower, upper = status.params.bounds
    budget = "" if status.max_pairs is None else f" of at most {status.max_pairs}"
    rows = [("complete pairs", f"{status.pairs}{budget} ({status.pairs_started} begun)"),
            ("LLR", f"{status.llr:+.2f} (bounds {lower:+.2f} and {upper:+.2f})")]
    result = status.result
    if result is None:
        rows.append((unit, "— (no complete pair yet)"))
    else:
        est = result.estimate
        rows += [(unit, f"{est.elo:+.1f} (95% interval {est.low:+.1f} to {est.high:+.1f})"),
                 ("LOS", f"{100 * est.los:.1f}% (the chance the candidate is the stronger)"),
                 ("score", f"{100 * est.score:.1f}% (the candidate's mean score per game)")]
    return el("table", "grid", *(el("tr", None, leaf("th", None, name),
                                    leaf("td", None, value, data_figure=name))
                                 for name, value in rows), id="sprt-figures")


def _pentanomial(status: SprtStatus) -> Markup:
    head = el("tr", None, leaf("th", None, "the candidate's legs"),
              *(leaf("th", "num", name) for name in CELL_NAMES))
    row = el("tr", None, leaf("td", None, "complete pairs"),
             *(leaf("td", "num", n, data_cell=cell)
               for cell, n in enumerate(status.counts.counts)))
    return el("table", "grid", head, row, id="pentanomial")


def _standings(s: Standings) -> Markup:
    head = el("tr", None, *(leaf("th", "num" if i != 1 else None, h) for i, h in enumerate(
        ("rank", "bot", "rating", "95% interval", "matches", "W-D-L", "score", "pts/match",
         "live Elo"))))
    rows = [
        el("tr", None, leaf("td", "num", r.rank), leaf("td", None, r.bot),
           leaf("td", "num", f"{r.rating:.0f}", data_rating=r.bot),
           leaf("td", "num", f"{r.rating - r.ci95:.0f} .. {r.rating + r.ci95:.0f}"),
           leaf("td", "num", r.matches), leaf("td", "num", f"{r.wins}-{r.draws}-{r.losses}"),
           leaf("td", "num", f"{100 * r.score_rate:.1f}%"),
           leaf("td", "num", f"{r.points_per_match:.1f}"),
           leaf("td", "num", "—" if r.live_elo is None else f"{r.live_elo:.0f}"))
        for r in s.rows
    ]
    chart = interval_chart(
        [Interval(r.bot, r.rating - r.ci95, r.rating, r.rating + r.ci95) for r in s.rows],
        title="ratings with 95% intervals")
    note = ("Bradley–Terry ratings over every rated match (a draw counts half a win; the field's "
            "precision-weighted mean is 1500). A 95% interval is the larger of the model's "
            "(Fisher) and the encounter-clustered estimate.")
    return _section("Standings", el("table", "grid", head, *rows, id="standings"),
                    el("div", "chart", chart, id="interval-chart"), leaf("p", "dim", note),
                    section_id="standings-section")


def _ms(value: float | None) -> str:
    return "—" if value is None else f"{value:.1f}"


def _spread_text(spread: Spread | None) -> str:
    """``median / p95 / max`` (ms), or a dash."""
    if spread is None:
        return "—"
    return " / ".join(_ms(v) for v in (spread.median, spread.p95, spread.max))


def _resources(stats: Sequence[BotStats], over: int) -> Markup:
    """Each bot's resource statistics: a table, and charts of the CPU per decision and of the
    gap wall − CPU (median: the dot, p95: the bar's end)."""
    if not stats:
        return ""
    head = el("tr", None, *(leaf("th", "num" if i != 0 else None, h) for i, h in enumerate(
        ("bot", "decisions", "CPU ms / decision", "wall ms / decision", "wall − CPU ms",
         "start-up ms", "peak memory MiB", "bank left ms", "bank drawn ms"))))
    rows = [
        el("tr", None, leaf("td", None, b.bot), leaf("td", "num", b.decisions),
           leaf("td", "num", _spread_text(b.cpu_ms), data_cpu=b.bot),
           leaf("td", "num", _spread_text(b.wall_ms)), leaf("td", "num", _spread_text(b.gap_ms)),
           leaf("td", "num", _ms(None if b.startup_ms is None else b.startup_ms.median)),
           leaf("td", "num", "—" if b.peak_memory_bytes is None
                else f"{b.peak_memory_bytes / 2**20:.1f}"),
           leaf("td", "num", _ms(b.bank_left_ms)), leaf("td", "num", _ms(b.bank_drawn_ms)))
        for b in stats
    ]
    charts: list[Markup] = []
    for title, key, chart_id in (("CPU ms per decision (median, p95)", "cpu_ms", "cpu-chart"),
                                 ("wall − CPU ms per decision: what the host cost each bot "
                                  "(median, p95)", "gap_ms", "gap-chart")):
        spreads = [(b.bot, getattr(b, key)) for b in stats]
        bars = [Interval(bot, min(0.0, sp.median), sp.median, sp.p95)
                for bot, sp in spreads if sp is not None]
        if bars:
            charts.append(el("div", "chart", interval_chart(bars, title=title), id=chart_id))
    note = (f"Over the logs of the newest {over} matches. Per decision played: median / p95 / "
            "max in ms. CPU: what the bot's sandbox used between the request and its answer; "
            "wall − CPU: the time the host and the transport cost it. Start-up: the sandbox's "
            "start to the bot's Hello. — : not recorded (logs before format 5, no CPU meter).")
    return _section("Resources", el("table", "grid", head, *rows, id="resources"), *charts,
                    leaf("p", "dim", note), section_id="resources-section")


def _pairing(s: Standings) -> Markup:
    p = s.pairing
    if p.encounters == 0:
        return _section("Duplicate deals", leaf("p", None, "No complete encounter yet."),
                        section_id="pairing")
    lines: list[Markup] = [leaf("p", None, f"{p.encounters} complete encounters (the same deal "
                                "twice, seats swapped).")]
    for label, ratio, note in (("score (W/D/L)", p.score_ratio, p.score_note),
                               ("point margin", p.margin_ratio, p.margin_note)):
        if ratio is None:
            lines.append(leaf("p", None, f"{label}: {ratio_note(note)}", data_ratio="none"))
        else:
            change = (f"{100 * (1 - ratio):.0f}% less variance" if ratio <= 1 else
                      f"{100 * (ratio - 1):.0f}% more variance: no gain from the pairing here")
            lines.append(leaf("p", None, f"{label}: paired variance = {ratio:.2f} × unpaired "
                              f"({change})", data_ratio=f"{ratio:.4f}"))
    head = el("tr", None, *(leaf("th", None, h) for h in ("pair", "0", "¼", "½", "¾", "1")))
    rows = [el("tr", None, leaf("td", None, f"{a} vs {b}"),
               *(leaf("td", "num", c) for c in counts))
            for (a, b), counts in sorted(p.pentanomial.items())]
    return _section("Duplicate deals: what the pairing bought", *lines,
                    leaf("p", "dim", "Pentanomial counts: per encounter, the first bot's score."),
                    el("table", "grid", head, *rows), section_id="pairing")


def _crosstable(cross: Crosstable) -> Markup:
    names = list(cross.order) or sorted({a for a, _ in cross.cells})
    head = el("tr", None, leaf("th", None, "row vs column"),
              *(leaf("th", None, n) for n in names))
    rows = []
    for a in names:
        cells: list[Markup] = [leaf("th", None, a)]
        for b in names:
            tally = cross.cells.get((a, b))
            if a == b or tally is None or tally.games == 0:
                cells.append(leaf("td", "cell dim", "—"))
                continue
            cells.append(leaf(
                "td", "cell", f"{tally.wins}-{tally.draws}-{tally.losses} "
                f"({100 * tally.score_rate:.0f}%)",
                style=f"background:{heat_colour(tally.score_rate)}",
                title=f"{a} vs {b}: {tally.games} matches"))
        rows.append(el("tr", None, *cells))
    return _section("Head to head", el("table", "grid heat", head, *rows, id="crosstable"),
                    leaf("p", "dim", "Row bot's W-D-L and score rate against the column bot, "
                         "over the rated matches; green wins, red loses."),
                    section_id="crosstable-section")


def history_stride(steps: int) -> int:
    """Draw every k-th step of a history of ``steps`` steps: the smallest power of two that
    keeps the chart within ``HISTORY_POINTS`` steps (1 for a short history)."""
    stride = 1
    while steps > stride * HISTORY_POINTS:
        stride *= 2
    return stride


def _history(history: Sequence[HistoryPoint], players: Sequence[str]) -> Markup:
    """The official rating of each player after each complete encounter, one line per player
    (the standings' order first: the interval chart's colours); a long history drawn at every
    k-th step (``history_stride``) and its last."""
    if not history:
        return _section("Rating history", leaf("p", None, "No complete encounter yet."),
                        section_id="history")
    last = history[-1].step
    stride = history_stride(last)
    series: dict[str, list[tuple[float, float]]] = {player: [] for player in players}
    for point in history:
        if point.step % stride == 0 or point.step == last:
            series.setdefault(point.player, []).append((float(point.step), point.rating))
    series = {player: points for player, points in series.items() if points}
    chart = line_chart(series, title="official rating after each complete encounter",
                       x_label="complete encounters", y_label="rating")
    drawn = "" if stride == 1 else f" Drawn at every {stride}th encounter and the last."
    note = ("The Bradley–Terry rating of each player (each version, in a continuous ladder) "
            "after each complete encounter, fitted again from the store over the encounters "
            "complete by then, in the order they completed: the last point is the standings. "
            f"Not the live Elo.{drawn} `arena ladder history --format csv` exports it with "
            "the 95% intervals.")
    return _section("Rating history", el("div", "chart", chart, id="history-chart"),
                    leaf("p", "dim", note), section_id="history")


# --- the schedule types' states ------------------------------------------------------------------
def _schedule(status: ScheduleStatus | None) -> Markup:
    if status is None:
        return ""
    if isinstance(status, Bracket):
        return _bracket(status)
    if isinstance(status, SwissState):
        return _swiss(status)
    return _adaptive(status)


def _bracket(bracket: Bracket) -> Markup:
    """The knockout: the bracket as an SVG, then every tie as a table row."""
    rounds = len(bracket.rounds)
    names = [round_name(r, rounds) for r in range(rounds)]
    boxes = [_box(tie) for ties in bracket.rounds for tie in ties]
    chart = bracket_chart(names, boxes, title="the bracket", champion=bracket.champion)
    head = el("tr", None, *(leaf("th", None, h) for h in (
        "round", "players", "encounters", "through", "decided by")))
    rows = [el("tr", None, leaf("td", None, names[tie.round]), leaf("td", None, _players(tie)),
               leaf("td", None, ", ".join(encounter_score(r, tie.players[0])
                                          for r in tie.results)),
               leaf("td", None, tie.winner or "—"), leaf("td", None, tie.decided_by or "—"),
               data_tie=f"{tie.round}-{tie.slot}")
            for ties in bracket.rounds for tie in ties]
    note = ("Single elimination, seeded: byes go to the top seeds. A tie is won on the score "
            "over its encounters, then on the point margin; still level, it gets another "
            "encounter (a few at most, then the better seed goes through). Each encounter's "
            "score is the first player's, with its point margin.")
    return _section("Knockout", leaf("p", "decision", bracket_headline(bracket)),
                    el("div", "chart", chart, id="bracket-chart"),
                    el("table", "grid", head, *rows, id="ties"), leaf("p", "dim", note),
                    section_id="knockout")


def _players(tie: Tie) -> str:
    """``(1) alpha vs (8) eta``, or ``(1) alpha: bye``."""
    if tie.decided_by == "bye":
        return f"{seeded(tie, 0 if tie.players[0] is not None else 1)}: bye"
    return f"{seeded(tie, 0)} vs {seeded(tie, 1)}"


def _box(tie: Tie) -> BracketBox:
    """A tie as the bracket chart draws it."""
    if tie.decided_by == "bye":
        seat = 0 if tie.players[0] is not None else 1
        seats = (BracketSeat(seeded(tie, seat), "", True), BracketSeat("bye", "", False))
        return BracketBox(tie.round, tie.slot, seats, "through on a bye", _players(tie))
    seats = (BracketSeat(seeded(tie, 0), _tie_score(tie, 0),
                         tie.winner is not None and tie.winner == tie.players[0]),
             BracketSeat(seeded(tie, 1), _tie_score(tie, 1),
                         tie.winner is not None and tie.winner == tie.players[1]))
    if tie.winner is not None:
        note = tie.decided_by
    elif None in tie.players:
        note = "waiting for the tie before it"
    else:
        note = f"{len(tie.results)} of {tie.needed} encounters played"
    detail = f"{_players(tie)}: " + (", ".join(
        encounter_score(r, tie.players[0]) for r in tie.results) or "nothing played yet")
    return BracketBox(tie.round, tie.slot, seats, note, detail)


def _tie_score(tie: Tie, seat: int) -> str:
    """A player's score over the tie's encounters ("" before any)."""
    player = tie.players[seat]
    if player is None or not tie.results:
        return ""
    return f"{sum(r.score_of(player) for r in tie.results if player in r.players):g}"


def _swiss(state: SwissState) -> Markup:
    """The Swiss: its table, then the score groups and the pairings of the round being
    played."""
    head = el("tr", None, *(leaf("th", "num" if h in ("#", "score", "Buchholz", "SB", "byes")
                                 else None, h)
                            for h in ("#", "player", "score", "Buchholz", "SB", "byes",
                                      "opponents")))
    rows = [el("tr", None, leaf("td", "num", r.rank), leaf("td", None, r.player),
               leaf("td", "num", f"{r.score:g}", data_score=r.player),
               leaf("td", "num", f"{r.buchholz:g}"), leaf("td", "num", f"{r.sonneborn_berger:g}"),
               leaf("td", "num", r.byes), leaf("td", None, ", ".join(r.opponents)))
            for r in state.table]
    parts: list[Markup] = [leaf("p", "decision", swiss_headline(state)),
                           el("table", "grid", head, *rows, id="swiss")]
    if not state.finished:
        if state.groups:
            parts.append(leaf("p", None, f"Score groups before round {state.current + 1}: "
                              f"{groups_text(state.groups)}", id="score-groups"))
        current = next((r for r in state.rounds if r.index == state.current), None)
        if current is not None:
            parts.append(leaf("p", None, f"Round {current.index + 1}: {pairings_text(current)}",
                              id="swiss-round"))
    note = ("A round is one duplicate encounter, so seats do not matter: 1 for the player who "
            "scored more than half of its points, ½ for a level one, a bye 1 (at most one a "
            "player). Pairings: by score group, top half against bottom half, no rematch. "
            "Ties: Buchholz (the opponents' scores), then Sonneborn–Berger (SB: the scores of "
            "the opponents beaten, half of those drawn), then the initial order.")
    return _section("Swiss", *parts, leaf("p", "dim", note), section_id="swiss-section")


def _adaptive(status: AdaptiveStatus) -> Markup:
    """An adaptive or continuous ladder: the latest pairing decisions and every player."""
    decisions = [el("li", None, leaf("span", "dim", format_when(d.at)), " ",
                    leaf("span", None, plain_text(d.reason))) for d in status.decisions]
    head = el("tr", None, *(leaf("th", None, h) for h in (
        "player", "state", "encounters", "matches in the last hour", "last match")))
    rows = [el("tr", None, leaf("td", None, p.player), leaf("td", None, plain_text(p.state)),
               leaf("td", "num", p.encounters), leaf("td", "num", p.matches_last_hour),
               leaf("td", None, "never" if p.last_match_at is None
                    else format_when(p.last_match_at)), data_player=p.player)
            for p in status.players]
    return _section(
        "Pairing decisions", leaf("p", "decision", adaptive_headline(status)),
        leaf("p", None, f"Note: {plain_text(status.notice)}") if status.notice else "",
        leaf("p", None, "Latest pairing decisions, newest first:") if decisions else "",
        el("ul", None, *decisions, id="decisions") if decisions else "",
        el("table", "grid", head, *rows, id="players"),
        leaf("p", "dim", "Each encounter is chosen to learn the most about the order of the "
             "standings, under fairness rules: new versions play their placement encounters "
             "first, nobody waits long, no pair twice in a row while others are open."),
        section_id="decisions-section")


def _versions(rows: Sequence[VersionRow]) -> Markup:
    """Every version of every bot, each rated as a player of its own (a continuous ladder)."""
    if not rows:
        return ""
    head = el("tr", None, *(leaf("th", None, h) for h in (
        "player", "identity", "rating", "95% interval", "encounters", "first played",
        "last played", "state")))
    body = [el("tr", None if r.current else "dim", leaf("td", None, r.player),
               leaf("td", None, r.short_identity),
               leaf("td", "num", "—" if r.rating is None else f"{r.rating:.0f}"),
               leaf("td", "num", "—" if r.rating is None or r.ci95 is None
                    else f"{r.rating - r.ci95:.0f} .. {r.rating + r.ci95:.0f}"),
               leaf("td", "num", r.encounters), leaf("td", None, format_when(r.first_played)),
               leaf("td", None, format_when(r.last_played)),
               leaf("td", None, "current" if r.current else "retired"), data_version=r.player)
            for r in rows]
    return _section("Versions", el("table", "grid", head, *body, id="versions"),
                    leaf("p", "dim", "Every version of every bot, rated as a player of its own "
                         "in one fit: every result stays with the version that played it. The "
                         "standings show each bot at its current version."),
                    section_id="versions-section")
