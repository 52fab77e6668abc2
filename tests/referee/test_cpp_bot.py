"""The C++ sample bot (cpp-greedy) in the process sandbox, as a bot author develops it: built
with `make`, run by bot.toml's command (`./cpp-greedy`, no shell, in its directory) against the
Python random bot, in both seats; the log replays."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from arena.model import Termination
from arena.record.replay import replay_log
from tests.support.cpp import BINARY, prepare_cpp_bot
from tests.support.matches import run_match
from tests.support.paths import RANDOM_BOT

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def cpp_bot() -> Path:
    return prepare_cpp_bot()


def test_the_binary_is_static_and_answers_version(cpp_bot: Path) -> None:
    """Static: the image is FROM scratch, with no shared library to load."""
    done = subprocess.run([str(BINARY), "--version"], capture_output=True, text=True,
                          check=True, timeout=10)
    assert done.stdout.strip() == "cpp-greedy 1"
    ldd = subprocess.run(["ldd", str(BINARY)], capture_output=True, text=True, check=False)
    assert "not a dynamic executable" in ldd.stdout + ldd.stderr


def test_without_the_arena_it_says_how_to_run(cpp_bot: Path) -> None:
    done = subprocess.run([str(BINARY)], capture_output=True, text=True, timeout=10,
                          env={"PATH": "/usr/bin:/bin"}, check=False)
    assert done.returncode == 2 and "ARENA_SOCKET is not set" in done.stderr


@pytest.mark.parametrize("cpp_seat", [0, 1])
def test_cpp_greedy_plays_random_in_the_process_sandbox(
    cpp_bot: Path, cpp_seat: int, log_dir: Path, socket_root: Path
) -> None:
    bots = (cpp_bot, RANDOM_BOT) if cpp_seat == 0 else (RANDOM_BOT, cpp_bot)
    result = run_match(*bots, log_dir, socket_root, seed=40 + cpp_seat)
    assert result.termination is Termination.NORMAL, result.detail
    assert len(result.rounds) == 3 and result.bots[cpp_seat] == "cpp-greedy"
    # A greedy heuristic against uniform play: far ahead (random scores deeply negative).
    assert result.winner == cpp_seat, result.totals
    report = replay_log(Path(result.log or ""))
    assert report.finished and report.decisions == result.decisions
    bot_log = Path(result.log or "").with_name(f"{result.match_id}.seat{cpp_seat}.log")
    assert "cpp-greedy: match over" in bot_log.read_text(encoding="utf-8")
