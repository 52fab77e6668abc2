"""A contestant's commands against a competition server (``arena host``) from their own machine:
``arena login``, ``standings``, ``matches``, ``submissions``, ``logs``, and the remote forms of
``arena submit`` and ``arena watch`` (``--server NAME``), which their own modules hand over to
:func:`submit_remote` and :func:`watch_remote`.

Each command resolves a profile (``arena.host.client``: the profile file, or the environment:
``--server`` may be left out when ``ARENA_SERVER`` is set), makes its calls and renders the
answers. Every text the server sends (names, messages, build output, bot output, boards) is shown
through ``plain``: literal text, never markup, no control characters. A refused call is one line
on stderr and exit 2 (``arena.cli.common.handle_errors``)."""

from __future__ import annotations

import contextlib
import itertools
import os
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Annotated, Any

import typer
from google.protobuf.json_format import MessageToDict
from rich.console import Group
from rich.live import Live
from rich.progress import (
    BarColumn,
    DownloadColumn,
    Progress,
    TextColumn,
    TimeRemainingColumn,
    TransferSpeedColumn,
)
from rich.text import Text

from arena.cli.common import (
    OutputFormat,
    console,
    err_console,
    handle_errors,
    notice,
    print_json_lines,
)
from arena.errors import ConfigError
from arena.model import plain_text
from arena.render.competition import (
    STAGE_STYLES,
    matches_table,
    mib,
    standings_table,
    submissions_table,
)
from arena.render.text import plain

ServerOption = Annotated[str | None, typer.Option(
    "--server", help="A server profile saved by `arena login` (may be left out when "
    "ARENA_SERVER is set: see docs/contestants.md).")]
FormatOption = Annotated[OutputFormat, typer.Option("--format", help="human or json.")]


def register(app: typer.Typer) -> None:
    """Add `login`, `submissions`, `logs` and `challenge` to the root app (`standings` and
    `matches` with --server are in ``results_cmds``)."""
    app.command("login")(login)
    app.command("submissions")(submissions)
    app.command("select")(select)
    app.command("logs")(logs)
    app.command("challenge")(challenge)


def client() -> ModuleType:
    """``arena.host.client``, imported on first use with gRPC's own log lines off (unless
    ``GRPC_VERBOSITY`` says otherwise): the command's one-line error says it all."""
    os.environ.setdefault("GRPC_VERBOSITY", "NONE")
    # after GRPC_VERBOSITY (gRPC reads it as it loads), on first use: `arena` starts without gRPC
    from arena.host import client as module

    return module


def remote_requested(server: str | None) -> bool:
    """Whether a command that also works locally goes to a server: ``--server`` given, or
    ``ARENA_SERVER`` set."""
    return server is not None or bool(os.environ.get("ARENA_SERVER", "").strip())


def _as_json(message: Any) -> Any:
    return MessageToDict(message, preserving_proto_field_name=True)


# --- login -----------------------------------------------------------------------------------
@handle_errors
def login(
    name: Annotated[str, typer.Argument(help="A name for this server profile (e.g. the "
                                        "competition's), used as --server NAME.")],
    address: Annotated[str, typer.Option(help="The server's HOST:PORT, as the operator "
                                         "published it.")],
    ca: Annotated[Path, typer.Option(help="The competition's CA certificate (PEM), as the "
                                     "operator published it: the only CA trusted for this "
                                     "server.", dir_okay=False)],
    token_stdin: Annotated[bool, typer.Option("--token-stdin", help="Read the token from "
                                              "standard input instead of a hidden prompt.")
                           ] = False,
) -> None:
    """Save a server profile: its address, its CA (pinned: stored in the profile itself) and
    your token, checked with the server before anything is saved.

    The profile file is ~/.config/arena/client.toml (or $ARENA_CLIENT_CONFIG), private to you
    (0600). Prints who the token belongs to, the competition's games, your quotas and what you
    may see of others' matches."""
    hc = client()
    hc.check_name(name)
    target_address = hc.check_address(address)
    pem = hc.read_ca(ca)
    raw = sys.stdin.read() if token_stdin else typer.prompt("token", hide_input=True,
                                                             err=True)
    target = hc.Profile(name, target_address, pem, hc.check_token(raw))
    with hc.connect(target) as connection:
        me = connection.who_am_i()
    path = hc.save_profile(target)
    console.print(Text.assemble(
        ("logged in", "green"), plain(f" to {me.competition} at {target_address} as "),
        plain(me.contestant, "bold"), plain(f" (profile {name} in {path})")))
    _print_account(me)


def _print_account(me: Any) -> None:
    quotas = me.quotas
    for game in me.games:
        console.print(plain(f"  game {game.game}: submissions are validated against "
                            f"{game.reference}"))
    console.print(plain(
        f"  quotas: {mib(quotas.max_upload_bytes)} a bot directory, "
        f"{quotas.submissions_per_day} submissions a day ({quotas.used_today} used in the last "
        f"24 hours), {quotas.active_bots} active bots"
        + (f", {quotas.scrimmages_per_hour} scrimmages an hour ({quotas.scrimmages_outstanding}"
           " waiting against one opponent at most)" if quotas.scrimmages_per_hour else "")))
    console.print(plain(f"  logs of others' matches: {me.logs} (see docs/contestants.md)"))
    if me.bots:
        console.print(plain(f"  your bots: {', '.join(me.bots)}"))
    console.print(plain(f"  season: {client().season_words(me.season)}"))
    if me.season.seasonal:
        console.print(plain(_selection_words(me.selected, me.season)))


def _selection_words(selected: Iterable[str], season: Any) -> str:
    chosen = ", ".join(selected) or "nothing yet (you have no entered version)"
    until = "until the freeze, `arena select`" if season.phase == "open" else "closed"
    return (f"  selected for the final: {chosen} (at most {season.selections} per game; "
            f"{until})")


# --- standings and matches -------------------------------------------------------------------
@handle_errors
def standings(
    server: ServerOption = None,
    game: Annotated[str, typer.Option(help="Only this game (default: every game hosted).")] = "",
    output: FormatOption = OutputFormat.human,
) -> None:
    """A competition's public standings: each bot at its current version, its rating with a 95%
    interval, matches, wins/draws/losses and owner (older versions dimmed)."""
    hc = client()
    with hc.connect(hc.profile(server)) as connection:
        reply = connection.standings(game)
    if output is OutputFormat.json:
        print_json_lines(_as_json(ladder) for ladder in reply.games)
        return
    console.print(plain(f"season: {hc.season_words(reply.season)}"))
    for ladder in reply.games:
        console.print(standings_table(ladder))
    if not reply.games:
        console.print("no standings yet")


@handle_errors
def matches(
    server: ServerOption = None,
    bot: Annotated[str, typer.Option(help="Only matches this bot played.")] = "",
    mine: Annotated[bool, typer.Option("--mine", help="Only matches your bots played.")
                    ] = False,
    game: Annotated[str, typer.Option(help="Only this game.")] = "",
    limit: Annotated[int, typer.Option(help="Matches a page.", min=1, max=500)] = 20,
    page: Annotated[str, typer.Option(help="The cursor a previous page printed (older "
                                      "matches).")] = "",
    output: FormatOption = OutputFormat.human,
    kind: str = "",
) -> None:
    """A competition's recorded matches, newest first, a page at a time: seats with their
    versions, points, winner, termination, and whether it was a validation or a ladder match."""
    hc = client()
    with hc.connect(hc.profile(server)) as connection:
        reply = connection.matches(game=game, bot=bot, mine=mine, limit=limit, before=page,
                                   kind=kind)
    if output is OutputFormat.json:  # the matches on stdout, the next page's cursor on stderr
        print_json_lines(_as_json(match) for match in reply.matches)
        if reply.next:
            err_console.print(plain(f"older matches: add --page {reply.next}"))
        return
    console.print(matches_table(reply.matches))
    if reply.next:
        console.print(plain(f"older matches: add --page {reply.next}"))


# --- scrimmages ------------------------------------------------------------------------------
@handle_errors
def challenge(
    bot: Annotated[str, typer.Argument(help="One of your bots: NAME@VERSION (a version the "
                                       "ladder has played) or NAME (its current version).")],
    rival: Annotated[str, typer.Argument(help="The opponent: a bot of the ladder (any the "
                                         "standings list), at its current version.")],
    server: ServerOption = None,
    game: Annotated[str, typer.Option(help="The game (needed when the competition hosts "
                                      "several).")] = "",
) -> None:
    """Ask for a scrimmage: an unrated duplicate encounter (two matches, one deal, the seats
    swapped) of your bot against a bot of the ladder, played beside the ladder's matches.

    Within the competition's quota (a number an hour, and a few waiting against one opponent
    at once: `arena login` shows them); over it, one line says when the next is possible
    (exit 2). Never rated. Its matches are listed by `arena matches --server ... --scrimmages`
    once played; watch them and download their logs as for any match."""
    hc = client()
    with hc.connect(hc.profile(server)) as connection:
        reply = connection.challenge(bot, rival, game=game)
    console.print(plain(reply.message))
    console.print(plain(f"  matches: {' '.join(reply.match_ids)}; {reply.left_this_hour} more "
                        "this hour"))


# --- submissions -----------------------------------------------------------------------------
@handle_errors
def submissions(
    server: ServerOption = None,
    follow: Annotated[int | None, typer.Option(help="Follow this submission's stages until it "
                                               "ends (its exit code: 0 entered or rated, 1 "
                                               "refused or failed).", min=1)] = None,
    limit: Annotated[int, typer.Option(help="How many submissions.", min=1, max=500)] = 20,
    output: FormatOption = OutputFormat.human,
) -> None:
    """Your own submissions, newest first: each one's stage, message, version and first
    matches, and how much of the daily quota is used. With --follow ID, one submission's
    stages as they happen."""
    hc = client()
    target = hc.profile(server)
    with hc.connect(target) as connection:
        if follow is not None:
            code = show_events(connection.follow(follow), target.name)
            raise typer.Exit(code)
        reply = connection.submissions(limit)
        me = connection.who_am_i()
    if output is OutputFormat.json:
        print_json_lines(_as_json(submission) for submission in reply.submissions)
        return
    console.print(submissions_table(reply.submissions, hc.STAGES, str(me.contestant)))
    quotas = me.quotas
    console.print(plain(f"{quotas.used_today} of {quotas.submissions_per_day} submissions used "
                        f"in the last 24 hours; at most {quotas.active_bots} active bots"))


@handle_errors
def select(
    versions: Annotated[list[str] | None, typer.Argument(
        help="Your versions for the final, NAME@VERSION (e.g. mybot@s12; `arena submissions` "
             "lists them): they replace your selection of their game. None: show it.")] = None,
    server: ServerOption = None,
) -> None:
    """Select the versions of your bots the final plays (at most the competition's number
    per game), until the freeze. Without a selection, your latest entered version plays.
    Without VERSIONS: show your selection, the season's phase and the time left."""
    hc = client()
    with hc.connect(hc.profile(server)) as connection:
        if versions:
            reply = connection.select(versions)
            selected, season = list(reply.selected), reply.season
            console.print(Text.assemble(("selected", "green"), plain(
                f" for the final: {', '.join(selected)}")))
        else:
            me = connection.who_am_i()
            selected, season = list(me.selected), me.season
            console.print(plain(_selection_words(selected, season).strip()))
    console.print(plain(f"season: {hc.season_words(season)}"))


def show_events(events: Iterable[Any], server: str,
                first: Callable[[], None] | None = None, until_entered: bool = False) -> int:
    """Print a submission's stages as they come, then its outcome; the exit code: 0 entered or
    rated, 1 refused, failed or cancelled (or no outcome). ``first`` is called before the first
    stage past RECEIVING is printed (it ends an upload's progress bar); ``until_entered`` stops
    at ENTERED instead of waiting for the first rated match."""
    hc = client()
    started = time.monotonic()
    last: Any = None
    try:
        for event in events:
            stage = hc.STAGES.get(event.stage, str(event.stage))
            if first is not None and stage != "RECEIVING":
                first()
                first = None
            _print_event(event, stage, time.monotonic() - started)
            last = event
            if event.final or (until_entered and stage == "ENTERED"):
                break
    except KeyboardInterrupt:
        if last is not None:
            err_console.print(plain(f"the submission goes on at the server: follow it with "
                                    f"`arena submissions --server {server} --follow "
                                    f"{last.submission_id}`"))
        raise
    return _outcome(last, server)


def _print_event(event: Any, stage: str, elapsed: float) -> None:
    extra = [f"version {event.version}"] if event.version else []
    if event.match_ids:
        extra.append("matches " + ", ".join(event.match_ids))
    console.print(Text.assemble(
        f"{elapsed:6.1f}s ", (f"{stage.lower():<9}", STAGE_STYLES.get(stage, "cyan")), " ",
        plain(event.message), plain(f" ({'; '.join(extra)})" if extra else "")))
    if event.detail:
        for line in event.detail.splitlines():
            console.print(Text.assemble("          │ ", plain(line)))


def _outcome(last: Any, server: str) -> int:
    hc = client()
    if last is None:
        err_console.print(notice("error", "bold red", "the server ended the call without a "
                                 "stage: see `arena submissions --server " + server + "`"))
        return 1
    stage = hc.STAGES.get(last.stage, str(last.stage))
    who = f"{last.name}@{last.version}" if last.version else last.name
    follow = f"`arena submissions --server {server} --follow {last.submission_id}`"
    if stage in hc.SUCCESSES:
        what = ("rated: its first rated match is recorded" if stage == "RATED"
                else "entered the ladder")
        console.print(Text.assemble((stage.lower(), STAGE_STYLES[stage]),
                                    plain(f": submission {last.submission_id}, {who} {what}")))
        if not last.final:
            console.print(plain(f"its first rated match is still to come: {follow}"))
        return 0
    if last.final:
        console.print(Text.assemble((stage.lower(), STAGE_STYLES.get(stage, "bold red")),
                                    plain(f": submission {last.submission_id}, {who}: "
                                          f"{last.message}")))
    else:
        err_console.print(notice("error", "bold red", f"the server ended the call at stage "
                                 f"{stage.lower()} without an outcome: {follow}"))
    return 1


def submit_remote(target: str | None, *, image: str | None, server: str | None,
                  game: str | None, name: str | None, until: str = "rated") -> None:
    """``arena submit --server``: pack the bot directory ``target`` (or save the image
    ``image``), upload it with a progress bar and follow its stages to the outcome (``until``
    "entered": only until it enters the ladder); exits 1 for a refused or failed submission.
    Anything wrong with the directory is refused before the server is contacted."""
    hc = client()
    if (target is None) == (image is None):
        raise ConfigError("give a bot directory or --image TAG (one of them)")
    if until not in ("entered", "rated"):
        raise ConfigError(f"--until is 'entered' or 'rated', not {until!r}")
    if image is not None and not name:
        raise ConfigError("an image needs --name NAME (the bot's name in the competition)")
    profile = hc.profile(server)
    kind, source = ("image", image) if image is not None else ("directory", target)
    with hc.payload(source, kind) as load, hc.connect(profile) as connection:
        with _upload_bar(load.size) as (bar, sent):
            events = connection.submit(load, game=game or "", name=name or "", sent=sent)
            code = show_events(events, profile.name, first=bar.stop,
                               until_entered=until == "entered")
    if code:
        raise typer.Exit(code)


@contextlib.contextmanager
def _upload_bar(size: int) -> Iterator[tuple[Progress, Callable[[int], None]]]:
    """A progress bar of an upload of ``size`` bytes (on a terminal only; gone once stopped)
    and the function that moves it to a count of bytes sent."""
    progress = Progress(TextColumn("uploading"), BarColumn(), DownloadColumn(),
                        TransferSpeedColumn(), TimeRemainingColumn(), console=console,
                        transient=True)
    task = progress.add_task("upload", total=size)
    progress.start()
    try:
        yield progress, lambda n: progress.update(task, completed=n)
    finally:
        progress.stop()


# --- logs and watching -----------------------------------------------------------------------
@handle_errors
def logs(
    match_id: Annotated[str, typer.Option("--match", help="The match id (see `arena matches`).")],
    server: ServerOption = None,
    out: Annotated[Path | None, typer.Option("-o", "--output", dir_okay=False, help="Where to "
                   "write it (default: MATCH.jsonl, or MATCH.seat-view.jsonl for your seat's "
                   "view, here).")] = None,
    bot_output: Annotated[bool, typer.Option("--bot-output", help="Instead: your own bot's "
                          "last output in the match (stdout and stderr).")] = False,
) -> None:
    """Download a finished match's log, as the competition's visibility setting allows you:
    the whole log (replay it with `arena watch FILE`) or your own seat's view of it, ending
    with the referee's signed statement of it (check it offline: `arena verify FILE --key
    referee.pub`). With --bot-output, your bot's output tail instead (printed, or written to
    -o FILE)."""
    hc = client()
    with hc.connect(hc.profile(server)) as connection:
        if bot_output:
            reply = connection.bot_output(match_id)
            text = plain_text(reply.output)
            if out is not None:
                _write_text(out, text)
                console.print(plain(f"wrote seat {reply.seat}'s output to {out}"), soft_wrap=True)
            else:
                console.print(plain(f"your bot played seat {reply.seat}; its last output:",
                                    "bold"))
                console.print(plain(text))
            return
        got = hc.download_log(connection, match_id, out)
    what = "the match log" if got.kind == "log" else "your seat's view of the match"
    console.print(plain(f"wrote {what} to {got.path} ({mib(got.size)})"), soft_wrap=True)
    if got.signed:
        console.print(plain(f"it ends with the referee's signed statement: check it offline "
                            f"with `arena verify {got.path} --key referee.pub` (the public key "
                            f"from the competition's page or its operator)"))
    else:
        console.print(plain("it carries no signed statement (its log is not signed by the "
                            "competition's key): nothing to check it against"))


def _write_text(out: Path, text: str) -> None:
    try:
        out.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"cannot write {out}: {exc.strerror}") from None


def watch_remote(server: str | None, match_id: str, *, seat: int | None, follow: bool,
                 delay: float, interactive: bool = False) -> None:
    """``arena watch --server``: a match as the server allows it (the whole board without
    ``seat``). ``interactive``: in the watch app (``arena.tui.watch``), built from the records
    the frames carry and following the match as they come; otherwise (or from a server that
    sends no records) its frames animated on a terminal (``delay`` seconds a move when
    replaying), only the last frame when not on one."""
    hc = client()
    try:
        with hc.connect(hc.profile(server)) as connection:
            frames = connection.watch(match_id, -1 if seat is None else seat, follow,
                                      records=interactive)
            if interactive:
                first = next(frames, None)
                frames = itertools.chain(() if first is None else [first], frames)
                if first is not None and first.record:
                    _watch_app((f.record for f in frames if f.record), delay=delay)
                    return
            _show_frames(frames, delay=0.0 if follow else delay)
    except hc.ServerError as exc:
        if exc.code == "PERMISSION_DENIED" and seat is None:
            raise hc.ServerError(f"{exc} (the whole board was asked for: to watch your own "
                                 "bot, add --seat N, its seat)", exc.code) from None
        raise


def _watch_app(records: Iterable[str], *, delay: float) -> None:
    """The watch app on a competition server's records: from the newest position, following
    the match (`End` goes back to the newest)."""
    # start-up: `arena` imports it for this command only (Textual)
    from arena.tui.watch import open_records, run_watch

    timeline, arrivals = open_records(records)
    run_watch(timeline, view=timeline.views[0], delay=delay, live=arrivals)


def _show_frames(frames: Iterable[Any], delay: float) -> None:
    if not console.is_terminal:
        last = None
        for frame in frames:
            last = frame
        if last is not None:
            console.print(_frame(last))
        return
    with Live(console=console, auto_refresh=False, transient=False) as live:
        for frame in frames:
            live.update(_frame(frame), refresh=True)
            if delay and not frame.final:
                time.sleep(delay)


def _frame(frame: Any) -> Group:
    view = "whole board" if frame.seat < 0 else f"seat {frame.seat} view"
    return Group(plain(frame.board), Text.assemble((f"[{view}] ", "dim"),
                                                   plain(frame.caption, "bold")))
