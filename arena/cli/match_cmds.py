"""`arena match` (play one match, its log signed with --sign-key) and `arena replay` (verify a
match log: its signature, its seed commitment, its rules)."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, NoReturn

import typer

from arena.cli.common import (
    OutputFormat,
    console,
    err_console,
    handle_errors,
    notice,
    parse_options,
    print_json,
)
from arena.errors import ArenaError, ConfigError, ReplayMismatchError, SignatureError
from arena.ladder.config import CLOCK_SETTINGS
from arena.model import MatchResult, TimeControl
from arena.record.log import read_events
from arena.record.replay import verify_log
from arena.record.signing import load_signer, load_trusted, sign_log
from arena.referee.service import check_time_control, prepare_match, random_seed, resolve_clock
from arena.render.match import render_bot_stats, render_match_result, render_replay_report
from arena.render.text import plain
from arena.stats.resources import match_stats

if TYPE_CHECKING:
    from arena.record.signing import Signer

DEFAULT_LOG_DIR = Path("matches")


def register(app: typer.Typer) -> None:
    app.command("match")(match)
    app.command("replay")(replay)


@handle_errors
def match(
    bot_a: Annotated[str, typer.Argument(help="Seat 0: a bot directory (with bot.toml) or a "
                                              "submitted bot name\\[@version].")],
    bot_b: Annotated[str, typer.Argument(help="Seat 1: a bot directory or a submitted bot.")],
    game: Annotated[str | None, typer.Option(help="Game id (lost-cities, haggis, portas). "
                                                  "Default: the bots' game.")] = None,
    seed: Annotated[int | None, typer.Option(help="Deal seed; the same seed deals the same "
                                                  "cards. Default: random.")] = None,
    move_time: Annotated[int, typer.Option("--move-time", help="Per-decision limit in ms, "
                                                               "measured by the referee.")] = 1000,
    time_bank: Annotated[int, typer.Option("--time-bank", help="Extra ms per bot for the whole "
                                                               "match (overruns draw on it).")] = 0,
    startup_time: Annotated[int, typer.Option("--startup-time", help="ms a bot has to connect."
                                              )] = 10_000,
    option: Annotated[list[str] | None, typer.Option("--option", "-o", help="Rules option "
                      "KEY=VALUE, repeatable (e.g. rounds=1, starter_rule=cumulative).")] = None,
    sandbox: Annotated[str | None, typer.Option(
        help="process (development, NOT a security boundary), docker (hardened containers) or "
             "auto. Default: process; with --referee, the server's own sandbox (it refuses "
             "another unless started with --allow-sandbox).")] = None,
    log_dir: Annotated[Path, typer.Option(help="Where match logs are written.")] = DEFAULT_LOG_DIR,
    referee: Annotated[str | None, typer.Option(help="Hand the match to a running `arena serve` "
                       "at this address (unix:///path, 127.0.0.1:PORT, or `default`: the "
                       "socket `arena serve` listens on by default).")] = None,
    output: Annotated[OutputFormat, typer.Option("--format", help="human: a summary table; "
                                                 "json: one JSON object.")] = OutputFormat.human,
    sign_key: Annotated[Path | None, typer.Option(
        "--sign-key", help="Sign the finished log with this private key (`arena keys new`); "
                           "anyone with its public key checks it: `arena replay LOG --key "
                           "PUB`.")] = None,
    clock: Annotated[str | None, typer.Option(
        "--clock", help="What a decision is charged: cpu (the CPU time the bot's sandbox "
                        "used; a wall-clock guard ends a bot that sleeps as wall_timeout), "
                        "wall (the wall time) or auto (cpu where the sandbox can meter CPU, "
                        "else wall, said in one line). Default: auto; with --referee, the "
                        "server's setting.")] = None,
    wall_guard: Annotated[float, typer.Option(
        "--wall-guard", help="CPU clock: a decision with no answer after this multiple of its "
                             "allowance (+100 ms) of wall time is a wall_timeout.")
                          ] = TimeControl.wall_guard,
) -> None:
    """Play one match between two bots and print the result.

    Every match writes a JSON-lines log (watch it with `arena watch LOG`, verify it with
    `arena replay LOG`). A bot that times out, crashes, sends garbage or an illegal action
    forfeits; the result names the termination and the faulty seat.

    The summary ends with each bot's resource statistics: CPU and wall time per decision
    (median / p95 / max), the gap wall - CPU (what the host cost it), start-up time, peak
    memory and time-bank use.
    """
    if clock is not None and clock not in CLOCK_SETTINGS:
        raise typer.BadParameter(f"must be one of {', '.join(CLOCK_SETTINGS)}",
                                 param_hint="--clock")
    options = parse_options(option)
    signer = _signer(sign_key, referee)
    seed = random_seed() if seed is None else seed
    time_control = check_time_control(TimeControl(
        move_time, time_bank, startup_time, "cpu" if clock == "cpu" else "wall", wall_guard))
    if referee is not None:
        # start-up: `arena` imports it for this command only (a remote referee's client)
        from arena.serve.client import run_on_referee

        result = run_on_referee(referee, [bot_a, bot_b], game, seed, options, time_control,
                                sandbox or "", clock or "")  # empty: the server's setting
    else:
        result = _play_local(bot_a, bot_b, game, seed, options, time_control, clock or "auto",
                             sandbox or "process", log_dir, output)
    if output is OutputFormat.json:
        print_json(result.to_json())
    else:
        console.print(render_match_result(result))
        _print_stats(result)
    if signer is not None:
        _sign(result, signer, output)
    if result.void:
        raise typer.Exit(3)


def _signer(sign_key: Path | None, referee: str | None) -> Signer | None:
    """The key ``--sign-key`` names, read before anything is played (a bad key: exit 2)."""
    if sign_key is None:
        return None
    if referee is not None:
        raise ConfigError("--sign-key signs a log written here; a match on --referee is logged "
                          "by the server: sign there (`arena serve --sign-key KEY`)")
    return load_signer(sign_key)


def _sign(result: MatchResult, signer: Signer, output: OutputFormat) -> None:
    """Append the signature record to the match's finished log and say so."""
    if not result.log:
        raise ConfigError("the match wrote no log: nothing to sign")
    signature = sign_log(Path(result.log), signer)
    line = plain(f"log signed (key {signature.key_id}): check it with `arena replay "
                 f"{result.log} --key PUB`")
    (err_console if output is OutputFormat.json else console).print(line)


def _print_stats(result: MatchResult) -> None:
    """Each bot's resource statistics, from the match's log when it can be read here (a match
    on --referee is logged on the server)."""
    if not result.log or not Path(result.log).is_file():
        return
    try:
        stats = match_stats(read_events(Path(result.log)))
    except (ArenaError, OSError, ValueError):
        return  # the result stands; a log that cannot be read has no statistics to show
    console.print(render_bot_stats(stats.seats, "resource statistics"))


def _play_local(
    bot_a: str, bot_b: str, game: str | None, seed: int, options: dict[str, str],
    time_control: TimeControl, clock: str, sandbox: str, log_dir: Path, output: OutputFormat,
) -> MatchResult:
    """Play the match here; ``clock`` (``CLOCK_SETTINGS``) is resolved for the sandbox and the
    bots before it starts ("cpu" that cannot be had: ``ConfigError``; "auto" falling back to
    the wall clock: one line on stderr)."""
    # start-up: `arena` imports it for this command only (the match loop)
    from arena.referee.match import play_match

    spec, box = prepare_match((bot_a, bot_b), game=game, sandbox=sandbox, seed=seed,
                              options=options, time_control=time_control)
    resolved, note = resolve_clock(clock, box, spec.bots)
    if note:
        err_console.print(notice("note", "yellow", note), soft_wrap=True)
    spec = dataclasses.replace(
        spec, time_control=dataclasses.replace(spec.time_control, clock=resolved))
    first, second = spec.bots
    status = (
        err_console.status(plain(f"{first.name} vs {second.name}: playing {spec.game}, "
                                 f"seed {seed}…"))
        if output is OutputFormat.human
        else contextlib.nullcontext()
    )
    with status:
        return asyncio.run(play_match(spec, sandbox=box, log_dir=log_dir))


@handle_errors
def replay(
    log: Annotated[Path, typer.Argument(help="A match log (.jsonl) written by the arena.")],
    key: Annotated[list[Path] | None, typer.Option(
        "--key", help="A trusted public key (.pub) or a directory of them; repeatable (rotated "
                      "keys). With --key the log must carry a signature by one of them.")
                   ] = None,
    output: Annotated[OutputFormat, typer.Option("--format", help="human or json.")
                      ] = OutputFormat.human,
) -> None:
    """Verify a match log: its signature, its seed, then every deal, action and score.

    1. signature: with --key, the log's last line must be a signature by a trusted key over
    every byte before it (an unsigned log fails); without --key it is only read. 2. seed: a
    log of format 4 commits to its seed in the header and reveals it at the end: they must
    match. 3. rules: the log is re-run through the rules engine. Exit status 0 when every step
    holds, 1 with one line naming the first step that failed and why, 2 for a log or key file
    that cannot be read."""
    trusted = None if not key else load_trusted(key)
    try:
        checked = verify_log(log, trusted)
    except SignatureError as exc:
        _failed(exc if str(exc).startswith("unsigned") else f"signature: {exc}")
    except ReplayMismatchError as exc:
        _failed(exc)
    report, signature = checked.report, checked.signature
    if output is OutputFormat.json:
        print_json({"match_id": report.match_id, "game": report.game, "ok": True,
                    "decisions": report.decisions, "rounds": report.rounds,
                    "finished": report.finished, "log_format": report.log_format,
                    "seed": str(report.seed),
                    "signature": None if signature is None else {
                        "key_id": signature.key_id, "verified": signature.verified}})
    else:
        console.print(render_replay_report(report, signature))


def _failed(message: object) -> NoReturn:
    """One line on stderr naming the step that failed (never wrapped: a log's verdict is one
    line in a file or a CI log too), exit 1 (a check failed)."""
    err_console.print(notice("error", "bold red", message), soft_wrap=True)
    raise typer.Exit(1)
