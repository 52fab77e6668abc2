"""One seat's gRPC endpoint: a grpc.aio server on the seat's own Unix socket.

The servicer only moves messages between the stream and two queues; the match loop
(arena.referee.match) decides everything. Exactly one stream per seat is accepted.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import os
import resource
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc

from arena.sandbox.api import SOCKET_NAME
from arena.v1 import bot_pb2, bot_pb2_grpc

MAX_BOT_MESSAGE_BYTES = 64 * 1024
"""Largest message a bot may send (a decision is a few dozen bytes). Over it: forfeit."""
GRPC_RECEIVE_LIMIT = 1024 * 1024
"""gRPC's own cut-off: 16 times MAX_BOT_MESSAGE_BYTES, so that an oversized message still
reaches the referee and is named as such, and small, because it bounds what one seat can make
the referee hold (about three messages: see INBOX_LIMIT; at 64 MiB, one seat could make the
referee hold about 320 MiB). gRPC reads a message's length first and ends the stream on anything
bigger without reading it; the referee is not told why (the stream just ends), so the bot's fate
decides what it is called: ``crash`` when it exits, else ``protocol_violation``."""
MAX_REFEREE_MESSAGE_BYTES = 16 * 1024 * 1024
"""Largest message the referee sends (the SDK accepts this much)."""
INBOX_LIMIT = 1
"""Messages buffered per seat: a bot is only ever asked for one at a time, and anything it sends
out of turn is a violation found at its next turn, so one is enough. What one seat can make the
referee hold is then about three messages of at most GRPC_RECEIVE_LIMIT: this one, the one the
reader holds while the inbox is full and the one gRPC is receiving (with BDP probing off, gRPC's
flow-control window stays small: it reads no further ahead)."""



OPEN_FILES_WANTED = 65_536
"""The referee's soft limit on open descriptors (raised towards it at the first match)."""


@functools.cache
def raise_open_files_limit() -> int:
    """Raise this process's soft descriptor limit towards ``OPEN_FILES_WANTED`` (never above the
    hard limit) and return it: every match holds a few dozen descriptors, and the usual soft
    limit of 1024 is low for a referee that plays many at once. Once per process."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = OPEN_FILES_WANTED if hard == resource.RLIM_INFINITY else min(hard,
                                                                          OPEN_FILES_WANTED)
    if soft != resource.RLIM_INFINITY and soft < target:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
    return int(soft)


@dataclass(frozen=True)
class StreamClosed:
    """Put in the inbox when the bot's stream ends or fails."""

    reason: str
    code: grpc.StatusCode | None = None


class SeatServicer(bot_pb2_grpc.BotServiceServicer):  # type: ignore[misc]  # generated, untyped
    """Bridges the seat's single bidirectional stream to the match loop.

    The match loop writes to the stream itself (``write``: no queue and no writer task between
    it and gRPC), and the stream's handler reads: each message goes into the bounded ``inbox``
    and wakes the one coroutine waiting for it (``wait_for_message``). In an experiment on a
    bare grpc.aio stream, a response generator fed by a queue plus a reader task (the shape
    before) cost ~1.5 times the bare round trip and this shape about 1.0 times; inside a match
    the difference is within the noise of waking sleeping processes (benchmarks/README.md,
    "Speed where bot authors feel it")."""

    def __init__(self) -> None:
        # Bounded: a bot that floods messages out of turn stalls on gRPC flow control instead of
        # filling the referee's memory; its next turn finds the queue non-empty (a violation).
        self.inbox: asyncio.Queue[bot_pb2.BotMessage | StreamClosed] = asyncio.Queue(
            maxsize=INBOX_LIMIT
        )
        self.connected = asyncio.Event()
        self._taken = False
        self._waiter: asyncio.Future[None] | None = None
        self._context: grpc.aio.ServicerContext[Any, Any] | None = None
        self._ended = asyncio.Event()
        self._broken = False

    async def wait_for_message(self, timeout_s: float, also: asyncio.Future[Any]) -> None:
        """Return once the inbox holds something, ``also`` is done or ``timeout_s`` passed
        (whichever first; the caller looks which). The waiting coroutine is woken once, by the
        reader as it fills the inbox: a task for ``inbox.get()`` raced with ``also`` by
        ``asyncio.wait`` took three turns of the event loop per answer instead of one."""
        if not self.inbox.empty() or also.done():
            return
        loop = asyncio.get_running_loop()
        waiter: asyncio.Future[None] = loop.create_future()

        def wake(_: object = None) -> None:
            if not waiter.done():
                waiter.set_result(None)

        also.add_done_callback(wake)
        timer = loop.call_later(max(timeout_s, 0.0), wake)
        self._waiter = waiter
        try:
            await waiter
        finally:
            self._waiter = None
            timer.cancel()
            also.remove_done_callback(wake)

    async def write(self, message: bot_pb2.RefereeMessage) -> None:
        """Send ``message`` down the bot's stream (waiting while gRPC's flow control holds it:
        the caller bounds the wait). Nothing happens before the bot connected or once the
        stream failed or ended: why it did is the reader's to tell (it puts ``StreamClosed``
        in the inbox), so the match loop learns it where it waits for the bot."""
        context = self._context
        if context is None or self._broken or self._ended.is_set():
            return
        try:
            await context.write(message)
        except asyncio.CancelledError:
            raise
        except Exception:  # noqa: BLE001 — a dead stream: the reader reports it
            self._broken = True

    def end(self) -> None:
        """End the stream (after the match end): the handler returns, gRPC closes the call."""
        self._ended.set()

    async def _deliver(self, item: bot_pb2.BotMessage | StreamClosed) -> None:
        """Put ``item`` in the inbox (waiting while it is full) and wake whoever waits."""
        await self.inbox.put(item)
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    async def Play(  # noqa: N802 (gRPC method name)
        self,
        request_iterator: AsyncIterator[bot_pb2.BotMessage],
        context: grpc.aio.ServicerContext[bot_pb2.BotMessage, bot_pb2.RefereeMessage],
    ) -> None:
        if self._taken:
            await context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED, "this seat is taken")
        self._taken = True
        self._context = context
        self.connected.set()
        await self._read(context)
        await self._ended.wait()  # the referee may still write (the match end) until it ends

    async def _read(self, context: grpc.aio.ServicerContext[Any, Any]) -> None:
        """Read the bot's messages into the inbox until its stream ends or fails."""
        try:
            while (message := await context.read()) is not grpc.aio.EOF:
                await self._deliver(message)
            await self._deliver(StreamClosed(  # gRPC does not say which: see the limit
                f"the bot closed its stream, or sent a message over {GRPC_RECEIVE_LIMIT} bytes"))
        except asyncio.CancelledError:
            raise
        except grpc.aio.AioRpcError as exc:
            await self._deliver(StreamClosed(exc.details() or str(exc), exc.code()))
        except Exception as exc:  # noqa: BLE001 — any stream failure is the bot's
            await self._deliver(StreamClosed(f"stream failed: {exc}"))


class SeatEndpoint:
    """A seat's socket directory, server and servicer."""

    def __init__(self, socket_dir: Path) -> None:
        self.socket_dir = socket_dir
        self.socket_path = socket_dir / SOCKET_NAME
        self.servicer = SeatServicer()
        self.server: grpc.aio.Server | None = None

    async def start(self) -> None:
        self.socket_dir.mkdir(mode=0o755, exist_ok=True)
        os.chmod(self.socket_dir, 0o755)  # noqa: S103 — the bot's uid must reach the socket
        server = grpc.aio.server(
            options=[
                ("grpc.max_receive_message_length", GRPC_RECEIVE_LIMIT),
                ("grpc.max_send_message_length", MAX_REFEREE_MESSAGE_BYTES),
                ("grpc.max_concurrent_streams", 2),
                # No window growth (BDP probing): a bot that floods out of turn is held at
                # gRPC's small default window instead of buffered ahead (see INBOX_LIMIT).
                ("grpc.http2.bdp_probe", 0),
                # One connection per seat: gRPC closes every further one as soon as it is
                # accepted, so a bot cannot park connections (descriptors) in the referee.
                ("grpc.max_allowed_incoming_connections", 1),
            ],
            maximum_concurrent_rpcs=2,
        )
        bot_pb2_grpc.add_BotServiceServicer_to_server(self.servicer, server)
        server.add_insecure_port(f"unix://{self.socket_path}")
        await server.start()
        os.chmod(self.socket_path, 0o777)  # noqa: S103 — connectable by the container's uid
        self.server = server

    async def send(self, message: bot_pb2.RefereeMessage) -> None:
        """Write ``message`` to the bot's stream (``SeatServicer.write``)."""
        await self.servicer.write(message)

    async def close(self, grace: float = 0.2) -> None:
        self.servicer.end()
        if self.server is not None:
            with contextlib.suppress(Exception):
                await self.server.stop(grace)
            self.server = None
