"""What a contestant may see of a match: the visibility rule, and seat views built from the
seat's observations alone (real logged matches of every game)."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from itertools import islice
from pathlib import Path

import pytest
from google.protobuf import json_format

from arena.games import game_ids, get_game
from arena.host.views import Sight, seat_view_lines, shared_log, sight, watch_records
from arena.model import DecisionEvent, HeaderEvent
from arena.record.log import read_events
from arena.record.replay import ReplayStep, replay_events
from arena.render.frames import seat_frames
from arena.wire import encode_observation
from tests.support.pages import logged_match

pytestmark = pytest.mark.integration

NONE = Sight(frozenset(), False)
FULL = Sight(frozenset((0, 1)), True)


@pytest.fixture(scope="module")
def match_log(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], Path]:
    """One real logged match per game for the module's tests (each only reads it), played the
    first time a test asks for that game."""
    made: dict[str, Path] = {}

    def log_of(game_id: str) -> Path:
        if game_id not in made:
            made[game_id] = logged_match(game_id, tmp_path_factory.mktemp(game_id))
        return made[game_id]

    return log_of


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
def test_a_seat_view_is_made_of_that_seats_observations(
        game_id: str, match_log: Callable[[str], Path]) -> None:
    """Every frame of seat 0's view is the renderer's drawing of seat 0's observation at that
    point (nothing else of the state), and the opponent's moves are only said to happen."""
    from arena.render import renderer_for
    from arena.render.frames import _text

    path = match_log(game_id)
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
    omniscient = list(islice(seat_frames(read_events(path), None), 2))  # (drawn as needed)
    assert omniscient[1].board != frames[1].board  # the whole board shows more


@pytest.mark.parametrize("game_id", game_ids())
def test_a_seat_view_log_holds_the_seats_observations_and_no_seed(
        game_id: str, match_log: Callable[[str], Path]) -> None:
    path = match_log(game_id)
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


@pytest.mark.parametrize("game_id", game_ids())
def test_a_watchers_records_of_one_seat_do_not_change_with_what_it_cannot_see(
        game_id: str, match_log: Callable[[str], Path]) -> None:
    """The records a watcher of seat 1 gets (``watch_records``, what WatchFrame.record carries)
    are the seat view `arena logs` downloads, one a step; with everything seat 1 cannot see
    redrawn at every decision (``determinize``: the rival's hand, the deck, hidden treasures)
    they are the same bytes, while seat 0's change (the control: the change is real)."""
    path = match_log(game_id)
    game = get_game(game_id)
    steps = list(replay_events(read_events(path)))
    rng = random.Random(5)
    redrawn = [step if game.to_move(step.state) is None else ReplayStep(
        step.event, game.determinize(game.observation(step.state, 1), rng)) for step in steps]
    assert sum(a.state != b.state for a, b in zip(steps, redrawn, strict=True)) > len(steps) // 2
    real = list(watch_records(steps, 1))
    assert len(real) == len(steps)
    assert b"".join(real) == b"".join(seat_view_lines(read_events(path), 1))
    assert list(watch_records(redrawn, 1)) == real
    assert list(watch_records(steps[:40], 1, start=7)) == real[7:40]

    def seat_0_saw(of: list[ReplayStep]) -> list[bytes]:  # before each of seat 0's decisions
        return [encode_observation(game_id, game.observation(a.state, 0)).SerializeToString()
                for a, b in zip(of[:60], of[1:60], strict=False)
                if isinstance(b.event, DecisionEvent) and b.event.seat == 0]

    # the control: where the redraw changed what seat 0 saw (in Lost Cities and Haggis seat 1's
    # hand; in Goofspiel and Portas it changes only what neither seat sees), seat 0's records
    # change with it
    changed = seat_0_saw(redrawn) != seat_0_saw(steps)
    assert changed or game_id not in ("lost-cities", "haggis")
    assert (list(watch_records(redrawn[:60], 0)) != list(watch_records(steps[:60], 0))
            ) == changed


def test_a_watcher_of_the_whole_board_gets_the_shared_log_with_the_seed(
        match_log: Callable[[str], Path]) -> None:
    """The whole board's records are the log as someone who owns no seat downloads it, the
    header with its seed (the match is over: a watcher replays it as it comes)."""
    path = match_log("lost-cities")
    records = list(watch_records(replay_events(read_events(path)), None))
    shared = shared_log(path.read_bytes(), frozenset()).splitlines(keepends=True)
    assert records[1:] == shared[1:]
    header = json.loads(records[0])
    assert header == {**json.loads(shared[0]), "seed": next(iter(read_events(path))).seed}
