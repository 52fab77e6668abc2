"""What a person playing a bot sees (`arena play`), shared by the terminal app
(``arena.tui.play``) and the line mode (``arena.tui.play_plain``): built from one decision's
``Prompt`` (their seat's observation, their legal actions, their time) and the match start, and
at the end from the finished log (the full deal revealed)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.console import Group, RenderableType
from rich.text import Text

from arena.model import MatchResult, SeatOutcome
from arena.record.log import read_events
from arena.record.replay import replay_events
from arena.referee.human import Prompt
from arena.render import renderer_for
from arena.wire.conversation import SeatStart


def board(prompt: Prompt) -> RenderableType:
    """The seat's view, through the game's terminal renderer (its ``render_view``)."""
    return renderer_for(prompt.game).render_view(prompt.observation)


def status(prompt: Prompt, start: SeatStart | None) -> Text:
    """One line: who plays whom, the decision, the round and the person's time."""
    text = Text()
    if start is not None:
        opponent = start.bot_names[1 - prompt.seat]
        text.append(f"you (seat {prompt.seat}) against {opponent}   ", style="bold")
    text.append(f"decision {prompt.decision}   round {prompt.round + 1}   ")
    if prompt.time_left_ms is None:
        text.append("no clock", style="dim")
    else:
        text.append(f"{prompt.time_left_ms / 1000:.0f} s left", style="yellow")
    return text


def refusal(prompt: Prompt) -> Text | None:
    """Why the last answer was refused, or None."""
    if not prompt.refused:
        return None
    return Text(f"refused: {prompt.refused} — choose again", style="bold red")


def round_line(round_index: int, scores: tuple[int, int], totals: tuple[int, int],
               seat: int) -> Text:
    """The end of a round, from the person's side."""
    return Text(f"round {round_index + 1} over: you {scores[seat]}, the bot "
                f"{scores[1 - seat]} (totals: you {totals[seat]}, the bot {totals[1 - seat]})",
                style="bold")


def result_line(result: MatchResult, seat: int) -> Text:
    """The match's end, from the person's side."""
    outcome = result.outcome_for(seat)
    words = {SeatOutcome.WIN: ("You won", "bold green"), SeatOutcome.LOSS: ("You lost", "bold red"),
             SeatOutcome.DRAW: ("A draw", "bold"), SeatOutcome.VOID: ("No result", "bold yellow")}
    said, style = words[outcome]
    totals = result.totals
    text = Text(f"{said}: you {totals[seat]}, {result.bots[1 - seat]} {totals[1 - seat]}",
                style=style)
    if result.termination.value != "normal":
        who = "" if result.faulty_seat is None else (
            " (you)" if result.faulty_seat == seat else " (the bot)")
        text.append(f"   {result.termination}{who}: {result.detail[:200]}", style="")
    return text


def final_state(log: Path) -> tuple[str, Any] | None:
    """The game id and the last state of a match log (every card of it: the full deal), or None
    when the log cannot be read or replayed."""
    from arena.errors import ArenaError

    game, state = "", None
    try:
        for step in replay_events(read_events(log)):
            if game == "":
                game = getattr(step.event, "game", "")
            state = step.state
    except (ArenaError, OSError, ValueError):
        return None
    return (game, state) if game else None


def revealed(result: MatchResult, seat: int) -> RenderableType:
    """The end: the final position with everything revealed (the log's), and the result."""
    parts: list[RenderableType] = [result_line(result, seat)]
    end = None if not result.log else final_state(Path(result.log))
    if end is not None:
        parts.insert(0, renderer_for(end[0]).render_state(end[1]))
    return Group(*parts)


def log_line(result: MatchResult) -> Text | None:
    """Where the match log is and how to replay it (print it unwrapped: a path is copied)."""
    if not result.log:
        return None
    return Text(f"match log: {result.log} (replay: arena watch {result.log})")
