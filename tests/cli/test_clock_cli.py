"""The clock asked for on the command line and in ladder files: `arena match --clock` plays on
the CPU clock in the process sandbox and its summary shows each bot's statistics; a bad clock
or guard is one line, exit 2, nothing played or written; a ladder's "auto" resolves once
before the first match ("cpu" where it cannot be metered: refused)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli.main import app
from arena.errors import ConfigError
from arena.ladder.config import load_ladder
from arena.ladder.runner import resolve_run_clock
from arena.record.log import read_events
from arena.referee.service import Lineup
from arena.sandbox.process import ProcessSandbox

pytestmark = pytest.mark.unit

runner = CliRunner()
BOTS = ["sample_bots/portas/random", "sample_bots/portas/random"]


@pytest.mark.integration
def test_match_on_the_cpu_clock_shows_statistics(tmp_path: Path) -> None:
    result = runner.invoke(app, ["match", *BOTS, "--seed", "3", "--clock", "cpu",
                                 "--move-time", "5000", "--log-dir", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert "resource statistics" in result.stdout and "cpu ·" in result.stdout
    log = next(tmp_path.glob("*.jsonl"))
    events = list(read_events(log))
    assert events[0].time_control.clock == "cpu"  # type: ignore[union-attr]


@pytest.mark.parametrize("args", [["--clock", "fast"], ["--wall-guard", "1"]])
def test_a_bad_clock_is_one_line(tmp_path: Path, args: list[str]) -> None:
    result = runner.invoke(app, ["match", *BOTS, *args, "--log-dir", str(tmp_path)])
    assert result.exit_code == 2
    assert not list(tmp_path.iterdir())


def test_a_ladder_with_a_bad_clock_is_refused_before_anything(tmp_path: Path) -> None:
    path = tmp_path / "l.toml"
    path.write_text('name = "l"\ngame = "portas"\nentrants = ["a", "b"]\n'
                    '[time_control]\nclock = "fastest"\n')
    result = runner.invoke(app, ["run-ladder", str(path)])
    assert result.exit_code == 2
    assert "time_control.clock" in result.output and "fastest" in result.output
    assert not (tmp_path / "state").exists()


class _Unmetered(ProcessSandbox):
    """A process sandbox on a host without a CPU counter."""

    def cpu_meter_problem(self) -> str | None:
        return "no CPU counter on this host"


def test_ladder_clock_resolves_once(tmp_path: Path) -> None:
    path = tmp_path / "l.toml"
    path.write_text('name = "l"\ngame = "portas"\nentrants = ["a", "b"]\n')
    config = load_ladder(path)
    assert (config.clock, config.time_control.clock) == ("auto", "wall")
    lineup = Lineup("portas", (), _Unmetered())
    fell, note = resolve_run_clock(config, lineup)
    assert (fell.clock, fell.time_control.clock) == ("wall", "wall") and "wall clock" in note
    assert resolve_run_clock(fell, lineup)[1] == ""  # resolved: no second note
    with pytest.raises(ConfigError, match="cannot meter CPU"):
        resolve_run_clock(config.with_clock("cpu"), lineup)
    metered, note = resolve_run_clock(config, Lineup("portas", (), ProcessSandbox()))
    assert (metered.time_control.clock, note) == ("cpu", "")
    json.dumps(metered.time_control.to_json())
