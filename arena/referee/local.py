"""In-process seats: a Python policy as a ``Player``, and ``play_local`` on the real match loop.

No sockets and no processes: a policy is called directly with the same ``Decision`` the SDK would
hand it over gRPC (and its hooks, if it has them, as the SDK calls them). The match loop is the
one real matches use, so rules, legality checks, faults and results are the same; only the clock
cannot interrupt a policy (it runs in the referee's thread), so a slow answer is judged when it
returns, and there is no CPU counter of its own (a match on the CPU clock charges it its wall
time). Used to evaluate sample bots quickly (e.g. 100 matches strong vs greedy) and by tests
of the loop itself.
"""

from __future__ import annotations

import asyncio
import hashlib
import traceback
from collections.abc import Callable, Mapping
from typing import Any

from arena.errors import BotFault, IllegalActionError, InvalidActionError
from arena.games import get_game
from arena.games.api import GameResult
from arena.model import BotSpec, MatchResult, MatchSpec, Termination, TimeControl
from arena.referee.match import Match
from arena.referee.player import DecisionRequest, Overrun
from arena.sdk.decision import Decision, MatchInfo
from arena.sdk.policy import PolicyCalls
from arena.wire.conversation import SeatStart

Policy = Callable[[Decision], Any]
"""A function from a decision to an action (the game's action value or its text); an object
with ``decide`` and the SDK's optional hooks works as well."""

UNTIMED = TimeControl(move_time_ms=3_600_000, startup_ms=3_600_000)
"""``play_local``'s time control: policies are not timed (an hour per decision)."""


class LocalPlayer:
    """A policy called in-process. An exception in it is the seat's ``crash``; an answer that
    is not an action of the game (text that does not parse, a value of another type) is
    ``invalid_action``."""

    def __init__(self, seat: int, policy: Any) -> None:
        self.seat = seat
        self.calls = PolicyCalls(policy)
        self.info: MatchInfo | None = None
        self.request: DecisionRequest | None = None
        self.game_id = ""

    async def connect(self, timeout_s: float) -> None:
        return None

    async def start(self, start: SeatStart) -> None:
        tc = start.time_control
        self.game_id = start.game
        self.info = MatchInfo(start.match_id, start.game, start.game_version, start.seat,
                              dict(start.options), tc.move_time_ms, tc.time_bank_ms,
                              start.bot_names, tc.clock, tc.wall_guard)
        self._call(self.calls.match_start, self.info)

    async def ask(self, request: DecisionRequest) -> None:
        self.request = request

    async def answer(self, timeout_s: float, over: Overrun | None = None,
                     every_s: float = 0.0) -> Any:
        # In process, the policy runs here and now: nothing to wait for, so nothing to check.
        request, info = self.request, self.info
        assert request is not None and info is not None, "ask() after start()"
        decision = Decision(
            match=info, round=request.round, observation=request.observation,
            legal_texts=request.legal_texts, parsed_actions=request.legal_actions,
            time_left_ms=request.time_left_ms, decision_id=request.decision_id,
        )
        choice = self._call(self.calls.decide, decision)
        game = get_game(self.game_id)
        try:  # a value must be one of the game's actions: it survives its text round trip
            return game.parse_action(choice if isinstance(choice, str)
                                     else game.format_action(choice))
        except InvalidActionError as exc:
            raise BotFault(Termination.INVALID_ACTION, str(exc), self.seat,
                           _shown(choice)) from None
        except Exception:  # noqa: BLE001 — not an action of this game at all
            raise BotFault(Termination.INVALID_ACTION,
                           f"answered {choice!r:.100}, not a {game.id} action",
                           self.seat, _shown(choice)) from None

    async def round_end(self, round_index: int, scores: tuple[int, int],
                        totals: tuple[int, int]) -> None:
        self._call(self.calls.round_end, round_index, scores, totals)

    async def finish(self, result: MatchResult) -> None:
        outcome = f"MATCH_RESULT_{result.outcome_for(self.seat).name}"
        termination = f"TERMINATION_{result.termination.name}"
        try:
            self.calls.match_end(outcome, termination, result.totals,
                                 detail=result.detail[:1000], faulty_seat=result.faulty_seat)
        except Exception:  # noqa: BLE001, S110 — the match is over; nothing to forfeit
            pass

    async def close(self) -> None:
        return None

    def log_tail(self) -> str | None:
        return None

    def image(self) -> str | None:
        return None

    in_process = True
    """A policy in the referee's own process: no sandbox meters it (a match between such seats
    is played, and recorded, on the wall clock)."""

    @property
    def meter(self) -> None:
        """No CPU meter: the policy runs in the referee's own thread."""
        return None

    def seat_stats(self) -> None:
        return None

    def _call(self, func: Callable[..., Any], *args: Any) -> Any:
        try:
            return func(*args)
        except Exception as exc:  # noqa: BLE001 — the policy's failure is its seat's crash
            frame = traceback.extract_tb(exc.__traceback__)[-1]
            raise BotFault(Termination.CRASH, f"the policy raised {exc!r} at "
                           f"{frame.filename}:{frame.lineno}", self.seat) from exc


def play_local(
    game_id: str,
    policies: tuple[Any, Any],
    seed: int,
    options: Mapping[str, Any] | None = None,
) -> GameResult:
    """Play one match between two policies in-process and return the game's result. A policy
    that fails (raises, answers an illegal or invalid action) makes this raise
    ``IllegalActionError`` with the referee's verdict."""
    result = asyncio.run(local_match(game_id, policies, seed, options))
    if result.termination is not Termination.NORMAL:
        raise IllegalActionError(
            f"seat {result.faulty_seat}: {result.termination}: {result.detail}"
        )
    return GameResult(result.winner, result.totals, result.rounds)


async def local_match(
    game_id: str,
    policies: tuple[Any, Any],
    seed: int,
    options: Mapping[str, Any] | None = None,
    time_control: TimeControl = UNTIMED,
) -> MatchResult:
    """The full ``MatchResult`` of an in-process match (faults included, no log file)."""
    bots = (BotSpec("local-0", game_id), BotSpec("local-1", game_id))
    spec = MatchSpec(game_id, seed, bots, dict(options or {}), time_control,
                     match_id=f"local-{_opaque(seed)}")
    match = Match(spec, sandbox_name="in-process", log_dir=None)
    players = (LocalPlayer(0, policies[0]), LocalPlayer(1, policies[1]))
    return await match.run(players)


def _shown(choice: Any) -> str:
    """An answer as the log records it (bounded)."""
    return (choice if isinstance(choice, str) else repr(choice))[:200]


def _opaque(seed: int) -> str:
    """A match id that does not reveal the deal seed (bots seed their RNGs from match ids)."""
    return hashlib.sha256(f"local:{seed}".encode()).hexdigest()[:12]
