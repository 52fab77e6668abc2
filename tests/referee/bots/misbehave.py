"""A Lost Cities bot that plays legally, then misbehaves in one chosen way (argv[1]).

Modes: sleep, illegal, garbage, crash, oversized, huge, never, wrong_id, chatty, bad_hello,
exit_early, typed, big_hello, long_name, flood (out-of-turn messages by the thousand), slow (legal,
0.3 s a move), undecodable (bytes that are no BotMessage, in valid gRPC framing).
It speaks arena.v1 with the raw generated stubs (not the SDK) so it can break the protocol on
purpose.
"""

from __future__ import annotations

import os
import queue
import sys
import time

import grpc

from arena.games import get_game
from arena.v1 import bot_pb2
from arena.wire import encode_action

MODE = sys.argv[1]
TRIGGER = 3  # misbehave on this decision of ours


def illegal_text(legal: list[str]) -> str:
    game = get_game("lost-cities")
    for colour in "YBWGR":
        for rank in range(10, 1, -1):
            for text in (f"discard {colour}{rank} deck", f"play {colour}{rank} deck"):
                try:
                    game.parse_action(text)
                except Exception:
                    continue
                if text not in legal:
                    return text
    raise SystemExit("no illegal action found")


def answer(request: bot_pb2.DecisionRequest, count: int) -> list[bot_pb2.BotMessage | bytes]:
    legal = list(request.legal_actions)
    response = bot_pb2.DecisionResponse(decision_id=request.decision_id, action_text=legal[0])
    if count == TRIGGER:
        if MODE == "sleep":
            time.sleep(30)
        elif MODE == "illegal":
            response.action_text = illegal_text(legal)
        elif MODE == "garbage":
            response.action_text = "launch the missiles"
        elif MODE == "crash":
            sys.stderr.write("crashing on purpose\n")
            sys.stderr.flush()
            os._exit(3)
        elif MODE == "oversized":
            response.action_text = "x" * (100 * 1024)
        elif MODE == "huge":  # over the arena's 64 KiB, under gRPC's 1 MiB receive limit
            response.action_text = "x" * (900 * 1024)
        elif MODE == "giant":  # over gRPC's receive limit: the stream ends
            response.action_text = "x" * (5 * 1024 * 1024)
        elif MODE == "wrong_id":
            response.decision_id += 7
        elif MODE == "undecodable":  # a truncated length-delimited field: no protobuf parses it
            return [b"\x0a\xff\xff\xff\x0fgarbage"]
        elif MODE == "chatty":
            return [bot_pb2.BotMessage(decision=response)] * 2
        elif MODE == "flood":  # 2000 x 60 KiB = 120 MB while the (slow) opponent thinks
            junk = bot_pb2.DecisionResponse(decision_id=0, action_text="x" * 60_000)
            return [bot_pb2.BotMessage(decision=response)] + [
                bot_pb2.BotMessage(decision=junk)
            ] * 2000
    if MODE == "slow":
        time.sleep(0.3)
    if MODE == "typed":
        game = get_game("lost-cities")
        response.action.CopyFrom(encode_action("lost-cities", game.parse_action(legal[-1])))
    return [bot_pb2.BotMessage(decision=response)]


def main() -> None:
    if MODE == "never":
        time.sleep(3600)
    if MODE == "exit_early":
        sys.exit("refusing to start")
    outbox: queue.SimpleQueue[bot_pb2.BotMessage | bytes | None] = queue.SimpleQueue()
    if MODE == "bad_hello":
        outbox.put(bot_pb2.BotMessage(decision=bot_pb2.DecisionResponse(decision_id=1)))
    elif MODE == "big_hello":
        outbox.put(bot_pb2.BotMessage(hello=bot_pb2.Hello(bot_name="x" * 1_000_000,
                                                          protocol_version=1)))
    elif MODE == "long_name":  # within the message limit, over the 64-character name limit
        outbox.put(bot_pb2.BotMessage(hello=bot_pb2.Hello(bot_name="x" * 1000,
                                                          protocol_version=1)))
    else:
        outbox.put(bot_pb2.BotMessage(hello=bot_pb2.Hello(bot_name=MODE, protocol_version=1)))

    def requests():  # type: ignore[no-untyped-def]
        while (message := outbox.get()) is not None:
            yield message

    count = 0
    with grpc.insecure_channel(os.environ["ARENA_SOCKET"]) as channel:
        play = channel.stream_stream(  # raw bytes pass through unserialized
            "/arena.v1.BotService/Play",
            request_serializer=lambda m: m if isinstance(m, bytes) else m.SerializeToString(),
            response_deserializer=bot_pb2.RefereeMessage.FromString,
        )
        for message in play(requests()):
            if message.WhichOneof("kind") == "decision":
                count += 1
                for reply in answer(message.decision, count):
                    outbox.put(reply)
            elif message.WhichOneof("kind") == "match_end":
                break
    outbox.put(None)


if __name__ == "__main__":
    main()
