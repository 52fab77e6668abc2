"""`arena host`: run a competition server, or check that one can run (`--check`)."""

from __future__ import annotations

import logging
import os
import shutil
import signal
from pathlib import Path
from typing import Annotated, Any

import typer
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import SQLAlchemyError
from typer.core import TyperGroup

from arena.bots.images.build import FLAVORS, docker_client, find_base_image
from arena.cli.common import console, handle_errors
from arena.errors import ArenaError, ConfigError
from arena.games import plugin
from arena.host.config import Competition, deals_note, ladder_config, load_competition
from arena.record.signing import load_signer
from arena.referee.service import resolve_clock
from arena.render.competition import checks_table
from arena.render.text import plain

MIN_FREE_GIB = 5.0
"""Free disk under the state directory below which `--check` fails (images, logs, uploads)."""


GROUP_HELP = (
    "Run a competition server (`arena host FILE`, the default command: `arena host run FILE`) "
    "and moderate it while it runs: `arena host void MATCH --why TEXT` takes a match out of "
    "the standings, `arena host rerun MATCH` plays a void match again with the same deal. "
    "Each action is an entry of the competition's audit log, published with its results.")


def register(app: typer.Typer) -> None:
    """Add the `host` group to the root app: `run` (the default command), `void`, `rerun`."""
    from arena.cli.host_admin_cmds import rerun, void

    group = typer.Typer(cls=HostGroup, help=GROUP_HELP, no_args_is_help=True)
    group.command("run")(host)
    group.command("void")(void)
    group.command("rerun")(rerun)
    app.add_typer(group, name="host")


class HostGroup(TyperGroup):
    """The `host` group, whose default command is `run`: `arena host FILE` is `arena host run
    FILE` (a competition file named like a subcommand needs the explicit `run`)."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        """Put `run` in front of arguments that do not start with a subcommand or help."""
        if args and args[0] not in self.commands and args[0] not in ctx.help_option_names:
            args = ["run", *args]
        return super().parse_args(ctx, args)


@handle_errors
def host(
    competition: Annotated[Path, typer.Argument(help="The competition file (TOML; see "
                                                     "docs/competition.md).")],
    check: Annotated[bool, typer.Option("--check", help="Check the competition file and the "
                                        "environment (Docker, base images, certificates, disk, "
                                        "database) and exit: 0 when it can run, 2 when not. "
                                        "Starts nothing.")] = False,
) -> None:
    """Run a competition: contestants submit bots and follow their results from their own
    machines.

    One process serves the public API (gRPC over TLS on the file's \\[server] listen address;
    contestants pin the CA that signed its certificate: `arena host-certs` makes both), runs one
    continuous ladder per game over the competition's database (every bot a contestant submits
    joins once it is built offline and has passed its validation matches against itself and the
    game's reference bot), keeps the public page (the \\[site] dir) up to date, and serves
    Prometheus metrics on the \\[server] metrics address (loopback by default).

    Contestants are added with `arena contestants add NAME --competition FILE` (it prints their
    token once). Stop the server with Ctrl-C or SIGTERM; started again (even after kill -9), it
    loses nothing recorded and takes up what was in flight.
    """
    config = load_competition(competition)
    if check:
        _check(config)
        return
    # start-up: `arena` imports it for this command only (the server: gRPC, the match loop, Docker)
    from arena.host.server import CompetitionServer

    logging.getLogger("arena.host").setLevel(logging.INFO)
    if not logging.getLogger().handlers:
        logging.basicConfig(level=logging.WARNING, format="%(message)s")
    server = CompetitionServer(config)
    server.start()
    for game in config.games:
        note = deals_note(config, game.game)
        if note is not None:
            console.print(plain(f"warning: {note}", "yellow"))
    console.print(plain(f"competition {config.name}: API on {config.listen} (port {server.port},"
                        " TLS)"
                        + (f", metrics on port {server.metrics_port}" if server.metrics_port
                           else "")
                        + f"; games: {', '.join(g.game for g in config.games)}; "
                        f"state in {config.state_dir}; logs signed with key "
                        f"{server.signing.key_id} (public key {server.signing.public_key})."
                        " Ctrl-C stops it."))
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: server._stop.set())
    try:
        server.wait()
    finally:
        console.print("stopping: matches in flight are replayed at the next start")
        server.stop()


def _check(config: object) -> None:
    """Every check of `--check` as a table; exit 2 when one failed."""
    assert isinstance(config, Competition)
    rows: list[tuple[str, str, str]] = []
    rows.append(("competition file", "ok", f"{config.path}: {len(config.games)} game(s)"))
    rows.extend(_check_ladders(config))
    rows.append(_check_season(config))
    rows.append(_check_certificate(config))
    rows.append(_check_signing_key(config))
    rows.extend(_check_docker(config))
    rows.append(_check_disk(config))
    rows.append(_check_database(config))
    console.print(checks_table(f"arena host --check {config.path.name}", rows))
    failed = [name for name, status, _ in rows if status == "fail"]
    if failed:
        raise ConfigError(f"the competition cannot run: {', '.join(failed)} failed (above)")


def _check_ladders(config: object) -> list[tuple[str, str, str]]:
    assert isinstance(config, Competition)
    rows = []
    for game in config.games:
        try:
            ladder = ladder_config(config, game.game)  # as the server builds it
            missing = [d for d in (game.reference_dir, *game.house_dirs) if not d.is_dir()]
            if missing:
                rows.append((f"ladder {game.game}", "fail", f"no sample bot {missing[0]}"))
            else:
                rows.append((f"ladder {game.game}", "ok",
                             f"{ladder.name}: continuous, house bots {', '.join(game.house)}, "
                             f"reference {game.reference}"))
        except ConfigError as exc:
            rows.append((f"ladder {game.game}", "fail", str(exc)))
            continue
        rows.append(_check_clock(game.game, ladder.clock, ladder.sandbox))
        rows.append(_check_gate(game.game, config.allow_ungated_games))
        rows.append(_check_deals(config, game.game, ladder.duplicate))
    return rows


def _check_season(config: object) -> tuple[str, str, str]:
    """The season's schedule as the file gives it (the phase itself is the database's:
    `arena phase -c FILE`)."""
    # start-up: `arena` imports it for this command only (the season's words)
    from arena.host.season import STARTED, utc

    assert isinstance(config, Competition)
    plan = config.season
    if plan is None:
        return ("season", "ok", "none: a continuous ladder without end")
    times = [f"{p.value} {utc(at)}" if (at := plan.start_of(p.value)) is not None
             else f"{p.value} by the operator" for p in STARTED]
    return ("season", "ok", f"{'; '.join(times)}; {config.selections} selections per game")


def _check_deals(config: object, game: str, duplicate: bool) -> tuple[str, str, str]:
    """Which deals the game's ladder plays, and what that leaves open on one host."""
    assert isinstance(config, Competition)
    note = deals_note(config, game)
    if note is not None:
        return (f"deals {game}", "warn", note)
    if duplicate:
        return (f"deals {game}", "ok", "duplicate, the legs of a deal on different hosts")
    return (f"deals {game}", "ok", "independent: every match its own deal")


def _check_gate(game: str, allowed: bool) -> tuple[str, str, str]:
    """The game's conformance-gate verdict as cached (``--check`` starts nothing, so it runs
    no gate): passed, failed (refused at start unless allowed) or not run yet."""
    # start-up: `arena` imports it for this command only (the gate)
    from arena.gate import gate_status

    report = gate_status(plugin(game))
    if report is None:
        return (f"gate {game}", "warn", f"not run yet: it runs at start (`arena games check "
                                        f"{game}` runs it now)")
    if report.passed:
        return (f"gate {game}", "ok", "passed the conformance gate")
    failed = ", ".join(report.failed)
    if allowed:
        return (f"gate {game}", "warn", f"failed ({failed}); played anyway: "
                                        "allow_ungated_games = true")
    return (f"gate {game}", "fail", f"failed ({failed}): refused at start (`arena games check "
                                    f"{game}`)")


def _check_clock(game: str, clock: str, sandbox: str) -> tuple[str, str, str]:
    """The clock a game's ladder will play on, or why "cpu" cannot be had here."""
    try:
        resolved, note = resolve_clock(clock, sandbox)
    except ArenaError as exc:
        return (f"clock {game}", "fail", str(exc))
    return (f"clock {game}", "warn" if note else "ok", note or f"{clock}: the {resolved} clock")


def _check_certificate(config: object) -> tuple[str, str, str]:
    # start-up: `arena` imports it for this command only (cryptography)
    from arena.host.certs import server_cert_problem

    assert isinstance(config, Competition)
    host = config.listen.rpartition(":")[0].strip("[]")
    problem = server_cert_problem(config.tls_cert, config.tls_key, host)
    return ("TLS certificate", "fail" if problem else "ok",
            problem or f"{config.tls_cert} serves {host}")


def _check_signing_key(config: object) -> tuple[str, str, str]:
    assert isinstance(config, Competition)
    key = config.referee_key
    if config.signing_key is None and not key.exists():
        return ("signing key", "ok", f"{key} is made at the first start")
    try:
        return ("signing key", "ok", f"{key}: key {load_signer(key).key_id}")
    except ConfigError as exc:
        return ("signing key", "fail", str(exc))


def _check_docker(config: object) -> list[tuple[str, str, str]]:
    assert isinstance(config, Competition)
    if config.sandbox != "docker":
        return [("Docker", "warn", f"sandbox {config.sandbox}: bots are not in containers "
                 "(development only)")]
    try:
        client = docker_client()
        client.ping()
    except Exception as exc:  # the engine's errors are many kinds
        return [("Docker", "fail", f"no Docker engine answers: {exc}")]
    rows = [("Docker", "ok", f"engine {client.version().get('Version', '?')}")]
    missing = [f.tag for f in FLAVORS.values() if find_base_image(f.tag, client) is None]
    rows.append(("base images", "ok" if not missing else "warn",
                 "all built" if not missing else f"not built yet: {', '.join(missing)} (built "
                 "at the first submission of that flavor, about a minute each)"))
    return rows


def _check_disk(config: object) -> tuple[str, str, str]:
    assert isinstance(config, Competition)
    where = config.state_dir if config.state_dir.exists() else config.state_dir.parent
    while not where.exists():
        where = where.parent
    free = shutil.disk_usage(where).free / 2**30
    return ("disk", "ok" if free >= MIN_FREE_GIB else "fail",
            f"{free:.1f} GiB free under {where} (at least {MIN_FREE_GIB:.0f} GiB)")


def _check_database(config: object) -> tuple[str, str, str]:


    assert isinstance(config, Competition)
    url = make_url(config.database)
    if url.get_backend_name() == "sqlite":
        path = Path(url.database or "")
        where = path.parent
        while not where.exists():
            where = where.parent
        ok = os.access(where, os.W_OK)
        return ("database", "ok" if ok else "fail",
                f"SQLite {path}" + (" (made at the first start)" if not path.exists() else ""))
    try:
        with create_engine(config.database).connect() as conn:
            conn.execute(text("SELECT 1"))
    except SQLAlchemyError as exc:
        return ("database", "fail", f"{url.render_as_string(hide_password=True)}: {exc}")
    return ("database", "ok", url.render_as_string(hide_password=True))
