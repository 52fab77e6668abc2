"""What the moderation tests share (tests/host/test_moderation.py without a server,
test_moderation_host.py with one): the operator's commands run in this process, a competition
of three house bots (alice owns greedy), and the standings as comparable rows."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer
from typer.testing import CliRunner

from arena.cli import host_admin_cmds, host_cmds
from tests.support.competition import RunningServer, house_server

runner = CliRunner(env={"COLUMNS": "200"})
THREE = ("random", "greedy", "strong")
"""The house's bots of a moderated competition: greedy is alice's, the others stay."""


def _app() -> typer.Typer:
    app = typer.Typer(rich_markup_mode="rich")

    @app.callback()
    def root() -> None:
        """Test root."""

    host_cmds.register(app)
    host_admin_cmds.register(app)
    return app


APP = _app()


def operate(file: Path, *args: str) -> tuple[int, str]:
    """``arena ARGS --competition FILE``: its exit code and its output on one line."""
    done = runner.invoke(APP, [*args, "--competition", str(file)])
    return done.exit_code, " ".join(done.output.split())


def moderated(root: Path) -> RunningServer:
    """A competition (process sandbox, not started) whose ladder plays ``THREE``, alice
    owning greedy."""
    # no rest between matches: the test counts the ladder's matches played beside scrimmages
    # (the share), which a resting ladder plays fewer of
    return house_server(root, house=THREE, rest_s=0)


def rows(standings: Any, places: int = 9) -> list[tuple[Any, ...]]:
    """Comparable rows of the API's standings or of a fit (rating and interval to ``places``
    places; the API gives the interval's low end)."""
    out = []
    for r in standings.rows:
        low = getattr(r, "low", None)
        ci = (r.rating - low) if low is not None else r.ci95
        out.append((r.rank, r.name, r.version, round(r.rating, places), round(ci, places),
                    r.matches, r.wins, r.draws, r.losses))
    return out
