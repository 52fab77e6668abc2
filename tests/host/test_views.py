"""What a contestant may see of a match: the visibility rule, and seat views built from the
seat's observations alone (real logged matches of every game)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from google.protobuf import json_format

from arena.games import game_ids, get_game
from arena.host.views import Sight, seat_view_lines, sight
from arena.model import DecisionEvent, HeaderEvent
from arena.record.log import read_events
from arena.record.replay import replay_events
from arena.render.frames import seat_frames
from arena.wire import encode_observation
from tests.support.pages import logged_match

pytestmark = pytest.mark.integration

NONE = Sight(frozenset(), False)
FULL = Sight(frozenset((0, 1)), True)


@pytest.mark.unit
@pytest.mark.parametrize(("setting", "own", "running", "expected"), [
    # while a match runs: only your own seat, whatever the setting
    ("public", {0}, True, Sight(frozenset({0}), False)),
    ("public", set(), True, NONE),
    ("participants", {1}, True, Sight(frozenset({1}), False)),
    ("own-seat", {0, 1}, True, Sight(frozenset({0, 1}), False)),
    # after it ends
    ("public", set(), False, FULL),
    ("participants", {1}, False, FULL),
    ("participants", set(), False, NONE),
    ("own-seat", {1}, False, Sight(frozenset({1}), False)),
    ("own-seat", set(), False, NONE),
])
def test_the_visibility_rule(setting: str, own: set[int], running: bool,
                             expected: Sight) -> None:
    assert sight(setting, own, running) == expected


@pytest.mark.parametrize("game_id", game_ids())
def test_a_seat_view_is_made_of_that_seats_observations(game_id: str, tmp_path: Path) -> None:
    """Every frame of seat 0's view is the renderer's drawing of seat 0's observation at that
    point (nothing else of the state), and the opponent's moves are only said to happen."""
    from arena.render import renderer_for
    from arena.render.frames import _text

    path = logged_match(game_id, tmp_path)
    game, renderer = get_game(game_id), renderer_for(game_id)
    states = [step.state for step in replay_events(read_events(path))]
    events = list(read_events(path))
    frames = list(seat_frames(read_events(path), 0))
    assert len(frames) == len(states)
    assert frames[-1].final and not any(f.final for f in frames[:-1])
    for frame, state, event in zip(frames, states, events, strict=True):
        drawn = _text(renderer.render_view(game.observation(state, 0)))
        assert frame.board.split("\n", 1)[1] == drawn
        if isinstance(event, DecisionEvent) and event.seat == 1:
            assert frame.caption.endswith("moved") or frame.caption.endswith("forfeited")
            assert event.action is None or event.action not in frame.caption
    header = events[0]
    assert isinstance(header, HeaderEvent)
    assert not any(str(header.seed) in f.board for f in frames)
    omniscient = list(seat_frames(read_events(path), None))
    assert omniscient[1].board != frames[1].board  # the whole board shows more


@pytest.mark.parametrize("game_id", game_ids())
def test_a_seat_view_log_holds_the_seats_observations_and_no_seed(game_id: str,
                                                                   tmp_path: Path) -> None:
    path = logged_match(game_id, tmp_path)
    game = get_game(game_id)
    header = next(iter(read_events(path)))
    assert isinstance(header, HeaderEvent)
    lines = [json.loads(line) for line in seat_view_lines(read_events(path), 1)]
    assert lines[0]["type"] == "seat_header" and "seed" not in lines[0]
    assert lines[0]["seat"] == 1
    assert str(header.seed) not in json.dumps(lines)
    steps = list(replay_events(read_events(path)))
    expected = [
        json_format.MessageToDict(encode_observation(game_id, game.observation(before.state, 1)))
        for before, step in zip(steps, steps[1:], strict=False)
        if isinstance(step.event, DecisionEvent) and step.event.seat == 1]
    assert [line["observation"] for line in lines if line["type"] == "observation"] == expected
    assert lines[-1]["type"] == "match_end" and "bot_logs" not in lines[-1]
    assert {line["type"] for line in lines} <= {"seat_header", "observation", "opponent_moved",
                                                 "round_end", "match_end"}
