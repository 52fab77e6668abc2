"""The watch app's model (``arena.tui.model``): positions rebuilt from keyframes are the rules
engine's states, rounds, times, bot output as plain text, and a seat's view built from what that
seat may see only (real match logs of every game)."""

from __future__ import annotations

import io
import random
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from arena.games import get_game
from arena.model import DecisionEvent
from arena.record.log import read_events, seat_log_path
from arena.record.replay import ReplayStep, replay_events
from arena.tui.model import Timeline
from tests.support.terminal import ESCAPES
from tests.tui.conftest import GAMES

pytestmark = pytest.mark.unit


def _states(log: Path) -> list[Any]:
    """The engine's state after 0, 1, 2... decisions."""
    steps = list(replay_events(read_events(log)))
    states = [steps[0].state]
    states += [s.state for s in steps if isinstance(s.event, DecisionEvent)]
    return states


def _text(renderable: Any, width: int = 100) -> str:
    console = Console(file=io.StringIO(), width=width, record=True)
    console.print(renderable)
    return console.export_text()


@pytest.mark.parametrize("game", GAMES)
def test_every_position_rebuilt_from_keyframes_is_the_engines_state(
        logs: dict[str, Path], game: str) -> None:
    log = logs[game]
    states = _states(log)
    timeline = Timeline.of_steps(replay_events(read_events(log)), log=log, keyframe_every=8)
    assert timeline.last == len(states) - 1 == len(timeline.moves)
    assert len(timeline._keyframes) == len(states) // 8 + (len(states) % 8 > 0)
    order = list(range(len(states)))
    random.Random(1).shuffle(order)  # seeks in any order (the cache of the last one included)
    for position in order + list(range(len(states))):
        assert timeline.state_at(position) == states[position], position


@pytest.mark.parametrize("game", GAMES)
def test_rounds_step_to_their_first_decision(logs: dict[str, Path], game: str) -> None:
    timeline = Timeline.of_steps(replay_events(read_events(logs[game])))
    starts = [0] + [i for i in range(1, timeline.last)
                    if timeline.moves[i].round != timeline.moves[i - 1].round]
    assert len(starts) > 1, "every fixture plays several rounds"
    assert [timeline.round_start(s, 1) for s in starts] == starts[1:] + [timeline.last]
    assert timeline.round_start(starts[1] + 1, -1) == starts[1]  # back to this round's start
    assert timeline.round_start(starts[1], -1) == starts[0]  # at its start: the previous one
    assert timeline.round_start(0, -1) == 0
    for made, event in timeline.round_ends:  # a round ends with the last decision of it
        assert timeline.moves[made - 1].round == event.round
        assert [e.round for e in timeline.scores(made)][-1] == event.round
        assert all(e.round != event.round for e in timeline.scores(made - 1))


def test_a_seat_view_shows_no_time_of_the_other_seat(logs: dict[str, Path]) -> None:
    timeline = Timeline.of_steps(replay_events(read_events(logs["haggis"])))
    everything = timeline.times(5, None)
    assert [t.last_n for t in everything] == [5, 6]  # decision 6 is the current one
    assert not any(t.hidden for t in everything) and everything[1].ms is not None
    zero = timeline.times(5, 0)
    assert zero[0] == everything[0]
    assert zero[1].hidden and (zero[1].ms, zero[1].cpu_ms, zero[1].total_ms) == (None, None,
                                                                                   0.0)


def test_a_simultaneous_move_is_listed_as_the_other_seat_saw_it(logs: dict[str, Path]) -> None:
    timeline = Timeline.of_steps(replay_events(read_events(logs["goofspiel"])))
    first = timeline.moves[0]  # seat 0 bids first; seat 1 bids without seeing it
    assert first.seat == 0 and first.text(None).startswith("bid ")
    assert first.text(0) == first.text(None) and first.text(1) == "bid ?"


def test_bot_output_is_plain_text_and_only_its_tail(logs: dict[str, Path],
                                                   tmp_path: Path) -> None:
    log = tmp_path / logs["portas"].name
    log.write_bytes(logs["portas"].read_bytes())
    timeline = Timeline.of_steps(replay_events(read_events(log)), log=log)
    assert timeline.output_tail(0) is None
    seat_log_path(log, 0).write_text(
        "".join(f"line {i}\n" for i in range(5000)) + f"[bold]x[/bold] {ESCAPES} \x1b[31mred\n")
    tail = timeline.output_tail(0, lines=50)
    assert tail is not None
    lines = tail.splitlines()
    assert len(lines) == 50 and lines[0] == "line 4951"
    assert lines[-1].startswith("[bold]x[/bold] ") and lines[-1].endswith("[31mred")
    assert not any(c in tail for c in "\x1b\x07\x9b\u202e")


@pytest.mark.parametrize("game", GAMES)
def test_a_seats_view_depends_only_on_what_it_may_see(logs: dict[str, Path], game: str) -> None:
    """The same match with everything seat 0 cannot see redrawn at every position (the other
    hand, the deck, hidden treasures: ``determinize``): seat 0's boards, moves and times are
    the same, and the omniscient boards are not."""
    engine = get_game(game)
    steps = list(replay_events(read_events(logs[game])))
    rng = random.Random(5)

    def redrawn(step: ReplayStep) -> ReplayStep:
        state = step.state
        if engine.to_move(state) is None:
            return step
        return ReplayStep(step.event, engine.determinize(engine.observation(state, 0), rng))

    real = Timeline.of_steps(steps, keyframe_every=1)
    positions = sorted({*range(0, real.last, max(1, real.last // 15)), real.last})  # ~15
    made = -1  # decisions made before each step: redraw the states of the positions checked
    other_steps = []
    for step in steps:
        made += step is steps[0] or isinstance(step.event, DecisionEvent)
        other_steps.append(redrawn(step) if made in positions else step)
    other = Timeline.of_steps(other_steps, keyframe_every=1)
    differs = 0
    for position in positions:
        board, note = real.board(position, 0)
        assert (_text(board), note) == tuple(map(_text_or_note, other.board(position, 0))), \
            position
        assert real.times(position, 0) == other.times(position, 0)
        differs += _text(real.board(position, None)[0]) != _text(other.board(position, None)[0])
    assert [m.text(0) for m in real.moves] == [m.text(0) for m in other.moves]
    assert differs > len(positions) // 2, "the redrawn states hide something from seat 0"


def _text_or_note(value: Any) -> Any:
    return value if isinstance(value, str) else _text(value)
