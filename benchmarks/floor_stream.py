"""The floor under a decision's round trip: a bare grpc.aio bidirectional stream between two
processes over a Unix socket, no arena code, no protobuf.

The parent is the server (the referee's side: it sends a 200-byte request down the stream and
times until the 200-byte answer is back); a child process is the client (the bot's side: it
answers each message it reads with one of the same size). The figures are what gRPC, asyncio
and the kernel cost for one ping-pong on this machine now, whatever else it is doing: a
decision's round trip is compared with the floor measured in the same run
(``decision_overhead_vs_floor`` in ``benchmarks/run.py``).

The same floor in a match's rhythm (``turn_floor_figures``): two client processes, each on
its own server (a seat's socket), served in turn like a match's two bots: each round trip's
client has slept through the other's. A process that sleeps wakes slower than one in a tight
ping-pong (on this machine's virtual CPUs a halted CPU is woken by the host), so this is the
floor of a decision inside a match: what gRPC, asyncio and the kernel cost for one ping-pong
when the players take turns. ``--pause-us N`` idles N µs before each round trip of the
one-client floor: what sleeping costs on its own.

Run alone: ``python benchmarks/floor_stream.py [--pings N] [--turns | --pause-us N]`` prints
the figures as JSON.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import grpc

METHOD = "/floor.Floor/Play"
"""The one bidirectional method (raw bytes both ways: no serializer)."""
MESSAGE_BYTES = 200
"""The size of every request and answer (a decision request of Lost Cities is about this)."""
WARM_UP = 50
"""Ping-pongs before the timed ones (first-call costs on both sides)."""


def _identity(data: bytes) -> bytes:
    return data


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def _serve(directory: Path, pings: int, seats: int = 1, pause_us: int = 0) -> list[float]:
    """Start ``seats`` servers (one socket each, as a match's seats) and a client process on
    each, then time ``pings`` round trips taking the clients in turn (µs). The round trips are
    driven from one task, as the referee's match loop drives its seats; ``pause_us``: the
    driver sleeps this long before each round trip (untimed), so both sides idle as long."""
    times: list[float] = []
    contexts: list[grpc.aio.ServicerContext[Any, Any]] = []
    connected, done = asyncio.Event(), asyncio.Event()
    payload = bytes(MESSAGE_BYTES)

    async def play(_request_iterator: Any, context: grpc.aio.ServicerContext[Any, Any]) -> None:
        contexts.append(context)
        if len(contexts) == seats:
            connected.set()
        await done.wait()  # the stream stays open while the driver plays on it

    async def drive() -> None:
        await connected.wait()
        for index in range(seats * WARM_UP + pings):
            context = contexts[index % seats]
            if pause_us:
                await asyncio.sleep(pause_us / 1e6)
            started = time.perf_counter_ns()
            await context.write(payload)
            answer = await context.read()
            elapsed = time.perf_counter_ns() - started
            if answer is grpc.aio.EOF:
                raise RuntimeError("a client ended its stream early")
            if index >= seats * WARM_UP:
                times.append(elapsed / 1000)

    handler = grpc.method_handlers_generic_handler("floor.Floor", {
        "Play": grpc.stream_stream_rpc_method_handler(
            play, request_deserializer=_identity, response_serializer=_identity),
    })
    servers, clients = [], []
    try:
        for seat in range(seats):
            server = grpc.aio.server()
            server.add_generic_rpc_handlers((handler,))
            socket = directory / f"seat{seat}.sock"
            server.add_insecure_port(f"unix://{socket}")
            await server.start()
            servers.append(server)
            clients.append(subprocess.Popen([sys.executable, __file__, "--client",
                                             f"unix://{socket}"]))
        await asyncio.wait_for(drive(), timeout=120)
    finally:
        done.set()
        for server in servers:
            await server.stop(0.5)
        for client in clients:
            try:
                client.wait(timeout=10)
            except subprocess.TimeoutExpired:
                client.kill()
                client.wait()
    return times


async def _client(target: str) -> None:
    """The bot's side: answer every message with one of the same size until the stream ends."""
    answer = bytes(MESSAGE_BYTES)
    async with grpc.aio.insecure_channel(target) as channel:
        call = channel.stream_stream(METHOD, request_serializer=_identity,
                                     response_deserializer=_identity)()
        while (message := await call.read()) is not grpc.aio.EOF:
            del message
            await call.write(answer)


def floor_figures(pings: int = 2000, pause_us: int = 0) -> dict[str, Any]:
    """Median and p99 (µs) of ``pings`` timed round trips of the bare stream (``pause_us``: an
    idle pause before each, see ``_serve``)."""
    with tempfile.TemporaryDirectory(prefix="floor-", dir="/tmp") as tmp:
        times = asyncio.run(_serve(Path(tmp), pings, pause_us=pause_us))
    return {
        "floor_stream_us_median": round(statistics.median(times), 1),
        "floor_stream_us_p99": round(_percentile(times, 0.99), 1),
        "floor_stream_samples": len(times),
    }


def turn_floor_figures(pings: int = 2000) -> dict[str, Any]:
    """Median and p99 (µs) of ``pings`` timed round trips of two bare streams taken in turn."""
    with tempfile.TemporaryDirectory(prefix="floor-", dir="/tmp") as tmp:
        times = asyncio.run(_serve(Path(tmp), pings, seats=2))
    return {
        "turn_floor_us_median": round(statistics.median(times), 1),
        "turn_floor_us_p99": round(_percentile(times, 0.99), 1),
        "turn_floor_samples": len(times),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pings", type=int, default=2000, help="timed round trips")
    parser.add_argument("--turns", action="store_true",
                        help="two clients taken in turn (a match's rhythm)")
    parser.add_argument("--pause-us", type=int, default=0,
                        help="idle this long before each round trip (a sleeping process wakes "
                             "slower: see the module doc)")
    parser.add_argument("--client", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.client:
        asyncio.run(_client(args.client))
        return
    figures = (turn_floor_figures(args.pings) if args.turns
               else floor_figures(args.pings, args.pause_us))
    print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
