"""The `arena` command: the root only wires the command groups together."""

from __future__ import annotations

import logging

import typer

from arena import __version__
from arena.cli import (
    bots_cmds,
    cluster_cmds,
    final_cmds,
    games_cmds,
    host_admin_cmds,
    host_cmds,
    keys_cmds,
    lab_cmds,
    ladder_cmds,
    match_cmds,
    play_cmds,
    remote_cmds,
    results_cmds,
    serve_cmds,
    sprt_cmds,
    verify_cmds,
    watch_cmds,
)
from arena.cli.common import help_of

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
    for module in (match_cmds, play_cmds, watch_cmds, serve_cmds, ladder_cmds, bots_cmds, sprt_cmds,
                   cluster_cmds, host_cmds, host_admin_cmds, remote_cmds, results_cmds,
                   keys_cmds, verify_cmds, games_cmds, lab_cmds, final_cmds):
        module.register(app)


PANELS: dict[str, tuple[str, ...]] = {
    "Play, watch, submit": ("match", "play", "watch", "replay", "submit", "run-ladder", "lab"),
    "Results: a ladder's (its file), a competition's (--server)": ("standings", "matches",
                                                                   "verify"),
    "Ladders (their operators)": ("ladder", "sprt", "cluster", "worker", "keys", "serve"),
    "A competition (its contestants)": ("login", "submissions", "select", "logs", "challenge"),
    "A competition (its operator)": ("host", "host-certs", "contestants", "phase", "final"),
    "Bots, images, games": ("games", "bots", "images"),
}
"""`arena --help` by audience: the mission's verbs first, then each audience's commands (every
command is in exactly one panel: tests/cli/test_help.py)."""


def _arrange(root: typer.Typer) -> None:
    """Put each command in its panel, in the order of ``PANELS``, and give every command (in
    groups too) its docstring as help with the source's line breaks taken out."""
    order = {name: i for i, name in enumerate(n for names in PANELS.values() for n in names)}
    panel_of = {name: panel for panel, names in PANELS.items() for name in names}
    root.registered_commands.sort(key=lambda c: order.get(c.name or "", len(order)))
    root.registered_groups.sort(key=lambda g: order.get(g.name or "", len(order)))
    for command in root.registered_commands:
        command.rich_help_panel = panel_of.get(command.name or "")
    for group in root.registered_groups:
        group.rich_help_panel = panel_of.get(group.name or "")
    _plain_help(root)


def _plain_help(group: typer.Typer) -> None:
    for command in group.registered_commands:
        if command.help is None and command.callback is not None:
            command.help = help_of(command.callback)
    for sub in group.registered_groups:
        if sub.typer_instance is not None:
            _plain_help(sub.typer_instance)


_register()
_arrange(app)


def main() -> None:
    app()


if __name__ == "__main__":
    main()
