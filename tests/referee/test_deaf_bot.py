"""A bot that stops reading its stream cannot hold the match (issue 25, point 3).

The match loop writes to a seat's stream itself (no queue, no writer task between it and gRPC),
so a write waits while gRPC's flow control holds it: when the bot has left its receive window
(64 kB and up) unread. Such a wait is bounded: a decision's request that cannot be delivered
within the answer's time is the bot's ``timeout``, any other message (the match start, a
round's end) that waits ``SEND_LIMIT_S`` a ``protocol_violation``, and the match end gives up
after ``FINISH_SEND_S`` (the result stands). Before, a response generator fed by an unbounded
queue kept every unread message in the referee's memory instead.

A real seat endpoint (grpc.aio server on a Unix socket) and a real gRPC client that says Hello
and then never reads, with BDP probing off so its window stays at gRPC's default."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import grpc
import pytest

from arena.errors import BotFault
from arena.model import BotSpec, Termination
from arena.referee import remote
from arena.referee.remote import RemotePlayer
from arena.sandbox import get_sandbox
from arena.v1 import bot_pb2

pytestmark = pytest.mark.integration

BIG = bot_pb2.RefereeMessage(match_start=bot_pb2.MatchStart(match_id="x" * 60_000))
"""A 60 kB message: two unread ones fill gRPC's default window."""
SENDS_MAX = 100
"""Sends after which the deaf bot must have been caught (about 6 MB unread: far past any
window gRPC grows to without BDP probing)."""


async def _deaf_seat(tmp_path: Path) -> tuple[RemotePlayer, grpc.aio.Channel]:
    player = RemotePlayer(0, BotSpec("deaf", "lost-cities"), get_sandbox("process"),
                          tmp_path / "s0", "deaf-match")
    await player.endpoint.start()
    player.exit = asyncio.get_running_loop().create_future()  # a bot that never exits
    channel = grpc.aio.insecure_channel(f"unix://{player.endpoint.socket_path}",
                                        options=[("grpc.http2.bdp_probe", 0)])
    call = channel.stream_stream("/arena.v1.BotService/Play",
                                 request_serializer=bot_pb2.BotMessage.SerializeToString,
                                 response_deserializer=bot_pb2.RefereeMessage.FromString)()
    await call.write(bot_pb2.BotMessage(hello=bot_pb2.Hello(bot_name="deaf",
                                                            protocol_version=1)))
    hello = await asyncio.wait_for(player.endpoint.servicer.inbox.get(), 30)
    assert hello.WhichOneof("kind") == "hello"
    return player, channel


def test_a_bot_that_stops_reading_forfeits_instead_of_holding_the_match(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(remote, "SEND_LIMIT_S", 0.5)

    async def scenario() -> tuple[BotFault, int, float]:
        player, channel = await _deaf_seat(tmp_path)
        try:
            for sent in range(SENDS_MAX):
                started = time.monotonic()
                try:
                    await asyncio.wait_for(player._send(BIG), 30)
                except BotFault as fault:
                    return fault, sent, time.monotonic() - started
            raise AssertionError(f"{SENDS_MAX} sends of 60 kB to a bot that never reads")
        finally:
            await channel.close()
            await player.endpoint.close()

    fault, sent, waited = asyncio.run(scenario())
    assert fault.termination is Termination.PROTOCOL_VIOLATION and fault.seat == 0
    assert "stopped reading its stream" in fault.detail
    assert sent >= 1  # what fits in its window was delivered
    assert waited < 20  # the limit (0.5 s), not the test's guard


def test_an_undeliverable_request_is_the_bots_timeout(tmp_path: Path) -> None:
    async def scenario() -> BotFault:
        player, channel = await _deaf_seat(tmp_path)
        try:
            for _ in range(SENDS_MAX):
                player._request = BIG  # what ask() prepares
                try:
                    await asyncio.wait_for(player.answer(0.5), 30)
                except BotFault as fault:  # a timeout, its request delivered or not
                    if "did not even read" in fault.detail:
                        return fault
                    assert fault.termination is Termination.TIMEOUT, fault
            raise AssertionError("the requests were all delivered to a bot that never reads")
        finally:
            await channel.close()
            await player.endpoint.close()

    fault = asyncio.run(scenario())
    assert fault.termination is Termination.TIMEOUT and fault.seat == 0
    assert "did not even read its request" in fault.detail
