"""How an SPRT test's end looks on the terminal (`arena sprt`, `arena sprt llr`): the outcome in
one line, the calculator's table (the pentanomial counts, the LLR against its bounds, the
decision, the Elo estimate, what the pairing bought), what the run played. Its live view is
``arena.render.ladder.SprtLiveView`` (the test is played by the ladder runner). Pure: data in,
rich renderables out.
"""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.table import Table

from arena.ladder.reports import NOT_ESTIMABLE, given_up_text, ratio_note
from arena.render.schedule import format_clock
from arena.render.text import plain
from arena.sprt.run import SprtOutcome, SprtSummary
from arena.stats.sprt import Decision, SprtParams, SprtResult, accepted_claim


def render_sprt_summary(summary: SprtSummary) -> RenderableType:
    """The end of a run: the outcome, the calculator's table for the complete pairs, what this
    run played."""
    status, run = summary.status, summary.run
    parts: list[RenderableType] = [plain(outcome_text(summary), style="bold")]
    if status.result is not None:
        parts.append(render_result(status.result))
    per_minute = 60.0 * run.played / run.duration_s if run.duration_s > 0 else 0.0
    given_up = f"; {given_up_text(run.given_up)}" if run.given_up else ""
    parts.append(plain(
        f"{status.pairs} complete pairs ({status.pairs_started} begun); this run: {run.played} "
        f"matches in {format_clock(run.duration_s)} ({per_minute:.1f}/min, {run.void} void)"
        f"{given_up}. Matches: arena matches {summary.ladder_file}"))
    return Group(*parts)


def outcome_text(summary: SprtSummary) -> str:
    """One line: what the test found."""
    status = summary.status
    claim = accepted_claim(status.decision, status.params, *summary.bots)
    if claim is not None:
        return f"{status.decision} accepted after {status.pairs} pairs: {claim}"
    if summary.outcome is SprtOutcome.INCONCLUSIVE:
        return (f"inconclusive: the budget of {status.max_pairs} pairs is spent and the LLR "
                "reached neither bound (a larger --max-pairs continues the test)")
    return (f"stopped after {status.pairs} pairs, undecided: run the same command again to "
            "continue the test")


def render_result(result: SprtResult) -> Table:
    """The calculator's answer as a two-column table."""
    params, estimate, pairing = result.params, result.estimate, result.pairing
    lower, upper = params.bounds
    unit = params.model.unit
    table = Table(title=f"SPRT [{params.elo0:g}, {params.elo1:g}] {unit}, "
                        f"alpha {params.alpha:g}, beta {params.beta:g}",
                  title_justify="left", show_header=False)
    table.add_column("quantity")
    table.add_column("value")
    table.add_row("pentanomial", " ".join(str(n) for n in result.counts.counts))
    table.add_row("pairs", str(result.counts.pairs))
    table.add_row("LLR", f"{result.llr:.2f} (bounds {lower:.2f}, {upper:.2f})")
    table.add_row("decision", _decision_text(result.decision, params, unit))
    table.add_row("score", f"{100 * estimate.score:.2f}%")
    table.add_row(unit, f"{estimate.elo:+.1f} (95%: {estimate.low:+.1f} to {estimate.high:+.1f})")
    table.add_row("LOS", f"{100 * estimate.los:.2f}%")
    table.add_row("pairing", _pairing_text(result))
    low, high = pairing.ratio_range
    table.caption = ("variance ratio if every N2 pair was a win and a loss / two draws: "
                     + (f"{_ratio_text(low)} / {_ratio_text(high)}" if (low, high) != (None, None)
                        else ratio_note(pairing.note)))
    return table


def _decision_text(decision: Decision, params: SprtParams, unit: str) -> str:
    claim = accepted_claim(decision, params)
    if claim is not None:
        return f"{decision} accepted: {claim}"
    return "continue: not enough evidence either way yet"


def _pairing_text(result: SprtResult) -> str:
    ratio = result.pairing.ratio
    if ratio is None:
        return f"variance ratio: {ratio_note(result.pairing.note)}"
    text = (f"paired variance = {ratio:.2f} x two independent games "
            f"({100 * (1 - ratio):+.0f}% reduction")
    if ratio > 0:
        text += f", a pair worth {2 / ratio:.1f} games"
    return text + f"; {result.pairing.draw_pairs} of N2 taken as two draws)"


def _ratio_text(ratio: float | None) -> str:
    return NOT_ESTIMABLE if ratio is None else f"{ratio:.2f}"
