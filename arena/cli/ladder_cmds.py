"""`arena run-ladder` (play a ladder with a live view) and `arena ladder ...` (its reports).

Each command parses its arguments, makes one call into ``arena.ladder`` and renders the answer
with ``arena.render.ladder``. A command's docstring is its help text.
"""

from __future__ import annotations

import enum
import sys
import time
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.live import Live

from arena.cli.common import (
    OutputFormat,
    announce_sandbox,
    console,
    deprecated,
    err_console,
    handle_errors,
    help_of,
    notice,
    print_json,
    print_json_lines,
)
from arena.cli.ladder_site import refresh_report
from arena.cli.verify_cmds import verification_progress
from arena.errors import ConfigError
from arena.ladder.config import SANDBOXES, load_ladder
from arena.ladder.reports import (
    history_csv,
    history_json,
    load_crosstable,
    load_history,
    load_matches,
    load_standings,
    load_versions,
    load_void_attempts,
    match_json,
    open_store,
    rates_versions,
    schedule_json,
)
from arena.ladder.runner import LadderEvent, Note, ladder_signing, run_ladder_blocking
from arena.ladder.schedules.registry import schedule_status
from arena.ladder.schedules.status import AdaptiveStatus, ScheduleStatus
from arena.record.signing import load_trusted
from arena.render.ladder import (
    LiveView,
    render_crosstable,
    render_matches,
    render_report,
    render_summary,
    render_versions,
    render_void_attempts,
)
from arena.render.match import render_bot_stats
from arena.render.schedule import render_schedule
from arena.render.text import plain
from arena.render.verify import render_verification
from arena.site.publish import publish as publish_results
from arena.site.publish import verify_command
from arena.site.refresh import logged_stats
from arena.stats.resources import stats_json

DEFAULT_LADDER = Path("ladder/demo.toml")
LadderArg = Annotated[Path, typer.Argument(help="The ladder definition (TOML).")]


def register(app: typer.Typer) -> None:
    """Add `run-ladder` and the `ladder` group to the root app."""
    app.command("run-ladder", help=help_of(run_ladder))(run_ladder)
    group = typer.Typer(
        help="Read a ladder's results: head-to-head, the rating history, resource statistics, "
             "a browsable report, published results (its standings and matches: `arena "
             "standings FILE`, `arena matches FILE`).",
        no_args_is_help=True,
    )
    for command in (crosstable, history, stats, report, publish):
        group.command(command.__name__, help=help_of(command))(command)
    for command in (standings, matches):  # the old spellings: `arena standings FILE` now
        name = command.__name__
        group.command(name, help=help_of(command), hidden=True)(
            deprecated(command, f"arena ladder {name} FILE", f"arena {name} FILE"))
    app.add_typer(group, name="ladder")


# --- commands ------------------------------------------------------------------------------------
@handle_errors
def run_ladder(
    ladder: LadderArg = DEFAULT_LADDER,
    max_matches: Annotated[int | None, typer.Option(
        "--matches", min=1,
        help="Stop after about N matches in this run (rounded up to whole encounters).")] = None,
    cycles: Annotated[int | None, typer.Option(
        min=1, help="Number of cycles of a round robin or a gauntlet (overrides the file; "
                    "raise it to extend a finished ladder). The other schedule types have no "
                    "cycles.")] = None,
    concurrency: Annotated[int | None, typer.Option(
        min=1, help="Matches played at once (the embedded cluster's worker processes; with a "
                    "\\[cluster] at least its workers' match slots). Default: the file's, else "
                    "the number of cores.")
    ] = None,
    sandbox: Annotated[str | None, typer.Option(
        help="auto (containers when a Docker engine answers), docker (hardened containers) or "
             "process (development only: a warning says what it does not separate). Default: "
             "the file's, else auto.")] = None,
) -> None:
    """Play a ladder's matches with a live view, then print the standings.

    The live view shows the progress with an ETA, the matches in flight, where the schedule
    stands and the standings so far with the live (incremental) Elo. At the end: what the run
    did, then the official standings and what the duplicate deals bought (as `arena ladder
    standings` prints them).

    The schedule type (\\[schedule] type in the ladder file) decides which encounters are played.
    round-robin and gauntlet: a fixed schedule of N cycles. adaptive: each encounter is chosen
    to learn the most about the order of the standings (the live view shows the last pairing
    reasons, each bot's matches in the last hour and how many adjacent pairs are separated); it
    stops once every adjacent pair is separated at the configured confidence or its budget of
    encounters is spent, and says which. continuous: runs until you stop it (Ctrl-C), picking up
    new versions of its entrants (and new entrants) while it runs; a new version first plays
    its placement encounters, the one it replaces stops playing, and each version is rated as a
    player of its own. knockout: single elimination (the live view draws the bracket; at the end
    the champion). swiss: N rounds of score-group pairings without rematches (at the end, the
    final table with Buchholz and Sonneborn-Berger).

    Each result is stored the moment it lands: in SQLite under the ladder's state directory, or
    in the database the ladder file names (`database = ...`, e.g. PostgreSQL). So a run can be
    stopped (Ctrl-C) or even killed and started again: finished matches are kept, nothing is
    counted twice, matches that were in flight are replayed with the same deals, and a
    knockout, a Swiss or an adaptive ladder carries on with the pairings it would have made.

    With duplicate deals (the ladder file's default) every encounter is two matches: the same
    deal twice with the seats swapped.

    Every match is one task on a Dask cluster: by default an embedded one of worker processes
    on 127.0.0.1, started and stopped with the run; the ladder file's \\[cluster] section names a
    scheduler or hosts one for worker hosts (`arena worker`), with mutual TLS. The live view
    then also shows each worker's matches in flight and matches per minute.
    """
    if sandbox is not None and sandbox not in SANDBOXES:
        raise typer.BadParameter(f"must be one of {', '.join(SANDBOXES)}", param_hint="--sandbox")
    config = load_ladder(ladder)
    chosen = announce_sandbox(sandbox or config.sandbox)
    view = LiveView(config, load_matches(config, missing_ok=True),
                    reload=lambda: load_matches(config, missing_ok=True))
    live = Live(view, console=console, refresh_per_second=4, transient=False)

    def on_event(event: LadderEvent) -> None:
        if not live.is_started:  # the first event: what refuses a run has been checked
            if event.progress.clock_note:
                err_console.print(notice("note", "yellow", event.progress.clock_note),
                                  soft_wrap=True)
            live.start()
        view.update(event)

    try:
        summary = run_ladder_blocking(
            config, max_matches=max_matches, cycles=cycles, concurrency=concurrency,
            sandbox=chosen, on_event=on_event, on_note=show_note,
        )
    finally:
        if live.is_started:
            live.stop()
    if not console.is_terminal:
        console.line()
    with open_store(config) as db:
        status = schedule_status(config, db)
        standings_now = load_standings(config, db)
    console.print(render_summary(summary, status))
    if status is not None and not isinstance(status, AdaptiveStatus):
        console.print(render_schedule(status))  # the bracket and its champion, the Swiss table
    console.print(render_report(standings_now))


@handle_errors
def standings(
    ladder: LadderArg = DEFAULT_LADDER,
    output: Annotated[OutputFormat, typer.Option(
        "--format", help="human: a table; json: one JSON object.")] = OutputFormat.human,
    versions: Annotated[bool, typer.Option(
        "--versions", help="List every version of every bot instead: each rated as a player "
                           "of its own, with its encounters, when it first and last played, "
                           "current or retired.")] = False,
) -> None:
    """The official standings: Bradley-Terry ratings with 95% intervals.

    The ratings come from a Bradley-Terry fit over every rated match (a draw counts half a win;
    the field's precision-weighted mean is 1500). A 95% interval is the larger of the model's
    (Fisher) and the encounter-clustered estimate. Void matches are never rated.

    Columns: rank, bot, rating, 95% interval, rated matches, wins/draws/losses, score rate
    (wins plus half the draws, per match) and game points per match. The JSON also gives each
    bot's live (incremental) Elo.

    A continuous ladder rates each version of a bot as a player of its own (name@version), so
    every result stays with the version that played it: the table shows each bot at its current
    version (the one that started playing last), with that version's own interval, and
    --versions lists them all (the retired ones too), for any ladder.

    A knockout's standings open with its bracket (each tie's players and seeds, every
    encounter's score, the winner and how the tie was decided) and a Swiss's with its table
    (score, Buchholz, Sonneborn-Berger, byes, opponents), the score groups and the round being
    played; an adaptive or continuous ladder's end with its latest pairing decisions and each
    player's state. The JSON gives them as "schedule".

    Below the table: how many matches the cluster gave up on (they killed the workers that
    played them: void, never rated, played again; `arena matches` lists them), then what
    the duplicate deals bought, measured on the ladder's own results (the variance of paired vs
    unpaired results, for the score and for the point margin; below 20 encounters, or when a
    variance is 0, it says there is not enough to estimate it, and why), and the pentanomial
    counts of each pair.
    """
    config = load_ladder(ladder)
    if versions:
        rows = load_versions(config)
        if output is OutputFormat.json:
            print_json_lines(r.to_json() for r in rows)
        else:
            console.print(render_versions(rows))
        return
    with open_store(config) as db:
        result = load_standings(config, db)
        status = schedule_status(config, db)
    if output is OutputFormat.json:
        data = result.to_json()
        print_json(data if status is None else {**data, "schedule": schedule_json(status)})
        return
    console.print(*_with_schedule(render_report(result), status))


def _with_schedule(report: Any, status: ScheduleStatus | None) -> list[Any]:
    """The standings and the schedule type's state: a bracket or a Swiss first (the result of
    the tournament), an adaptive or continuous ladder's pairing after the standings."""
    if status is None:
        return [report]
    shown = render_schedule(status, wall=time.time())
    return [report, shown] if isinstance(status, AdaptiveStatus) else [shown, report]


@handle_errors
def crosstable(ladder: LadderArg = DEFAULT_LADDER) -> None:
    """Head-to-head results: each row bot's W-D-L and score rate against each column bot.

    Over the rated matches (void ones are left out), bots in standings order.
    """
    console.print(render_crosstable(load_crosstable(load_ladder(ladder))))


@handle_errors
def matches(
    ladder: LadderArg = DEFAULT_LADDER,
    output: Annotated[OutputFormat, typer.Option(
        "--format", help="human: a table; json: one object per match.")] = OutputFormat.human,
) -> None:
    """Every recorded match: id, bots, outcome, termination and log path.

    Below each bot: the version it played with and the first 8 hex digits of its code identity
    (its directory's content hash or its image's id), as the store recorded them. Void matches
    are listed and marked; they are never rated. Watch a match with `arena watch LOG`. The JSON
    gives one object per match, with its encounter, cycle, leg, seed, winner, per-round points,
    and each seat's version and full code identity as well.

    Below the table, the matches the cluster gave up on, if any (they killed the workers that
    played them): when and why. They are void and never rated, and they are not recorded
    matches: the next run plays them again.
    """
    config = load_ladder(ladder)
    with open_store(config) as db:
        found = load_matches(config, db)
        given_up = load_void_attempts(config, db)
    if output is OutputFormat.json:
        print_json_lines(match_json(m) for m in found)
        return
    console.print(render_matches(found))
    if given_up:
        console.print(render_void_attempts(given_up))


@handle_errors
def stats(
    ladder: LadderArg = DEFAULT_LADDER,
    output: Annotated[OutputFormat, typer.Option(
        "--format", help="human: a table; json: one object.")] = OutputFormat.human,
) -> None:
    """Each bot's resource statistics over the ladder's match logs.

    Per bot: matches and decisions played; CPU per decision (median, p95, max: what its
    sandbox used between the request and its answer); wall time per decision; the gap
    wall - CPU (median, p95: what the host and the transport cost it, not its thinking);
    start-up time (its sandbox's start to its Hello); peak memory; the time bank (the least it
    had left at the end of a match, what it drew in total); the clock its matches were
    charged on and how CPU was measured (cgroup-v1, cgroup-v2, proc). A dash: not recorded
    (logs written before log format 5, or no CPU meter). Matches whose log is gone are left
    out (the line below the table says how many logs were read).
    """
    config = load_ladder(ladder)
    with open_store(config) as db:
        found = db.matches(config.name)
    bots, read = logged_stats(config, found)
    if output is OutputFormat.json:
        print_json({**stats_json(bots, config.name), "matches": len(found), "logs_read": read})
        return
    console.print(render_bot_stats(bots, f"{config.name}: resource statistics"))
    console.print(plain(f"{read} of {len(found)} match logs read"), style="dim")


class HistoryFormat(enum.StrEnum):
    """What `arena ladder history` writes."""

    csv = "csv"
    json = "json"


@handle_errors
def history(
    ladder: LadderArg = DEFAULT_LADDER,
    output: Annotated[HistoryFormat, typer.Option(
        "--format", help="csv: a header, then one row per player per step; json: one "
                         "object.")] = HistoryFormat.csv,
) -> None:
    """The rating history: every player's official rating and 95% interval after each
    encounter, recomputed from the store.

    After each complete encounter (both matches of a duplicate pair), in the order they
    completed, the Bradley-Terry fit of the standings is made again over the encounters
    complete by then: the last step is the standings. A player is a bot, or in a continuous
    ladder a version of one (name@version).

    CSV columns: step, encounter_id, time (UTC, ISO 8601), player, rating, ci95 (the interval's
    half-width), low, high. The JSON is one object: the ladder, whether it rates names or
    versions, and the steps in order, each with its encounter, time and every player's rating
    and interval. `arena ladder report` draws the same history.
    """
    config = load_ladder(ladder)
    points = load_history(config)
    if output is HistoryFormat.json:
        print_json(history_json(config.name, points, versions=rates_versions(config)))
        return
    sys.stdout.write(history_csv(points))


@handle_errors
def report(
    ladder: LadderArg = DEFAULT_LADDER,
    out: Annotated[Path, typer.Option(
        "--out", file_okay=False, help="The directory to write the site to (created).")
    ] = Path("report"),
) -> None:
    """Write the ladder's report as a static site: OUT/index.html and one replay per match.

    The index shows the standings with their 95% intervals drawn as a chart; a knockout's
    bracket (an SVG), a Swiss's table, score groups and round, or an adaptive or continuous
    ladder's latest pairing decisions and players; a continuous ladder's versions; what the
    duplicate deals bought (the paired variance figures, or why there is not enough to
    estimate them); the cross-table as a heat map; the rating history (each player's official
    rating after each complete encounter, as `arena ladder history` exports it) and the match
    list with each seat's version (then the matches the cluster gave up on: when and why); for
    an SPRT test (`arena sprt`) it opens with the test: its bounds, decision, pentanomial
    counts, Elo, LOS and the LLR path over the pairs. Each match links to its replay
    (OUT/replays/MATCH.html); every match is on OUT/matches/page-NNNN.html, 200 a page, newest
    first. The pages share one player and style sheet (OUT/assets/) and fetch nothing else: the
    site opens offline or from any static web server. Run it again to bring the site up to
    date: only what changed is written.

    A match whose log is missing or cannot be replayed is listed without a replay (a warning
    says why).
    """
    config = load_ladder(ladder)
    try:
        summary = refresh_report(config, out)
    except OSError as exc:
        raise ConfigError(f"cannot write the report to {out}: {exc}") from None
    console.print(plain(f"wrote {summary.index} and {summary.replays} replays in {out}/replays"
                        + _without_replay(len(summary.problems))), soft_wrap=True)


def _without_replay(count: int) -> str:
    if not count:
        return ""
    return f" ({count} match{'es' if count > 1 else ''} without a replay)"


@handle_errors
def publish(
    ladder: LadderArg = DEFAULT_LADDER,
    out: Annotated[Path, typer.Option(
        "--out", help="The directory to publish into: new, empty, or an earlier publication "
                      "(replaced whole).")] = Path("published"),
    allow_missing: Annotated[bool, typer.Option(
        "--allow-missing", help="Publish even if some matches' logs are gone or unfinished: "
                                "they are listed as missing (their results cannot be "
                                "verified).")] = False,
    keys: Annotated[list[Path] | None, typer.Option(
        "--key", help="The public key (a .pub file, or a directory of them) of a key the "
                      "ladder signed with before its current one (a rotated key). "
                      "Repeatable.")] = None,
) -> None:
    """Publish the ladder's results so that anyone can check them offline.

    OUT/logs/ gets the signed log of every rated and void match (a log from before signing is
    signed now, in the copy, with the ladder's key: its `signing_key`, else the key in its state
    directory); OUT/manifest.json lists every match with the SHA-256 of its log, its bots,
    versions, code identities, ladder slot and result, the ratings' inputs and the standings,
    and OUT/manifest.sig signs it. OUT/referee.pub is the public key and OUT/index.html the
    ladder's report, opening with the key id and the command that verifies the directory.

    The directory is verified (as `arena verify` does) before it replaces what was at OUT;
    a publication that does not verify, or a match without its log (unless --allow-missing),
    is refused and nothing is written. Give a reader the public key through a channel they
    trust: they run `arena verify OUT --key referee.pub`.
    """
    config = load_ladder(ladder)
    trusted = list(load_trusted(keys)) if keys else []
    with verification_progress() as progress:
        done = publish_results(config, out, allow_missing=allow_missing, trusted=trusted,
                               progress=progress)
    signed = f", {len(done.signed_now)} of them signed now" if done.signed_now else ""
    missing = f", {len(done.missing)} listed without their log" if done.missing else ""
    console.print(plain(f"published {done.matches} matches of {config.name} to {out}{signed}"
                        f"{missing}: key {done.key_id}, public key {done.public_key}"))
    console.print(render_verification(done.verification), soft_wrap=True)
    own = ladder_signing(config).public_key or done.public_key
    console.print(plain(f"check it: {verify_command(out, own)} (hand readers the public key "
                        f"yourself: the copy inside {out} proves nothing)"), soft_wrap=True)


def show_note(kind: Note, text: str) -> None:
    """What a run says before its first match (``arena.ladder.runner.Note``), where the
    operator reads it: the gate on stderr (its warning in yellow), the signing key on
    stdout."""
    if kind is Note.GATE_CHECK:
        err_console.print(plain(text), style="dim")
    elif kind is Note.GATE_WARNING:
        err_console.print(notice("warning", "yellow", text), soft_wrap=True)
    else:
        console.print(plain(text), soft_wrap=True)
