"""`arena play --plain` (issue 35 point 2): a person plays a whole match against a sample bot
of every installed game from scripted input, the bot in the process sandbox as `arena match`
runs it; the match is logged with the person's seat named and replays; a person with a clock
who does not answer loses on time."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from arena.cli.main import app
from arena.model import HeaderEvent, MatchEndEvent, Termination
from arena.record.log import read_events
from arena.record.replay import replay_log
from tests.support.goofspiel import RANDOM as GOOFSPIEL_RANDOM
from tests.support.paths import ROOT, SAMPLE_BOTS

pytestmark = pytest.mark.integration
runner = CliRunner(env={"COLUMNS": "80"})

GAMES = {
    "lost-cities": (SAMPLE_BOTS / "lost-cities" / "greedy", ["rounds=1"]),
    "haggis": (SAMPLE_BOTS / "haggis" / "random", []),
    "portas": (SAMPLE_BOTS / "portas" / "random", ["games=1"]),
    "goofspiel": (GOOFSPIEL_RANDOM, ["rounds=1"]),
}


def _arena(*args: str, stdin: str | None, log_dir: Path) -> Result:
    """`arena play ARGS --plain` through its command in this process (the bot is a process of
    its own, as `arena play` starts it; the clock test below runs the whole CLI process)."""
    return runner.invoke(app, ["play", *args, "--plain", "--log-dir", str(log_dir)],
                         input=stdin)


def _log(log_dir: Path) -> Path:
    (log,) = log_dir.glob("*.jsonl")
    return log


@pytest.mark.slow
@pytest.mark.parametrize("game", list(GAMES))
@pytest.mark.parametrize("seat", [0, 1])
def test_a_whole_match_from_scripted_input(game: str, seat: int, tmp_path: Path) -> None:
    bot, options = GAMES[game]
    script = "no such action\n" + "1\n" * 3000
    done = _arena(str(bot), "--seat", str(seat), "--seed", "11", "--name", "ada",
                  *(a for o in options for a in ("-o", o)), stdin=script, log_dir=tmp_path)
    assert done.exit_code == 0, done.stdout[-3000:] + done.stderr[-3000:]
    out = " ".join(done.stdout.split())
    assert f"'no such action' is not a {game} action" in out  # refused, asked again
    assert f"you are seat {seat}" in out and "legal actions (" in out
    assert any(f"{said}: you " in out for said in ("You won", "You lost", "A draw"))
    log = _log(tmp_path)
    assert f"arena watch {log}" in out
    events = list(read_events(log))
    header, end = events[0], events[-1]
    assert isinstance(header, HeaderEvent) and isinstance(end, MatchEndEvent)
    assert header.bot_names[seat] == "human:ada" and header.humans[0].seat == seat
    assert header.humans[0].time_control is None and header.sandbox == "process"
    assert end.result.termination is Termination.NORMAL
    report = replay_log(log)
    assert report.finished


def test_a_person_with_a_clock_loses_on_time(tmp_path: Path) -> None:
    bot, options = GAMES["lost-cities"]
    env = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "80"}
    started = time.monotonic()
    silent, keep_open = os.pipe()  # the input stays open: nobody answers, nobody closes it
    try:
        with subprocess.Popen(
                [sys.executable, "-m", "arena", "play", str(bot), "--plain",
                 "--move-time", "300", "--log-dir", str(tmp_path), "-o", "rounds=1"],
                stdin=silent, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                env=env, cwd=ROOT) as proc:
            out, err = proc.communicate(timeout=60)
    finally:
        os.close(silent)
        os.close(keep_open)
    assert proc.returncode == 0, out + err
    assert time.monotonic() - started < 60
    flat = " ".join(out.split())
    assert "your time is up: no answer within 300 ms" in flat and "You lost" in flat
    log = _log(tmp_path)
    header = next(iter(read_events(log)))
    assert isinstance(header, HeaderEvent)
    assert header.humans[0].time_control is not None
    assert header.humans[0].time_control.move_time_ms == 300
    report = replay_log(log)
    assert report.result is not None and report.result.termination is Termination.TIMEOUT
    assert report.result.faulty_seat == 0


def test_the_end_of_the_input_cancels_the_match(tmp_path: Path) -> None:
    bot, options = GAMES["lost-cities"]
    done = _arena(str(bot), "-o", "rounds=1", stdin="1\n1\n", log_dir=tmp_path)
    assert done.exit_code == 3, done.stdout + done.stderr
    assert "No result" in done.stdout and "cancelled" in done.stdout
    report = replay_log(_log(tmp_path))
    assert report.result is not None and report.result.termination is Termination.CANCELLED


def test_a_bot_of_another_game_is_one_clear_line(tmp_path: Path) -> None:
    done = _arena(str(GAMES["haggis"][0]), "--game", "lost-cities", stdin="", log_dir=tmp_path)
    assert done.exit_code == 2
    assert "plays haggis, not lost-cities" in done.stderr and "Traceback" not in done.stderr
