"""`arena lab`: the bot author's lab on the command line (`arena lab evaluate`: the fast
in-process evaluator, arena/lab/evaluate.py; docs/lab.md)."""

from __future__ import annotations

from typing import Annotated, Any

import typer
from rich.table import Table

from arena.cli.common import OutputFormat, console, handle_errors, parse_options, print_json
from arena.render.text import plain
from arena.stats.sprt import EloModel, SprtParams

GROUP_HELP = (
    "The bot author's lab: play trusted Python policies against each other in-process, fast "
    "(docs/lab.md)."
)
EVALUATE_HELP = (
    "Play POLICY_A against POLICY_B in-process on duplicate deals (pair i: seed SEED+i twice, "
    "the seats swapped) on JOBS worker processes, and print W/D/L, the mean margin, the "
    "Bradley–Terry Elo difference with its 95% interval, matches per second and the verdict "
    "`arena sprt` would give on the same pairs.\n\n"
    "A POLICY is `path/to/file.py:function` (a function from a decision to an action, or an "
    "object with `decide`), `file.py` (its `choose`), a bot directory (its bot.py's `choose`) "
    "or a sample bot's name (`greedy`: sample_bots/<game>/greedy). The policies run in this "
    "process, untimed and unsandboxed: trusted code only; each decision is the one the "
    "referee would ask (docs/lab.md)."
)


def register(app: typer.Typer) -> None:
    """Add the `lab` group to the root app."""
    group = typer.Typer(help=GROUP_HELP, no_args_is_help=True)
    group.command("evaluate", help=EVALUATE_HELP)(evaluate)
    app.add_typer(group, name="lab")


@handle_errors
def evaluate(
    policy_a: Annotated[str, typer.Argument(metavar="POLICY_A", show_default=False,
                                            help="The candidate (A): FILE.py:FUNCTION, a bot "
                                                 "directory or a sample bot's name.")],
    policy_b: Annotated[str, typer.Argument(metavar="POLICY_B", show_default=False,
                                            help="The baseline (B), the same way.")],
    game: Annotated[str, typer.Option(help="Game id.")] = "lost-cities",
    matches: Annotated[int, typer.Option(
        "--matches", help="Matches to play (rounded up to whole duplicate pairs).")] = 200,
    jobs: Annotated[int | None, typer.Option(
        "--jobs", help="Worker processes. Default: the number of cores.")] = None,
    seed: Annotated[int, typer.Option(help="The first pair's deal seed.")] = 1,
    option: Annotated[list[str] | None, typer.Option(
        "--option", "-o", help="Rules option KEY=VALUE, repeatable (e.g. rounds=1).")] = None,
    elo0: Annotated[float, typer.Option("--elo0", help="SPRT H0: A is at most this much "
                                                       "stronger.")] = 0.0,
    elo1: Annotated[float, typer.Option("--elo1", help="SPRT H1: A is at least this much "
                                                       "stronger.")] = 50.0,
    alpha: Annotated[float, typer.Option(help="SPRT: the largest chance of a false H1.")] = 0.05,
    beta: Annotated[float, typer.Option(help="SPRT: the largest chance of a false H0.")] = 0.05,
    model: Annotated[EloModel, typer.Option(
        help="The unit of ELO0 and ELO1: logistic or normalized.")] = EloModel.logistic,
    output: Annotated[OutputFormat, typer.Option(
        "--format", help="human: a table; json: one JSON object.")] = OutputFormat.human,
) -> None:
    """Play two policies in-process (see EVALUATE_HELP)."""
    # start-up: `arena` imports it for this command only (the engines, multiprocessing)
    from arena.lab.evaluate import default_jobs
    from arena.lab.evaluate import evaluate as run_evaluation

    params = SprtParams(elo0, elo1, alpha, beta, model)
    workers = jobs if jobs is not None else default_jobs()
    if output is OutputFormat.json:
        result = run_evaluation(policy_a, policy_b, game=game, matches=matches, jobs=workers,
                                seed=seed, options=parse_options(option), params=params)
    else:
        with console.status(f"playing {matches} matches on {workers} jobs") as status:
            def progress(done: int) -> None:
                status.update(f"played {done} of {matches + matches % 2} matches")

            result = run_evaluation(policy_a, policy_b, game=game, matches=matches,
                                    jobs=workers, seed=seed, options=parse_options(option),
                                    params=params, progress=progress)
    data = evaluation_json(result)
    if output is OutputFormat.json:
        print_json(data)
    else:
        console.print(_table(result, data))
    if result.faults:
        raise typer.Exit(1)


def evaluation_json(result: Any) -> dict[str, Any]:
    """An :class:`~arena.lab.evaluate.Evaluation` as JSON."""
    elo, ci95 = result.elo
    faults = result.faults
    return {
        "game": result.game, "a": result.names[0], "b": result.names[1],
        "matches": result.matches, "pairs": result.pairs, "jobs": result.jobs,
        "wins": result.wins, "draws": result.draws, "losses": result.losses,
        "mean_margin": round(result.mean_margin, 3),
        "elo": round(elo, 1), "elo_ci95": round(ci95, 1),
        "seconds": round(result.seconds, 3), "matches_per_s": round(result.matches_per_s, 1),
        "sprt": {**result.sprt.to_json(), "pairs_counted": result.sprt_pairs,
                 "verdict": result.verdict},
        "faults": len(faults),
        "first_fault": faults[0].fault if faults else None,
    }


def _table(result: Any, data: dict[str, Any]) -> Table:
    a, b = (plain(name) for name in result.names)
    table = Table(title=f"{a} (A) vs {b} (B), {result.game}: {result.matches} matches "
                        f"({result.pairs} duplicate pairs)", title_justify="left",
                  show_header=False)
    table.add_column("quantity")
    table.add_column("value")
    table.add_row("A: won / drew / lost", f"{result.wins} / {result.draws} / {result.losses}")
    table.add_row("A: mean margin", f"{result.mean_margin:+.2f} points a match")
    table.add_row("Elo, A − B", f"{data['elo']:+.1f} ± {data['elo_ci95']:.1f} (95%, "
                                "Bradley–Terry, the ladder's fit)")
    params = result.params
    lower, upper = params.bounds
    table.add_row(f"SPRT [{params.elo0:g}, {params.elo1:g}] {params.model.unit}",
                  f"{plain(result.verdict)} (LLR {result.sprt.llr:.2f}, bounds {lower:.2f}, "
                  f"{upper:.2f})")
    table.add_row("speed", f"{result.matches_per_s:.1f} matches/s ({result.seconds:.1f} s on "
                           f"{result.jobs} jobs)")
    if result.faults:
        table.add_row("faults", f"{len(result.faults)}; first: {plain(result.faults[0].fault)}")
    return table
