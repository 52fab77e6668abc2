"""Bad schedule input through `arena run-ladder`: one line naming the key (and its line), exit
2, nothing played and nothing written (the issue's three: a knockout of one bot, a Swiss with
more rounds than its opponents allow, K < 1; and entrants that are not the bots a tournament
began with)."""

from __future__ import annotations

from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from arena.cli import ladder_cmds

pytestmark = pytest.mark.integration

SAMPLES = Path(__file__).resolve().parents[2] / "sample_bots" / "lost-cities"
WIDE = {"COLUMNS": "1000"}
"""A terminal wide enough that a line is not wrapped."""


def app() -> typer.Typer:
    root = typer.Typer()

    @root.callback()
    def main() -> None:
        """Test root."""

    ladder_cmds.register(root)
    return root


def entrants(*names: str) -> str:
    return ", ".join(f'"{SAMPLES / name}"' for name in names)


@pytest.mark.unit
@pytest.mark.parametrize(
    ("bots", "schedule", "key"),
    [
        (("greedy",), 'type = "knockout"', "'entrants' (line 3)"),
        (("greedy", "random", "strong"), 'type = "swiss"\nrounds = 4',
         "'schedule.rounds' (line 9)"),
        (("greedy", "random"), 'type = "continuous"\nfairness = 0',
         "'schedule.fairness' (line 9)"),
        (("greedy", "random"), 'type = "adaptive"\nencounters = 8\nfairness = -2',
         "'schedule.fairness' (line 10)"),
    ],
)
def test_bad_schedule_input_is_one_line_exit_2_and_nothing_played(
        tmp_path: Path, bots: tuple[str, ...], schedule: str, key: str) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(f'name = "bad"\ngame = "lost-cities"\nentrants = [{entrants(*bots)}]\n'
                    f'sandbox = "process"\n[options]\nrounds = 1\n[schedule]\n{schedule}\n')
    out = CliRunner().invoke(app(), ["run-ladder", str(path)], env=WIDE)
    assert out.exit_code == 2, out.output
    lines = [line for line in out.output.splitlines() if line.strip()]
    assert len(lines) == 1 and f"key {key}" in lines[0], out.output
    assert not (tmp_path / "state").exists()


def test_a_tournament_whose_entrants_changed_is_refused_before_playing(tmp_path: Path) -> None:
    path = tmp_path / "cup.toml"
    head = 'name = "cup"\ngame = "lost-cities"\nsandbox = "process"\nconcurrency = 1\n'
    tail = '[options]\nrounds = 1\n[schedule]\ntype = "knockout"\n'
    path.write_text(head + f'entrants = [{entrants("greedy", "random")}]\n' + tail)
    first = CliRunner().invoke(app(), ["run-ladder", str(path), "--matches", "2"], env=WIDE)
    assert first.exit_code == 0, first.output
    before = sorted(p.name for p in (tmp_path / "state" / "cup" / "matches").iterdir())
    path.write_text(head + f'entrants = [{entrants("greedy", "strong")}]\n' + tail)
    out = CliRunner().invoke(app(), ["run-ladder", str(path)], env=WIDE)
    assert out.exit_code == 2, out.output
    errors = [line[line.index("error:"):] for line in out.output.splitlines() if "error:" in line]
    assert len(errors) == 1 and "lack random and add strong" in errors[0], out.output
    assert sorted(p.name for p in (tmp_path / "state" / "cup" / "matches").iterdir()) == before
