"""The seam under the match loop: the loop talks to each seat through a ``Player``.

A player is one seat's side of the match protocol, in the referee's terms (game values, not wire
messages). Two kinds exist:

* ``arena.referee.remote.RemotePlayer`` — a sandboxed bot over gRPC: it owns the seat's socket,
  the protobuf framing, the bot's lifecycle (start, stop, output tail) and the mapping of what the
  bot did (a closed stream, an exit, an oversized or malformed message) to a termination.
* ``arena.referee.local.LocalPlayer`` — a Python policy called in-process (tests, quick
  evaluations with ``play_local``).

Every misbehaviour surfaces as ``BotFault`` (with the termination it earns); a failure of the
arena itself (a sandbox that breaks) as ``SandboxError``. The loop owns the rules, the clocks,
legality checks and the log; a player never decides an outcome.

A seat in a sandbox has a CPU meter (``Player.meter``: the sandbox's counter of the bot's CPU
time and peak memory) that the loop reads around each decision for the CPU clock, and what the
seat cost over the match (``Player.seat_stats``) goes into the match end.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from arena.errors import BotFault
from arena.model import MatchResult, SeatStats
from arena.sandbox.meter import Meter
from arena.wire.conversation import SeatStart


@dataclass(frozen=True)
class DecisionRequest:
    """One decision asked of a seat (arena.v1 ``DecisionRequest``)."""

    decision_id: int
    """1-based number of the decision within the match."""
    round: int
    observation: Any
    """The seat's observation (the game's view value): all it may know."""
    legal_actions: tuple[Any, ...]
    """Every legal action, in the game's stable order."""
    legal_texts: tuple[str, ...]
    """The same actions in the game's text grammar."""
    time_left_ms: int
    """The seat's allowance for this decision (move time plus what is left of its bank)."""
    time_bank_ms: int
    explain: Callable[[Any], str] | None = field(default=None, compare=False, repr=False)
    """Why an action is illegal here, as the game explains it to the seat to move (one line;
    "" when the game has none): what a person's seat (``arena.referee.human``) shows before
    asking again. Nothing a bot receives: the wire carries no such thing."""


Overrun = Callable[[], BotFault | None]
"""A check made while a seat thinks: the fault that ends its wait now, or None."""


class Player(Protocol):
    """One seat of a match, as the match loop sees it."""

    seat: int

    async def connect(self, timeout_s: float) -> None:
        """Start the bot and wait until it is ready to play (its Hello), at most ``timeout_s``.

        Raises ``BotFault`` (e.g. ``no_start``) or ``SandboxError`` (the arena's failure)."""
        ...

    async def start(self, start: SeatStart) -> None:
        """Tell the seat the match starts."""
        ...

    async def ask(self, request: DecisionRequest) -> None:
        """Prepare the decision for the seat (encoding it is not the seat's time: its clock
        starts when this returns, and ``answer`` delivers it)."""
        ...

    async def answer(self, timeout_s: float, over: Overrun | None = None,
                     every_s: float = 0.0) -> Any:
        """Deliver the decision last asked and return the seat's action (a value of the game's
        action type), returned or failed within about ``timeout_s``. ``over``, called about
        every ``every_s`` seconds while the seat thinks, may end the wait with the fault it
        returns (the CPU clock's meter check). The loop checks legality and charges the clock;
        this raises ``BotFault`` for everything else (``timeout`` without an answer,
        ``invalid_action``, ``protocol_violation``, ``crash``, ...)."""
        ...

    async def round_end(self, round_index: int, scores: tuple[int, int],
                        totals: tuple[int, int]) -> None:
        """Tell the seat a round ended."""
        ...

    async def finish(self, result: MatchResult) -> None:
        """Tell the seat the match ended (never raises: the seat may be gone already)."""
        ...

    async def close(self) -> None:
        """Stop the bot (after a short grace to exit on its own) and release the seat;
        idempotent, never raises."""
        ...

    def log_tail(self) -> str | None:
        """The bot's last output (bounded), or None when there is no bot process."""
        ...

    def image(self) -> str | None:
        """The container image the bot runs (after ``connect``), None when not in one."""
        ...

    @property
    def meter(self) -> Meter | None:
        """The CPU meter of the seat's sandbox (after ``connect``); None: nothing to read (an
        in-process seat, or a bot not started)."""
        ...

    def seat_stats(self) -> SeatStats | None:
        """What the seat's bot cost so far (start-up time, CPU, peak memory); None for a seat
        without a bot process. Read before ``close``."""
        ...
