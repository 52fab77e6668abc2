"""A sandboxed bot as a ``Player``: its seat's gRPC endpoint, the arena.v1 framing, the bot's
lifecycle in a sandbox, and the mapping of what the bot did to a termination.

What goes wrong on a remote seat, and what it becomes:

* the bot exits or is killed before it connects → ``no_start`` (with its last output line, and
  what its sandbox hides from it: ``startup_note``);
* no Hello within the startup time → ``no_start``;
* a first message that is not Hello, or the wrong protocol version → ``protocol_violation``;
* a message over ``MAX_BOT_MESSAGE_BYTES`` → ``oversized_message``;
* bytes that are no ``BotMessage``, a message out of turn, a wrong decision id, a stream that
  ends early → ``protocol_violation``;
* an action that does not decode or parse → ``invalid_action``;
* the bot exits during the match → ``crash`` (``memory`` when the kernel killed it for memory;
  before its first answer, with ``startup_note`` too);
* no answer within the time the loop waits → ``timeout``, or ``memory`` when the sandbox was at
  its memory limit meanwhile (``classify_silence``) (the loop names a timeout: on the CPU clock
  the wait is the wall guard, and the loop makes it ``wall_timeout``), also when the request
  could not even be written (the bot left gRPC's flow-control window unread);
* a match start or round end that cannot be written for ``SEND_LIMIT_S`` (the bot stopped
  reading its stream) → ``protocol_violation``;
* the sandbox itself fails → ``SandboxError`` (the match is void, nobody's fault).

The seat exposes its sandbox's CPU meter (``meter``) and what the bot cost (``seat_stats``:
start-up time from starting the sandbox to the Hello, the sandbox's CPU and peak memory).

The pure classification of a closed stream (``classify_closed``), of an exit
(``classify_exit``) and of silence (``classify_silence``) is separate from the I/O, so it is
tested without starting anything.
"""

from __future__ import annotations

import asyncio
import compileall
import contextlib
import functools
import logging
import os
import shutil
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import arena
from arena.errors import BotFault, InvalidActionError, SandboxError
from arena.games import get_game
from arena.games.api import Game
from arena.model import BotSpec, MatchResult, SeatStats, Termination, label_problem
from arena.referee.player import DecisionRequest, Overrun
from arena.referee.seat import (
    MAX_BOT_MESSAGE_BYTES,
    SeatEndpoint,
    StreamClosed,
    raise_open_files_limit,
)
from arena.sandbox.api import ExitInfo, Limits, RunningBot, Sandbox
from arena.sandbox.isolation import HIDDEN_ALWAYS, isolation_available
from arena.sandbox.meter import Meter
from arena.v1 import bot_pb2
from arena.wire import ObservationEncoder, conversation, decode_action
from arena.wire.conversation import SeatStart
from arena.wire.legal import fill_legal_actions

log = logging.getLogger(__name__)

EXIT_GRACE_S = 1.0
"""How long a bot gets to exit on its own after the match end before it is killed."""
MATCH_START_SETTLE_S = 0.01
"""Pause after MatchStart before the first DecisionRequest: both bots read MatchStart at the same
moment, and without it the first decision's clock also paid for that (0.8-2.9 ms measured)."""
CLOSE_CLASSIFY_S = 5.0
"""After a stream closes, how long to wait for the bot's exit to tell a crash (or the memory
limit) from the rest. Generous: a container's exit reaches the referee through containerd, the
engine and a waiter thread, which took over 1 s on a loaded 2-core machine (an OOM-killed bot
was then called a protocol violation); only a bot that closes its stream and stays alive waits
it out, and that match is lost anyway."""
SEND_LIMIT_S = 10.0
"""How long a message no clock waits for (the match start, a round's end) may wait for the bot
to read its stream: gRPC's flow control holds a write while the bot has left about its window
(64 kB and up) unread, which only a bot that stopped reading does."""
FINISH_SEND_S = 1.0
"""How long the match end waits to be sent (the result stands whatever the bot does)."""

ANSWER_CHARS = 200
"""How much of an invalid answer's text is kept in the log (a bot controls it)."""

SANDBOX_SECTION = '"Only your bot directory" in docs/bots.md'
"""Where a bot author reads what a sandbox shows a bot (named in ``startup_note``)."""


def classify_exit(info: ExitInfo, last_words: str = "") -> BotFault:
    """The fault of a bot that exited during the match (``SandboxError`` when the sandbox, not
    the bot, failed)."""
    if info.sandbox_error:
        raise SandboxError(info.sandbox_error)
    if info.oom_killed:
        return BotFault(Termination.MEMORY, info.describe())
    return BotFault(Termination.CRASH, info.describe() + last_words)


MIB = 1 << 20
AT_MEMORY_LIMIT = 0.97
"""A sandbox whose peak memory reached this share of its limit was at the limit."""


def classify_silence(timeout_s: float, peak_bytes: int | None,
                     limit_mb: int | None) -> BotFault:
    """The fault of a bot that gave no answer in time: ``timeout``, or ``memory`` when its
    sandbox was at its memory limit meanwhile (a bot that allocates past its limit is usually
    killed at once, but under memory pressure the kernel may first spend seconds reclaiming
    what it can before it kills: the bot then misses its deadline for want of memory)."""
    waited = f"no answer within {timeout_s * 1000:.0f} ms"
    if peak_bytes is not None and limit_mb and peak_bytes >= AT_MEMORY_LIMIT * limit_mb * MIB:
        return BotFault(Termination.MEMORY, f"{waited}: it reached its memory limit "
                        f"({peak_bytes / MIB:.0f} MiB of {limit_mb} MiB)")
    return BotFault(Termination.TIMEOUT, waited)


def startup_note(sandbox: str, info: ExitInfo) -> str:
    """For the detail of a bot that died starting (before its Hello or its first answer): what
    the sandbox ``sandbox`` (its name) hides from it, since a file outside its directory is the
    usual cause and the bot's own error seldom says so (an import shim looking for a sibling
    directory under /tmp dies of a RecursionError). Empty when the arena or the memory limit
    ended it, or for a sandbox it knows nothing of."""
    if info.killed_by_arena or info.oom_killed or info.sandbox_error:
        return ""
    if sandbox == "docker":
        hides = "a container holds only the bot's image (its directory at /bot) and an empty /tmp"
    elif sandbox == "process" and isolation_available():
        hides = (f"the process sandbox hides {', '.join(HIDDEN_ALWAYS)} and closed directories "
                 "(e.g. /root) from bots")
    elif sandbox == "process":
        hides = "a bot gets only PATH, LANG, a scratch HOME and the arena's PYTHONPATH"
    else:
        return ""
    return f"; {hides}: see {SANDBOX_SECTION}"


def classify_closed(closed: StreamClosed) -> BotFault:
    """The fault of a bot whose stream ended while it was still running (or whose exit was not
    seen in time): gRPC's status says whether a message was too large or did not decode."""
    text = closed.reason.lower()
    if "larger than max" in text or "message too large" in text or (
        closed.code is not None and closed.code.name == "RESOURCE_EXHAUSTED"
    ):
        return BotFault(Termination.OVERSIZED_MESSAGE, closed.reason)
    if "error parsing message" in text:  # protobuf's words for bytes that do not decode
        return BotFault(
            Termination.PROTOCOL_VIOLATION,
            f"sent bytes that are not an arena.v1 BotMessage ({closed.reason})",
        )
    return BotFault(
        Termination.PROTOCOL_VIOLATION,
        f"its stream ended before the match did ({closed.reason})",
    )


def read_hello(message: bot_pb2.BotMessage) -> None:
    """Check a bot's first message; ``BotFault`` when it is not a valid Hello."""
    if message.ByteSize() > MAX_BOT_MESSAGE_BYTES:
        raise BotFault(Termination.OVERSIZED_MESSAGE,
                       f"Hello of {message.ByteSize()} bytes (limit {MAX_BOT_MESSAGE_BYTES})")
    if message.WhichOneof("kind") != "hello":
        raise BotFault(Termination.PROTOCOL_VIOLATION, "first message was not Hello")
    if message.hello.protocol_version != arena.PROTOCOL_VERSION:
        raise BotFault(
            Termination.PROTOCOL_VIOLATION,
            f"speaks protocol version {message.hello.protocol_version}, "
            f"the arena speaks {arena.PROTOCOL_VERSION}",
        )
    for field in ("bot_name", "bot_version"):
        problem = label_problem(getattr(message.hello, field))
        if problem is not None:
            raise BotFault(Termination.PROTOCOL_VIOLATION, f"its Hello's {field} {problem}")


def read_answer(game_id: str, message: bot_pb2.BotMessage, decision_id: int,
                game: Game[Any, Any, Any] | None = None) -> Any:
    """The action in a bot's answer to decision ``decision_id``; ``BotFault`` otherwise.
    ``game``: the engine of ``game_id`` when the caller holds it (looking it up costs a
    decision ~7 µs)."""
    if message.ByteSize() > MAX_BOT_MESSAGE_BYTES:
        raise BotFault(Termination.OVERSIZED_MESSAGE,
                       f"sent {message.ByteSize()} bytes (limit {MAX_BOT_MESSAGE_BYTES})")
    if message.WhichOneof("kind") != "decision":
        raise BotFault(Termination.PROTOCOL_VIOLATION, "expected a DecisionResponse")
    response = message.decision
    if response.decision_id != decision_id:
        raise BotFault(
            Termination.PROTOCOL_VIOLATION,
            f"answered decision {response.decision_id}, expected {decision_id}",
        )
    choice = response.WhichOneof("choice")
    text = response.action_text[:ANSWER_CHARS] if choice == "action_text" else None
    try:
        if choice == "action":
            return decode_action(game_id, response.action)
        if choice == "action_text":
            return (game or get_game(game_id)).parse_action(response.action_text)
        raise InvalidActionError("the response holds no action")
    except InvalidActionError as exc:
        raise BotFault(Termination.INVALID_ACTION, str(exc), answer=text) from None
    except Exception as exc:  # noqa: BLE001 — any decoding failure is the bot's
        raise BotFault(Termination.INVALID_ACTION, f"undecodable action: {exc}",
                       answer=text) from None


class RemotePlayer:
    """A bot in a sandbox, reached through its seat's own gRPC endpoint (see the module doc)."""

    def __init__(self, seat: int, bot: BotSpec, sandbox: Sandbox, socket_dir: Path,
                 match_id: str) -> None:
        self.seat = seat
        self.bot = bot
        self.sandbox = sandbox
        self.match_id = match_id
        self.endpoint = SeatEndpoint(socket_dir)
        self.running: RunningBot | None = None
        self.exit: asyncio.Future[ExitInfo] | None = None
        self.asked = 0
        """The id of the decision last asked."""
        self.answered = 0
        """How many of its decisions the bot has answered."""
        self._observations = ObservationEncoder(bot.game)
        self._game = get_game(bot.game)
        self._closed = False
        self._request: bot_pb2.RefereeMessage | None = None
        """The decision asked and not yet delivered (``ask`` prepares it, ``answer`` sends it)."""
        self.startup_ms: float | None = None
        """Wall time from the bot's process or container running (its sandbox started it) to its
        Hello, the interval the startup deadline limits (None: it never said it)."""

    # --- start ----------------------------------------------------------------------------
    async def connect(self, timeout_s: float) -> None:
        await self.endpoint.start()
        try:
            self.running = await self.sandbox.start(
                self.bot, self.endpoint.socket_dir, self.match_id, self.seat
            )
        except BotFault as fault:
            raise fault.at(self.seat) from None
        # The startup deadline and the recorded figure both run from here, when the bot's
        # process or container runs: what the sandbox did first (an image build, creating the
        # container) is not the bot's time (docs/protocol.md).
        started = time.perf_counter()
        self.exit = asyncio.ensure_future(self.running.wait())
        message = await self._next(timeout_s, waiting_for="hello")
        try:
            read_hello(message)
        except BotFault as fault:
            raise fault.at(self.seat) from None
        self.startup_ms = round((time.perf_counter() - started) * 1000, 3)

    @property
    def meter(self) -> Meter | None:
        """The CPU meter of the bot's sandbox (None before the bot started, or when the
        sandbox has no counter for it)."""
        meter: Meter | None = getattr(self.running, "meter", None)  # a sandbox without meters
        return meter

    def seat_stats(self) -> SeatStats | None:
        if self.running is None:
            return None
        meter = self.meter
        if meter is None:
            return SeatStats(startup_ms=self.startup_ms)
        return SeatStats(self.startup_ms, round(meter.cpu_ns() / 1e6, 3),
                         meter.peak_memory_bytes(), meter.kind)

    async def start(self, start: SeatStart) -> None:
        tc = start.time_control
        if tc.clock == "cpu" and self.meter is None:  # the sandbox promised a counter
            raise SandboxError(f"seat {self.seat}: the CPU clock needs the sandbox's CPU "
                               "counter, and it has none for this bot")
        await self._send(conversation.match_start(start))
        await asyncio.sleep(MATCH_START_SETTLE_S)

    # --- play -----------------------------------------------------------------------------
    async def ask(self, request: DecisionRequest) -> None:
        self._check_quiet()
        message = bot_pb2.RefereeMessage()  # built in place: the observation is copied once
        decision = message.decision
        decision.decision_id = request.decision_id
        decision.round = request.round
        self._observations.encode_into(decision.observation, request.observation)
        fill_legal_actions(decision, request.legal_texts)  # the texts, or compact when large
        decision.time_left_ms = request.time_left_ms
        decision.time_bank_ms = request.time_bank_ms
        self.asked = request.decision_id
        self._request = message

    async def answer(self, timeout_s: float, over: Overrun | None = None,
                     every_s: float = 0.0) -> Any:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout_s
        request, self._request = self._request, None
        if request is not None and not await self._send_by(request, deadline):
            raise BotFault(Termination.TIMEOUT, f"no answer within {timeout_s * 1000:.0f} ms "
                           "(it did not even read its request)", self.seat)
        message = await self._next(deadline - loop.time(), "answer", over, every_s,
                                   named_s=timeout_s)
        try:
            action = read_answer(self.bot.game, message, self.asked, self._game)
        except BotFault as fault:
            raise fault.at(self.seat) from None
        self.answered += 1
        return action

    async def _send_by(self, message: bot_pb2.RefereeMessage, deadline: float) -> bool:
        """Write ``message`` to the bot's stream by ``deadline`` (loop time); False when gRPC's
        flow control held it that long: the bot stopped reading its stream."""
        try:
            async with asyncio.timeout_at(deadline):
                await self.endpoint.send(message)
        except TimeoutError:
            return False
        return True

    async def _send(self, message: bot_pb2.RefereeMessage) -> None:
        """Write a message that no clock waits for (the match start, a round's end); a bot
        that has not read its stream for ``SEND_LIMIT_S`` forfeits (it could hold the match
        forever otherwise)."""
        deadline = asyncio.get_running_loop().time() + SEND_LIMIT_S
        if not await self._send_by(message, deadline):
            raise BotFault(Termination.PROTOCOL_VIOLATION,
                           f"stopped reading its stream (a message waited {SEND_LIMIT_S:g} s "
                           "to be sent)", self.seat)

    def _check_quiet(self) -> None:
        """A seat may only send when asked; anything queued out of turn is a violation."""
        inbox = self.endpoint.servicer.inbox
        if not inbox.empty():
            message = inbox.get_nowait()
            if not isinstance(message, StreamClosed):
                raise BotFault(Termination.PROTOCOL_VIOLATION, "sent a message out of turn",
                               self.seat)
            inbox.put_nowait(message)  # classified when the answer is awaited

    async def round_end(self, round_index: int, scores: tuple[int, int],
                        totals: tuple[int, int]) -> None:
        await self._send(conversation.round_end(round_index, scores, totals))

    async def _next(self, timeout_s: float, waiting_for: str, over: Overrun | None = None,
                    every_s: float = 0.0, named_s: float | None = None) -> bot_pb2.BotMessage:
        """The bot's next message, or the fault that explains why there is none (``over``:
        see ``Player.answer``). ``named_s``: the limit a fault names when ``timeout_s`` is what
        was left of it (the time sending the request took is part of the bot's limit)."""
        exit_future = self.exit
        assert exit_future is not None, "connect() starts the bot first"
        servicer = self.endpoint.servicer
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout_s
        while True:
            left = deadline - loop.time()
            await servicer.wait_for_message(left if over is None else min(left, every_s),
                                            exit_future)
            if not servicer.inbox.empty() or exit_future.done() or over is None:
                break
            fault = over()
            if fault is not None:
                raise fault
            if loop.time() >= deadline:
                break
        if not servicer.inbox.empty():  # a message first, even when the bot has exited since
            message = servicer.inbox.get_nowait()
            if isinstance(message, StreamClosed):
                raise (await self._closed_fault(message)).at(self.seat)
            return message
        if waiting_for == "hello":
            if exit_future.done():
                info = exit_future.result()
                if info.sandbox_error:
                    raise SandboxError(f"seat {self.seat}: {info.sandbox_error}")
                raise BotFault(Termination.NO_START, f"{info.describe()} before connecting"
                               + self._last_words() + self._startup_note(info), self.seat)
            raise BotFault(Termination.NO_START,
                           f"did not connect within {timeout_s * 1000:.0f} ms", self.seat)
        if exit_future.done():
            raise self._exit_fault(exit_future.result())
        limits: Limits | None = getattr(self.sandbox, "limits", None)  # a sandbox without any
        meter = self.meter
        limit_s = timeout_s if named_s is None else named_s
        raise classify_silence(limit_s, None if meter is None else meter.peak_memory_bytes(),
                               None if limits is None else limits.memory_mb).at(self.seat)

    async def _closed_fault(self, closed: StreamClosed) -> BotFault:
        exit_future = self.exit
        if exit_future is not None:
            with contextlib.suppress(asyncio.TimeoutError):
                info = await asyncio.wait_for(asyncio.shield(exit_future), CLOSE_CLASSIFY_S)
                return self._exit_fault(info)
        return classify_closed(closed)

    def _exit_fault(self, info: ExitInfo) -> BotFault:
        note = "" if self.answered else self._startup_note(info)
        try:
            return classify_exit(info, self._last_words() + note).at(self.seat)
        except SandboxError as exc:  # not the bot's doing: the match is void (internal)
            raise SandboxError(f"seat {self.seat}: {exc}") from None

    def _startup_note(self, info: ExitInfo) -> str:
        return startup_note(self.sandbox.name, info)

    def _last_words(self) -> str:
        lines = [line for line in (self.log_tail() or "").splitlines() if line.strip()]
        return f"; last output: {lines[-1][:300]}" if lines else ""

    # --- the end --------------------------------------------------------------------------
    async def finish(self, result: MatchResult) -> None:
        deadline = asyncio.get_running_loop().time() + FINISH_SEND_S
        await self._send_by(conversation.match_end(result, self.seat), deadline)
        self.endpoint.servicer.end()  # close the stream after the end

    async def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        try:
            if self.exit is not None and not self.exit.done():
                await asyncio.wait({self.exit}, timeout=EXIT_GRACE_S)
            if self.running is not None:
                try:
                    await self.running.stop()
                except Exception:  # noqa: BLE001 — stopping must go on for the other seat
                    log.exception("could not stop seat %d of %s", self.seat, self.match_id)
        finally:
            await self.endpoint.close()

    def log_tail(self) -> str | None:
        return None if self.running is None else self.running.log_tail()

    def image(self) -> str | None:
        return None if self.running is None else self.running.image


BOT_PACKAGES = ("", "sdk", "wire", "games", "v1")
"""The arena's directories a Python bot imports from (``""``: the package's own modules; in
``games`` also each built-in game's package, one level down)."""


@functools.cache
def compile_bot_modules(root: Path | None = None) -> None:
    """Once per process: write the bytecode of the arena modules a Python bot imports where it
    is missing or stale (``BOT_PACKAGES``). A bot can never write it (the process sandbox runs
    it as another user, with PYTHONDONTWRITEBYTECODE), and in a checkout the referee itself
    never imports the SDK, so without this every bot start compiled the SDK, the codecs and the
    generated messages again (about a tenth of a start's CPU, measured). An installed wheel
    has its bytecode from pip, and a container its image's: there this only checks. Best
    effort: a directory this process may not write is left as it is. ``root``: the arena
    package's directory (this one's by default)."""
    root = root or Path(arena.__file__).resolve().parent
    for sub in BOT_PACKAGES:
        directory = root / sub
        if os.access(directory, os.W_OK):
            with contextlib.suppress(OSError):
                compileall.compile_dir(directory, maxlevels=int(sub == "games"), quiet=2)


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


@contextlib.contextmanager
def remote_players(bots: tuple[BotSpec, BotSpec], sandbox: Sandbox, match_id: str,
                   socket_root: Path) -> Iterator[tuple[RemotePlayer, RemotePlayer]]:
    """Both seats of a match in a fresh socket directory under ``socket_root`` (keep it short:
    a socket path must fit in 108 bytes), removed afterwards whatever happens."""
    with _socket_dir(socket_root) as tmp:
        yield (RemotePlayer(0, bots[0], sandbox, tmp / "s0", match_id),
               RemotePlayer(1, bots[1], sandbox, tmp / "s1", match_id))


@contextlib.contextmanager
def remote_player(seat: int, bot: BotSpec, sandbox: Sandbox, match_id: str,
                  socket_root: Path) -> Iterator[RemotePlayer]:
    """One seat of a match (the other one is not a bot: `arena play`), set up as
    ``remote_players`` sets up each."""
    with _socket_dir(socket_root) as tmp:
        yield RemotePlayer(seat, bot, sandbox, tmp / f"s{seat}", match_id)


@contextlib.contextmanager
def _socket_dir(socket_root: Path) -> Iterator[Path]:
    sweep_stale_socket_dirs(socket_root)
    raise_open_files_limit()
    compile_bot_modules()
    tmp = Path(tempfile.mkdtemp(prefix=f"arena-{os.getpid()}-", dir=socket_root))
    try:
        yield tmp
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
