"""A Python bot learns the clock it is charged on (``MatchInfo.clock`` and ``wall_guard``), as
the referee sends it in MatchStart: real bot processes over the real protocol."""

from __future__ import annotations

import asyncio
import dataclasses
from pathlib import Path

import pytest

from arena.bots import load_bot_dir
from arena.model import MatchSpec, TimeControl
from arena.referee.match import play_match

pytestmark = pytest.mark.integration

BOT = '''
import sys
from arena.sdk import run


def choose(decision):
    info = decision.match
    print(f"clock={info.clock} guard={info.wall_guard}", file=sys.stderr, flush=True)
    return decision.legal_actions[0]


if __name__ == "__main__":
    run(choose, name="clockwise")
'''


@pytest.mark.parametrize(("clock", "guard", "says"), [
    ("cpu", 6.0, "clock=cpu guard=6.0"),
    ("wall", 4.0, "clock=wall guard=4.0"),
])
def test_a_python_bot_learns_its_clock(tmp_path: Path, clock: str, guard: float,
                                       says: str) -> None:
    bot_dir = tmp_path / "clockwise"
    bot_dir.mkdir()
    (bot_dir / "bot.py").write_text(BOT)
    (bot_dir / "bot.toml").write_text('name = "clockwise"\ngame = "lost-cities"\n'
                                      'command = ["python3", "bot.py"]\n')
    bot = load_bot_dir(bot_dir)
    tc = dataclasses.replace(TimeControl(), clock=clock, wall_guard=guard)
    spec = MatchSpec("lost-cities", 3, (bot, bot), {"rounds": 1}, tc)
    result = asyncio.run(play_match(spec, sandbox="process", log_dir=tmp_path / "logs"))
    assert not result.termination.is_fault, result.detail
    seat_log = next((tmp_path / "logs").glob("*.seat0.log")).read_text()
    assert says in seat_log


@pytest.mark.unit
def test_in_process_seats_play_a_cpu_clock_match_on_the_wall_clock(tmp_path: Path) -> None:
    """Nothing meters a policy in the referee's own process: a ladder resolved to the CPU clock
    whose matches are played in-process records (and replays) them on the wall clock."""
    from arena.model import BotSpec, DecisionEvent, HeaderEvent
    from arena.record.log import read_events
    from arena.record.replay import replay_log
    from arena.referee.local import LocalPlayer
    from arena.referee.match import Match

    def first(decision: object) -> object:
        return decision.legal_actions[0]  # type: ignore[attr-defined]

    bots = tuple(BotSpec(name, "lost-cities", command=("true",)) for name in ("a", "b"))
    tc = dataclasses.replace(TimeControl(), clock="cpu")
    spec = MatchSpec("lost-cities", 3, (bots[0], bots[1]), {"rounds": 1}, tc, "inproc")
    match = Match(spec, sandbox_name="in-process", log_dir=tmp_path)
    result = asyncio.run(match.run((LocalPlayer(0, first), LocalPlayer(1, first))))
    assert not result.termination.is_fault, result.detail
    events = list(read_events(tmp_path / "inproc.jsonl"))
    header = events[0]
    assert isinstance(header, HeaderEvent) and header.time_control.clock == "wall"
    assert all(e.cpu_ms is None for e in events if isinstance(e, DecisionEvent))
    assert replay_log(tmp_path / "inproc.jsonl").finished
