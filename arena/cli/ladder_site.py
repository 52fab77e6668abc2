"""`arena ladder report`: a ladder as a static site, index.html plus one replay page per match.

``report_page`` is pure (the ladder's data in, one self-contained HTML page out): the standings
with their 95% intervals drawn as a chart, what the duplicate deals bought (the paired variance
figures), the cross-table as a heat map, the rating history over the run and the match list,
each match linked to its replay. When the ladder is an SPRT test (``arena sprt``: a ladder file
with an ``[sprt]`` section), the page opens with the test: its hypotheses and bounds, the
decision, the pentanomial counts, the Elo estimate with its interval and LOS, and the LLR path
over the complete pairs between the two bound lines. The matches the cluster gave up on (void
attempts, never rated, played again) are counted at the top and listed after the matches.
``write_report`` reads the store and the match logs and writes the files.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from arena.cli.common import err_console, notice
from arena.errors import ArenaError
from arena.ladder.config import LadderConfig
from arena.ladder.reports import (
    Crosstable,
    RatingStep,
    Standings,
    crosstable_of,
    format_when,
    given_up_text,
    load_matches,
    load_rating_history,
    load_void_attempts,
    open_store,
    ratio_note,
    standings_of,
)
from arena.ladder.sprt import EloModel, accepted_claim
from arena.ladder.sprt_pairs import LlrStep, PairBook, llr_path
from arena.ladder.sprt_run import SprtOutcome, SprtStatus
from arena.ladder.store import StoredMatch, VoidAttempt
from arena.model import plain_text
from arena.render.html.charts import (
    Interval,
    heat_colour,
    interval_chart,
    line_chart,
    llr_chart,
)
from arena.render.html.markup import Markup, el, leaf
from arena.render.html.page import document

REPLAY_DIR = "replays"
"""Where the replay pages go, inside the report directory."""
CELL_NAMES = ("LL", "LD", "WL / DD", "WD", "WW")
"""The pentanomial cells as the candidate's two legs: (L)ost, (D)rawn, (W)on."""


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
    history: Sequence[RatingStep]
    """Every live Elo update, in order."""
    replays: Mapping[str, str] = field(default_factory=dict)
    """match id → the replay page's path relative to index.html."""
    problems: Mapping[str, str] = field(default_factory=dict)
    """match id → why it has no replay (no log, an unreadable log)."""
    sprt: SprtReport | None = None
    """The SPRT test, when the ladder is one."""
    given_up: Sequence[VoidAttempt] = ()
    """The matches the cluster gave up on (void attempts), in recording order."""


@dataclass(frozen=True)
class SiteSummary:
    """What ``write_report`` wrote."""

    index: Path
    """The index page."""
    replays: int
    """Replay pages written."""
    problems: dict[str, str]
    """match id → why it got no replay."""


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
        _standings(s), _pairing(s), _crosstable(data.crosstable),
        _history(data.history, [r.bot for r in s.rows]),
        _match_list(data),
    )
    return document(title, body)


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


def _history(history: Sequence[RatingStep], bots: Sequence[str]) -> Markup:
    """The live Elo over the run, one line per bot (in standings order: the interval chart's
    colours)."""
    if not history:
        return _section("Rating history", leaf("p", None, "No rated match yet."),
                        section_id="history")
    order: dict[str, int] = {}
    series: dict[str, list[tuple[float, float]]] = {bot: [] for bot in bots}
    for step in history:
        number = order.setdefault(step.match_id, len(order) + 1)
        series.setdefault(step.bot, []).append((float(number), step.rating))
    series = {bot: points for bot, points in series.items() if points}
    chart = line_chart(series, title="live Elo after each rated match",
                       x_label="rated match", y_label="live Elo")
    return _section("Rating history", el("div", "chart", chart, id="history-chart"),
                    leaf("p", "dim", "The live (incremental) Elo of each bot after each of its "
                         "rated matches, in the order they were recorded."),
                    section_id="history")


def _match_list(data: ReportData) -> Markup:
    head = el("tr", None, *(leaf("th", None, h) for h in (
        "#", "match", "cycle/leg", "seat 0", "seat 1", "totals", "result", "termination",
        "seconds")))
    rows = []
    for number, m in enumerate(data.matches, start=1):
        link = data.replays.get(m.match_id)
        name: Markup = (leaf("a", None, m.match_id, href=link) if link is not None
                        else leaf("span", None, m.match_id,
                              title=data.problems.get(m.match_id, "no replay")))
        rows.append(el(
            "tr", "void" if m.void else None, leaf("td", "num", number), el("td", None, name),
            leaf("td", None, f"{m.cycle}/{m.leg}"), leaf("td", None, m.bots[0]),
            leaf("td", None, m.bots[1]), leaf("td", "num", f"{m.totals[0]} – {m.totals[1]}"),
            leaf("td", None, _outcome(m)), leaf("td", None, str(m.termination)),
            leaf("td", "num", f"{m.duration_s:.1f}"), data_match=m.match_id))
    missing = len(data.matches) - len(data.replays)
    note = "Each match id opens its replay (a self-contained page)."
    if missing:
        note += f" {missing} match(es) have no replay (no readable log); hover for why."
    return _section("Matches", leaf("p", "dim", note),
                    el("table", "grid", head, *rows, id="matches"), _given_up(data.given_up),
                    section_id="matches-section")


def _given_up(attempts: Sequence[VoidAttempt]) -> Markup:
    """The matches the cluster gave up on: when, and why (nothing when there are none)."""
    if not attempts:
        return ""
    head = el("tr", None, *(leaf("th", None, h) for h in (
        "match", "cycle/leg", "seat 0", "seat 1", "given up at", "detail")))
    rows = [el("tr", "void", leaf("td", None, a.match_id), leaf("td", None, f"{a.cycle}/{a.leg}"),
               leaf("td", None, a.bots[0]), leaf("td", None, a.bots[1]),
               leaf("td", None, format_when(a.finished_at)),
               leaf("td", None, plain_text(a.detail)),
               data_given_up=a.match_id)
            for a in attempts]
    note = (f"{given_up_text(len(attempts))}: their attempts killed the workers that played "
            "them. They are not recorded matches, so they have no result and no replay.")
    return el("div", None, leaf("p", "dim", note),
              el("table", "grid", head, *rows, id="given-up"))


def _outcome(m: StoredMatch) -> str:
    if m.void:
        return "void"
    if m.winner is None:
        return "draw"
    return f"{m.bots[m.winner]} wins"


# --- writing the site ----------------------------------------------------------------------------
ReplayMaker = Callable[[Path], str]
"""A match log → its replay page (raises ``ArenaError`` for a log it cannot replay)."""


def replay_name(match_id: str) -> str:
    """The replay file of a match (a safe file name)."""
    return re.sub(r"[^A-Za-z0-9._-]", "_", match_id) + ".html"


def _log_of(config: LadderConfig, m: StoredMatch) -> Path | None:
    candidates = [Path(m.log_path)] if m.log_path else []
    candidates.append(config.match_log_dir / f"{m.match_id}.jsonl")
    return next((p for p in candidates if p.is_file()), None)


def write_report(config: LadderConfig, out: Path, make_replay: ReplayMaker) -> SiteSummary:
    """Write ``out/index.html`` and ``out/replays/<match>.html`` for every match with a log."""
    with open_store(config) as db:
        matches = load_matches(config, db)
        history = load_rating_history(config, db)
        live = db.live_elo(config.name)
        given_up = load_void_attempts(config, db)
    prior = config.rating.prior
    (out / REPLAY_DIR).mkdir(parents=True, exist_ok=True)
    replays: dict[str, str] = {}
    problems: dict[str, str] = {}
    for m in matches:
        log = _log_of(config, m)
        if log is None:
            problems[m.match_id] = "its log is missing"
            continue
        try:
            page = make_replay(log)
        except ArenaError as exc:
            problems[m.match_id] = f"its log cannot be replayed: {exc}"
            err_console.print(notice("warning", "yellow", f"no replay of {m.match_id}: {exc}"))
            continue
        name = f"{REPLAY_DIR}/{replay_name(m.match_id)}"
        (out / name).write_text(page, encoding="utf-8")
        replays[m.match_id] = name
    data = ReportData(config.name, config.game,
                      standings_of(config.name, matches, prior=prior, live=live,
                                   given_up=len(given_up)),
                      crosstable_of(matches, prior=prior), matches, history, replays, problems,
                      sprt_report(config, matches, given_up), given_up)
    index = out / "index.html"
    index.write_text(report_page(data), encoding="utf-8")
    return SiteSummary(index, len(replays), problems)
