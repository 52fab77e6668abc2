"""Real matches over gRPC between subprocess bots (process sandbox), and waiting for a referee
service to answer its health check."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from arena.bots import load_bot_dir
from arena.model import MatchResult, MatchSpec, TimeControl
from arena.referee.match import play_match


def wait_serving(address: str) -> None:
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            with grpc.insecure_channel(address) as channel:
                stub = health_pb2_grpc.HealthStub(channel)
                answer = stub.Check(health_pb2.HealthCheckRequest(service=""), timeout=1)
                if answer.status == health_pb2.HealthCheckResponse.SERVING:
                    return
        except grpc.RpcError:
            time.sleep(0.1)
    raise AssertionError("the referee did not become healthy")


def run_match(
    bot_a: Path, bot_b: Path, log_dir: Path, socket_root: Path, *, seed: int = 1,
    move_time_ms: int = 1000, startup_ms: int = 10_000, options: dict[str, object] | None = None,
) -> MatchResult:
    spec = MatchSpec(
        "lost-cities", seed, (load_bot_dir(bot_a), load_bot_dir(bot_b)), dict(options or {}),
        TimeControl(move_time_ms, 0, startup_ms),
    )
    return asyncio.run(
        play_match(spec, sandbox="process", log_dir=log_dir, socket_root=socket_root)
    )
