"""`arena watch` in a real terminal (tmux: keys sent, the screen read back) opens the app; piped
or with --plain it prints what it always printed."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli.main import app

pytestmark = pytest.mark.integration
ROOT = Path(__file__).resolve().parents[2]


def test_plain_and_piped_output_is_unchanged(logs: dict[str, Path]) -> None:
    runner = CliRunner()
    for game in ("haggis", "goofspiel"):
        piped = runner.invoke(app, ["watch", str(logs[game])], env={"COLUMNS": "100"})
        plain = runner.invoke(app, ["watch", str(logs[game]), "--plain"],
                              env={"COLUMNS": "100"})
        assert piped.exit_code == plain.exit_code == 0, piped.output
        assert piped.stdout == plain.stdout and "match over" in piped.stdout


class Tmux:
    """One tmux session of its own server (its socket in a temporary directory)."""

    def __init__(self, tmp: Path, command: list[str], size: tuple[int, int]) -> None:
        self.socket = str(tmp / f"tmux-{uuid.uuid4().hex[:8]}")
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), *sys.path[1:]]),
               "TERM": "xterm-256color"}
        subprocess.run(["tmux", "-S", self.socket, "new-session", "-d", "-s", "w",
                        "-x", str(size[0]), "-y", str(size[1]), *command], check=True, env=env)

    def screen(self) -> str:
        out = subprocess.run(["tmux", "-S", self.socket, "capture-pane", "-p", "-t", "w"],
                             capture_output=True, text=True)
        return out.stdout

    def keys(self, *keys: str) -> None:
        subprocess.run(["tmux", "-S", self.socket, "send-keys", "-t", "w", *keys], check=True)

    def wait_for(self, text: str, timeout_s: float = 60) -> str:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            screen = self.screen()
            if text in screen:
                return screen
            time.sleep(0.1)
        raise AssertionError(f"{text!r} never showed; the screen:\n{self.screen()}")

    def alive(self) -> bool:
        return subprocess.run(["tmux", "-S", self.socket, "has-session", "-t", "w"],
                              capture_output=True).returncode == 0

    def close(self) -> None:
        subprocess.run(["tmux", "-S", self.socket, "kill-server"], capture_output=True)


@pytest.mark.slow
def test_on_a_terminal_watch_is_the_app(logs: dict[str, Path], tmp_path: Path) -> None:
    if shutil.which("tmux") is None:
        pytest.fail("tmux is needed: apt-get install tmux", pytrace=False)
    arena = [sys.executable, "-c", "from arena.cli.main import main; main()"]
    # the shell stays after the app: its exit is seen as the prompt's marker
    shell = f"{shlex.join([*arena, 'watch', str(logs['portas'])])}; echo watch-exited-$?; sleep 60"
    session = Tmux(tmp_path, ["sh", "-c", shell], (100, 30))
    try:
        screen = session.wait_for("decision 1/")
        assert "view: everything" in screen
        session.keys("End")
        screen = session.wait_for("end: ")
        session.keys("Tab")
        session.wait_for("view: seat 0")
        session.keys(":")
        session.wait_for("go to decision N")
        session.keys("5", "Enter")
        session.wait_for("decision 5/")
        session.keys("q")
        session.wait_for("watch-exited-0")
    finally:
        session.close()
