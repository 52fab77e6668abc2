"""`arena play`: a person against any bot, on the real match loop (``arena.referee.human``).

On a terminal the match runs in the Textual app (``arena.tui.play``); with ``--plain``, or when
the input or the output is not a terminal, in the line mode (``arena.tui.play_plain``)."""

from __future__ import annotations

import asyncio
import dataclasses
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from arena.cli.common import console, err_console, handle_errors, help_of, notice, parse_options
from arena.cli.match_cmds import DEFAULT_LOG_DIR
from arena.ladder.config import CLOCK_SETTINGS
from arena.model import MatchResult, TimeControl

if TYPE_CHECKING:
    from arena.model import MatchSpec
    from arena.sandbox.api import Sandbox


def register(app: typer.Typer) -> None:
    app.command("play", help=help_of(play))(play)


@handle_errors
def play(
    bot: Annotated[str, typer.Argument(help="The bot to play: a bot directory (with bot.toml) "
                                            "or a submitted bot name\\[@version].")],
    game: Annotated[str | None, typer.Option(help="Game id. Default: the bot's game.")] = None,
    seat: Annotated[int, typer.Option(help="Your seat: 0 (moves first) or 1.", min=0, max=1)
                    ] = 0,
    seed: Annotated[int | None, typer.Option(help="Deal seed. Default: random.")] = None,
    move_time: Annotated[int | None, typer.Option(
        "--move-time", help="Your own limit per decision, in ms (a decision not made in time "
                            "loses the match). Default: no clock for you.")] = None,
    bot_time: Annotated[int, typer.Option(
        "--bot-time", help="The bot's limit per decision in ms (its clock as in `arena "
                           "match --move-time`).")] = 1000,
    option: Annotated[list[str] | None, typer.Option("--option", "-o", help="Rules option "
                      "KEY=VALUE, repeatable (e.g. rounds=1).")] = None,
    sandbox: Annotated[str, typer.Option(
        help="Where the bot runs: process (development, NOT a security boundary), docker "
             "(hardened containers) or auto, as in `arena match`.")] = "process",
    clock: Annotated[str, typer.Option(
        "--clock", help="The bot's clock: cpu, wall or auto, as in `arena match`.")] = "auto",
    name: Annotated[str | None, typer.Option(
        "--name", help="Your name in the match (human:NAME). Default: your login name.")
                    ] = None,
    log_dir: Annotated[Path, typer.Option(help="Where the match log is written.")
                       ] = DEFAULT_LOG_DIR,
    plain_mode: Annotated[bool, typer.Option(
        "--plain", help="Line mode: print your view, read an action per line from stdin "
                        "(also when stdin, stdout or stderr is not a terminal).")] = False,
) -> None:
    """Play a match yourself against a bot, in the terminal.

    The bot runs in its sandbox exactly as in `arena match`, on its normal clock; you see only
    your seat's view (the game's own board), pick from the legal actions (a list, or typed text
    with completion: Tab or → accepts the suggestion), and an illegal choice is refused with
    the engine's reason and asked again. You have no clock unless --move-time gives you one. At
    the end the whole deal is revealed.

    The match is logged like any other (your seat named human:NAME, so no ladder ever rates it):
    replay it with `arena watch LOG`, verify it with `arena replay LOG`. Quitting (q, Ctrl-C, or
    :q in the line mode) cancels the match.
    """
    # start-up: `arena` imports these for this command only (the match loop, Textual's views)
    from arena.referee.human import human_match
    from arena.referee.service import check_time_control, resolve_clock
    from arena.tui.play_view import log_line

    if clock not in CLOCK_SETTINGS:
        raise typer.BadParameter(f"must be one of {', '.join(CLOCK_SETTINGS)}",
                                 param_hint="--clock")
    human_time = None
    if move_time is not None:
        human_time = check_time_control(TimeControl(move_time))
    spec, box = human_match(bot, seat=seat, user=name, game=game, sandbox=sandbox, seed=seed,
                            options=parse_options(option), time_control=TimeControl(bot_time),
                            human_time=human_time)
    bot_seat = 1 - seat
    resolved, note = resolve_clock(clock, box, [spec.bots[bot_seat]])
    if note:
        err_console.print(notice("note", "yellow", note), soft_wrap=True)
    spec = dataclasses.replace(spec, time_control=dataclasses.replace(spec.time_control,
                                                                      clock=resolved))
    if plain_mode or not all(f.isatty() for f in (sys.stdin, sys.stdout, sys.stderr)):
        result = _play_plain(spec, box, log_dir)
    else:
        # start-up: `arena` imports it for this command only (Textual)
        from arena.tui.play import PlayApp
        from arena.tui.play_view import result_line

        played = PlayApp(spec, box, log_dir).run()
        if played is None:
            raise typer.Exit(3)
        result = played
        console.print(result_line(result, seat))
    line = log_line(result)
    if line is not None:
        console.print(line, soft_wrap=True)
    if result.void:
        raise typer.Exit(3)


def _play_plain(spec: MatchSpec, box: Sandbox, log_dir: Path) -> MatchResult:
    # start-up: `arena` imports these for this command only (the match loop)
    from arena.referee.human import HumanPlayer, play_against
    from arena.tui.play_plain import PlainSide
    from arena.tui.play_view import revealed

    person = HumanPlayer(spec.humans[0].seat, PlainSide(sys.stdin, console))
    try:
        result = asyncio.run(play_against(spec, person, sandbox=box, log_dir=log_dir))
    except KeyboardInterrupt:  # the loop cancelled the match: its log ends as cancelled
        err_console.print(notice("note", "yellow", "interrupted: the match is cancelled"),
                          soft_wrap=True)
        raise typer.Exit(3) from None
    console.print(revealed(result, person.seat))
    return result
