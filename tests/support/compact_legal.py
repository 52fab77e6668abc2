"""Compact legal actions over the real protocol: the worst Haggis lead known, one-round Haggis
bots readable by the sandboxed user, each decision's legal texts replayed, what the referee
sends."""

from __future__ import annotations

import dataclasses
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from arena.games import get_game, haggis
from arena.model import DecisionEvent
from arena.v1 import bot_pb2
from arena.wire.legal import fill_legal_actions
from tests.support.paths import ROOT


def worst_haggis_lead() -> tuple[Any, list[str]]:
    """The worst lead known (benchmarks/run.py ``haggis_worst_legal_ms``): runs of pairs 4..10
    in two suits plus J, Q, K; 19,026 legal actions, 815 kB of text."""
    hand = [f"{rank}{suit}" for rank in range(4, 11) for suit in "GB"] + ["J", "Q", "K"]
    game = haggis.GAME
    state = game.new_match(1)
    hands = list(state.hands)
    hands[game.to_move(state)] = haggis.mask_of(haggis.parse_card(c) for c in hand)
    state = dataclasses.replace(state, hands=(hands[0], hands[1]))
    return state, [game.format_action(a) for a in game.legal_actions(state)]


RANDOM = ROOT / "sample_bots" / "haggis" / "random"


OPTIONS = {"target": 1}


SEED = 3


LAST_BOT = '''\
"""A Python SDK bot: always the last but one of decision.legal_texts."""
from arena.sdk import run

run(lambda decision: decision.legal_texts[max(0, len(decision.legal_texts) - 2)], name="last")
'''


def haggis_bot(where: Path, name: str, source: str, base: Path | None = None) -> Path:
    """A Haggis bot directory readable by the sandboxed bot user (``base``: copied first)."""
    directory = where / name
    if base is None:
        directory.mkdir()
    else:
        shutil.copytree(base, directory)
    (directory / "bot.py").write_text(source)
    (directory / "bot.toml").write_text(
        f'name = "{name}"\ngame = "haggis"\nversion = "1"\ncommand = ["python3", "bot.py"]\n')
    for folder, _, files in os.walk(directory):
        os.chmod(folder, 0o755)
        for file in files:
            os.chmod(os.path.join(folder, file), 0o644)
    return directory


def positions(decisions: list[DecisionEvent]) -> Iterator[tuple[DecisionEvent, list[str]]]:
    """Each decision of the match with the legal texts of its position (replayed)."""
    game = get_game("haggis")
    state = game.new_match(SEED, OPTIONS)
    for event in decisions:
        assert game.to_move(state) == event.seat
        yield event, [game.format_action(a) for a in game.legal_actions(state)]
        state = game.apply(state, game.parse_action(event.action))


def sent_request(texts: list[str]) -> bot_pb2.DecisionRequest:
    request = bot_pb2.DecisionRequest()
    fill_legal_actions(request, texts)
    return request
