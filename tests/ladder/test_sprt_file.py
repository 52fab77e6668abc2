"""A test named on the command line: its name, its ladder file under ladder/state, and what
is refused before anything is written."""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from arena.errors import ConfigError, OptionsError, UnknownGameError
from arena.ladder.config import load_ladder
from arena.model import TimeControl
from arena.sprt.file import DEFAULT_ROOT, TEST_FILE, SprtDesign, sprt_ladder
from arena.stats.sprt import EloModel, SprtParams
from tests.support.paths import SAMPLE_BOTS

pytestmark = pytest.mark.unit

DESIGN = SprtDesign(SprtParams(0.0, 50.0))


@pytest.fixture
def bots(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A working directory with copies of two Lost Cities bots and a Haggis bot."""
    monkeypatch.chdir(tmp_path)
    for game, bot in (("lost-cities", "greedy"), ("lost-cities", "random"),
                      ("haggis", "greedy")):
        shutil.copytree(SAMPLE_BOTS / game / bot, tmp_path / "bots" / game / bot)
    return tmp_path / "bots"


def test_the_test_lives_in_a_ladder_file_under_ladder_state(bots: Path, tmp_path: Path) -> None:
    config = sprt_ladder("bots/lost-cities/greedy", "bots/lost-cities/random", DESIGN)
    assert config.name.startswith("sprt-greedy-vs-random-") and len(config.name) == 30
    assert config.source == DEFAULT_ROOT / config.name / TEST_FILE
    assert config.state_dir == DEFAULT_ROOT / config.name
    assert (tmp_path / config.source).is_file()
    assert config.sprt is not None and config.sprt.params == DESIGN.params
    assert config.sprt.candidate == "../../../bots/lost-cities/greedy", "relative: clones move"
    assert (config.base_dir / config.sprt.candidate).resolve() == bots / "lost-cities" / "greedy"
    assert config.game == "lost-cities" and config.sandbox == "auto"
    assert load_ladder(config.source) == config
    again = sprt_ladder("bots/lost-cities/greedy", "bots/lost-cities/random", DESIGN)
    assert again == config


@pytest.mark.parametrize("change", [
    {"params": SprtParams(0.0, 40.0)},
    {"params": SprtParams(0.0, 50.0, alpha=0.1)},
    {"params": SprtParams(0.0, 50.0, model=EloModel.normalized)},
    {"time_control": TimeControl(move_time_ms=300)},
    {"options": {"rounds": "1"}},
])
def test_another_design_is_another_test(bots: Path, change: dict[str, object]) -> None:
    first = sprt_ladder("bots/lost-cities/greedy", "bots/lost-cities/random", DESIGN)
    other = sprt_ladder("bots/lost-cities/greedy", "bots/lost-cities/random",
                        replace(DESIGN, **change))  # type: ignore[arg-type]
    assert other.name != first.name and other.state_dir != first.state_dir


def test_options_are_written_checked_and_typed(bots: Path) -> None:
    config = sprt_ladder("bots/lost-cities/greedy", "bots/lost-cities/random",
                         replace(DESIGN, options={"rounds": "1"},
                                 time_control=TimeControl(250, 1000, 5000)))
    assert dict(config.options) == {"rounds": 1}
    assert config.time_control == TimeControl(250, 1000, 5000)


def test_changed_code_is_another_test_and_moved_code_the_same(bots: Path,
                                                              tmp_path: Path) -> None:
    first = sprt_ladder("bots/lost-cities/greedy", "bots/lost-cities/random", DESIGN)
    shutil.copytree(bots / "lost-cities" / "greedy", tmp_path / "elsewhere" / "greedy")
    moved = sprt_ladder("elsewhere/greedy", "bots/lost-cities/random", DESIGN)
    assert moved.name == first.name, "the same code, found elsewhere: the same test"
    assert moved.sprt is not None and moved.sprt.candidate == "../../../elsewhere/greedy"
    with (bots / "lost-cities" / "greedy" / "bot.py").open("a") as f:
        f.write("\n# version 2\n")
    changed = sprt_ladder("bots/lost-cities/greedy", "bots/lost-cities/random", DESIGN)
    assert changed.name != first.name


def test_a_bot_outside_the_working_directory_is_written_absolute(bots: Path,
                                                                 tmp_path: Path) -> None:
    outside = SAMPLE_BOTS / "lost-cities" / "greedy"
    config = sprt_ladder(str(outside), "bots/lost-cities/greedy", DESIGN)
    assert config.sprt is not None and config.sprt.candidate == str(outside)
    assert config.name.startswith("sprt-greedy-vs-greedy-")


def test_bots_of_two_games_are_one_error_and_nothing_is_written(bots: Path,
                                                                tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="the baseline 'greedy' plays haggis, not "
                                          r"lost-cities \(the candidate's game\)"):
        sprt_ladder("bots/lost-cities/greedy", "bots/haggis/greedy", DESIGN)
    with pytest.raises(ConfigError, match="the candidate 'greedy' plays lost-cities, not haggis"):
        sprt_ladder("bots/lost-cities/greedy", "bots/haggis/greedy",
                    replace(DESIGN, game="haggis"))
    with pytest.raises(UnknownGameError):
        sprt_ladder("bots/lost-cities/greedy", "bots/lost-cities/random",
                    replace(DESIGN, game="chess"))
    with pytest.raises(OptionsError, match="rounds"):
        sprt_ladder("bots/lost-cities/greedy", "bots/lost-cities/random",
                    replace(DESIGN, options={"rounds": "x"}))
    with pytest.raises(ConfigError, match="move_time_ms"):
        sprt_ladder("bots/lost-cities/greedy", "bots/lost-cities/random",
                    replace(DESIGN, time_control=TimeControl(move_time_ms=0)))
    with pytest.raises(ConfigError, match="no bot 'nothing-here'"):
        sprt_ladder("bots/lost-cities/greedy", "nothing-here", DESIGN)
    assert not (tmp_path / "ladder").exists()
