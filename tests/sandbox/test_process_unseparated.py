"""Attack (issue 19, hole 10): as root on a host without util-linux's separation tools, the
process sandbox used to run every bot as root with only ulimits, quietly. Now it refuses: the
sandbox's check is one clear error before any match (exit 2 at the command line, nothing
played), and a start that gets that far voids the match (never a bot's loss).

The host here has the tools; the test takes them away the way a host without util-linux lacks
them: a PATH on which ``unshare``, ``setpriv`` and ``mount`` are not found."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from arena.bots import load_bot_dir
from arena.errors import ConfigError
from arena.model import MatchSpec, Termination, TimeControl
from arena.referee.match import play_match
from arena.sandbox.isolation import isolation_available, unseparated_reason
from arena.sandbox.process import ProcessSandbox
from tests.support.paths import ROOT, SAMPLE_BOTS

pytestmark = pytest.mark.integration

RANDOM_BOT = SAMPLE_BOTS / "lost-cities" / "random"


@pytest.fixture
def no_tools(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """Root, with a PATH that holds none of the separation tools (returned)."""
    if os.geteuid() != 0:
        message = "the process sandbox's refusal concerns root"
        if os.environ.get("ARENA_REQUIRE_DOCKER") == "1":  # CI runs as root: never skip there
            pytest.fail(message, pytrace=False)
        pytest.skip(message)
    empty = tmp_path / "bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    return str(empty)


@pytest.mark.unit
def test_the_host_says_why_it_does_not_separate(no_tools: str) -> None:
    assert not isolation_available()
    reason = unseparated_reason()
    assert reason is not None and "unshare" in reason and "setpriv" in reason


@pytest.mark.unit
def test_check_refuses_root_without_separation(no_tools: str) -> None:
    with pytest.raises(ConfigError) as refused:
        ProcessSandbox().check([load_bot_dir(RANDOM_BOT)])
    message = str(refused.value)
    assert "as root" in message and "util-linux" in message and "--sandbox docker" in message
    assert "\n" not in message
    with pytest.raises(ConfigError):  # with no bots too: what `arena serve` asks at start
        ProcessSandbox().check([])


def test_a_start_as_root_without_separation_voids_the_match(no_tools: str, tmp_path: Path
                                                            ) -> None:
    bot = load_bot_dir(RANDOM_BOT)
    spec = MatchSpec("lost-cities", 3, (bot, bot), {"rounds": 1}, TimeControl(startup_ms=5000))
    socket_root = Path(tempfile.mkdtemp(prefix="u", dir="/tmp"))
    try:
        result = asyncio.run(play_match(spec, sandbox="process", log_dir=tmp_path / "logs",
                                        socket_root=socket_root))
    finally:
        socket_root.rmdir()
    assert result.void and result.termination is Termination.INTERNAL, result
    assert result.faulty_seat is None and result.winner is None and result.decisions == 0
    assert "as root unseparated" in result.detail


def test_arena_match_refuses_in_one_line_and_plays_nothing(no_tools: str, tmp_path: Path
                                                           ) -> None:
    logs = tmp_path / "logs"
    out = subprocess.run(
        [sys.executable, "-m", "arena", "match", str(RANDOM_BOT), str(RANDOM_BOT),
         "--sandbox", "process", "--seed", "1", "--log-dir", str(logs)],
        cwd=ROOT, capture_output=True, text=True, timeout=120, check=False,
        env={**os.environ, "PATH": no_tools, "COLUMNS": "500"},
    )
    assert out.returncode == 2, out.stderr
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and "as root unseparated" in lines[0], out.stderr
    assert not logs.exists() or not any(logs.iterdir())
