"""What the final's host tests share (tests/host/test_final.py, test_final_phases.py,
test_whole_season.py): the operator's commands run in this process (the server runs in its
own), the final's recorded matches, and a wait that shows the server's log when it fails."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

from typer.testing import CliRunner

from arena.host.config import load_competition
from arena.ladder.store import LadderStore
from tests.support.competition import RunningServer, wait_for
from tests.support.paths import ROOT

FINAL = "t-lost-cities-final"
"""The final's ladder in the tests' competition ``t``."""
BOTS = ROOT / "sample_bots" / "lost-cities"
ENTRANTS = [str(BOTS / name) for name in ("random", "greedy", "strong")]
runner = CliRunner(env={"COLUMNS": "400"})


@dataclass(frozen=True)
class Ran:
    """An `arena` command's exit code and output."""

    returncode: int
    stdout: str
    stderr: str


def arena(*args: str) -> Ran:
    """``arena ARGS`` in this process (the operator's side: the server is another process)."""
    from arena.cli.main import app

    done = runner.invoke(app, list(args))
    return Ran(done.exit_code, done.stdout, done.stderr)


def recorded(server: RunningServer) -> dict[str, Any]:
    """The final's recorded matches by id."""
    with LadderStore(load_competition(server.file).database) as db:
        return {m.match_id: m for m in db.matches(FINAL)}


wait = functools.partial(wait_for, timeout=600, every=0.3)
"""``wait_for`` with the final's patience: ``wait(what, check, server)``."""
