"""The root of the `arena` command, and the command line built for one command.

``new_app`` makes the root (its help, ``--version`` and ``--verbose``); ``arena.cli.main``
registers every command group on one. A command run from a terminal or a script needs only
its own group: ``command_app`` builds a root with just the module that owns the command named
on the command line (``OWNERS``), so `arena match` or `arena watch` does not first import
what `arena host` needs (SQLAlchemy, the competition server) — 0.3 s of CPU where the whole
command line took 0.8-0.9 s, measured. Anything else (``--help``, ``--version``, an unknown
name, shell completion) gets the whole command line. tests/cli/test_root.py holds ``OWNERS``
to what each module registers.
"""

from __future__ import annotations

import importlib
import logging
import os
from collections.abc import Sequence

import typer

from arena import __version__
from arena.cli.common import help_of

HELP = (
    "Arena: bot-vs-bot matches for two-player card games (Lost Cities, Haggis, PORTAS).\n\n"
    "Play a match between two bot directories with `arena match`, watch or verify its log "
    "with `arena watch` / `arena replay`, run an Elo ladder with `arena run-ladder`, and "
    "submit container bots with `arena submit`."
)

MODULES = ("match_cmds", "play_cmds", "watch_cmds", "serve_cmds", "ladder_cmds", "bots_cmds",
           "sprt_cmds", "cluster_cmds", "host_cmds", "host_admin_cmds", "remote_cmds",
           "results_cmds", "keys_cmds", "verify_cmds", "games_cmds", "lab_cmds", "final_cmds")
"""The command modules of ``arena.cli``, in the order the whole command line registers them."""

OWNERS: dict[str, str] = {
    "match": "match_cmds", "replay": "match_cmds",
    "play": "play_cmds",
    "watch": "watch_cmds",
    "serve": "serve_cmds",
    "run-ladder": "ladder_cmds", "ladder": "ladder_cmds",
    "submit": "bots_cmds", "bots": "bots_cmds", "images": "bots_cmds",
    "sprt": "sprt_cmds",
    "worker": "cluster_cmds", "cluster": "cluster_cmds",
    "host": "host_cmds",
    "contestants": "host_admin_cmds", "phase": "host_admin_cmds", "host-certs": "host_admin_cmds",
    "login": "remote_cmds", "submissions": "remote_cmds", "select": "remote_cmds",
    "logs": "remote_cmds", "challenge": "remote_cmds",
    "standings": "results_cmds", "matches": "results_cmds",
    "keys": "keys_cmds",
    "verify": "verify_cmds",
    "games": "games_cmds",
    "lab": "lab_cmds",
    "final": "final_cmds",
}
"""Each top-level command or group, and the module of ``MODULES`` that registers it."""

ROOT_FLAGS = frozenset({"-v", "--verbose"})
"""The root's options that may come before a command (and take no value)."""
COMPLETE_ENV = "_ARENA_COMPLETE"
"""Set by a shell asking the command line to complete a word: the whole command line answers."""


def _version(value: bool) -> None:
    if value:
        typer.echo(f"arena {__version__}")
        raise typer.Exit()


def _root(
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Print the version and exit."
    ),
    verbose: bool = typer.Option(False, "--verbose", "-v", help="Log what the arena does."),
) -> None:
    logging.basicConfig(
        level=logging.INFO if verbose else logging.WARNING,
        format="%(levelname)s %(name)s: %(message)s",
    )


def new_app() -> typer.Typer:
    """The root of the command line, with no command yet."""
    app = typer.Typer(name="arena", help=HELP, no_args_is_help=True, rich_markup_mode="rich",
                      pretty_exceptions_enable=False)
    app.callback()(_root)
    return app


def register(app: typer.Typer, module: str) -> None:
    """Add the commands of ``arena.cli.<module>`` to ``app``."""
    importlib.import_module(f"arena.cli.{module}").register(app)


def plain_help(group: typer.Typer) -> None:
    """Give every command (in groups too) its docstring as help, the source's line breaks
    taken out."""
    for command in group.registered_commands:
        if command.help is None and command.callback is not None:
            command.help = help_of(command.callback)
    for sub in group.registered_groups:
        if sub.typer_instance is not None:
            plain_help(sub.typer_instance)


def named_command(args: Sequence[str]) -> str | None:
    """The command ``args`` (the command line's words) name, after the root's own flags; None
    when they name none the arena has or ask the root itself (``--help``, ``--version``)."""
    words = list(args)
    while words and words[0] in ROOT_FLAGS:
        words.pop(0)
    if not words or words[0] not in OWNERS:
        return None
    return words[0]


def command_app(args: Sequence[str]) -> typer.Typer | None:
    """A command line with only the module that owns the command ``args`` name; None when the
    whole command line should answer them."""
    name = named_command(args)
    if name is None or os.environ.get(COMPLETE_ENV):
        return None
    app = new_app()
    register(app, OWNERS[name])
    plain_help(app)
    return app
