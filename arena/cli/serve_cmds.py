"""`arena serve`: run a long-lived referee with the admin gRPC service."""

from __future__ import annotations

import asyncio
import contextlib
import signal
from pathlib import Path
from typing import Annotated

import typer

from arena.cli.common import announce_sandbox, err_console, handle_errors, notice
from arena.cli.match_cmds import DEFAULT_LOG_DIR
from arena.record.signing import load_signer
from arena.referee.service import resolve_clock


def register(app: typer.Typer) -> None:
    app.command("serve")(serve)


@handle_errors
def serve(
    listen: Annotated[str, typer.Option(help="Admin endpoint: default (a socket in a private "
                                             "directory of the arena's data directory), "
                                             "unix:///path/to.sock (in a directory only you "
                                             "can write to) or 127.0.0.1:PORT (calls need the "
                                             "token it writes for you; 0: any free port).")
                      ] = "default",
    log_dir: Annotated[Path, typer.Option(help="Where match logs are written.")
                       ] = DEFAULT_LOG_DIR,
    sandbox: Annotated[str, typer.Option(help="Where matches play: auto (containers when a "
                                              "Docker engine answers), docker or process "
                                              "(development only).")] = "auto",
    allow_sandbox: Annotated[list[str] | None, typer.Option(
        "--allow-sandbox", help="Another sandbox a request may ask for (process or docker; "
                                "repeatable). Without it, a request naming another sandbox "
                                "than --sandbox is refused.")] = None,
    sign_key: Annotated[Path | None, typer.Option(
        "--sign-key", help="Sign every finished match log with this private key (`arena keys "
                           "new DIR`); anyone with its public key checks a log with `arena "
                           "replay LOG --key PUB`.")] = None,
    clock: Annotated[str, typer.Option(
        help="The clock of a match whose request names none: auto (cpu where the sandbox "
             "meters CPU, else wall, said once at start), cpu (a decision is charged the CPU "
             "its bot used; refused where it cannot be metered) or wall.")] = "auto",
) -> None:
    """Run a referee that plays matches on request (admin gRPC + gRPC health checking).

    Only your user (and root) can use it. Start matches with `arena match A B --referee
    ADDRESS`, follow them with `arena watch --referee ADDRESS --match ID` (ADDRESS as given to
    --listen; `default` for the default). Stop with Ctrl-C.
    """
    # start-up: `arena` imports these for this command only (the referee daemon)
    from arena.serve.access import check_listen_address
    from arena.serve.server import check_sandboxes
    from arena.serve.server import serve as run_server

    check_listen_address(listen)
    chosen, allowed = check_sandboxes(sandbox, allow_sandbox or ())
    _, clock_note = resolve_clock(clock, chosen)  # cpu that cannot be had: one line, exit 2
    signer = None
    if sign_key is not None:  # a bad key: one line, exit 2, before anything listens
        signer = load_signer(sign_key)

    def listening(address: str, token_file: Path | None) -> None:
        for name in sorted({chosen, *allowed}):  # once listening: a refusal stays one line
            announce_sandbox(name)
        if clock_note:
            err_console.print(notice("note", "yellow", clock_note))
        token = "" if token_file is None else f"; its token, for your user: {token_file}"
        signed = "" if signer is None else f", signed with key {signer.key_id}"
        err_console.print(notice("referee listening on", "bold",
                                 f"{address} (logs in {log_dir}{signed}{token}); Ctrl-C stops"))

    async def until_stopped() -> None:
        # SIGTERM (a service manager's stop) ends it as Ctrl-C does: the socket removed, the
        # token withdrawn
        task = asyncio.current_task()
        assert task is not None
        asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, task.cancel)
        await run_server(listen, log_dir, chosen, allow=allowed, announce=listening,
                         signer=signer, clock=clock)

    with contextlib.suppress(KeyboardInterrupt, asyncio.CancelledError):
        asyncio.run(until_stopped())
