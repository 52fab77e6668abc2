"""`arena standings` and `arena matches`: one verb for each, a ladder's (a ladder file) or a
competition's (``--server``, or ``ARENA_SERVER`` set). ``arena ladder standings`` and ``arena
ladder matches``, the old spellings of the local form, keep working for one release with a
deprecation line."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer

from arena.cli import ladder_cmds, remote_cmds
from arena.cli.common import OutputFormat, handle_errors, help_of
from arena.errors import ConfigError

LadderOption = Annotated[Path | None, typer.Argument(
    help="A ladder file (TOML): its results. Leave it out for a competition's (--server); "
         f"without either, {ladder_cmds.DEFAULT_LADDER}.", show_default=False,
    metavar="LADDER")]
ServerOption = remote_cmds.ServerOption
FormatOption = Annotated[OutputFormat, typer.Option(
    "--format", help="human: a table; json: one JSON object.")]


def register(app: typer.Typer) -> None:
    """Add `standings` and `matches` to the root app."""
    for command, local in ((standings, ladder_cmds.standings), (matches, ladder_cmds.matches)):
        app.command(command.__name__, help=_with_ladder_details(command, local))(command)


def _with_ladder_details(command: Callable[..., Any], local: Callable[..., Any]) -> str:
    """``command``'s help, then the details of the ladder form's (all but its first line)."""
    details = help_of(local).split("\n\n")[1:]
    return "\n\n".join([help_of(command), "For a ladder:", *details])


def on_server(ladder: Path | None, server: str | None, *, local_only: tuple[str, ...] = (),
              remote_only: tuple[str, ...] = ()) -> bool:
    """Whether the command reads a competition server (True) or a ladder file (False); a
    ``ConfigError`` for a ladder file and ``--server`` both, or an option of the other form."""
    if ladder is not None and server is not None:
        raise ConfigError("name a ladder file or a server (--server), not both")
    remote = ladder is None and remote_cmds.remote_requested(server)
    wrong = local_only if remote else remote_only
    if wrong:
        where = "a ladder file" if remote else "a competition server (--server)"
        raise ConfigError(f"{', '.join(wrong)} only works with {where}")
    return remote


def local_ladder(ladder: Path | None, command: str) -> Path:
    """The ladder file to read: ``ladder``, else the default one when it is here."""
    if ladder is not None:
        return ladder
    if not ladder_cmds.DEFAULT_LADDER.is_file():
        raise ConfigError(f"name a ladder file (`arena {command} LADDER.toml`) or a "
                          "competition server (--server NAME, see `arena login`)")
    return ladder_cmds.DEFAULT_LADDER


@handle_errors
def standings(
    ladder: LadderOption = None,
    server: ServerOption = None,
    game: Annotated[str, typer.Option(
        help="Only this game (a competition; default: every game hosted).")] = "",
    versions: Annotated[bool, typer.Option(
        "--versions", help="A ladder: list every version of every bot instead, each rated as "
                           "a player of its own.")] = False,
    output: FormatOption = OutputFormat.human,
) -> None:
    """The standings: a ladder's (LADDER, a ladder file) or a competition's (--server).

    A competition's: each bot at its current version, its rating with a 95% interval,
    matches, wins/draws/losses and owner (older versions dimmed).
    """
    if on_server(ladder, server, local_only=("--versions",) if versions else (),
                 remote_only=("--game",) if game else ()):
        remote_cmds.standings(server=server, game=game, output=output)
    else:
        ladder_cmds.standings(local_ladder(ladder, "standings"), output=output,
                              versions=versions)


@handle_errors
def matches(
    ladder: LadderOption = None,
    server: ServerOption = None,
    bot: Annotated[str, typer.Option(help="A competition: only matches this bot played.")] = "",
    mine: Annotated[bool, typer.Option(
        "--mine", help="A competition: only matches your bots played.")] = False,
    game: Annotated[str, typer.Option(help="A competition: only this game.")] = "",
    limit: Annotated[int, typer.Option(
        help="A competition: matches a page.", min=1, max=500)] = 20,
    page: Annotated[str, typer.Option(
        help="A competition: the cursor a previous page printed (older matches).")] = "",
    scrimmages: Annotated[bool, typer.Option(
        "--scrimmages", help="A competition: the scrimmages you may see (`arena challenge`) "
                             "instead of the ladder's matches.")] = False,
    reruns: Annotated[bool, typer.Option(
        "--reruns", help="A competition: the reruns of void matches (`arena host rerun`).")
    ] = False,
    output: FormatOption = OutputFormat.human,
) -> None:
    """The recorded matches: a ladder's (LADDER, a ladder file) or a competition's (--server).

    A competition's: newest first, a page at a time: seats with their versions, points,
    winner, termination, the kind of match and what the operator's moderation says of it.
    """
    remote_only = tuple(name for name, given in (
        ("--bot", bool(bot)), ("--mine", mine), ("--game", bool(game)),
        ("--limit", limit != 20), ("--page", bool(page)), ("--scrimmages", scrimmages),
        ("--reruns", reruns)) if given)
    if scrimmages and reruns:
        raise ConfigError("--scrimmages or --reruns, not both")
    if on_server(ladder, server, remote_only=remote_only):
        remote_cmds.matches(server=server, bot=bot, mine=mine, game=game, limit=limit,
                            page=page, output=output,
                            kind="scrimmage" if scrimmages else "rerun" if reruns else "")
    else:
        ladder_cmds.matches(local_ladder(ladder, "matches"), output=output)
