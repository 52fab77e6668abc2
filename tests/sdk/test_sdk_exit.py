"""An SDK bot ends its match quietly: asyncio's "Task was destroyed but it is pending!" (a gRPC
call's status task left pending when the bot's event loop closed) is not in its output, also when
the referee ends the stream a while after its MatchEnd. A real bot process against a scripted
referee on a real gRPC socket."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import grpc
import pytest

from arena.v1 import bot_pb2, bot_pb2_grpc

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
RANDOM = ROOT / "sample_bots" / "lost-cities" / "random"
HOLD_S = 0.5
"""How long the scripted referee keeps the stream open after its MatchEnd."""


class _Referee(bot_pb2_grpc.BotServiceServicer):  # type: ignore[misc]  # generated, untyped
    """Says MatchStart and MatchEnd after the bot's Hello, then keeps the stream open."""

    async def Play(self, requests: Any, context: Any) -> Any:  # noqa: N802 (gRPC method name)
        hello = await requests.__anext__()
        assert hello.WhichOneof("kind") == "hello"
        yield bot_pb2.RefereeMessage(match_start=bot_pb2.MatchStart(
            match_id="m-quiet", game="lost-cities", seat=0, protocol_version=1))
        yield bot_pb2.RefereeMessage(match_end=bot_pb2.MatchEnd(
            result=bot_pb2.MATCH_RESULT_DRAW, termination=bot_pb2.TERMINATION_NORMAL))
        await asyncio.sleep(HOLD_S)


async def _serve_one_bot(socket: Path) -> subprocess.CompletedProcess[str]:
    server = grpc.aio.server()
    bot_pb2_grpc.add_BotServiceServicer_to_server(_Referee(), server)
    server.add_insecure_port(f"unix://{socket}")
    await server.start()
    try:
        env = {**os.environ, "ARENA_SOCKET": f"unix://{socket}", "PYTHONPATH": str(ROOT)}
        env.pop("ARENA_GAME", None)
        return await asyncio.to_thread(
            subprocess.run, [sys.executable, "bot.py"], cwd=RANDOM, env=env,
            capture_output=True, text=True, timeout=60, check=False)
    finally:
        await server.stop(0)


def test_a_bot_ends_its_match_without_asyncio_complaining(tmp_path: Path) -> None:
    for _ in range(3):
        done = asyncio.run(_serve_one_bot(tmp_path / "seat.sock"))
        assert done.returncode == 0, done.stderr
        assert "Task was destroyed" not in done.stderr, done.stderr
        assert done.stderr == "", done.stderr
