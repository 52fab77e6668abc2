"""Issue 25 point 3: a seat's wait for the bot's next message (``SeatServicer.wait_for_message``,
what ``RemotePlayer`` waits on) wakes on a message, on the bot's exit or at the timeout, a
message first when both are there; and a wait cancelled (the CPU clock giving up) leaves
nothing behind. The queues and futures only: the seats over real gRPC are tests/referee/
test_players.py, test_faults.py and test_hostile_seat.py."""

from __future__ import annotations

import asyncio
import time

import pytest

from arena.referee.seat import SeatServicer, StreamClosed
from arena.v1 import bot_pb2

pytestmark = pytest.mark.unit


def _hello() -> bot_pb2.BotMessage:
    return bot_pb2.BotMessage(hello=bot_pb2.Hello(bot_name="x"))


def test_a_message_wakes_the_wait_at_once() -> None:
    async def scenario() -> float:
        servicer = SeatServicer()
        exit_future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        asyncio.get_running_loop().call_later(0.05, asyncio.ensure_future,
                                              servicer._deliver(_hello()))
        started = time.monotonic()
        await servicer.wait_for_message(30.0, exit_future)
        assert servicer.inbox.get_nowait() == _hello()
        assert not exit_future._callbacks  # type: ignore[attr-defined]
        return time.monotonic() - started

    assert asyncio.run(scenario()) < 20.0  # not the 30 s timeout


def test_the_exit_and_the_timeout_wake_the_wait() -> None:
    async def scenario() -> None:
        loop = asyncio.get_running_loop()
        servicer = SeatServicer()
        exit_future: asyncio.Future[None] = loop.create_future()
        loop.call_later(0.05, exit_future.set_result, None)
        await servicer.wait_for_message(30.0, exit_future)
        assert exit_future.done() and servicer.inbox.empty()
        started = time.monotonic()
        await servicer.wait_for_message(0.05, loop.create_future())
        assert time.monotonic() - started >= 0.04 and servicer.inbox.empty()

    asyncio.run(scenario())


def test_what_is_there_already_returns_at_once() -> None:
    async def scenario() -> None:
        loop = asyncio.get_running_loop()
        servicer = SeatServicer()
        await servicer._deliver(StreamClosed("closed"))
        done: asyncio.Future[None] = loop.create_future()
        done.set_result(None)
        await asyncio.wait_for(servicer.wait_for_message(30.0, done), 5.0)
        assert isinstance(servicer.inbox.get_nowait(), StreamClosed)
        await asyncio.wait_for(servicer.wait_for_message(30.0, done), 5.0)

    asyncio.run(scenario())


def test_a_cancelled_wait_leaves_no_callback_and_a_later_message_stays() -> None:
    async def scenario() -> None:
        loop = asyncio.get_running_loop()
        servicer = SeatServicer()
        exit_future: asyncio.Future[None] = loop.create_future()
        waiting = asyncio.ensure_future(servicer.wait_for_message(30.0, exit_future))
        await asyncio.sleep(0.01)
        waiting.cancel()
        await asyncio.gather(waiting, return_exceptions=True)
        assert not exit_future._callbacks  # type: ignore[attr-defined]
        await servicer._deliver(_hello())  # no waiter: delivered, kept for the next wait
        await asyncio.wait_for(servicer.wait_for_message(30.0, exit_future), 5.0)
        assert servicer.inbox.get_nowait() == _hello()

    asyncio.run(scenario())
