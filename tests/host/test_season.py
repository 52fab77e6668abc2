"""arena.host.season: ``[season]`` and ``[final] selections`` in the competition file, the phase
at a moment (the schedule and what the database recorded), the operator's starts (forward only),
the refusals of each phase in one line, and the final selections (up to K per game, only one's
own entered versions, the latest by default), over a real SQLite file."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli.main import app
from arena.errors import ConfigError
from arena.host.config import DEFAULT_SELECTIONS, SeasonPlan, load_competition
from arena.host.season import (
    OPERATOR,
    SCHEDULED,
    Phase,
    Season,
    SeasonRefusal,
    duration,
    utc,
)
from arena.host.submissions import BUILT, ENTERED, UPLOADED, VALIDATED, SubmissionBook
from arena.ladder.store import LadderStore

pytestmark = pytest.mark.unit

T0 = datetime(2027, 3, 1, 12, 0, tzinfo=UTC).timestamp()
HOUR = 3600.0
PLAN = SeasonPlan(frozen=T0, final=T0 + HOUR, closed=T0 + 2 * HOUR)
MINIMAL = '[competition]\nname = "spring"\n\n[games.lost-cities]\n'


def _season(path: Path, plan: SeasonPlan | None = PLAN, selections: int = 2
            ) -> tuple[Season, SubmissionBook]:
    engine = LadderStore(f"sqlite:///{path / 'competition.sqlite3'}").engine
    book = SubmissionBook(engine)
    return Season(engine, plan, selections), book


def _enter(book: SubmissionBook, who: str, name: str, game: str = "lost-cities") -> str:
    sid = book.open(who, game, name, "directory", 100, "0" * 64)
    for stage in (UPLOADED, BUILT, VALIDATED, ENTERED):
        book.advance(sid, stage, version=f"s{sid}" if stage == BUILT else None)
    return f"{name}@s{sid}"


# --- the file ----------------------------------------------------------------------------------
def _load(tmp_path: Path, extra: str) -> object:
    path = tmp_path / "spring.toml"
    path.write_text(MINIMAL + extra, encoding="utf-8")
    return load_competition(path)


def test_a_file_without_a_season_is_open_for_good(tmp_path: Path) -> None:
    c = _load(tmp_path, "")
    assert c.season is None and c.selections == DEFAULT_SELECTIONS  # type: ignore[attr-defined]


def test_season_times_and_selections_are_read(tmp_path: Path) -> None:
    c = _load(tmp_path, "[season]\nfrozen = 2027-03-01T12:00:00Z\n"
                        "closed = 2027-03-01T15:00:00+02:00\n[final]\nselections = 1\n")
    assert c.season == SeasonPlan(frozen=T0, final=None, closed=T0 + HOUR)  # type: ignore[attr-defined]
    assert c.selections == 1  # type: ignore[attr-defined]
    assert _load(tmp_path, "[season]\n").season == SeasonPlan()  # type: ignore[attr-defined]


@pytest.mark.parametrize(("extra", "words"), [
    ('[season]\nfrozen = "2027-03-01T12:00:00Z"\n',
     "'season.frozen' (line 6): must be a UTC date-time"),
    ("[season]\nfrozen = 2027-03-01T12:00:00\n", "with its offset, unquoted"),
    ("[season]\nfrozen = 2027-03-01\n", "got 2027-03-01"),
    ("[season]\nfrozen = 2027-03-01T12:00:00Z\nfinal = 2027-03-01T11:00:00Z\n",
     "'season.final' (line 7): must come after frozen"),
    ("[season]\nopen = 2027-03-01T12:00:00Z\n", "unknown key"),
    ("[final]\nselections = 0\n", "'final.selections' (line 6): must be a positive integer"),
])
def test_a_bad_season_is_one_line_naming_the_key(tmp_path: Path, extra: str, words: str
                                                 ) -> None:
    with pytest.raises(ConfigError) as info:
        _load(tmp_path, extra)
    assert words in str(info.value) and "\n" not in str(info.value), str(info.value)


# --- phases ------------------------------------------------------------------------------------
def test_the_phase_follows_the_schedule_and_says_the_time_left(tmp_path: Path) -> None:
    season, _ = _season(tmp_path)
    before = season.status(T0 - 90)
    assert (before.phase, before.next, before.next_at, before.left_s) == (
        Phase.OPEN, Phase.FROZEN, T0, 90.0)
    assert before.words() == f"open; frozen in 1 min 30 s (at {utc(T0)})"
    assert season.phase(T0) is Phase.FROZEN  # from the deadline's second, recorded or not
    assert season.phase(T0 + HOUR + 1) is Phase.FINAL
    closed = season.status(T0 + 5 * HOUR)
    assert (closed.phase, closed.next, closed.left_s) == (Phase.CLOSED, None, None)
    assert season.transitions() == []  # nothing recorded by looking


def test_advance_records_each_phase_passed_once_at_its_time(tmp_path: Path) -> None:
    season, _ = _season(tmp_path)
    assert season.advance(T0 - 1) == []
    passed = season.advance(T0 + HOUR + 5)  # frozen and final both came (a server down)
    assert [(t.phase, t.at, t.how) for t in passed] == [
        (Phase.FROZEN, T0, SCHEDULED), (Phase.FINAL, T0 + HOUR, SCHEDULED)]
    assert season.advance(T0 + HOUR + 6) == []
    again, _ = _season(tmp_path)  # another process, the same database: a restart
    assert again.phase(T0 + HOUR + 7) is Phase.FINAL
    assert again.status(T0 + HOUR + 7).since == T0 + HOUR


def test_the_operator_starts_a_phase_early_and_never_goes_back(tmp_path: Path) -> None:
    season, _ = _season(tmp_path, SeasonPlan(closed=T0 + 2 * HOUR))  # frozen, final: by hand
    assert season.status(T0).words() == "open; frozen when the operator starts it"
    started = season.start(Phase.FINAL, T0 + 10)  # passes frozen too
    assert [(t.phase, t.how) for t in started] == [(Phase.FROZEN, OPERATOR),
                                                   (Phase.FINAL, OPERATOR)]
    assert season.phase(T0 + 11) is Phase.FINAL
    for phase in (Phase.FROZEN, Phase.FINAL, Phase.OPEN):
        with pytest.raises(ConfigError) as info:
            season.start(phase, T0 + 12)
        assert "\n" not in str(info.value)
    assert season.phase(T0 + 2 * HOUR) is Phase.CLOSED  # the schedule still closes it
    (tmp_path / "plain").mkdir()
    with pytest.raises(ConfigError, match="no season"):
        _season(tmp_path / "plain", None)[0].start(Phase.FROZEN)


def test_no_season_is_open_for_good(tmp_path: Path) -> None:
    season, _ = _season(tmp_path, None)
    status = season.status(T0 + 100 * HOUR)
    assert (status.phase, status.seasonal, status.next) == (Phase.OPEN, False, None)
    assert season.advance(T0 + 100 * HOUR) == []
    assert season.submission_refusal() is None and season.selection_refusal() is None


@pytest.mark.parametrize(("now", "phase"), [(T0, "frozen"), (T0 + HOUR, "final"),
                                            (T0 + 2 * HOUR, "closed")])
def test_each_phase_after_the_deadline_refuses_in_one_line(tmp_path: Path, now: float,
                                                          phase: str) -> None:
    season, book = _season(tmp_path)
    assert season.submission_refusal(T0 - 1) is None
    refusal = season.submission_refusal(now)
    assert refusal is not None and "\n" not in refusal
    assert refusal.startswith(f"submissions closed at the deadline, {utc(T0)}: the competition"
                              f" is {phase} now"), refusal
    version = _enter(book, "alice", "alpha")
    with pytest.raises(SeasonRefusal) as info:
        season.select("alice", [version], now)
    assert str(info.value).startswith(f"selections closed at the freeze, {utc(T0)}")


# --- selections --------------------------------------------------------------------------------
def test_the_latest_entered_version_is_selected_by_default(tmp_path: Path) -> None:
    season, book = _season(tmp_path)
    assert season.selected("lost-cities") == []
    _enter(book, "alice", "alpha")
    latest = _enter(book, "alice", "beta")
    bobs = _enter(book, "bob", "gamma")
    book.open("alice", "lost-cities", "delta", "directory", 1, "0" * 64)  # never entered
    chosen = season.selected("lost-cities")
    assert [(s.contestant, s.ref, s.explicit) for s in chosen] == [
        ("alice", latest, False), ("bob", bobs, False)]


def test_a_selection_replaces_the_default_within_k_of_ones_own(tmp_path: Path) -> None:
    season, book = _season(tmp_path, selections=2)
    a1, a2, a3 = (_enter(book, "alice", n) for n in ("alpha", "alpha", "beta"))
    bobs = _enter(book, "bob", "gamma")
    chosen = season.select("alice", [a1, a2.upper().replace("@S", "@s")], T0 - 10)
    assert [(s.ref, s.explicit) for s in chosen] == [(a1, True), (a2, True)]
    assert [s.ref for s in season.selected("lost-cities")] == [a1, a2, bobs]
    refusals = {
        (a1, a2, a3): "3 versions of lost-cities named: the competition allows 2 per game",
        (bobs,): f"{bobs} is not one of your entered versions",
        ("alpha@s99",): "alpha@s99 is not one of your entered versions",
        (a1, a1): f"{a1} is named twice",
        ("alpha",): "'alpha' is not NAME@VERSION",
        (): "name the versions to select",
    }
    for refs, words in refusals.items():
        with pytest.raises(ConfigError) as info:
            season.select("alice", list(refs), T0 - 10)
        assert words in str(info.value) and "\n" not in str(info.value), str(info.value)
    assert [s.ref for s in season.selection_of("alice")] == [a1, a2]  # refusals change nothing
    assert [s.ref for s in season.select("alice", [a3], T0 - 5)] == [a3]


def test_words() -> None:
    assert [duration(s) for s in (0, 40, 90, 700, 3 * HOUR + 300, 2 * 86400 + 3 * HOUR)] == [
        "0 s", "40 s", "1 min 30 s", "12 min", "3 h 05 min", "2 d 03 h"]
    assert utc(T0) == "2027-03-01 12:00:00 UTC"


@pytest.mark.parametrize("start", [None, "frozen"])
def test_arena_final_is_refused_before_the_season_s_final(tmp_path: Path,
                                                           start: str | None) -> None:
    """A season's final begins with its phase, among the selected versions: `arena final`
    while the season is open or frozen is one line, exit 2, and begins nothing."""
    path = tmp_path / "spring.toml"
    path.write_text(MINIMAL.replace('name = "spring"', f'name = "spring"\nstate_dir = '
                                    f'"{tmp_path / "state"}"')
                    + '\n[season]\nfrozen = 2099-01-01T00:00:00Z\n', encoding="utf-8")
    runner = CliRunner()
    if start is not None:
        assert runner.invoke(app, ["phase", start, "-c", str(path)]).exit_code == 0
    result = runner.invoke(app, ["final", str(path)])
    said = " ".join(result.output.split())  # one message (the console wraps it at its width)
    assert result.exit_code == 2 and said.count("error:") == 1, result.output
    assert f"now {start or 'open'}" in said and "arena phase final" in said, said
    assert not list(tmp_path.rglob("*commitment*"))
