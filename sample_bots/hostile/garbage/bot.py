"""Hostile Lost Cities bot ``garbage``: garbage bytes on its socket, outside and inside gRPC.

First it opens 20 raw connections to its seat's socket and writes 4 KiB of random bytes on each
(no HTTP/2 preface: the referee's gRPC server must drop them and keep the seat open). Then it
connects properly, says Hello, and answers its first decision with bytes that are not a
BotMessage: the referee must name that a protocol violation. Part of the arena's hostile-bot
suite (tests/sandbox/test_docker_hostile_faults.py).
"""

from __future__ import annotations

import os
import queue
import random
import socket
import time
from collections.abc import Iterator

import grpc

from arena.v1 import bot_pb2

CORRUPT = b"\x0a\xff\xff\xff\x0fgarbage"
"""A length-delimited field whose length runs past the end: no protobuf message parses it."""


def report(line: str) -> None:
    """Print one line of findings to the log the arena keeps."""
    print(f"[hostile] garbage: {line}", flush=True)


def raw_garbage(path: str) -> None:
    rng = random.Random(7)
    sent = 0
    for _ in range(20):
        try:
            with socket.socket(socket.AF_UNIX) as conn:
                conn.connect(path)
                conn.sendall(bytes(rng.randrange(256) for _ in range(4096)))
                sent += 1
        except OSError as exc:
            report(type(exc).__name__)
        time.sleep(0.02)
    report(f"{sent} raw connections of garbage written")


def garbage_in_grpc(address: str) -> None:
    outbox: queue.SimpleQueue[bytes | None] = queue.SimpleQueue()
    hello = bot_pb2.BotMessage(hello=bot_pb2.Hello(bot_name="garbage", protocol_version=1))
    outbox.put(hello.SerializeToString())

    def requests() -> Iterator[bytes]:
        while (message := outbox.get()) is not None:
            yield message

    with grpc.insecure_channel(address) as channel:
        play = channel.stream_stream(  # requests go out as raw bytes
            "/arena.v1.BotService/Play",
            request_serializer=lambda raw: raw,
            response_deserializer=bot_pb2.RefereeMessage.FromString,
        )
        try:
            for message in play(requests()):
                if message.WhichOneof("kind") == "decision":
                    outbox.put(CORRUPT)
                    report("answered a decision with undecodable bytes")
        except grpc.RpcError as exc:
            report(f"stream ended: {exc.code().name}")
    outbox.put(None)


if __name__ == "__main__":
    address = os.environ["ARENA_SOCKET"]
    raw_garbage(address.removeprefix("unix://"))
    garbage_in_grpc(address)
    time.sleep(3600)
