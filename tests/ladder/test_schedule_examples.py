"""The example ladder files of each schedule type (ladder/continuous.toml, adaptive.toml,
knockout.toml, swiss.toml): they parse, and each plays from its file (its own bots and game,
one-round matches in the process sandbox, a run bounded to one encounter, played by the runner
on the real referee in this process: an embedded cluster would cost more than the encounter,
and what is tested is each file and its schedule)."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.ladder.config import load_ladder
from arena.ladder.reports import load_matches
from arena.ladder.runner import default_play, run_ladder_blocking
from arena.ladder.schedules.registry import schedule_status
from arena.ladder.store import LadderStore

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ("continuous", "adaptive", "knockout", "swiss")


@pytest.mark.unit
@pytest.mark.parametrize("name", EXAMPLES)
def test_each_example_parses(name: str) -> None:
    config = load_ladder(ROOT / "ladder" / f"{name}.toml")
    assert config.schedule.kind == name and config.name == name
    for ref in config.entrants:
        assert (config.base_dir / ref / "bot.toml").is_file(), ref


def copy(name: str, tmp_path: Path) -> Path:
    """The example with absolute bot paths, one-round matches, the process sandbox."""
    text = (ROOT / "ladder" / f"{name}.toml").read_text()
    text = text.replace('"../sample_bots/', f'"{ROOT}/sample_bots/')
    text = text.replace("rounds = 3\n", "rounds = 1\n").replace('sandbox = "auto"',
                                                               'sandbox = "process"')
    target = tmp_path / f"{name}.toml"
    target.write_text(text)
    return target


@pytest.mark.slow
@pytest.mark.parametrize("name", EXAMPLES)
def test_each_example_plays_from_its_file(name: str, tmp_path: Path) -> None:
    copy("demo", tmp_path)  # the knockout's seeds come from it (not played: entrant order)
    config = load_ladder(copy(name, tmp_path))
    summary = run_ladder_blocking(config, play=default_play(), max_matches=2)
    assert summary.played == 2 and not summary.interrupted
    for match in load_matches(config):
        assert match.termination == "normal", match.detail
    with LadderStore(config.database_url) as db:
        assert schedule_status(config, db) is not None
