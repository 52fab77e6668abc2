"""The operator's commands of a competition server: `arena contestants add|list|revoke|reissue|
assign|disqualify` (contestants, their tokens and the bot names they own, in the competition's
database: they work while the server runs), `arena phase` (the season's phase: shown, or
started now; the running server takes it from the database), `arena host void|rerun`
(moderation: entries of the audit log, applied by the running server within a second; the
`host` group is ``arena.cli.host_cmds``) and `arena host-certs` (the server's CA and
certificate)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.text import Text

from arena.cli.common import console, err_console, handle_errors, notice
from arena.errors import ConfigError
from arena.host.accounts import Accounts
from arena.host.audit import Entry
from arena.host.config import Competition, load_competition
from arena.host.moderation import Moderator
from arena.render.competition import contestants_table
from arena.render.text import plain

CompetitionFile = Annotated[Path, typer.Option(
    "--competition", "-c", envvar="ARENA_COMPETITION", dir_okay=False,
    help="The competition file (the database it names holds the contestants); or set "
         "ARENA_COMPETITION.")]


def register(app: typer.Typer) -> None:
    """Add the `contestants` group and `host-certs` to the root app."""
    group = typer.Typer(
        help="Add, list and revoke a competition's contestants (their tokens) and say who "
             "owns which bot name. Each command opens the competition file's database, also "
             "while `arena host` runs.",
        no_args_is_help=True)
    for command in (add, list_contestants, revoke, reissue, assign, disqualify):
        group.command(command.__name__.removesuffix("_contestants"))(command)
    app.add_typer(group, name="contestants")
    app.command("phase")(phase)
    app.command("host-certs")(host_certs)


def _accounts(file: Path) -> tuple[Competition, Accounts]:
    competition = load_competition(file)
    return competition, Accounts.open(competition.database)


def _show_token(competition: Competition, name: str, token: str) -> None:
    """The token alone on stdout (a script can take it), what to do with it on stderr."""
    typer.echo(token)
    ca = competition.tls_cert.parent / "ca.pem"
    err_console.print(notice(
        "token", "bold yellow",
        f"for {name}: shown only this once (the server keeps a salted hash of it, so it cannot "
        f"show it again; a lost token is replaced with `arena contestants reissue {name}`). "
        f"Give it to {name} privately with the CA certificate {ca}; they run `arena login "
        f"{competition.name} --address {competition.listen} --ca ca.pem` and paste it (or set "
        "ARENA_SERVER, ARENA_SERVER_CA and ARENA_TOKEN, e.g. in CI)."))


@handle_errors
def add(
    name: Annotated[str, typer.Argument(help="The contestant's name: letters and digits with "
                                        "single '.', '_' or '-' between them, unique ignoring "
                                        "case.")],
    competition: CompetitionFile,
) -> None:
    """Add a contestant and print its token, once.

    The token (arena_<id>_<secret>) is printed alone on standard output and never again: the
    database keeps only a salted hash of it. The contestant keeps it with `arena login`; every
    call to the server carries it."""
    c, accounts = _accounts(competition)
    token = accounts.add(name)
    _show_token(c, name, token)


@handle_errors
def list_contestants(competition: CompetitionFile) -> None:
    """List the contestants: name, when added, when revoked, the bot names they own."""
    _, accounts = _accounts(competition)
    console.print(contestants_table(accounts.list()))


@handle_errors
def revoke(
    name: Annotated[str, typer.Argument(help="The contestant.")],
    competition: CompetitionFile,
) -> None:
    """Revoke a contestant's token: every call with it is refused (UNAUTHENTICATED) from now
    on. Its bots keep their names and go on playing; `reissue` gives it a new token."""
    _, accounts = _accounts(competition)
    accounts.revoke(name)
    console.print(Text.assemble(("revoked", "red"), plain(f" {name}: its token opens nothing "
                                                          "now")))


@handle_errors
def reissue(
    name: Annotated[str, typer.Argument(help="The contestant.")],
    competition: CompetitionFile,
) -> None:
    """Give a contestant a new token (a lost or leaked one): the old token stops working, a
    revoked contestant is valid again. The new token is printed once, as by `add`."""
    c, accounts = _accounts(competition)
    _show_token(c, name, accounts.reissue(name))


@handle_errors
def assign(
    bot: Annotated[str, typer.Argument(help="The bot name.")],
    name: Annotated[str, typer.Argument(help="The contestant who owns it from now on.")],
    competition: CompetitionFile,
) -> None:
    """Say who owns a bot name (names are compared ignoring case). Otherwise a name is the
    contestant's who submitted it first; only its owner can submit new versions of it."""
    _, accounts = _accounts(competition)
    before = accounts.owner(bot)
    accounts.assign(bot, name)
    was = "" if before is None else f" (was {before}'s)"
    console.print(plain(f"{bot} is {accounts.contestant(name)}'s{was}"))


Why = Annotated[str | None, typer.Option(
    "--why", help="Why, in one line: published in the audit log with the results.")]


def _applied(entry: Entry) -> str:
    return (f"audit entry {entry.seq}: a running server applies it within a second (else at "
            "its next start)")


@handle_errors
def disqualify(
    name: Annotated[str, typer.Argument(help="The contestant.")],
    competition: CompetitionFile,
    why: Why = None,
) -> None:
    """Disqualify a contestant: its bots leave the ladders at once and the final; their
    matches stay in the record, marked, and the standings are fitted without them. Its token
    still opens its own results; it may no longer submit nor challenge."""
    moderator = Moderator(load_competition(competition))
    entry = moderator.disqualify(name, why)
    bots = ", ".join(entry.detail.get("bots", ())) or "no bot"
    console.print(Text.assemble(("disqualified", "red"),
                                plain(f" {entry.subject} ({bots}); {_applied(entry)}")))


@handle_errors
def void(
    match: Annotated[str, typer.Argument(help="The match id (`arena matches --server`).")],
    competition: CompetitionFile,
    why: Why = None,
) -> None:
    """Void a recorded match: it leaves the standings and stays in the record, marked void
    (`arena host rerun MATCH` plays it again with the same deal)."""
    entry = Moderator(load_competition(competition)).void(match, why)
    console.print(Text.assemble(("voided", "yellow"), plain(f" {match}; {_applied(entry)}")))


@handle_errors
def rerun(
    match: Annotated[str, typer.Argument(help="A void match's id.")],
    competition: CompetitionFile,
    why: Why = None,
) -> None:
    """Play a void match again: the same bots (the very versions) in the same seats with the
    same deal seed, on the ladder's players, as MATCH-rerun<n>; once recorded, it stands in
    the standings where the void match stood."""
    entry = Moderator(load_competition(competition)).rerun(match, why)
    console.print(plain(f"rerun {match} as {entry.detail['rerun']}; {_applied(entry)}"))


@handle_errors
def phase(
    competition: CompetitionFile,
    start: Annotated[str | None, typer.Argument(
        metavar="[PHASE]", help="Start this phase now: frozen, final or closed (the phases "
        "before it too, if they have not begun). Left out: show the season.")] = None,
) -> None:
    """Show the competition's season (each phase, when it began or is scheduled, the time
    left), or start a phase now, before or without its time in \\[season]. Phases only go
    forward: open, frozen (no new submissions or selections), final, closed. The running
    server takes the new phase from the database within a second."""
    # start-up: `arena` imports it for this command only (the season over the database)
    from arena.host.season import PHASES, Phase, Season, utc
    from arena.ladder.store import LadderStore

    c = load_competition(competition)
    season = Season(LadderStore(c.database).engine, c.season, c.selections)
    if start is not None:
        if start not in {p.value for p in PHASES}:
            raise ConfigError(f"{start!r} is no phase: frozen, final or closed")
        for moved in season.start(Phase(start)):
            console.print(Text.assemble(("started", "green"), plain(
                f" {moved.phase.value} at {utc(moved.at)}")))
    status = season.status()
    console.print(plain(f"{c.name}: {status.words()}"))
    if c.season is None:
        return
    began = {t.phase: t for t in season.transitions()}
    for p in PHASES[1:]:
        done = began.get(p)
        planned = c.season.start_of(p.value)
        how = "" if done is None else "scheduled" if done.how == "schedule" else "by the operator"
        when = (f"began {utc(done.at)} ({how})" if done is not None
                else f"scheduled {utc(planned)}" if planned is not None
                else "when the operator starts it")
        console.print(plain(f"  {p.value:<7} {when}"))


@handle_errors
def host_certs(
    directory: Annotated[Path, typer.Argument(help="Where to write ca.pem, ca.key, server.pem "
                                              "and server.key (e.g. certs/ beside the "
                                              "competition file).", file_okay=False)],
    hosts: Annotated[list[str] | None, typer.Option(
        "--host", help="A host name or IP address contestants connect to (the server's "
                       "certificate names each); repeat it.")] = None,
    force: Annotated[bool, typer.Option(help="Replace files already there (a new CA: every "
                                        "contestant must pin the new ca.pem).")] = False,
) -> None:
    """Make the competition server's CA and its TLS certificate.

    ca.pem is what contestants pin (`arena login --ca`): publish it with the server's address.
    ca.key (0600) makes certificates: keep it safe, off the server if you can. server.pem and
    server.key (0600) are the tls_cert and tls_key of the competition file's server table. The
    equivalent by hand: an EC P-256 CA (openssl req -x509 -newkey ec -pkeyopt
    ec_paramgen_curve:P-256 -nodes -keyout ca.key -out ca.pem -subj '/CN=arena competition
    CA' -days 825) and a server certificate it signs with subjectAltName
    IP:127.0.0.1,DNS:localhost (docs/competition.md has the lines)."""
    # start-up: `arena` imports it for this command only (cryptography)
    from arena.host.certs import make_server_certs

    made = make_server_certs(directory, hosts or [], force=force)
    console.print(plain(f"CA: {made.ca} (contestants pin it); its key {made.ca_key}: keep it "
                        "safe"))
    console.print(plain(f"server: {made.cert} {made.key} for {', '.join(hosts or [])}"))
