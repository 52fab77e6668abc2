"""The referee's match loop: one match between two players (``arena.referee.player``).

The loop owns the rules (the game engine), the clocks, legality checks, the log and the result;
it knows the seats only through the ``Player`` interface. Bot input never raises out of here:
every fault becomes a named termination in the result (the faulting seat forfeits), arena
failures make the match void (``internal``), and both players are always closed.

The clocks (``arena.record.clock``): on the wall clock a decision is charged the wall time from
the request going out to the answer arriving; on the CPU clock it is charged what the seat's
CPU meter (``Player.meter``) counted in that span, the loop polls the meter while it waits (a
bot burning CPU past its allowance is a ``timeout`` at once, not at the guard), and no answer
by the wall guard is ``wall_timeout``. Every decision records its wall time and, where a meter
exists, its CPU time; the match end records what each seat cost (``SeatStats``).

``play_match`` plays a match between two sandboxed bots (``RemotePlayer``s); ``play_local``
(``arena.referee.local``) runs the same loop with in-process policies.

What a bot controls is recorded as text, never as something a terminal acts on: the result's
detail (which quotes a crashed bot's last output line) and the seats' output tails pass through
``plain_text``; an invalid answer is kept with such characters written as escapes
(``recorded_answer``), so the log, the store, the report and every view downstream hold text.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import functools
import logging
import secrets
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

import arena
from arena.errors import BotFault, SandboxError
from arena.games import get_game
from arena.games.api import Game, legal_texts_of, totals_of
from arena.model import (
    LOG_FORMAT,
    SEED_SALT_HEX,
    BotRecord,
    DealEvent,
    DecisionEvent,
    HeaderEvent,
    MatchEndEvent,
    MatchEvent,
    MatchResult,
    MatchSpec,
    RoundEndEvent,
    SeatStats,
    Termination,
    plain_text,
    seed_commitment,
)
from arena.record.clock import Clock, seat_clocks
from arena.record.log import MatchLogWriter, open_private, seat_log_path
from arena.referee.player import DecisionRequest, Player
from arena.referee.remote import ANSWER_CHARS, remote_players
from arena.sandbox import get_sandbox
from arena.sandbox.api import Sandbox
from arena.sandbox.epochs import deal_epoch
from arena.sandbox.meter import Meter
from arena.wire import codec_for, encode_observation
from arena.wire.conversation import SeatStart

log = logging.getLogger(__name__)

EventSink = Callable[[MatchEvent], None]

METER_POLL_MS = 20.0
"""CPU clock: the longest pause between two readings of a seat's meter while it thinks (a
quarter of the allowance when that is shorter)."""


def new_match_id(game_id: str) -> str:
    return f"{game_id}-{time.strftime('%Y%m%d-%H%M%S')}-{secrets.token_hex(3)}"


def recorded_answer(answer: str | None) -> str | None:
    """An answer that is no action of the game, as the log keeps it (at most ``ANSWER_CHARS``):
    each character ``plain_text`` would drop (an escape sequence's ESC, a C1 control, a bidi
    control) written as its Python escape (``\\x1b``). Dropping them instead could turn the
    answer into an action of the game (``discard Y5\\x07 deck``), which the log's replay would
    then take for a forgery."""
    if answer is None:
        return None
    shown = "".join(c if plain_text(c) else repr(c)[1:-1] for c in answer)
    return shown[:ANSWER_CHARS]


async def play_match(
    spec: MatchSpec,
    *,
    sandbox: str | Sandbox = "process",
    log_dir: Path,
    on_event: EventSink | None = None,
    socket_root: Path = Path("/tmp"),
) -> MatchResult:
    """Play one match between two sandboxed bots and return its result; raises only for bad
    specs (e.g. ``OptionsError``).

    The seats' sockets live in a fresh directory under ``socket_root`` (keep it short: a socket
    path must fit in 108 bytes), removed at the end whatever happens. The match runs inside the
    host's epoch (``arena.sandbox.epochs``): never beside, nor before a drain, another match of
    its deal; a host that cannot give it a place makes it void.
    """
    box = get_sandbox(sandbox) if isinstance(sandbox, str) else sandbox
    spec = dataclasses.replace(spec, match_id=spec.match_id or new_match_id(spec.game))
    match = Match(spec, sandbox_name=box.name, log_dir=log_dir, on_event=on_event)
    with remote_players(spec.bots, box, spec.match_id, socket_root) as players:
        return await match.run(players, deal_epoch(spec.seed, box.name))


class _CpuSpan:
    """A seat's CPU meter read from just before a decision is asked: what it used since."""

    def __init__(self, meter: Meter | None) -> None:
        self.meter = meter
        self.start_ns = None if meter is None else meter.cpu_ns()

    def used_ms(self) -> float | None:
        """CPU milliseconds since the start, rounded as logged; None without a meter."""
        if self.meter is None or self.start_ns is None:
            return None
        return round((self.meter.cpu_ns() - self.start_ns) / 1e6, 3)


REASON_CHARS = 200
"""The most of a game's reason for an illegal action that a result's detail quotes."""


def illegal_detail(game: Game[Any, Any, Any], state: Any, action: Any, text: str) -> str:
    """The detail of an ``illegal_action`` termination: the action's text and, when the game
    explains it (the optional ``explain_illegal(state, action)`` of the game protocol), why,
    e.g. ``illegal action 'discard Y4 draw Y': cannot draw from the pile just discarded onto``.
    A game's explanation that fails or is empty leaves just the action: the bot's fault stands
    whatever the explanation does (the rules said no through ``is_legal``)."""
    detail = f"illegal action {text!r}"
    reason = illegal_reason(game, state, action)
    return f"{detail}: {reason}" if reason else detail


def illegal_reason(game: Game[Any, Any, Any], state: Any, action: Any) -> str:
    """Why ``action`` is illegal in ``state`` as the game explains it (its optional
    ``explain_illegal``, which names only what the seat to move sees): one line of plain text
    of at most ``REASON_CHARS``; "" when the game has no explanation or its explanation
    fails."""
    explain = getattr(game, "explain_illegal", None)
    if explain is None:
        return ""
    try:
        reason = str(explain(state, action))
    except Exception:  # noqa: BLE001 — a game's faulty explanation must not void the forfeit
        log.exception("%s: explain_illegal failed for %r", game.id, action)
        return ""
    lines = plain_text(reason).strip().splitlines()
    return lines[0].strip()[:REASON_CHARS].rstrip() if lines else ""


def _cpu_detail(used_ms: float, allowance_ms: float) -> str:
    return f"used {used_ms:.0f} ms of CPU (limit {allowance_ms:.0f} ms)"


def _clock_fault(fault: Termination, clock: Clock, elapsed_ms: float, cpu_ms: float | None,
                 seat: int) -> BotFault:
    """The fault of an answer that came, but past what its clock allows (``clock`` not
    charged yet)."""
    if fault is Termination.WALL_TIMEOUT:
        return BotFault(fault, f"answered after {elapsed_ms:.0f} ms of wall time (guard "
                               f"{clock.guard_ms():.0f} ms)", seat)
    if clock.cpu and cpu_ms is not None:
        return BotFault(fault, _cpu_detail(cpu_ms, clock.allowance_ms()), seat)
    return BotFault(fault, f"answered after {elapsed_ms:.0f} ms (limit exceeded)", seat)


def _seat_stats(players: tuple[Player, Player]) -> tuple[SeatStats, SeatStats] | None:
    """What each seat's bot cost; None when neither seat has a bot process (in-process)."""
    stats = []
    for player in players:
        try:
            stats.append(player.seat_stats())
        except Exception:  # noqa: BLE001 — statistics must never cost the match its end
            log.exception("could not read the statistics of seat %d", player.seat)
            stats.append(SeatStats())
    if all(s is None for s in stats):
        return None
    return (stats[0] or SeatStats(), stats[1] or SeatStats())


class Match:
    """One match: the state, the clocks, the log; ``run`` plays it between two players."""

    def __init__(self, spec: MatchSpec, *, sandbox_name: str, log_dir: Path | None,
                 on_event: EventSink | None = None) -> None:
        """Deal the match (raises ``OptionsError`` for bad options). ``log_dir`` None: no log
        file, the events go to ``on_event`` only."""
        self.spec = spec
        self.game = get_game(spec.game)
        self.state = self.game.new_match(spec.seed, spec.options)  # OptionsError → caller
        self.options = self.game.options_of(self.state)
        # Warm the codec and the encoding path now, not inside the first decision's clock.
        codec_for(spec.game)
        encode_observation(spec.game, self.game.observation(self.state, 0)).SerializeToString()
        self.match_id = spec.match_id or new_match_id(spec.game)
        self.sandbox_name = sandbox_name
        self.log_path = None if log_dir is None else log_dir / f"{self.match_id}.jsonl"
        self.seed_salt = secrets.token_hex(SEED_SALT_HEX // 2)
        self.writer = None if self.log_path is None else MatchLogWriter(self.log_path, spec.seed)
        self.on_event = on_event
        self.time_control = spec.time_control
        """The time control played (the spec's; on the wall clock between in-process seats)."""
        self.clocks = seat_clocks(self.time_control, spec.humans)
        self.decisions = 0
        self.started = time.perf_counter()
        self.result: MatchResult | None = None
        """The result, once the match ended (also when it was cancelled)."""

    # --- events -------------------------------------------------------------------------
    def emit(self, event: MatchEvent) -> None:
        if self.writer is not None:
            self.writer.write(event)
        if self.on_event is not None:
            try:
                self.on_event(event)
            except Exception:  # noqa: BLE001 — a watcher must never break a match
                log.exception("event sink failed")

    def _header(self, players: tuple[Player, Player]) -> HeaderEvent:
        """The header, written once the bots started (or failed to): it records the image each
        bot actually runs."""
        bots = tuple(BotRecord(b.name, b.version, b.digest, p.image() or b.image)
                     for b, p in zip(self.spec.bots, players, strict=True))
        return HeaderEvent(
            match_id=self.match_id,
            game=self.game.id,
            game_version=self.game.version,
            options=self.options,
            seed=self.spec.seed,
            bots=(bots[0], bots[1]),
            time_control=self.time_control,
            sandbox=self.sandbox_name,
            arena_version=arena.__version__,
            started_at=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            log_format=LOG_FORMAT,
            seed_commitment=seed_commitment(self.spec.seed, self.seed_salt),
            slot=self.spec.slot,
            humans=self.spec.humans,
        )

    def _deal(self) -> None:
        self.emit(DealEvent(self.game.round_index(self.state), self.game.deal_record(self.state)))

    # --- the match ----------------------------------------------------------------------
    async def run(self, players: tuple[Player, Player],
                  turn: contextlib.AbstractAsyncContextManager[None] | None = None
                  ) -> MatchResult:
        """Play the match to its end between ``players`` (seat order) and return the result.
        ``turn`` is entered before the bots start and left once they are stopped (the host's
        epoch: ``arena.sandbox.epochs``); a ``SandboxError`` entering it makes the match void."""
        termination, faulty, detail = Termination.NORMAL, None, ""
        async with contextlib.AsyncExitStack() as stack:
            try:
                try:
                    if turn is not None:
                        await stack.enter_async_context(turn)
                        self.started = time.perf_counter()  # the wait is not the match's
                    await self._connect(players)
                finally:  # header and deal first in the log, whatever happened at the start
                    self._settle_clock(players)
                    self.emit(self._header(players))
                    self._deal()
                await asyncio.gather(*(p.start(self._seat_start(p.seat)) for p in players))
                await self._play(players)
            except BotFault as fault:
                termination, faulty, detail = fault.termination, fault.seat, fault.detail
            except SandboxError as exc:
                termination, detail = Termination.INTERNAL, f"sandbox failure: {exc}"
            except asyncio.CancelledError:
                await self._finish(players, Termination.CANCELLED, None,
                                   "the match was cancelled")
                raise
            except Exception as exc:  # noqa: BLE001 — the referee itself failed: void, not a loss
                log.exception("internal referee failure in %s", self.match_id)
                termination = Termination.INTERNAL
                detail = f"internal error: {exc!r}\n{traceback.format_exc(limit=5)}"
            return await self._finish(players, termination, faulty, detail)

    async def _connect(self, players: tuple[Player, Player]) -> None:
        """Start both seats at once; a fault of both is nobody's win (void)."""
        deadline = self.spec.time_control.startup_ms / 1000
        results = await asyncio.gather(*(p.connect(deadline) for p in players),
                                       return_exceptions=True)
        faults = [r for r in results if isinstance(r, BotFault)]
        for r in results:
            if isinstance(r, BaseException) and not isinstance(r, BotFault):
                raise r
        if len(faults) == 2:
            raise BotFault(
                faults[0].termination,
                f"both bots failed to start: {faults[0].detail}; {faults[1].detail}",
            )
        if faults:
            raise faults[0]

    def _settle_clock(self, players: tuple[Player, Player]) -> None:
        """In-process seats (``play_local``, tests) have no sandbox to meter: a CPU-clock match
        between them is played, and its header recorded, on the wall clock. A sandboxed seat
        without a meter is the sandbox's failure instead (``RemotePlayer.start``: void)."""
        if self.time_control.clock == "cpu" and all(
                getattr(p, "in_process", False) for p in players):
            self.time_control = dataclasses.replace(self.time_control, clock="wall")
            self.clocks = seat_clocks(self.time_control, self.spec.humans)

    def _seat_start(self, seat: int) -> SeatStart:
        bots = self.spec.bots
        return SeatStart(
            match_id=self.match_id, game=self.game.id, game_version=self.game.version,
            options=self.options, seat=seat, time_control=self.time_control,
            bot_names=(bots[0].name, bots[1].name),
        )

    async def _play(self, players: tuple[Player, Player]) -> None:
        game = self.game
        while (seat := game.to_move(self.state)) is not None:
            action, text, elapsed_ms, cpu_ms = await self._decide(players[seat], seat)
            round_index = game.round_index(self.state)
            rounds_before = len(game.finished_rounds(self.state))
            self.state = game.apply(self.state, action)
            self.emit(DecisionEvent(self.decisions, round_index, seat, text, elapsed_ms,
                                    cpu_ms=cpu_ms))
            finished = game.finished_rounds(self.state)
            if len(finished) > rounds_before:
                await self._round_end(players, rounds_before, finished)

    async def _decide(self, player: Player,
                      seat: int) -> tuple[Any, str, float, float | None]:
        """Ask ``player`` for its decision and charge its clock: the action, its text, the
        wall time and the CPU time (None without a meter) of the decision. A fault is recorded
        as the decision that earned it and raised (``BotFault``)."""
        game = self.game
        self.decisions += 1
        legal = tuple(game.legal_actions(self.state))
        clock = self.clocks[seat]
        request = DecisionRequest(
            decision_id=self.decisions,
            round=game.round_index(self.state),
            observation=game.observation(self.state, seat),
            legal_actions=legal,
            legal_texts=legal_texts_of(game, self.state, legal),
            time_left_ms=int(clock.allowance_ms()),
            time_bank_ms=int(clock.bank_ms),
            explain=functools.partial(illegal_reason, game, self.state),
        )
        meter = player.meter
        cpu = _CpuSpan(meter)
        started = time.perf_counter()
        text: str | None = None
        try:
            await player.ask(request)
            started = time.perf_counter()
            action = await self._answer(player, clock, cpu)
            # rounded as logged, so a replay re-runs the clocks exactly
            elapsed_ms = round((time.perf_counter() - started) * 1000, 3)
            cpu_ms = cpu.used_ms()
            text = game.format_action(action)
            fault = clock.verdict(elapsed_ms, cpu_ms)
            if fault is not None:
                raise _clock_fault(fault, clock, elapsed_ms, cpu_ms, seat)
            clock.charge(elapsed_ms, cpu_ms)
            if not game.is_legal(self.state, action):
                raise BotFault(Termination.ILLEGAL_ACTION,
                               illegal_detail(game, self.state, action, text), seat)
        except asyncio.CancelledError:  # asked, never answered: not a decision of the log
            self.decisions -= 1
            raise
        except BotFault as fault:  # the forfeiting decision is recorded like any other
            elapsed_ms = round((time.perf_counter() - started) * 1000, 3)
            answer = text if text is not None else recorded_answer(fault.answer)
            self.emit(DecisionEvent(self.decisions, request.round, seat, answer, elapsed_ms,
                                    fault.termination, cpu.used_ms()))
            raise
        return action, text, elapsed_ms, cpu_ms

    async def _answer(self, player: Player, clock: Clock, cpu: _CpuSpan) -> Any:
        """The seat's answer, waited for as its clock says: the allowance (wall clock), or the
        guard while the meter is polled (CPU clock: a bot over its allowance in CPU is a
        ``timeout`` as soon as a reading shows it; no answer by the guard a ``wall_timeout``)."""
        if not clock.cpu or cpu.meter is None:
            return await player.answer(clock.allowance_ms() / 1000)
        allowance, guard = clock.allowance_ms(), clock.guard_ms()

        def over() -> BotFault | None:
            used = cpu.used_ms()
            if used is not None and used > allowance:
                return BotFault(Termination.TIMEOUT, _cpu_detail(used, allowance), player.seat)
            return None

        try:
            return await player.answer(guard / 1000, over,
                                       min(allowance / 4, METER_POLL_MS) / 1000)
        except BotFault as fault:
            if fault.termination is not Termination.TIMEOUT:
                raise
            used = cpu.used_ms()
            if used is not None and used > allowance:
                raise BotFault(Termination.TIMEOUT, _cpu_detail(used, allowance),
                               player.seat) from None
            raise BotFault(Termination.WALL_TIMEOUT,
                           f"no answer after {guard:.0f} ms of wall time (guard: "
                           f"{clock.control.wall_guard:g} × allowance of {allowance:.0f} ms)",
                           player.seat) from None

    async def _round_end(self, players: tuple[Player, Player], round_index: int,
                         finished: tuple[tuple[int, int], ...]) -> None:
        scores = finished[round_index]
        totals = totals_of(finished)
        summary = self.game.round_summary(self.state, round_index)
        self.emit(RoundEndEvent(round_index, scores, totals, summary))
        for player in players:
            await player.round_end(round_index, scores, totals)
        if self.game.to_move(self.state) is not None:
            self._deal()

    # --- the end ------------------------------------------------------------------------
    async def _finish(self, players: tuple[Player, Player], termination: Termination,
                      faulty: int | None, detail: str) -> MatchResult:
        result = self.result = self._result(termination, faulty, detail)
        stats = None
        try:
            for player in players:
                await player.finish(result)
        finally:
            stats = _seat_stats(players)  # before the bots stop: their meters still count
            await asyncio.gather(*(p.close() for p in players))
        logs = self._save_bot_logs(players)
        self.emit(MatchEndEvent(result, logs, self.seed_salt, stats))
        if self.writer is not None:
            self.writer.close()
        return result

    def _result(self, termination: Termination, faulty: int | None, detail: str) -> MatchResult:
        finished = self.game.finished_rounds(self.state)
        totals = totals_of(finished)
        outcome = self.game.outcome(self.state)
        if termination is Termination.NORMAL and outcome is not None:
            winner = outcome.winner
            totals = outcome.totals
        elif termination.is_fault and faulty is not None:
            winner = 1 - faulty
        else:
            winner = None
        return MatchResult(
            match_id=self.match_id,
            game=self.game.id,
            game_version=self.game.version,
            seed=self.spec.seed,
            options=self.options,
            bots=(self.spec.bots[0].name, self.spec.bots[1].name),
            rounds=finished,
            totals=totals,
            winner=winner,
            termination=termination,
            faulty_seat=faulty,
            detail=plain_text(detail),
            log=None if self.log_path is None else str(self.log_path),
            duration_s=time.perf_counter() - self.started,
            decisions=self.decisions,
        )

    def _save_bot_logs(self, players: tuple[Player, Player]) -> tuple[str | None, str | None]:
        paths: list[str | None] = []
        for player in players:
            tail = player.log_tail()
            if tail is None or self.log_path is None:
                paths.append(None)
                continue
            path = seat_log_path(self.log_path, player.seat)
            try:
                with contextlib.suppress(FileNotFoundError):
                    path.unlink()  # an earlier attempt of the same match id
                with open_private(path) as handle:
                    handle.write(plain_text(tail))
                paths.append(str(path))
            except OSError:
                paths.append(None)
        return (paths[0], paths[1])
