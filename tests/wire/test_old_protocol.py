"""A bot built against an earlier arena.v1 still plays every built-in game.

``old_protocol/`` holds the .proto files as they were before the plugin envelope (and later
fields) were added: a bot whose generated code comes from them (here Python, generated in the
test) receives today's messages, finds its game's typed observation where it always was, answers
by text and plays whole matches through the real referee in the process sandbox.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.bots.manifest import load_bot_dir
from arena.games.builtin import BUILTIN_ORDER
from arena.model import MatchSpec, Termination, TimeControl
from arena.referee.match import play_match

OLD_PROTOS = Path(__file__).resolve().parent / "old_protocol"

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


@pytest.fixture(scope="module")
def readable_root() -> Iterator[Path]:
    """A directory the sandboxed bot user can read (pytest's own are private)."""
    root = Path(tempfile.mkdtemp(prefix="old-proto-", dir="/tmp"))
    root.chmod(0o755)
    yield root
    shutil.rmtree(root, ignore_errors=True)


@pytest.fixture(scope="module")
def old_bot(readable_root: Path) -> Path:
    from grpc_tools import protoc

    bot = readable_root / "generated"
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


def _bot_dir(old_bot: Path, game: str, where: Path) -> Path:
    directory = where / f"old-{game}"
    shutil.copytree(old_bot, directory)
    (directory / "bot.toml").write_text(
        f'name = "old-{game}"\ngame = "{game}"\nversion = "1"\ncommand = ["python3", "bot.py"]\n'
    )
    return directory


@pytest.mark.parametrize("game", BUILTIN_ORDER)
def test_a_bot_on_the_old_generated_code_plays_every_builtin_game(
    old_bot: Path, readable_root: Path, game: str, tmp_path: Path
) -> None:
    bot = load_bot_dir(_bot_dir(old_bot, game, readable_root))
    sockets = Path(tempfile.mkdtemp(prefix="t", dir="/tmp"))
    try:
        spec = MatchSpec(game, 5, (bot, bot), {}, TimeControl(2000, 0, 20_000))
        result = asyncio.run(play_match(spec, sandbox="process", log_dir=tmp_path / "logs",
                                        socket_root=sockets))
    finally:
        shutil.rmtree(sockets, ignore_errors=True)
    assert result.termination is Termination.NORMAL, result.detail
    assert result.decisions > 10
