"""`arena play --plain` (and `arena play` off a terminal): a person against a bot, line by line.

Each decision prints the seat's view (the game's terminal renderer), the legal actions
numbered, and reads one line: an action's text, or its number in the list. ``?`` lists every
legal action (a long list is cut after ``SHOWN``), ``:q`` or the end of the input quits (the
match is cancelled). A refused answer prints the engine's reason and asks again. Made for
scripts and tests as much as for people: nothing is drawn over, everything is plain text.
"""

from __future__ import annotations

import asyncio
import threading
from typing import TextIO

from rich.console import Console, RenderableType
from rich.text import Text

from arena.model import MatchResult
from arena.referee.human import Prompt, Quit
from arena.tui.play_view import board, refusal, round_line, status
from arena.wire.conversation import SeatStart

SHOWN = 40
"""How many legal actions a decision lists (``?`` lists them all)."""
QUIT = ":q"


class PlainSide:
    """A ``HumanSide`` reading lines from ``stdin`` and printing to ``out``."""

    def __init__(self, stdin: TextIO, out: Console) -> None:
        self.stdin = stdin
        self.out = out
        self.start: SeatStart | None = None
        self.seat = 0
        self._lines: asyncio.Queue[str] | None = None

    def print(self, *items: RenderableType) -> None:
        for item in items:
            self.out.print(item)

    def started(self, start: SeatStart) -> None:
        self.start, self.seat = start, start.seat
        names = start.bot_names
        self.print(Text(f"{start.game}: {names[0]} (seat 0) against {names[1]} (seat 1); you "
                        f"are seat {start.seat}. Type an action or its number, ? for every "
                        f"legal action, {QUIT} to quit."))

    async def choose(self, prompt: Prompt) -> str:
        refused = refusal(prompt)
        if refused is not None:
            self.print(refused)
        else:
            self.print(board(prompt), status(prompt, self.start))
        self._list(prompt, SHOWN)
        while True:
            self.out.print("your move> ", end="")
            self.out.file.flush()
            line = await self._line()
            if not line or line.strip() == QUIT:
                raise Quit
            text = line.strip()
            if text == "?":
                self._list(prompt, None)
                continue
            if text not in prompt.legal_texts and text.isdigit():
                number = int(text)
                if 1 <= number <= len(prompt.legal_texts):
                    return prompt.legal_texts[number - 1]
                self.print(Text(f"no action number {number}: 1 to {len(prompt.legal_texts)}",
                                style="red"))
                continue
            return text

    async def _line(self) -> str:
        """The next line of the input ("" at its end), read by a daemon thread: a person
        whose time ran out leaves a read pending, which must not keep the process alive."""
        loop = asyncio.get_running_loop()
        if self._lines is None:
            lines: asyncio.Queue[str] = asyncio.Queue()
            self._lines = lines

            def read() -> None:
                while True:
                    try:
                        line = self.stdin.readline()
                    except (OSError, ValueError):
                        line = ""
                    try:
                        loop.call_soon_threadsafe(lines.put_nowait, line)
                    except RuntimeError:  # the match is over and its loop closed
                        return
                    if not line:
                        return

            threading.Thread(target=read, name="arena-play-input", daemon=True).start()
        return await self._lines.get()

    def _list(self, prompt: Prompt, most: int | None) -> None:
        texts = prompt.legal_texts
        shown = texts if most is None else texts[:most]
        width = len(str(len(texts)))
        lines = Text(f"legal actions ({len(texts)}):\n")
        for i, text in enumerate(shown, start=1):
            lines.append(f"  {i:>{width}}  {text}\n")
        if len(shown) < len(texts):
            lines.append(f"  … {len(texts) - len(shown)} more (? lists them all)\n")
        self.out.print(lines, end="")

    def timed_out(self, detail: str) -> None:
        self.print(Text(f"your time is up: {detail}", style="bold red"))

    def round_ended(self, round_index: int, scores: tuple[int, int],
                    totals: tuple[int, int]) -> None:
        self.print(round_line(round_index, scores, totals, self.seat))

    def finished(self, result: MatchResult) -> None:
        """Nothing yet: the caller prints the end with the full deal (``revealed``)."""
