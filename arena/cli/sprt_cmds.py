"""`arena sprt CANDIDATE BASELINE`: is the candidate stronger than the baseline? A sequential
test on duplicate pairs, with a live view (`run`; the group's default command), and `llr`, the
calculator."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.live import Live
from typer.core import TyperGroup

from arena.cli.common import (
    OutputFormat,
    announce_sandbox,
    console,
    err_console,
    handle_errors,
    notice,
    parse_options,
    print_json,
)
from arena.errors import ConfigError
from arena.ladder.config import CLOCK_SETTINGS, SANDBOXES, LadderConfig, load_ladder
from arena.model import TimeControl
from arena.render.ladder import SprtLiveView
from arena.render.sprt import render_result, render_sprt_summary
from arena.sprt.file import DEFAULT_ROOT, SprtDesign, sprt_ladder
from arena.sprt.run import (
    SprtEvent,
    SprtOutcome,
    SprtSummary,
    VoidLegError,
    resolve_pair,
    run_sprt_blocking,
    sprt_of,
)
from arena.stats.sprt import (
    EloModel,
    Pentanomial,
    SprtParams,
    evaluate,
)

GROUP_HELP = (
    "Sequential probability ratio tests (SPRT) on duplicate pairs: is the candidate at least "
    "ELO1 stronger (H1) or at most ELO0 (H0)?\n\n"
    "`arena sprt CANDIDATE BASELINE --elo0 E0 --elo1 E1` plays the test (it is short for "
    "`arena sprt run ...`); `arena sprt llr` is the calculator."
)
RUN_HELP = (
    "Play duplicate pairs of CANDIDATE against BASELINE (same deal, seats swapped; a fresh "
    "secret deal per pair) until the test knows: H1 accepted (the candidate is at least ELO1 "
    "stronger), H0 accepted (at most ELO0), or the pair budget (--max-pairs) spent "
    "(inconclusive). A live view shows the LLR between its bounds, the pentanomial counts, the "
    "pairs, the Elo estimate with its 95% interval, matches per minute and the pairs still "
    "expected.\n\n"
    "Only complete pairs count: a forfeit is a loss for the bot at fault, a void leg (the "
    "arena's failure) is played again with the same deal. The statistics are those of "
    "`arena sprt llr`; Elo is match Elo, the unit of the ladder standings (--model logistic) or "
    "normalized Elo (--model normalized).\n\n"
    "The test is a ladder: its file, results and match logs live in "
    "ladder/state/sprt-CANDIDATE-vs-BASELINE-KEY/ (the key hashes the game, options, time "
    "control, bounds, alpha, beta, model and both bots' code), so running the same command "
    "again continues the same test, even after kill -9, and a changed bot or design is a new "
    "test. `arena matches ladder/state/.../sprt.toml` lists its matches; "
    "`arena sprt --ladder FILE` runs a test written by hand (a ladder file with \\[sprt]).\n\n"
    "Exit 0: H1 accepted; 1: H0 accepted; 4: inconclusive; 130: stopped (run it again to "
    "continue); 2: bad input (nothing played); 3: the arena failed."
)
EXIT_CODES = {SprtOutcome.H1: 0, SprtOutcome.H0: 1, SprtOutcome.INCONCLUSIVE: 4,
              SprtOutcome.UNFINISHED: 130}
"""The exit code of each outcome of `arena sprt`."""
DEFAULT_TIME_CONTROL = TimeControl()
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
    """Add the `sprt` group to the root app: `run` (the default command) and `llr`."""
    group = typer.Typer(cls=SprtGroup, help=GROUP_HELP, no_args_is_help=True)
    group.command("run", help=RUN_HELP)(run)
    group.command("llr", help=LLR_HELP)(llr)
    app.add_typer(group, name="sprt")


class SprtGroup(TyperGroup):
    """The `sprt` group, whose default command is `run`: `arena sprt CANDIDATE BASELINE ...`
    is `arena sprt run CANDIDATE BASELINE ...` (a bot directory named like a subcommand needs
    the explicit `run`)."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        """Put `run` in front of arguments that do not start with a subcommand or help (``ctx``
        is the click context of typer's own click)."""
        if args and args[0] not in self.commands and args[0] not in ctx.help_option_names:
            args = ["run", *args]
        return super().parse_args(ctx, args)


# --- arena sprt run ------------------------------------------------------------------------------
@handle_errors
def run(
    candidate: Annotated[str | None, typer.Argument(
        help="The candidate: a bot directory (with bot.toml) or a submitted bot name\\[@version].",
        show_default=False)] = None,
    baseline: Annotated[str | None, typer.Argument(
        help="The baseline it is measured against (may be the candidate itself).",
        show_default=False)] = None,
    elo0: Annotated[float | None, typer.Option(
        "--elo0", help="H0: the candidate is at most this much stronger. Required.")] = None,
    elo1: Annotated[float | None, typer.Option(
        "--elo1", help="H1: the candidate is at least this much stronger (more than ELO0). "
                       "Required.")] = None,
    alpha: Annotated[float | None, typer.Option(
        help="The largest chance of accepting H1 when H0 holds, in (0, 0.5). Default 0.05.")
    ] = None,
    beta: Annotated[float | None, typer.Option(
        help="The largest chance of accepting H0 when H1 holds, in (0, 0.5). Default 0.05.")
    ] = None,
    model: Annotated[EloModel | None, typer.Option(
        help="The unit of ELO0, ELO1 and the estimate: logistic (default) or normalized.")
    ] = None,
    game: Annotated[str | None, typer.Option(
        help="Game id. Default: the candidate's (the baseline must play it too).")] = None,
    option: Annotated[list[str] | None, typer.Option(
        "--option", "-o", help="Rules option KEY=VALUE, repeatable (e.g. rounds=1).")] = None,
    move_time: Annotated[int | None, typer.Option(
        "--move-time", help="Per-decision limit in ms, measured by the referee. Default "
                            f"{DEFAULT_TIME_CONTROL.move_time_ms}.")] = None,
    time_bank: Annotated[int | None, typer.Option(
        "--time-bank", help="Extra ms per bot for a whole match. Default "
                            f"{DEFAULT_TIME_CONTROL.time_bank_ms}.")] = None,
    clock: Annotated[str | None, typer.Option(
        "--clock", help="What a decision is charged: cpu (the CPU its sandbox used), wall, or "
                        "auto (default: cpu where the sandbox can meter CPU, else wall, said "
                        "in one line).")] = None,
    wall_guard: Annotated[float | None, typer.Option(
        "--wall-guard", help="CPU clock: no answer after this multiple of the allowance "
                             f"(+100 ms) is a wall_timeout. Default "
                             f"{DEFAULT_TIME_CONTROL.wall_guard:g}.")] = None,
    max_pairs: Annotated[int | None, typer.Option(
        "--max-pairs", min=1, help="The pair budget: stop inconclusive once this many pairs "
                                   "are complete. Default: the file's, else none.")] = None,
    concurrency: Annotated[int | None, typer.Option(
        min=1, help="Matches played at once. Default: the number of cores.")] = None,
    sandbox: Annotated[str | None, typer.Option(
        help="auto (default: containers when a Docker engine answers), docker (hardened "
             "containers) or process (development only: a warning says what it does not "
             "separate).")] = None,
    ladder: Annotated[Path | None, typer.Option(
        "--ladder", help="Run (or continue) the test of this ladder file (one with an \\[sprt] "
                         "section) instead of naming CANDIDATE and BASELINE.")] = None,
    state_root: Annotated[Path, typer.Option(
        "--state-root", help="Where tests named on the command line live.")] = DEFAULT_ROOT,
    output: Annotated[OutputFormat, typer.Option(
        "--format", help="human: a live view, then a table; json: one JSON object.")
    ] = OutputFormat.human,
) -> None:
    """Play an SPRT test (see RUN_HELP)."""
    if sandbox is not None and sandbox not in SANDBOXES:
        raise typer.BadParameter(f"must be one of {', '.join(SANDBOXES)}", param_hint="--sandbox")
    design_given = {"--elo0": elo0, "--elo1": elo1, "--alpha": alpha, "--beta": beta,
                    "--model": model, "--game": game, "--option": option,
                    "--move-time": move_time, "--time-bank": time_bank, "--clock": clock,
                    "--wall-guard": wall_guard}
    if ladder is not None:
        config = _file_test(ladder, candidate, [k for k, v in design_given.items() if v])
    else:
        params = _params(elo0, elo1, alpha, beta, model)
        clock = clock or "auto"
        if clock not in CLOCK_SETTINGS:
            raise typer.BadParameter(f"must be one of {', '.join(CLOCK_SETTINGS)}",
                                     param_hint="--clock")
        time_control = TimeControl(
            move_time if move_time is not None else DEFAULT_TIME_CONTROL.move_time_ms,
            time_bank if time_bank is not None else DEFAULT_TIME_CONTROL.time_bank_ms,
            clock="wall" if clock == "auto" else clock,
            wall_guard=DEFAULT_TIME_CONTROL.wall_guard if wall_guard is None else wall_guard)
        design = SprtDesign(params, game, parse_options(option), time_control, clock)
        config = sprt_ladder(*_bots(candidate, baseline), design, root=state_root)
    chosen = announce_sandbox(sandbox or config.sandbox)
    summary = _play(config, chosen, max_pairs, concurrency, output)
    if output is OutputFormat.json:
        print_json(summary.to_json())
    else:
        console.print(render_sprt_summary(summary))
    code = EXIT_CODES[summary.outcome]
    if code:
        raise typer.Exit(code)


def _params(elo0: float | None, elo1: float | None, alpha: float | None, beta: float | None,
            model: EloModel | None) -> SprtParams:
    if elo0 is None or elo1 is None:
        raise ConfigError("--elo0 and --elo1 are required: the test is H0 (at most ELO0 "
                          "stronger) against H1 (at least ELO1 stronger)")
    defaults = SprtParams(0.0, 1.0)
    return SprtParams(elo0, elo1, defaults.alpha if alpha is None else alpha,
                      defaults.beta if beta is None else beta, model or defaults.model)


def _bots(candidate: str | None, baseline: str | None) -> tuple[str, str]:
    if candidate is None or baseline is None:
        raise ConfigError("name the CANDIDATE and the BASELINE (or give --ladder FILE)")
    return candidate, baseline


def _file_test(ladder: Path, candidate: str | None, design_given: list[str]) -> LadderConfig:
    """The test of a ladder file; the bots and the design are the file's."""
    if candidate is not None or design_given:
        given = ", ".join(["CANDIDATE/BASELINE"] * (candidate is not None) + design_given)
        raise ConfigError(f"--ladder runs the test its file defines: {given} cannot be given "
                          "as well (they are in the file)")
    config = load_ladder(ladder)
    sprt_of(config)
    resolve_pair(config)  # a missing bot or one of another game: one error, before anything shows
    return config


def _play(config: LadderConfig, sandbox: str, max_pairs: int | None,
          concurrency: int | None, output: OutputFormat) -> SprtSummary:
    """Run the test with the live view (human output: on stdout; JSON: on stderr, and only on
    a terminal). A leg the arena cannot play is exit 3."""
    view = SprtLiveView(f"SPRT {config.name}: {_versus(config)}")
    live: contextlib.AbstractContextManager[object] = contextlib.nullcontext()
    if output is OutputFormat.human:
        live = Live(view, console=console, refresh_per_second=4)
    elif err_console.is_terminal:
        live = Live(view, console=err_console, refresh_per_second=4, transient=True)
    try:
        with live:
            summary = run_sprt_blocking(config, max_pairs=max_pairs, concurrency=concurrency,
                                        sandbox=sandbox, on_event=_noting(view.update))
    except VoidLegError as exc:
        err_console.print(notice("error", "bold red", exc))
        raise typer.Exit(3) from None
    if output is OutputFormat.human and not console.is_terminal:
        console.line()
    return summary


def _noting(update: Callable[[SprtEvent], None]) -> Callable[[SprtEvent], None]:
    """``update``, after printing the clock's note (when "auto" fell back to the wall clock)
    on stderr with the first event."""
    said = False

    def forward(event: SprtEvent) -> None:
        nonlocal said
        if not said and event.progress.clock_note:
            err_console.print(notice("note", "yellow", event.progress.clock_note),
                              soft_wrap=True)
        said = True
        update(event)

    return forward


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


def _versus(config: LadderConfig) -> str:
    test = sprt_of(config)
    params = test.params
    unit = params.model.unit
    return (f"{Path(test.candidate).name} vs {Path(test.baseline).name} ({config.game}), "
            f"H0 <= {params.elo0:g} {unit} < {params.elo1:g} {unit} <= H1, "
            f"alpha {params.alpha:g}, beta {params.beta:g}")

