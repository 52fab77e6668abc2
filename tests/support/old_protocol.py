"""A bot built against an earlier arena.v1: ``tests/wire/old_protocol/`` holds the .proto
files as they were before the plugin envelope (and later fields) were added; the bot's Python
code is generated from them (the script's directory shadows the arena package)."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

OLD_PROTOS = Path(__file__).resolve().parents[1] / "wire" / "old_protocol"

BOT = '''\
"""A bot on the old generated code only: the script's directory shadows the arena package."""
import os
import queue
import sys

import grpc
from arena.v1 import bot_pb2, bot_pb2_grpc

FIELDS = {"lost-cities": "lost_cities", "haggis": "haggis", "portas": "portas"}
assert "plugin" not in bot_pb2.Observation.DESCRIPTOR.fields_by_name, "not the old code"
outbox = queue.Queue()
outbox.put(bot_pb2.BotMessage(hello=bot_pb2.Hello(bot_name="old", bot_version="1",
                                                  protocol_version=1)))
channel = grpc.insecure_channel(os.environ["ARENA_SOCKET"])
stream = bot_pb2_grpc.BotServiceStub(channel).Play(iter(outbox.get, None))
game = seat = None
for message in stream:
    kind = message.WhichOneof("kind")
    if kind == "match_start":
        game, seat = message.match_start.game, message.match_start.seat
    elif kind == "decision":
        observation = message.decision.observation
        field = observation.WhichOneof("game")
        if field != FIELDS[game] or getattr(observation, field).seat != seat:
            sys.exit(f"observation in {field!r}, expected {FIELDS[game]!r} of seat {seat}")
        answer = bot_pb2.DecisionResponse(decision_id=message.decision.decision_id,
                                          action_text=message.decision.legal_actions[0])
        outbox.put(bot_pb2.BotMessage(decision=answer))
    elif kind == "match_end":
        break
outbox.put(None)
'''


@contextmanager
def readable_dir() -> Iterator[Path]:
    """A directory the sandboxed bot user can read (pytest's own are private), removed after."""
    root = Path(tempfile.mkdtemp(prefix="old-proto-", dir="/tmp"))
    root.chmod(0o755)
    try:
        yield root
    finally:
        shutil.rmtree(root, ignore_errors=True)


def generate_old_bot(bot: Path) -> Path:
    """``bot``: a directory with the old generated code and the bot's script (no bot.toml)."""
    from grpc_tools import protoc

    bot.mkdir()
    sources = [f"arena/v1/{p.name}" for p in sorted((OLD_PROTOS / "arena" / "v1").glob("*.proto"))]
    include = Path(protoc.__file__).parent / "_proto"
    code = protoc.main(["protoc", f"-I{OLD_PROTOS}", f"-I{include}", f"--python_out={bot}",
                        f"--grpc_python_out={bot}", *sources])
    assert code == 0
    for package in (bot / "arena", bot / "arena" / "v1"):
        (package / "__init__.py").write_text("")
    (bot / "bot.py").write_text(BOT)
    for directory, _, files in os.walk(bot):
        os.chmod(directory, 0o755)
        for name in files:
            os.chmod(os.path.join(directory, name), 0o644)
    return bot
