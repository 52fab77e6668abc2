"""A person as a ``Player``: `arena play` seats someone against a bot on the real match loop.

The loop asks the person's seat as it asks any seat (``ask``, then ``answer``): a
``HumanPlayer`` hands what the seat's protocol gives (its observation, its legal actions, its
time) to a ``HumanSide`` — a terminal app (``arena.tui.play``) or a plain line mode
(``arena.tui.play_plain``) — and waits for an action text. Text that is no action of the game,
or an action that is not legal now, is refused with the engine's reason
(``DecisionRequest.explain``: the game's ``explain_illegal``, which names only what the seat to
move sees) and the person is asked again: a person is never forfeited for a typo. A legal
action's text is taken in any case and spacing, and any spelling the game parses to it.

A person has no clock unless one is asked for (``HumanSeat.time_control``; the bot keeps the
match's): the spec and the log's header record the person's seat and clock, so the log replays
and verifies like any other. The person is named ``human:<user>`` (``HUMAN_PREFIX``), so no
ladder ever rates the match (``arena.model.has_human``).

A person who quits mid-match cancels it (``Termination.CANCELLED``: the log ends with a void
match end, as a cancelled match's does).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import getpass
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from arena.errors import BotFault, ConfigError, GameError
from arena.games import get_game
from arena.model import (
    HUMAN_PREFIX,
    LABEL_MAX_CHARS,
    BotSpec,
    HumanSeat,
    MatchResult,
    MatchSpec,
    Termination,
    TimeControl,
)
from arena.record.clock import UNTIMED_MS
from arena.referee.match import EventSink, Match, new_match_id
from arena.referee.player import DecisionRequest, Overrun
from arena.referee.remote import remote_player
from arena.referee.service import DEFAULT_TIME_CONTROL, Lineup, line_up
from arena.sandbox.api import Sandbox
from arena.sandbox.epochs import deal_epoch
from arena.wire.conversation import SeatStart


@dataclass(frozen=True)
class Prompt:
    """One decision as a person is shown it: only what their seat's protocol gives."""

    game: str
    seat: int
    decision: int
    """1-based number of the decision within the match."""
    round: int
    observation: Any
    """The seat's observation: all it may know (render it with the game's ``render_view``)."""
    legal_texts: tuple[str, ...]
    """Every legal action's text, in the game's order."""
    time_left_ms: int | None
    """What the person may still take for this decision; None: no clock."""
    refused: str = ""
    """Why the last answer was refused ("" for none): the person is asked again."""


class Quit(Exception):  # noqa: N818 — not an error: the person chose to stop
    """Raised by a ``HumanSide`` whose person quit the match."""


class HumanSide(Protocol):
    """A person's side of a match: a terminal app or a line mode."""

    def started(self, start: SeatStart) -> None:
        """The match starts (names, seat, options)."""
        ...

    async def choose(self, prompt: Prompt) -> str:
        """The action text the person gives for ``prompt``; raises ``Quit`` when they quit.
        Cancelled when the person's time runs out."""
        ...

    def timed_out(self, detail: str) -> None:
        """The person's time ran out: the match is lost (``timeout``)."""
        ...

    def round_ended(self, round_index: int, scores: tuple[int, int],
                    totals: tuple[int, int]) -> None:
        ...

    def finished(self, result: MatchResult) -> None:
        """The match ended (the full deal is the log's, read by the caller afterwards)."""
        ...


class HumanPlayer:
    """A person's seat (see the module doc)."""

    in_process = True
    """No sandbox meters a person: their seat is charged its wall time."""

    def __init__(self, seat: int, side: HumanSide) -> None:
        self.seat = seat
        self.side = side
        self.game_id = ""
        self.request: DecisionRequest | None = None
        self.quit = False
        """Whether the person quit (the match is then cancelled)."""

    async def connect(self, timeout_s: float) -> None:
        return None

    async def start(self, start: SeatStart) -> None:
        self.game_id = start.game
        self.side.started(start)

    async def ask(self, request: DecisionRequest) -> None:
        self.request = request

    async def answer(self, timeout_s: float, over: Overrun | None = None,
                     every_s: float = 0.0) -> Any:
        request = self.request
        assert request is not None, "answer() after ask()"
        timed = request.time_left_ms < UNTIMED_MS
        deadline = time.monotonic() + timeout_s
        try:
            if not timed:
                return await self._until_legal(request, None)
            return await asyncio.wait_for(self._until_legal(request, deadline), timeout_s)
        except TimeoutError:
            detail = f"no answer within {timeout_s * 1000:.0f} ms"
            self.side.timed_out(detail)
            raise BotFault(Termination.TIMEOUT, detail, self.seat) from None
        except Quit:
            self.quit = True
            raise asyncio.CancelledError from None

    async def _until_legal(self, request: DecisionRequest, deadline: float | None) -> Any:
        """Ask until the person gives a legal action; each refusal says why."""
        game = get_game(self.game_id)
        legal = dict(zip(request.legal_texts, request.legal_actions, strict=True))
        loose: dict[str, Any] = {}
        for legal_text, action in legal.items():  # a spelling that fits two actions fits none
            key = _loose(legal_text)
            loose[key] = None if key in loose else action
        refused = ""
        while True:
            left = None if deadline is None else max(0, int((deadline - time.monotonic())
                                                              * 1000))
            text = (await self.side.choose(Prompt(
                self.game_id, self.seat, request.decision_id, request.round,
                request.observation, request.legal_texts, left, refused))).strip()
            if text in legal:
                return legal[text]
            if loose.get(_loose(text)) is not None:
                return loose[_loose(text)]
            if not text:
                refused = "type an action, or pick one from the list"
                continue
            try:
                action = game.parse_action(text)
                canonical = game.format_action(action)
            except GameError as exc:
                refused = f"{text!r} is not a {game.id} action: {exc}"
                continue
            except Exception:  # noqa: BLE001 — a game's parser failing on odd text
                refused = f"{text!r} is not a {game.id} action"
                continue
            if canonical in legal:
                return legal[canonical]
            reason = request.explain(action) if request.explain is not None else ""
            refused = f"{text!r} is not legal now" + (f": {reason}" if reason else "")

    async def round_end(self, round_index: int, scores: tuple[int, int],
                        totals: tuple[int, int]) -> None:
        self.side.round_ended(round_index, scores, totals)

    async def finish(self, result: MatchResult) -> None:
        with contextlib.suppress(Exception):
            self.side.finished(result)

    async def close(self) -> None:
        return None

    def log_tail(self) -> str | None:
        return None

    def image(self) -> str | None:
        return None

    @property
    def meter(self) -> None:
        return None

    def seat_stats(self) -> None:
        return None


def _loose(text: str) -> str:
    """An action text as a person may type it: any case, any run of spaces."""
    return " ".join(text.split()).casefold()


def human_name(user: str | None = None) -> str:
    """``human:<user>`` for ``user`` (default: the login name), kept to letters, digits, ``.``,
    ``_`` and ``-`` (a name is sent to the bot and recorded in the log)."""
    if user is None:
        try:
            user = getpass.getuser()
        except (KeyError, OSError):
            user = ""
    cleaned = re.sub(r"[^A-Za-z0-9._-]", "", user)[:LABEL_MAX_CHARS - len(HUMAN_PREFIX)]
    return HUMAN_PREFIX + (cleaned or "player")


def human_match(
    bot: str | BotSpec,
    *,
    seat: int = 0,
    user: str | None = None,
    game: str | None = None,
    sandbox: str | Sandbox = "process",
    seed: int | None = None,
    options: dict[str, Any] | None = None,
    time_control: TimeControl = DEFAULT_TIME_CONTROL,
    human_time: TimeControl | None = None,
) -> tuple[MatchSpec, Sandbox]:
    """The spec of a match between a person (at ``seat``) and ``bot`` (a directory or a
    submitted name, lined up and checked as `arena match` does), and the sandbox to play it in.
    ``time_control`` is the bot's (the match's); ``human_time`` the person's, None: untimed."""
    if seat not in (0, 1):
        raise ConfigError(f"--seat is 0 or 1, got {seat}")
    lineup = line_up([bot], game=game, sandbox=sandbox)
    person = BotSpec(human_name(user), lineup.game)
    pair = (person, lineup.bots[0]) if seat == 0 else (lineup.bots[0], person)
    spec = Lineup(lineup.game, pair, lineup.sandbox).match(
        seed=seed, options=options, time_control=time_control)
    if human_time is not None:
        human_time = dataclasses.replace(human_time, clock="wall")
    return dataclasses.replace(spec, humans=(HumanSeat(seat, human_time),)), lineup.sandbox


async def play_against(
    spec: MatchSpec,
    person: HumanPlayer,
    *,
    sandbox: Sandbox,
    log_dir: Path | None,
    on_event: EventSink | None = None,
    socket_root: Path = Path("/tmp"),
) -> MatchResult:
    """Play ``spec`` between ``person`` (the seat ``spec.humans`` names) and its bot in
    ``sandbox`` (its own seat as in ``play_match``); the result, also when the person quit
    (``cancelled``)."""
    seat = person.seat
    spec = dataclasses.replace(spec, match_id=spec.match_id or new_match_id(spec.game))
    match = Match(spec, sandbox_name=sandbox.name, log_dir=log_dir, on_event=on_event)
    with remote_player(1 - seat, spec.bots[1 - seat], sandbox, spec.match_id,
                       socket_root) as bot:
        players = (person, bot) if seat == 0 else (bot, person)
        try:
            return await match.run(players, deal_epoch(spec.seed, sandbox.name))
        except asyncio.CancelledError:
            if not person.quit or match.result is None:
                raise
            return match.result
