"""The `arena` command: the root only wires the command groups together."""

from __future__ import annotations

import logging

import typer

from arena import __version__

app = typer.Typer(
    name="arena",
    help=(
        "Arena: bot-vs-bot matches for two-player card games (Lost Cities, Haggis, PORTAS).\n\n"
        "Play a match between two bot directories with `arena match`, watch or verify its log "
        "with `arena watch` / `arena replay`, run an Elo ladder with `arena run-ladder`, and "
        "submit container bots with `arena submit`."
    ),
    no_args_is_help=True,
    rich_markup_mode="rich",
    pretty_exceptions_enable=False,
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"arena {__version__}")
        raise typer.Exit()


@app.callback()
def root(
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Print the version and exit."
    ),
    verbose: bool = typer.Option(False, "--verbose", "-v", help="Log what the arena does."),
) -> None:
    logging.basicConfig(
        level=logging.INFO if verbose else logging.WARNING,
        format="%(levelname)s %(name)s: %(message)s",
    )


def _register() -> None:
    from arena.cli import (
        bots_cmds,
        cluster_cmds,
        games_cmds,
        host_admin_cmds,
        host_cmds,
        keys_cmds,
        ladder_cmds,
        match_cmds,
        remote_cmds,
        serve_cmds,
        sprt_cmds,
        verify_cmds,
        watch_cmds,
    )

    for module in (match_cmds, watch_cmds, serve_cmds, ladder_cmds, bots_cmds, sprt_cmds,
                   cluster_cmds, host_cmds, host_admin_cmds, remote_cmds, keys_cmds,
                   verify_cmds, games_cmds):
        module.register(app)


_register()


def main() -> None:
    app()


if __name__ == "__main__":
    main()
