"""`arena play` in a real terminal (issue 35, "Done when"): tmux runs `arena play
sample_bots/lost-cities/greedy` (the bot in the process sandbox, then in a container), the test
types as a person
would (keys sent to the pane) and reads the screen (capture-pane) to the end of the match: an
illegal action refused with the engine's reason, then the list, move by move, then the end with
every card and the log, which replays."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.model import HeaderEvent, Termination
from arena.record.log import read_events
from arena.record.replay import replay_log
from tests.support.paths import ROOT, SAMPLE_BOTS

pytestmark = [pytest.mark.integration, pytest.mark.slow]

WAIT_S = 60.0


class Pane:
    """One tmux session of its own server (its socket in the test's directory: nothing of
    anyone else's)."""

    def __init__(self, socket: Path, command: str, size: tuple[int, int] = (100, 45)) -> None:
        self.socket = str(socket)
        env = {**os.environ, "TERM": "xterm-256color"}
        env.pop("COLUMNS", None)  # the pane's own size, not the test process's
        env.pop("LINES", None)
        subprocess.run(["tmux", "-S", self.socket, "new-session", "-d", "-s", "play",
                        "-x", str(size[0]), "-y", str(size[1]), command],
                       check=True, env=env, timeout=30)

    def _tmux(self, *args: str) -> str:
        return subprocess.run(["tmux", "-S", self.socket, *args], check=True,
                              capture_output=True, text=True, timeout=30).stdout

    def screen(self) -> str:
        return self._tmux("capture-pane", "-p", "-t", "play")

    def keys(self, *keys: str) -> None:
        self._tmux("send-keys", "-t", "play", *keys)

    def type(self, text: str) -> None:
        self._tmux("send-keys", "-t", "play", "-l", text)

    def wait_for(self, pattern: str, timeout: float = WAIT_S) -> re.Match[str]:
        deadline = time.monotonic() + timeout
        while True:
            found = re.search(pattern, self.screen())
            if found is not None:
                return found
            assert time.monotonic() < deadline, f"never saw {pattern!r}:\n{self.screen()}"
            time.sleep(0.1)

    def close(self) -> None:
        subprocess.run(["tmux", "-S", self.socket, "kill-server"], capture_output=True,
                       timeout=30)


@pytest.fixture()
def tmux() -> Iterator[None]:
    if shutil.which("tmux") is None:
        pytest.fail("tmux is not installed: `apt-get install -y tmux` (scripts/setup.sh --test "
                    "installs it)", pytrace=False)
    yield


@pytest.mark.parametrize("sandbox", ["process", pytest.param("docker", marks=pytest.mark.docker)])
def test_a_person_plays_greedy_to_the_end_in_a_real_terminal(
        sandbox: str, tmux: None, tmp_path: Path, request: pytest.FixtureRequest) -> None:
    if sandbox == "docker":
        request.getfixturevalue("base_image")  # the local base image the bot's is built on
    bot = SAMPLE_BOTS / "lost-cities" / "greedy"
    play = shlex.join([sys.executable, "-m", "arena", "play", str(bot), "--name", "ada",
                       "--sandbox", sandbox, "-o", "rounds=1", "--seed", "9",
                       "--log-dir", str(tmp_path)])
    command = (f"cd {shlex.quote(str(tmp_path))} && PYTHONPATH={shlex.quote(str(ROOT))} {play}; "
               "echo EXIT=$?; sleep 600")
    pane = Pane(tmp_path / "tmux.sock", command)
    try:
        pane.wait_for(r"decision 1 .*no clock", timeout=WAIT_S if sandbox == "process" else 300)
        pane.wait_for(r"your move")
        pane.wait_for(r"opponent hand: 8 cards")  # the seat's view, not the deal
        pane.type("play Z9 deck")
        pane.keys("Enter")
        pane.wait_for(r"refused: 'play Z9 deck' is not a lost-cities action")
        seen = 1
        while True:
            pane.keys("C-u")  # an empty input, then ↓ into the list and Enter
            pane.keys("Down")
            time.sleep(0.2)
            pane.keys("Enter")
            deadline = time.monotonic() + WAIT_S
            while True:
                screen = pane.screen()
                if "the match is over" in screen:
                    break
                now = re.search(r"decision (\d+) .*\n.*your move", screen)
                if now is not None and int(now.group(1)) > seen:
                    seen = int(now.group(1))
                    break
                assert "refused: type an action" not in screen, f"Enter hit no action:\n{screen}"
                assert time.monotonic() < deadline, f"stuck after decision {seen}:\n{screen}"
                time.sleep(0.1)
            if "the match is over" in screen:
                break
            assert seen < 200
        assert "seat 1 hand:" in screen and re.search(r"You (won|lost)|A draw", screen)
        pane.keys("Enter")
        found = pane.wait_for(r"EXIT=(\d+)")
        assert found.group(1) == "0", pane.screen()
        after = " ".join(pane.screen().split())
        assert re.search(r"(You won|You lost|A draw): you -?\d+, greedy -?\d+", after)
    finally:
        pane.close()
    (log,) = tmp_path.glob("*.jsonl")
    report = replay_log(log)
    assert report.result is not None and report.result.termination is Termination.NORMAL
    assert report.result.bots == ("human:ada", "greedy")
    header = next(iter(read_events(log)))
    assert isinstance(header, HeaderEvent) and header.sandbox == sandbox


def test_every_part_of_arena_play_is_reachable_at_80x24(tmux: None, tmp_path: Path) -> None:
    """An 80x24 terminal: the board (the hand in view; PgDn brings its last lines, the other
    hand's count), the status, the message, the list and the typed input are all there; what is
    typed plays; Ctrl+Q quits (the match cancelled)."""
    bot = SAMPLE_BOTS / "lost-cities" / "greedy"
    play = shlex.join([sys.executable, "-m", "arena", "play", str(bot), "--name", "ada",
                       "--sandbox", "process", "-o", "rounds=1", "--seed", "9",
                       "--log-dir", str(tmp_path)])
    command = (f"cd {shlex.quote(str(tmp_path))} && PYTHONPATH={shlex.quote(str(ROOT))} {play}; "
               "echo EXIT=$?; sleep 600")
    pane = Pane(tmp_path / "tmux.sock", command, (80, 24))
    try:
        pane.wait_for(r"decision 1 .*no clock")
        pane.wait_for(r"your move")
        screen = pane.screen()
        assert "seat 0 (you) hand:" in screen and "type an action" in screen
        assert "PgUp/PgDn" in screen and "opponent hand: 8 cards" not in screen
        assert re.search(r"(play|discard) \w+ deck", screen)  # the list
        pane.keys("NPage")
        pane.wait_for(r"opponent hand: 8 cards")
        pane.keys("PPage")
        pane.wait_for(r"Round 1/1")
        action = re.search(r"((play|discard) \w+ deck)", screen)
        assert action is not None
        pane.type(action.group(1))
        pane.keys("Enter")
        pane.wait_for(r"decision 3 .*no clock")  # the bot answered decision 2
        pane.keys("C-q")
        pane.wait_for(r"EXIT=\d+")
    finally:
        pane.close()
