"""`arena sprt ...`: is the candidate stronger than the baseline? (`llr`: the calculator.)"""

from __future__ import annotations

from typing import Annotated

import typer
from rich.table import Table

from arena.cli.common import OutputFormat, console, handle_errors, print_json
from arena.ladder.sprt import Decision, EloModel, Pentanomial, SprtParams, SprtResult, evaluate

GROUP_HELP = (
    "Sequential probability ratio tests (SPRT) on duplicate pairs: is the candidate at least "
    "ELO1 stronger (H1) or at most ELO0 (H0)?"
)
LLR_HELP = (
    "The SPRT calculator: LLR, bounds, decision, Elo estimate with 95% interval and LOS for "
    "given pentanomial counts, without playing (use it to plan a test).\n\n"
    "The counts N0..N4 are pairs in which the candidate scored 0, 1/4, 1/2, 3/4 and 1 per game "
    "(lost both legs; lost one and drew one; won one and lost one, or drew both; won one and "
    "drew one; won both). The LLR is fishtest's exact generalized SPRT. Elo models: logistic "
    "(the usual Elo, as in the ladder standings: +100 Elo is a 64% expected score) or "
    "normalized (the score's distance from 50% in standard deviations, scaled so that for "
    "independent drawless games between near-equal bots it equals Elo; a test with given "
    "normalized bounds needs about the same number of pairs whatever the game).\n\n"
    "Decision: H1 (LLR at or above the upper bound), H0 (at or below the lower bound) or "
    "continue. Exit 0 when it prints, 2 for bad input."
)


def register(app: typer.Typer) -> None:
    """Add the `sprt` group to the root app.

    The group holds the calculator (`llr`); the command that plays the pairs is added to the
    same group."""
    group = typer.Typer(help=GROUP_HELP, no_args_is_help=True)
    group.command("llr", help=LLR_HELP)(llr)
    app.add_typer(group, name="sprt")


@handle_errors
def llr(
    pentanomial: Annotated[str, typer.Option(
        "--pentanomial", help="The counts N0,N1,N2,N3,N4 (five non-negative integers).")],
    elo0: Annotated[float, typer.Option("--elo0", help="H0: the candidate is at most this "
                                                       "much stronger.")],
    elo1: Annotated[float, typer.Option("--elo1", help="H1: the candidate is at least this "
                                                       "much stronger (more than ELO0).")],
    model: Annotated[EloModel, typer.Option(help="The unit of ELO0, ELO1 and the estimate: "
                                                 "logistic or normalized.")] = EloModel.logistic,
    alpha: Annotated[float, typer.Option(help="The largest chance of accepting H1 when H0 "
                                              "holds, in (0, 0.5).")] = 0.05,
    beta: Annotated[float, typer.Option(help="The largest chance of accepting H0 when H1 "
                                             "holds, in (0, 0.5).")] = 0.05,
    draw_pairs: Annotated[int, typer.Option(
        "--draw-pairs", help="How many of the N2 pairs were two draws rather than a win and "
        "a loss (only the variance ratio of pairing depends on it).")] = 0,
    output: Annotated[OutputFormat, typer.Option("--format", help="human: a table; json: one "
                                                 "JSON object.")] = OutputFormat.human,
) -> None:
    """Print the LLR, bounds, decision, Elo estimate and LOS of pentanomial counts."""
    params = SprtParams(elo0=elo0, elo1=elo1, alpha=alpha, beta=beta, model=model)
    result = evaluate(Pentanomial.parse(pentanomial), params, draw_pairs)
    if output is OutputFormat.json:
        print_json(result.to_json())
    else:
        console.print(render_result(result))


def render_result(result: SprtResult) -> Table:
    """The calculator's answer as a two-column table."""
    params, estimate, pairing = result.params, result.estimate, result.pairing
    lower, upper = params.bounds
    unit = "Elo" if params.model is EloModel.logistic else "nElo"
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
    table.caption = (f"variance ratio if every N2 pair was a win and a loss / two draws: "
                     f"{_ratio_text(pairing.ratio_range[0])} / "
                     f"{_ratio_text(pairing.ratio_range[1])}")
    return table


def _decision_text(decision: Decision, params: SprtParams, unit: str) -> str:
    if decision is Decision.H1:
        return f"H1 accepted: the candidate is at least {params.elo1:g} {unit} stronger"
    if decision is Decision.H0:
        return f"H0 accepted: the candidate is at most {params.elo0:g} {unit} stronger"
    return "continue: not enough evidence either way yet"


def _pairing_text(result: SprtResult) -> str:
    ratio = result.pairing.ratio
    if ratio is None:
        return "variance ratio not measurable (every game scored the same)"
    text = (f"paired variance = {ratio:.2f} x two independent games "
            f"({100 * (1 - ratio):+.0f}% reduction")
    if ratio > 0:
        text += f", a pair worth {2 / ratio:.1f} games"
    return text + f"; {result.pairing.draw_pairs} of N2 taken as two draws)"


def _ratio_text(ratio: float | None) -> str:
    return "n/a" if ratio is None else f"{ratio:.2f}"
