"""A Lost Cities bot that attacks the referee's memory through its own seat (argv[1] is the mode).

``flood SIZE COUNT``: answer the first decision, then send COUNT messages of SIZE bytes out of
turn, as fast as gRPC's flow control lets it. Whatever the referee does about it, the bot stays
alive (a stubborn bot: its own fate must not decide what the referee calls it).
``ponder SECONDS``: think SECONDS before every (legal) answer, so that the other seat's flood
piles up in the referee meanwhile.

Raw generated stubs (not the SDK), and pre-serialized bytes: the bot sends one buffer COUNT
times without holding COUNT copies itself.
"""

from __future__ import annotations

import os
import queue
import sys
import time

import grpc

import arena
from arena.v1 import bot_pb2

MODE = sys.argv[1]


def report(line: str) -> None:
    print(f"[attack] {MODE}: {line}", flush=True)


def answer(request: bot_pb2.DecisionRequest) -> bytes:
    response = bot_pb2.DecisionResponse(decision_id=request.decision_id,
                                        action_text=request.legal_actions[0])
    return bot_pb2.BotMessage(decision=response).SerializeToString()


def flood(outbox: queue.SimpleQueue[bytes | None]) -> None:
    size, count = int(sys.argv[2]), int(sys.argv[3])
    junk = bot_pb2.BotMessage(decision=bot_pb2.DecisionResponse(action_text="x" * size))
    wire = junk.SerializeToString()
    for _ in range(count):
        outbox.put(wire)
    report(f"queued {count} messages of {len(wire)} bytes")


def main() -> None:
    outbox: queue.SimpleQueue[bytes | None] = queue.SimpleQueue()
    hello = bot_pb2.Hello(bot_name=MODE, protocol_version=arena.PROTOCOL_VERSION)
    outbox.put(bot_pb2.BotMessage(hello=hello).SerializeToString())

    def requests():  # type: ignore[no-untyped-def]
        while (message := outbox.get()) is not None:
            yield message

    flooded = False
    with grpc.insecure_channel(os.environ["ARENA_SOCKET"]) as channel:
        play = channel.stream_stream("/arena.v1.BotService/Play",
                                     request_serializer=lambda raw: raw,
                                     response_deserializer=bot_pb2.RefereeMessage.FromString)
        try:
            for message in play(requests()):
                kind = message.WhichOneof("kind")
                if kind == "decision":
                    if MODE == "ponder":
                        time.sleep(float(sys.argv[2]))
                    outbox.put(answer(message.decision))
                    if MODE == "flood" and not flooded:
                        flooded = True
                        flood(outbox)
                elif kind == "match_end":
                    break
        except grpc.RpcError as exc:
            report(f"stream ended: {exc.code()}")
            time.sleep(120)  # stubborn: alive until the referee stops it
    outbox.put(None)


if __name__ == "__main__":
    main()
