"""Typed match events: one definition for the log, the live views, the admin service and
replay. Real logs of every game read back into equal events, survive the admin wire format, and
anything that is not a match event is one clear error."""

from __future__ import annotations

import asyncio
import json
import random
from pathlib import Path
from typing import Any

import pytest

from arena.errors import LogFormatError
from arena.games import game_ids
from arena.model import (
    BotSpec,
    HeaderEvent,
    MatchEndEvent,
    MatchEvent,
    MatchSpec,
    TimeControl,
    event_from_json,
)
from arena.record.log import read_events
from arena.referee.local import LocalPlayer
from arena.referee.match import Match
from arena.wire.admin import event_from_proto, event_to_proto

pytestmark = pytest.mark.integration


def _log_of(game_id: str, tmp_path: Path) -> tuple[Path, list[MatchEvent]]:
    """A whole match of ``game_id`` between two seeded random policies, logged."""
    events: list[MatchEvent] = []
    bots = (BotSpec("r1", game_id, version="1", digest="d1"), BotSpec("r2", game_id))
    spec = MatchSpec(game_id, 17, bots, {}, TimeControl(), match_id=f"ev-{game_id}")
    rngs = (random.Random(1), random.Random(2))
    players = tuple(LocalPlayer(s, lambda d, r=rngs[s]: r.choice(d.legal_actions))
                    for s in (0, 1))
    match = Match(spec, sandbox_name="in-process", log_dir=tmp_path, on_event=events.append)
    asyncio.run(match.run((players[0], players[1])))
    return tmp_path / f"ev-{game_id}.jsonl", events


@pytest.mark.parametrize("game_id", game_ids())
def test_a_log_reads_back_into_its_events(game_id: str, tmp_path: Path) -> None:
    path, emitted = _log_of(game_id, tmp_path)
    read = list(read_events(path))
    assert [e.to_json() for e in read] == [e.to_json() for e in emitted]
    lines = path.read_text().splitlines()
    assert [json.loads(line) for line in lines] == [e.to_json() for e in read]
    header, end = read[0], read[-1]
    assert isinstance(header, HeaderEvent) and header.bot_names == ("r1", "r2")
    assert header.bots[0].digest == "d1" and header.bots[1].image is None
    assert isinstance(end, MatchEndEvent) and end.result.game == game_id


@pytest.mark.parametrize("game_id", game_ids())
def test_events_survive_the_admin_wire(game_id: str, tmp_path: Path) -> None:
    _, emitted = _log_of(game_id, tmp_path)
    for event in emitted:
        message = event_to_proto(event)
        again = event_from_proto(type(message).FromString(message.SerializeToString()))
        assert again.to_json() == event.to_json()


@pytest.mark.unit
@pytest.mark.parametrize(
    ("record", "says"),
    [
        ([1, 2], "not a JSON object"),
        ({"type": "gossip"}, "unknown record type 'gossip'"),
        ({"type": "decision", "n": 1, "round": 0, "seat": 0, "action": "x"}, "without 'ms'"),
        ({"type": "decision", "n": 1, "round": 0, "seat": 2, "action": "x", "ms": 1},
         "seat 2"),
        ({"type": "round_end", "round": 0, "scores": [1], "totals": [1, 2]}, "pair"),
        ({"type": "header", "match_id": "m", "game": "lost-cities", "game_version": 1,
          "seed": "seven", "bots": [{"name": "a"}, {"name": "b"}]}, "integer"),
        ({"type": "deal", "round": True, "deal": {}}, "integer"),
    ],
)
def test_malformed_records_are_named(record: Any, says: str) -> None:
    with pytest.raises(LogFormatError, match=says):
        event_from_json(record)


@pytest.mark.unit
def test_a_log_that_is_not_one_is_a_log_format_error(tmp_path: Path) -> None:
    binary = tmp_path / "binary.jsonl"
    binary.write_bytes(b'{"type": "header"}\n\xff\xfe\x00garbage\n')
    with pytest.raises(LogFormatError, match="not UTF-8"):
        list(read_events(binary))
    bad_seed = tmp_path / "seed.jsonl"
    bad_seed.write_text(json.dumps({"type": "header", "match_id": "m", "game": "lost-cities",
                                    "game_version": 1, "seed": 1.5, "bots": []}) + "\n")
    with pytest.raises(LogFormatError, match="seed.jsonl:1"):
        list(read_events(bad_seed))
