"""Attacks of a Goofspiel bot on the typed plugin envelope, over the real protocol (a bot
process speaking arena.v1 itself, the process sandbox): a typed bid of a card that does not
exist, an ``Any`` naming the game's action type but holding bytes that do not parse, and another
game's action packed in the envelope are the bot's invalid action (a named, recorded loss), never
a void match or a crash of the referee; a typed bid of a card already bid is its illegal action
with the engine's reason."""

from __future__ import annotations

import asyncio
import shutil
import tempfile
from pathlib import Path

import pytest

from arena.bots.manifest import load_bot_dir
from arena.model import MatchResult, MatchSpec, Termination, TimeControl
from arena.referee.match import play_match
from tests.support.goofspiel import RANDOM, goofspiel

pytestmark = pytest.mark.integration

FORGER = '''\
"""Answers its second decision with a forged typed action (argv[1] says which)."""
import os
import queue
import sys

import grpc
from arena_goofspiel import goofspiel_pb2
from arena.v1 import bot_pb2, bot_pb2_grpc, portas_pb2

mode = sys.argv[1]
outbox = queue.Queue()
outbox.put(bot_pb2.BotMessage(hello=bot_pb2.Hello(bot_name="forger", bot_version="1",
                                                  protocol_version=1)))
channel = grpc.insecure_channel(os.environ["ARENA_SOCKET"])
stream = bot_pb2_grpc.BotServiceStub(channel).Play(iter(outbox.get, None))
decisions = 0
for message in stream:
    kind = message.WhichOneof("kind")
    if kind == "decision":
        decisions += 1
        answer = bot_pb2.DecisionResponse(decision_id=message.decision.decision_id)
        if decisions == 1:
            answer.action.plugin.Pack(goofspiel_pb2.Action(bid=13))
        elif mode == "no-such-card":
            answer.action.plugin.Pack(goofspiel_pb2.Action(bid=99))
        elif mode == "garbage":
            answer.action.plugin.type_url = "type.googleapis.com/goofspiel.v1.Action"
            answer.action.plugin.value = b"\\xff\\xff\\xff\\xff"
        elif mode == "other-game":
            answer.action.plugin.Pack(portas_pb2.PortasAction())
        elif mode == "other-field":
            answer.action.portas.CopyFrom(portas_pb2.PortasAction())
        elif mode == "bid-again":
            answer.action.plugin.Pack(goofspiel_pb2.Action(bid=13))
        outbox.put(bot_pb2.BotMessage(decision=answer))
    elif kind == "match_end":
        break
outbox.put(None)
'''


@pytest.fixture(scope="module")
def forger_root() -> object:
    root = Path(tempfile.mkdtemp(prefix="forger-", dir="/tmp"))
    root.chmod(0o755)
    yield root
    shutil.rmtree(root, ignore_errors=True)


def _forger(root: Path, mode: str) -> Path:
    directory = root / mode
    directory.mkdir()
    (directory / "bot.py").write_text(FORGER)
    (directory / "bot.toml").write_text(
        f'name = "forger"\ngame = "goofspiel"\nversion = "1"\n'
        f'command = ["python3", "bot.py", "{mode}"]\n')
    for path in (directory, directory / "bot.py", directory / "bot.toml"):
        path.chmod(0o755)
    return directory


def _play(forger: Path, logs: Path) -> MatchResult:
    spec = MatchSpec("goofspiel", 4, (load_bot_dir(forger), load_bot_dir(RANDOM)),
                     {"rounds": 1}, TimeControl(2000, 0, 20_000))
    sockets = Path(tempfile.mkdtemp(prefix="t", dir="/tmp"))
    try:
        return asyncio.run(play_match(spec, sandbox="process", log_dir=logs,
                                      socket_root=sockets))
    finally:
        shutil.rmtree(sockets, ignore_errors=True)


@pytest.mark.parametrize(("mode", "termination", "detail"), [
    ("no-such-card", Termination.INVALID_ACTION, "99"),
    ("garbage", Termination.INVALID_ACTION, "goofspiel"),
    ("other-game", Termination.INVALID_ACTION, "PortasAction"),
    ("other-field", Termination.INVALID_ACTION, "portas"),
    ("bid-again", Termination.ILLEGAL_ACTION, "card 13 was already bid this round"),
])
def test_attack_a_forged_typed_action_is_the_forgers_loss(
        forger_root: Path, tmp_path: Path, mode: str, termination: Termination,
        detail: str) -> None:
    goofspiel()
    result = _play(_forger(forger_root, mode), tmp_path / "logs")
    assert result.termination is termination, result.detail
    assert result.faulty_seat == 0 and result.winner == 1
    assert detail in result.detail
