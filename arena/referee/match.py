"""The referee's match loop: one match between two sandboxed bots over arena.v1.

Bot input never raises out of here: every fault becomes a named termination in the result (the
faulting seat forfeits), arena failures make the match void (``internal``), and the bots are always
stopped and their socket directory removed.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import secrets
import shutil
import tempfile
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import arena
from arena.errors import BotFault, InvalidActionError, SandboxError
from arena.games import get_game
from arena.games.api import totals_of
from arena.model import MatchResult, MatchSpec, Termination
from arena.referee.clock import Clock
from arena.referee.log import MatchLogWriter
from arena.referee.seat import MAX_BOT_MESSAGE_BYTES, SeatEndpoint, StreamClosed
from arena.sandbox import get_sandbox
from arena.sandbox.api import ExitInfo, RunningBot, Sandbox
from arena.v1 import bot_pb2
from arena.wire import codec_for, decode_action, encode_observation

log = logging.getLogger(__name__)

EventSink = Callable[[dict[str, Any]], None]
EXIT_GRACE_S = 1.0
"""How long bots get to exit on their own after the match end before they are killed."""
MATCH_START_SETTLE_S = 0.01
"""Pause between MatchStart and the first DecisionRequest: both bots read MatchStart at the same
moment, and without it the first decision's clock also paid for that (0.8-2.9 ms measured)."""
CLOSE_CLASSIFY_S = 1.0
"""After a stream closes, how long to wait for the bot's exit to tell a crash from the rest."""

_TERMINATION_PB = {t: bot_pb2.Termination.Value(f"TERMINATION_{t.name}") for t in Termination}


@dataclass
class _SeatFault(Exception):
    seat: int
    termination: Termination
    detail: str


def new_match_id(game_id: str) -> str:
    return f"{game_id}-{time.strftime('%Y%m%d-%H%M%S')}-{secrets.token_hex(3)}"


async def play_match(
    spec: MatchSpec,
    *,
    sandbox: str | Sandbox = "process",
    log_dir: Path,
    on_event: EventSink | None = None,
    socket_root: Path = Path("/tmp"),
) -> MatchResult:
    """Play one match and return its result; raises only for bad specs (e.g. ``OptionsError``).

    The seats' sockets live in a fresh directory under ``socket_root`` (keep it short: a socket
    path must fit in 108 bytes), removed at the end whatever happens.
    """
    box = get_sandbox(sandbox) if isinstance(sandbox, str) else sandbox
    sweep_stale_socket_dirs(socket_root)
    runner = _Match(spec, box, log_dir, on_event)
    return await runner.run(socket_root)


_swept: set[Path] = set()


def sweep_stale_socket_dirs(root: Path) -> None:
    """Once per process and root: remove the socket directories of referees that died without
    cleaning up (``arena-<pid>-*`` whose pid is gone, e.g. after ``kill -9``)."""
    if root in _swept:
        return
    _swept.add(root)
    for path in root.glob("arena-*-*"):
        pid_text = path.name.split("-")[1]
        if not pid_text.isdigit() or int(pid_text) == os.getpid():
            continue
        try:
            os.kill(int(pid_text), 0)
        except ProcessLookupError:
            shutil.rmtree(path, ignore_errors=True)
        except PermissionError:  # alive, someone else's
            continue


class _Match:
    def __init__(
        self, spec: MatchSpec, sandbox: Sandbox, log_dir: Path, on_event: EventSink | None
    ) -> None:
        self.spec = spec
        self.game = get_game(spec.game)
        self.state = self.game.new_match(spec.seed, spec.options)  # OptionsError → caller
        self.options = self.game.options_of(self.state)
        # Warm the codec and the encoding path now, not inside the first decision's clock.
        codec_for(spec.game)
        encode_observation(spec.game, self.game.observation(self.state, 0)).SerializeToString()
        self.match_id = spec.match_id or new_match_id(spec.game)
        self.sandbox = sandbox
        self.log_path = log_dir / f"{self.match_id}.jsonl"
        self.writer = MatchLogWriter(self.log_path)
        self.on_event = on_event
        tc = spec.time_control
        self.clocks = [Clock(tc.move_time_ms, float(tc.time_bank_ms)) for _ in range(2)]
        self.endpoints: list[SeatEndpoint] = []
        self.bots: list[RunningBot | None] = [None, None]
        self.exits: list[asyncio.Future[ExitInfo] | None] = [None, None]
        self.decisions = 0
        self.started = time.perf_counter()

    # --- events -------------------------------------------------------------------------
    def emit(self, event: dict[str, Any]) -> None:
        self.writer.write(event)
        if self.on_event is not None:
            try:
                self.on_event(event)
            except Exception:  # noqa: BLE001 — a watcher must never break a match
                log.exception("event sink failed")

    def _header(self) -> dict[str, Any]:
        tc = self.spec.time_control
        return {
            "type": "header",
            "match_id": self.match_id,
            "game": self.game.id,
            "game_version": self.game.version,
            "options": self.options,
            "seed": self.spec.seed,
            "bots": [
                {"name": b.name, "version": b.version, "digest": b.digest, "image": b.image}
                for b in self.spec.bots
            ],
            "time_control": {
                "move_time_ms": tc.move_time_ms,
                "time_bank_ms": tc.time_bank_ms,
                "startup_ms": tc.startup_ms,
            },
            "sandbox": self.sandbox.name,
            "arena_version": arena.__version__,
            "started_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        }

    def _deal(self) -> None:
        round_index = self.game.round_index(self.state)
        deal = self.game.deal_record(self.state)
        self.emit({"type": "deal", "round": round_index, "deal": deal})

    # --- the match ----------------------------------------------------------------------
    async def run(self, socket_root: Path) -> MatchResult:
        self.emit(self._header())
        self._deal()
        tmp = Path(tempfile.mkdtemp(prefix=f"arena-{os.getpid()}-", dir=socket_root))
        termination, faulty, detail = Termination.NORMAL, None, ""
        try:
            await self._start_seats(tmp)
            await self._handshake()
            await self._broadcast_start()
            await asyncio.sleep(MATCH_START_SETTLE_S)
            await self._play()
        except _SeatFault as fault:
            termination, faulty, detail = fault.termination, fault.seat, fault.detail
        except _BothFaulted as both:
            termination, faulty, detail = both.termination, None, both.detail
        except SandboxError as exc:
            termination, detail = Termination.INTERNAL, f"sandbox failure: {exc}"
        except asyncio.CancelledError:
            termination, detail = Termination.CANCELLED, "the match was cancelled"
            await self._finish(tmp, termination, faulty, detail)
            raise
        except Exception as exc:  # noqa: BLE001 — the referee itself failed: void, never a loss
            log.exception("internal referee failure in %s", self.match_id)
            termination = Termination.INTERNAL
            detail = f"internal error: {exc!r}\n{traceback.format_exc(limit=5)}"
        return await self._finish(tmp, termination, faulty, detail)

    async def _start_seats(self, tmp: Path) -> None:
        for seat in (0, 1):
            endpoint = SeatEndpoint(tmp / f"s{seat}")
            await endpoint.start()
            self.endpoints.append(endpoint)
        for seat, bot in enumerate(self.spec.bots):
            try:
                running = await self.sandbox.start(
                    bot, self.endpoints[seat].socket_dir, self.match_id, seat
                )
            except BotFault as fault:
                raise _SeatFault(seat, Termination(fault.termination), fault.detail) from None
            self.bots[seat] = running
            self.exits[seat] = asyncio.ensure_future(running.wait())

    async def _handshake(self) -> None:
        deadline = self.spec.time_control.startup_ms / 1000
        results = await asyncio.gather(
            self._hello(0, deadline), self._hello(1, deadline), return_exceptions=True
        )
        faults = [r for r in results if isinstance(r, _SeatFault)]
        for r in results:
            if isinstance(r, BaseException) and not isinstance(r, _SeatFault):
                raise r
        if len(faults) == 2:
            raise _BothFaulted(
                faults[0].termination,
                f"both bots failed to start: {faults[0].detail}; {faults[1].detail}",
            )
        if faults:
            raise faults[0]

    async def _hello(self, seat: int, deadline: float) -> None:
        exit_future = self.exits[seat]
        assert exit_future is not None
        first = asyncio.ensure_future(self.endpoints[seat].servicer.inbox.get())
        waiters: set[asyncio.Future[Any]] = {first, exit_future}
        done, _ = await asyncio.wait(
            waiters, timeout=deadline, return_when=asyncio.FIRST_COMPLETED
        )
        if first not in done:
            first.cancel()
            if exit_future in done:
                info = exit_future.result()
                if info.sandbox_error:
                    raise SandboxError(f"seat {seat}: {info.sandbox_error}")
                raise _SeatFault(
                    seat, Termination.NO_START, f"{info.describe()} before connecting"
                    + self._last_words(seat)
                )
            raise _SeatFault(
                seat, Termination.NO_START, f"did not connect within {deadline * 1000:.0f} ms"
            )
        message = first.result()
        if isinstance(message, StreamClosed):
            raise await self._closed_fault(seat, message)
        if message.ByteSize() > MAX_BOT_MESSAGE_BYTES:
            raise _SeatFault(seat, Termination.OVERSIZED_MESSAGE,
                             f"Hello of {message.ByteSize()} bytes (limit {MAX_BOT_MESSAGE_BYTES})")
        if message.WhichOneof("kind") != "hello":
            raise _SeatFault(seat, Termination.PROTOCOL_VIOLATION, "first message was not Hello")
        if message.hello.protocol_version != arena.PROTOCOL_VERSION:
            raise _SeatFault(
                seat,
                Termination.PROTOCOL_VIOLATION,
                f"speaks protocol version {message.hello.protocol_version}, "
                f"the arena speaks {arena.PROTOCOL_VERSION}",
            )

    async def _broadcast_start(self) -> None:
        tc = self.spec.time_control
        for seat in (0, 1):
            start = bot_pb2.MatchStart(
                match_id=self.match_id,
                game=self.game.id,
                game_version=self.game.version,
                options={k: _option_text(v) for k, v in self.options.items()},
                seat=seat,
                time_control=bot_pb2.TimeControl(
                    move_time_ms=tc.move_time_ms,
                    time_bank_ms=tc.time_bank_ms,
                    startup_ms=tc.startup_ms,
                ),
                protocol_version=arena.PROTOCOL_VERSION,
                bot_names=[b.name for b in self.spec.bots],
            )
            await self.endpoints[seat].send(bot_pb2.RefereeMessage(match_start=start))

    async def _play(self) -> None:
        game = self.game
        while (seat := game.to_move(self.state)) is not None:
            self._check_quiet(seat)
            action, text, elapsed_ms = await self._decide(seat)
            round_index = game.round_index(self.state)
            rounds_before = len(game.finished_rounds(self.state))
            self.state = game.apply(self.state, action)
            self.emit(
                {
                    "type": "decision",
                    "n": self.decisions,
                    "round": round_index,
                    "seat": seat,
                    "action": text,
                    "ms": round(elapsed_ms, 3),
                }
            )
            finished = game.finished_rounds(self.state)
            if len(finished) > rounds_before:
                await self._round_end(rounds_before, finished)

    def _check_quiet(self, seat: int) -> None:
        """A seat may only send when asked; anything queued out of turn is a violation."""
        inbox = self.endpoints[seat].servicer.inbox
        if not inbox.empty():
            message = inbox.get_nowait()
            if not isinstance(message, StreamClosed):
                raise _SeatFault(seat, Termination.PROTOCOL_VIOLATION, "sent a message out of turn")
            inbox.put_nowait(message)  # classified when the answer is awaited

    async def _decide(self, seat: int) -> tuple[Any, str, float]:
        game = self.game
        self.decisions += 1
        legal = game.legal_actions(self.state)
        clock = self.clocks[seat]
        request = bot_pb2.DecisionRequest(
            decision_id=self.decisions,
            round=game.round_index(self.state),
            observation=encode_observation(game.id, game.observation(self.state, seat)),
            legal_actions=[game.format_action(a) for a in legal],
            time_left_ms=int(clock.allowance_ms()),
            time_bank_ms=int(clock.bank_ms),
        )
        started = time.perf_counter()
        await self.endpoints[seat].send(bot_pb2.RefereeMessage(decision=request))
        message = await self._receive(seat, clock.allowance_ms() / 1000)
        elapsed_ms = (time.perf_counter() - started) * 1000
        if not clock.charge(elapsed_ms):
            raise _SeatFault(
                seat, Termination.TIMEOUT, f"answered after {elapsed_ms:.0f} ms (limit exceeded)"
            )
        action, text = self._read_action(seat, message)
        if not game.is_legal(self.state, action):
            raise _SeatFault(seat, Termination.ILLEGAL_ACTION, f"illegal action {text!r}")
        return action, text, elapsed_ms

    async def _receive(self, seat: int, timeout: float) -> bot_pb2.BotMessage:
        exit_future = self.exits[seat]
        assert exit_future is not None
        getter = asyncio.ensure_future(self.endpoints[seat].servicer.inbox.get())
        waiters: set[asyncio.Future[Any]] = {getter, exit_future}
        done, _ = await asyncio.wait(
            waiters, timeout=max(timeout, 0.0), return_when=asyncio.FIRST_COMPLETED
        )
        if getter in done:
            message = getter.result()
            if isinstance(message, StreamClosed):
                raise await self._closed_fault(seat, message)
            return message
        getter.cancel()
        if exit_future in done:
            raise self._exit_fault(seat, exit_future.result())
        raise _SeatFault(
            seat, Termination.TIMEOUT, f"no answer within {timeout * 1000:.0f} ms"
        )

    def _read_action(self, seat: int, message: bot_pb2.BotMessage) -> tuple[Any, str]:
        if message.ByteSize() > MAX_BOT_MESSAGE_BYTES:
            raise _SeatFault(
                seat,
                Termination.OVERSIZED_MESSAGE,
                f"sent {message.ByteSize()} bytes (limit {MAX_BOT_MESSAGE_BYTES})",
            )
        if message.WhichOneof("kind") != "decision":
            raise _SeatFault(seat, Termination.PROTOCOL_VIOLATION, "expected a DecisionResponse")
        response = message.decision
        if response.decision_id != self.decisions:
            raise _SeatFault(
                seat,
                Termination.PROTOCOL_VIOLATION,
                f"answered decision {response.decision_id}, expected {self.decisions}",
            )
        try:
            if response.WhichOneof("choice") == "action":
                action = decode_action(self.game.id, response.action)
            elif response.WhichOneof("choice") == "action_text":
                action = self.game.parse_action(response.action_text)
            else:
                raise InvalidActionError("the response holds no action")
        except InvalidActionError as exc:
            raise _SeatFault(seat, Termination.INVALID_ACTION, str(exc)) from None
        except Exception as exc:  # noqa: BLE001 — any decoding failure is the bot's
            raise _SeatFault(
                seat, Termination.INVALID_ACTION, f"undecodable action: {exc}"
            ) from None
        return action, self.game.format_action(action)

    async def _closed_fault(self, seat: int, closed: StreamClosed) -> _SeatFault:
        exit_future = self.exits[seat]
        if exit_future is not None:
            with contextlib.suppress(asyncio.TimeoutError):
                info = await asyncio.wait_for(asyncio.shield(exit_future), CLOSE_CLASSIFY_S)
                return self._exit_fault(seat, info)
        text = closed.reason.lower()
        if "larger than max" in text or "message too large" in text or (
            closed.code is not None and closed.code.name == "RESOURCE_EXHAUSTED"
        ):
            return _SeatFault(seat, Termination.OVERSIZED_MESSAGE, closed.reason)
        if "error parsing message" in text:  # protobuf's words for bytes that do not decode
            return _SeatFault(
                seat,
                Termination.PROTOCOL_VIOLATION,
                f"sent bytes that are not an arena.v1 BotMessage ({closed.reason})",
            )
        return _SeatFault(
            seat,
            Termination.PROTOCOL_VIOLATION,
            f"its stream ended before the match did ({closed.reason}); messages over "
            f"{MAX_BOT_MESSAGE_BYTES} bytes also end it",
        )

    def _exit_fault(self, seat: int, info: ExitInfo) -> _SeatFault:
        if info.sandbox_error:  # not the bot's doing: the match is void (internal)
            raise SandboxError(f"seat {seat}: {info.sandbox_error}")
        if info.oom_killed:
            return _SeatFault(seat, Termination.MEMORY, info.describe())
        return _SeatFault(seat, Termination.CRASH, info.describe() + self._last_words(seat))

    def _last_words(self, seat: int) -> str:
        bot = self.bots[seat]
        if bot is None:
            return ""
        lines = [line for line in bot.log_tail().splitlines() if line.strip()]
        return f"; last output: {lines[-1][:300]}" if lines else ""

    async def _round_end(self, round_index: int, finished: tuple[tuple[int, int], ...]) -> None:
        scores = finished[round_index]
        totals = totals_of(finished)
        self.emit(
            {"type": "round_end", "round": round_index, "scores": list(scores),
             "totals": list(totals)}
        )
        end = bot_pb2.RoundEnd(round=round_index, scores=scores, totals=totals)
        for endpoint in self.endpoints:
            await endpoint.send(bot_pb2.RefereeMessage(round_end=end))
        if self.game.to_move(self.state) is not None:
            self._deal()

    # --- the end ------------------------------------------------------------------------
    async def _finish(
        self, tmp: Path, termination: Termination, faulty: int | None, detail: str
    ) -> MatchResult:
        result = self._result(termination, faulty, detail)
        try:
            await self._send_match_end(result)
            await self._stop_bots()
        finally:
            for endpoint in self.endpoints:
                await endpoint.close()
            shutil.rmtree(tmp, ignore_errors=True)
        logs = self._save_bot_logs()
        self.emit({"type": "match_end", "result": result.to_json(), "bot_logs": logs})
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
            detail=detail,
            log=str(self.log_path),
            duration_s=time.perf_counter() - self.started,
            decisions=self.decisions,
        )

    async def _send_match_end(self, result: MatchResult) -> None:
        for seat, endpoint in enumerate(self.endpoints):
            if result.void:
                outcome = bot_pb2.MATCH_RESULT_VOID
            elif result.winner is None:
                outcome = bot_pb2.MATCH_RESULT_DRAW
            elif result.winner == seat:
                outcome = bot_pb2.MATCH_RESULT_WIN
            else:
                outcome = bot_pb2.MATCH_RESULT_LOSS
            end = bot_pb2.MatchEnd(
                result=outcome,
                termination=_TERMINATION_PB[result.termination],
                totals=result.totals,
                faulty_seat=-1 if result.faulty_seat is None else result.faulty_seat,
                detail=result.detail[:1000],
            )
            await endpoint.send(bot_pb2.RefereeMessage(match_end=end))
            await endpoint.servicer.outbox.put(None)  # close the stream after the end

    async def _stop_bots(self) -> None:
        pending = [f for f in self.exits if f is not None and not f.done()]
        if pending:
            await asyncio.wait(pending, timeout=EXIT_GRACE_S)
        for bot in self.bots:
            if bot is not None:
                try:
                    await bot.stop()
                except Exception:  # noqa: BLE001 — stopping must go on for the other seat
                    log.exception("could not stop a bot of %s", self.match_id)

    def _save_bot_logs(self) -> list[str | None]:
        paths: list[str | None] = []
        for seat, bot in enumerate(self.bots):
            if bot is None:
                paths.append(None)
                continue
            path = self.log_path.with_name(f"{self.match_id}.seat{seat}.log")
            try:
                path.write_text(bot.log_tail(), encoding="utf-8")
                paths.append(str(path))
            except OSError:
                paths.append(None)
        return paths


@dataclass
class _BothFaulted(Exception):
    termination: Termination
    detail: str


def _option_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)
