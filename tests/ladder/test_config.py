"""Ladder files: parsing, defaults, and one clear error naming the key and the line."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from arena.errors import ConfigError
from arena.ladder.config import DATABASE_FILE, load_ladder, parse_ladder

pytestmark = pytest.mark.unit

GOOD = """\
name = "demo"
game = "lost-cities"
entrants = ["../bots/a", "../bots/b", "c@2"]
seed = 4
sandbox = "docker"

[options]
rounds = 1

[schedule]
type = "gauntlet"
challenger = "c@2"
cycles = 5

[time_control]
move_time_ms = 250

[rating]
elo_k = 24
"""


def test_parses_a_full_file(tmp_path: Path) -> None:
    path = tmp_path / "ladder" / "demo.toml"
    path.parent.mkdir()
    path.write_text(GOOD)
    config = load_ladder(path)
    assert config.name == "demo" and config.game == "lost-cities"
    assert config.entrants == ("../bots/a", "../bots/b", "c@2")
    assert config.base_dir == path.parent
    assert config.state_dir == path.parent / "state" / "demo"
    assert config.schedule.kind == "gauntlet" and config.schedule.cycles == 5
    assert config.challenger_index == 2
    assert config.time_control.move_time_ms == 250
    assert config.rating.elo_k == 24.0 and config.rating.start == 1500.0
    assert config.sandbox == "docker" and config.duplicate is True and config.seed == 4
    assert config.concurrency == (os.cpu_count() or 1)
    assert dict(config.options) == {"rounds": 1}
    assert config.database_url.endswith("/ladder/state/demo/ladder.db")


def test_defaults() -> None:
    config = parse_ladder('name = "x"\ngame = "lost-cities"\nentrants = ["a", "b"]\n')
    assert config.schedule.kind == "round-robin" and config.schedule.cycles == 1
    assert config.sandbox == "auto" and config.duplicate


@pytest.mark.parametrize("database", [None, ""])
def test_the_default_store_is_one_sqlite_file(tmp_path: Path, database: str | None) -> None:
    line = "" if database is None else f'database = "{database}"\n'
    path = tmp_path / "x.toml"
    config = parse_ladder(f'name = "x"\ngame = "lost-cities"\nentrants = ["a", "b"]\n{line}',
                          source=path)
    assert config.sqlite_path == tmp_path / "state" / "x" / DATABASE_FILE
    assert config.database_url == f"sqlite:///{config.sqlite_path.resolve()}"
    assert not config.store_exists()
    config.state_dir.mkdir(parents=True)
    config.sqlite_path.touch()
    assert config.store_exists()


def test_a_named_database_has_no_sqlite_file() -> None:
    url = "postgresql+psycopg://ladder@127.0.0.1/arena"
    config = parse_ladder(f'name = "x"\ngame = "lost-cities"\nentrants = ["a", "b"]\n'
                          f'database = "{url}"\n')
    assert config.sqlite_path is None and config.database_url == url
    assert config.store_exists()  # only a connection could tell otherwise


@pytest.mark.parametrize(
    ("text", "key", "line"),
    [
        ('name = "x"\ngame = "lost-cities"\n', "entrants", None),
        ('name = "x"\ngame = "lost-cities"\nentrants = ["a"]\n', "entrants", 3),
        ('name = "x"\ngame = "nope"\nentrants = ["a", "b"]\n', "game", 2),
        ('name = "x"\ngame = "lost-cities"\nentrants = ["a", "b"]\ncolour = 1\n', "colour", 4),
        ('name = "x"\ngame = "lost-cities"\nentrants = ["a", "b"]\n\n[schedule]\n'
         'cycles = 0\n', "schedule.cycles", 6),
        ('name = "x"\ngame = "lost-cities"\nentrants = ["a", "b"]\n\n[schedule]\n'
         'type = "gauntlet"\n', "schedule.challenger", 5),
        ('name = "x"\ngame = "lost-cities"\nentrants = ["a", "b"]\nsandbox = "vm"\n',
         "sandbox", 4),
        ('name = "x"\ngame = "lost-cities"\nentrants = ["a", "b"]\n[rating]\nelo_k = "big"\n',
         "rating.elo_k", 5),
        ('name = "x"\ngame = "lost-cities"\nentrants = ["a", "b"]\nconcurrency = true\n',
         "concurrency", 4),
        ('name = "x"\ngame = "lost-cities"\nentrants = ["a", "a"]\n', "entrants", 3),
        ('name = "x"\ngame = "lost-cities"\nentrants = ["a", "b"]\n[options]\nrounds = 99\n',
         "options.rounds", 5),
    ],
)
def test_errors_name_the_key_and_the_line(text: str, key: str, line: int | None) -> None:
    with pytest.raises(ConfigError) as info:
        parse_ladder(text, source=Path("ladder/x.toml"))
    message = str(info.value)
    assert f"key {key!r}" in message
    assert "ladder/x.toml" in message
    if line is not None:
        assert f"(line {line})" in message


def test_toml_syntax_errors_carry_the_line() -> None:
    with pytest.raises(ConfigError, match=r"line 2"):
        parse_ladder('name = "x"\ngame = = "y"\n')


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read"):
        load_ladder(tmp_path / "none.toml")


# --- [sprt]: an SPRT test ---------------------------------------------------------------------
SPRT_HEAD = 'name = "t"\ngame = "lost-cities"\n[sprt]\ncandidate = "../v2"\nbaseline = "../v1"\n'


def test_an_sprt_section_makes_the_file_a_test() -> None:
    config = parse_ladder(SPRT_HEAD + 'elo0 = -1.5\nelo1 = 3\nalpha = 0.1\nmodel = "normalized"\n'
                          "max_pairs = 500\n")
    assert config.sprt is not None and config.entrants == ("../v2", "../v1")
    assert (config.sprt.candidate, config.sprt.baseline, config.sprt.max_pairs) == \
        ("../v2", "../v1", 500)
    params = config.sprt.params
    assert (params.elo0, params.elo1, params.alpha, params.beta, str(params.model)) == \
        (-1.5, 3.0, 0.1, 0.05, "normalized")
    plain = parse_ladder('name = "x"\ngame = "lost-cities"\nentrants = ["a", "b"]\n')
    assert plain.sprt is None


def test_a_bot_may_be_tested_against_itself() -> None:
    config = parse_ladder('name = "t"\ngame = "lost-cities"\n[sprt]\ncandidate = "a"\n'
                          'baseline = "a"\nelo0 = 0\nelo1 = 5\n')
    assert config.entrants == ("a", "a") and config.sprt is not None
    assert config.sprt.max_pairs is None and str(config.sprt.params.model) == "logistic"


@pytest.mark.parametrize(
    ("tail", "key", "line", "says"),
    [
        ("elo0 = 0\n", "sprt.elo1", 3, "is required"),
        ("elo0 = 10\nelo1 = 10\n", "sprt.elo1", 7, "elo0 must be less than elo1"),
        ("elo0 = 0\nelo1 = 5\nalpha = 0.5\n", "sprt.alpha", 8, "strictly between 0 and 0.5"),
        ("elo0 = 0\nelo1 = 5\nbeta = 0\n", "sprt.beta", 8, "strictly between 0 and 0.5"),
        ("elo0 = 0\nelo1 = 5000\n", "sprt.elo1", 7, "between -2000 and 2000"),
        ('elo0 = 0\nelo1 = 5\nmodel = "bayes"\n', "sprt.model", 8, "logistic, normalized"),
        ("elo0 = 0\nelo1 = 5\nmax_pairs = 0\n", "sprt.max_pairs", 8, "positive integer"),
        ("elo0 = 0\nelo1 = 5\nrounds = 2\n", "sprt.rounds", 8, "unknown key"),
    ],
)
def test_sprt_errors_name_the_key_and_the_line(tail: str, key: str, line: int,
                                               says: str) -> None:
    with pytest.raises(ConfigError) as info:
        parse_ladder(SPRT_HEAD + tail, source=Path("ladder/t.toml"))
    message = str(info.value)
    assert f"key {key!r} (line {line})" in message and says in message


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ('entrants = ["a", "b"]\n' + SPRT_HEAD, "entrants"),
        ("duplicate = false\n" + SPRT_HEAD, "duplicate"),
        (SPRT_HEAD + "elo0 = 0\nelo1 = 5\n[schedule]\ncycles = 2\n", "schedule"),
        ('name = "t"\ngame = "lost-cities"\n[sprt]\nbaseline = "b"\nelo0 = 0\nelo1 = 5\n',
         "sprt.candidate"),
    ],
)
def test_a_test_has_no_schedule_and_two_named_bots(text: str, key: str) -> None:
    with pytest.raises(ConfigError, match=f"key '{key}'"):
        parse_ladder(text)


# --- the schedule types that decide as they go (issue 20) -------------------------------------
HEAD = 'name = "x"\ngame = "lost-cities"\nentrants = ["a", "b", "c"]\n'


def test_each_schedule_type_parses_with_its_defaults() -> None:
    continuous = parse_ladder(HEAD + '[schedule]\ntype = "continuous"\n').schedule
    assert (continuous.kind, continuous.placement, continuous.fairness, continuous.refresh_s,
            continuous.catalogue) == ("continuous", 4, 0, 10.0, False)
    adaptive = parse_ladder(HEAD + '[schedule]\ntype = "adaptive"\nencounters = 40\n'
                                   "fairness = 5\n").schedule
    assert (adaptive.encounters, adaptive.confidence, adaptive.fairness) == (40, 0.95, 5)
    knockout = parse_ladder(HEAD + '[schedule]\ntype = "knockout"\n').schedule
    assert (knockout.encounters, knockout.seed_from) == (1, None)
    swiss = parse_ladder(HEAD + '[schedule]\ntype = "swiss"\nrounds = 3\n').schedule
    assert swiss.rounds == 3  # three players: byes need distinct players too


def test_a_continuous_ladder_of_the_catalogue_needs_no_entrants() -> None:
    config = parse_ladder('name = "x"\ngame = "lost-cities"\n'
                          '[schedule]\ntype = "continuous"\ncatalogue = true\n')
    assert config.entrants == () and config.schedule.catalogue


def test_a_knockout_is_seeded_from_another_ladder_file(tmp_path: Path) -> None:
    (tmp_path / "league.toml").write_text('name = "league"\ngame = "lost-cities"\n'
                                          'entrants = ["a", "b"]\n')
    path = tmp_path / "cup.toml"
    path.write_text(HEAD + '[schedule]\ntype = "knockout"\nseed_from = "league.toml"\n'
                           "encounters = 2\n")
    config = load_ladder(path)
    assert config.schedule.seed_from == tmp_path / "league.toml"
    assert config.schedule.encounters == 2


@pytest.mark.parametrize(
    ("tail", "key", "line", "words"),
    [
        # the three: a knockout of one bot, a Swiss with more rounds than opponents
        # allow, K < 1
        ('[schedule]\ntype = "knockout"\n', "entrants", 3, "at least two entrants"),
        ('[schedule]\ntype = "swiss"\nrounds = 4\n', "schedule.rounds", 6, "at most 3 rounds"),
        ('[schedule]\ntype = "continuous"\nfairness = 0\n', "schedule.fairness", 6,
         "positive integer"),
        ('[schedule]\ntype = "adaptive"\nencounters = 9\nfairness = -1\n', "schedule.fairness",
         7, "positive integer"),
        ('[schedule]\ntype = "adaptive"\n', "schedule.encounters", 4, "budget"),
        ('[schedule]\ntype = "adaptive"\nencounters = 0\n', "schedule.encounters", 6,
         "positive integer"),
        ('[schedule]\ntype = "adaptive"\nencounters = 9\nconfidence = 1.0\n',
         "schedule.confidence", 7, "between 0.5 and 1"),
        ('[schedule]\ntype = "adaptive"\nencounters = 9\nconfidence = 0.5\n',
         "schedule.confidence", 7, "between 0.5 and 1"),
        ('[schedule]\ntype = "continuous"\nplacement = 0\n', "schedule.placement", 6,
         "positive integer"),
        ('[schedule]\ntype = "continuous"\nrefresh_s = 0\n', "schedule.refresh_s", 6,
         "above 0"),
        ('[schedule]\ntype = "continuous"\ncatalogue = "yes"\n', "schedule.catalogue", 6,
         "true or false"),
        ('[schedule]\ntype = "swiss"\n', "schedule.rounds", 4, "number of rounds"),
        ('[schedule]\ntype = "swiss"\nrounds = 0\n', "schedule.rounds", 6, "positive integer"),
        ('[schedule]\ntype = "knockout"\nseed_from = "nowhere.toml"\n', "schedule.seed_from",
         6, "not a ladder file"),
        ('[schedule]\ntype = "knockout"\ncycles = 2\n', "schedule.cycles", 6,
         "round-robin or gauntlet"),
        ('[schedule]\ntype = "swiss"\nrounds = 1\nchallenger = "a"\n', "schedule.challenger",
         7, "gauntlet"),
        ('[schedule]\ntype = "round-robin"\nrounds = 2\n', "schedule.rounds", 6, "swiss"),
        ('[schedule]\ntype = "adaptive"\nencounters = 9\nplacement = 2\n',
         "schedule.placement", 7, "continuous"),
        ('[schedule]\ntype = "gauntlet"\nchallenger = "a"\nencounters = 2\n',
         "schedule.encounters", 7, "adaptive or knockout"),
        ('duplicate = false\n[schedule]\ntype = "swiss"\nrounds = 1\n', "duplicate", 4,
         "duplicate encounter"),
    ],
)
def test_schedule_errors_name_the_key_and_the_line(tail: str, key: str, line: int,
                                                   words: str) -> None:
    head = HEAD.replace('["a", "b", "c"]', '["a"]') if key == "entrants" else HEAD
    with pytest.raises(ConfigError) as info:
        parse_ladder(head + tail, source=Path("ladder/x.toml"))
    message = str(info.value)
    assert f"key {key!r} (line {line})" in message and words in message, message
    assert "\n" not in message


def test_a_continuous_ladder_needs_two_entrants_or_the_catalogue() -> None:
    with pytest.raises(ConfigError, match="catalogue = true"):
        parse_ladder('name = "x"\ngame = "lost-cities"\nentrants = ["a"]\n'
                     '[schedule]\ntype = "continuous"\n')
