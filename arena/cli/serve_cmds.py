"""`arena serve`: run a long-lived referee with the admin gRPC service."""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path
from typing import Annotated

import typer

from arena.cli.common import announce_sandbox, err_console, handle_errors
from arena.cli.match_cmds import DEFAULT_LOG_DIR


def register(app: typer.Typer) -> None:
    app.command("serve")(serve)


@handle_errors
def serve(
    listen: Annotated[str, typer.Option(help="Admin endpoint: unix:///path/to.sock or "
                                             "127.0.0.1:PORT (never a network address).")
                      ] = "unix:///tmp/arena-referee.sock",
    log_dir: Annotated[Path, typer.Option(help="Where match logs are written.")
                       ] = DEFAULT_LOG_DIR,
    sandbox: Annotated[str, typer.Option(help="Default sandbox for matches: auto (containers "
                                              "when a Docker engine answers), docker or process "
                                              "(development only).")] = "auto",
) -> None:
    """Run a referee that plays matches on request (admin gRPC + gRPC health checking).

    Start matches with `arena match A B --referee ADDRESS`, follow them with
    `arena watch --referee ADDRESS --match ID`. Stop with Ctrl-C.
    """
    from arena.referee.server import check_listen_address
    from arena.referee.server import serve as run_server

    check_listen_address(listen)
    sandbox = announce_sandbox(sandbox)
    err_console.print(f"referee listening on [bold]{listen}[/] (logs in {log_dir}); Ctrl-C stops")
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(run_server(listen, log_dir, sandbox))
