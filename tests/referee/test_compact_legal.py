"""Compact legal actions over the real protocol (issue 25, point 2), process sandbox, real gRPC.

Each match is one Haggis round (``target = 1``) whose first decision, seat 0's lead with a full
hand, offers more than 32 kB of legal action texts, so it travels compact:

* a bot on the generated code of the .proto from before the compact form, whose gRPC channel
  accepts at most 64 kB (where the referee used to send up to 815 kB), still plays: it reads the
  sample in ``legal_actions``, an answer from it is legal;
* a bot on today's generated code expands the compact form itself and answers a legal action
  the sample does not hold: the referee checks answers against the whole legal set, not the
  sample;
* a Python SDK bot that always answers the last but one of ``decision.legal_texts`` answers
  the last but one legal action of the game's list, which the sample does not hold (the SDK
  expands the compact form: the list is complete).
"""

from __future__ import annotations

import asyncio
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.bots.manifest import load_bot_dir
from arena.games import get_game
from arena.model import DecisionEvent, MatchEvent, MatchSpec, Termination, TimeControl
from arena.referee.match import play_match
from arena.wire.legal import TEXTS_BUDGET
from tests.support.compact_legal import (
    LAST_BOT,
    OPTIONS,
    RANDOM,
    SEED,
    haggis_bot,
    positions,
    sent_request,
)

pytestmark = pytest.mark.integration

RECEIVE_LIMIT = 64 * 1024

OLD_BOT = '''\
"""A bot on the old generated code (the script's directory shadows the arena package) whose
channel takes at most 64 kB a message."""
import os
import queue

import grpc
from arena.v1 import bot_pb2, bot_pb2_grpc

assert "legal_actions_compact" not in bot_pb2.DecisionRequest.DESCRIPTOR.fields_by_name
outbox = queue.Queue()
outbox.put(bot_pb2.BotMessage(hello=bot_pb2.Hello(bot_name="old", protocol_version=1)))
channel = grpc.insecure_channel(os.environ["ARENA_SOCKET"],
                                options=[("grpc.max_receive_message_length", LIMIT)])
for message in bot_pb2_grpc.BotServiceStub(channel).Play(iter(outbox.get, None)):
    kind = message.WhichOneof("kind")
    if kind == "decision":
        legal = message.decision.legal_actions
        answer = bot_pb2.DecisionResponse(decision_id=message.decision.decision_id,
                                          action_text=legal[len(legal) // 2])
        outbox.put(bot_pb2.BotMessage(decision=answer))
    elif kind == "match_end":
        break
outbox.put(None)
'''.replace("LIMIT", str(RECEIVE_LIMIT))

EXPANDING_BOT = '''\
"""A bot on today's generated code that expands compact legal actions itself and answers one
the sample does not hold."""
import os
import queue
import sys

import grpc
from arena.v1 import bot_pb2, bot_pb2_grpc
from arena.wire.legal import expand_legal_actions

outbox = queue.Queue()
outbox.put(bot_pb2.BotMessage(hello=bot_pb2.Hello(bot_name="expanding", protocol_version=1)))
channel = grpc.insecure_channel(os.environ["ARENA_SOCKET"],
                                options=[("grpc.max_receive_message_length", LIMIT)])
for message in bot_pb2_grpc.BotServiceStub(channel).Play(iter(outbox.get, None)):
    kind = message.WhichOneof("kind")
    if kind == "decision":
        request = message.decision
        choice = request.legal_actions[0]
        if request.HasField("legal_actions_compact"):
            texts = expand_legal_actions(request.legal_actions_compact)
            sample = set(request.legal_actions)
            if not sample <= set(texts):
                sys.exit("the sample holds a text that is not a legal action")
            choice = next(t for t in texts[len(texts) // 2:] if t not in sample)
        answer = bot_pb2.DecisionResponse(decision_id=request.decision_id, action_text=choice)
        outbox.put(bot_pb2.BotMessage(decision=answer))
    elif kind == "match_end":
        break
outbox.put(None)
'''.replace("LIMIT", str(RECEIVE_LIMIT))


@pytest.fixture
def sockets() -> Iterator[Path]:
    root = Path(tempfile.mkdtemp(prefix="t", dir="/tmp"))
    yield root
    shutil.rmtree(root, ignore_errors=True)


def _play(bot: Path, logs: Path, sockets: Path) -> list[DecisionEvent]:
    """One Haggis round, ``bot`` in seat 0 against the random sample bot: the decisions, after
    asserting the match ended normally."""
    events: list[MatchEvent] = []
    spec = MatchSpec("haggis", SEED, (load_bot_dir(bot), load_bot_dir(RANDOM)), dict(OPTIONS),
                     TimeControl(5000, 0, 30_000))
    result = asyncio.run(play_match(spec, sandbox="process", log_dir=logs, socket_root=sockets,
                                    on_event=events.append))
    assert result.termination is Termination.NORMAL, result.detail
    return [event for event in events if isinstance(event, DecisionEvent)]


@pytest.mark.unit
def test_the_first_lead_is_sent_compact() -> None:
    game = get_game("haggis")
    state = game.new_match(SEED, OPTIONS)
    assert game.to_move(state) == 0
    texts = [game.format_action(a) for a in game.legal_actions(state)]
    assert sum(len(t) for t in texts) > RECEIVE_LIMIT > TEXTS_BUDGET  # 64 kB did not do
    assert sent_request(texts).HasField("legal_actions_compact")


def test_a_bot_on_the_old_generated_code_with_a_64_kB_channel_plays_a_compact_lead(
    old_bot: Path, readable_root: Path, tmp_path: Path, sockets: Path,
) -> None:
    bot = haggis_bot(readable_root, "old-64k", OLD_BOT, base=old_bot)
    decisions = _play(bot, tmp_path / "logs", sockets)
    first, texts = next(positions(decisions))
    sample = list(sent_request(texts).legal_actions)
    assert first.seat == 0 and first.action == sample[len(sample) // 2]


def test_an_answer_outside_the_sample_is_legal(readable_root: Path, tmp_path: Path,
                                               sockets: Path) -> None:
    bot = haggis_bot(readable_root, "expanding", EXPANDING_BOT)
    outside = 0
    for event, texts in positions(_play(bot, tmp_path / "logs", sockets)):
        request = sent_request(texts)
        if event.seat == 0 and request.HasField("legal_actions_compact"):
            assert event.action in texts and event.action not in request.legal_actions
            outside += 1
    assert outside >= 1


def test_the_sdk_gives_a_python_bot_the_whole_list(readable_root: Path, tmp_path: Path,
                                                   sockets: Path) -> None:
    bot = haggis_bot(readable_root, "last", LAST_BOT)
    unsampled = 0  # answers the sample does not hold
    for event, texts in positions(_play(bot, tmp_path / "logs", sockets)):
        if event.seat == 0:
            assert event.action == texts[max(0, len(texts) - 2)]
            unsampled += event.action not in sent_request(texts).legal_actions
    assert unsampled >= 1
