"""Compact legal actions in the container sandbox: a Python SDK bot on the base image (the
arena packed into it) gets the whole legal list of a compact Haggis lead, as in the process
sandbox (tests/referee/test_compact_legal.py)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from arena.bots.manifest import load_bot_dir
from arena.model import DecisionEvent, MatchEvent, MatchSpec, Termination, TimeControl
from arena.referee.match import play_match
from tests.support.compact_legal import (
    LAST_BOT,
    OPTIONS,
    RANDOM,
    SEED,
    haggis_bot,
    positions,
    sent_request,
)

pytestmark = pytest.mark.docker


def test_an_sdk_bot_in_a_container_gets_the_whole_list(base_image: object,
                                                        tmp_path: Path) -> None:
    bot = haggis_bot(tmp_path, "last", LAST_BOT)
    events: list[MatchEvent] = []
    spec = MatchSpec("haggis", SEED, (load_bot_dir(bot), load_bot_dir(RANDOM)), dict(OPTIONS),
                     TimeControl(5000, 0, 30_000))
    result = asyncio.run(play_match(spec, sandbox="docker", log_dir=tmp_path / "logs",
                                    on_event=events.append))
    assert result.termination is Termination.NORMAL, result.detail
    unsampled = 0  # answers the sample does not hold
    for event, texts in positions([e for e in events if isinstance(e, DecisionEvent)]):
        if event.seat == 0:
            assert event.action == texts[max(0, len(texts) - 2)]
            unsampled += event.action not in sent_request(texts).legal_actions
    assert unsampled >= 1
