"""Tables at 80 columns never cut an identifier a user must copy: ids stay whole on one line,
the less important columns go first (and the caption says which), nothing shows "…"."""

from __future__ import annotations

import io

import pytest
from rich.console import Console, RenderableType

from arena.cli.remote_cmds import matches_table, standings_table, submissions_table
from arena.render.tables import Col, fitted_table
from arena.v1 import competition_pb2 as pb

pytestmark = pytest.mark.unit

MATCH_IDS = [f"spring-cup-lost-cities-e{n:04d}-c0012-l1-r2" for n in range(3)]


def _text(renderable: RenderableType, width: int) -> str:
    console = Console(file=io.StringIO(), width=width, color_system=None)
    console.print(renderable)
    return console.file.getvalue()  # type: ignore[attr-defined,no-any-return]


def _fits(text: str, whole: list[str], width: int = 80) -> None:
    lines = text.splitlines()
    assert all(len(line) <= width for line in lines), max(lines, key=len)
    assert "…" not in text
    for value in whole:
        assert any(value in line for line in lines), (value, text)


def test_a_wide_terminal_shows_every_column_and_a_narrow_one_says_what_went() -> None:
    columns = (Col("match", keep=True), Col("seat 0"), Col("seat 1"), Col("when", drop=2),
               Col("kind", drop=1))
    rows = [(m, "alice-the-long-named@12", "house-greedy@3", "2026-12-02 21:13", "ladder")
            for m in MATCH_IDS]
    wide = _text(fitted_table(columns, rows, title="t"), 200)
    assert "kind" in wide and "when" in wide and "left out" not in wide
    narrow = _text(fitted_table(columns, rows, title="t"), 80)
    _fits(narrow, MATCH_IDS)
    assert " ".join(narrow.split()).count("left out to fit: kind, when") == 1
    squeezed = _text(fitted_table(columns, rows), 50)  # narrower than an id: it still stays
    assert all(any(m in line for line in squeezed.splitlines()) for m in MATCH_IDS)


def test_a_competitions_matches_fit_80_columns_with_whole_ids() -> None:
    rows = [pb.MatchRow(match_id=m, game="lost-cities", names=["alice-the-long-named",
                                                                "house-greedy"],
                        versions=["12", "3"], points=[45, -12], winner=0,
                        termination="normal", finished_at="2026-12-02T21:13:05Z",
                        kind="ladder") for m in MATCH_IDS]
    _fits(_text(matches_table(rows), 80), MATCH_IDS)
    full = _text(matches_table(rows), 200)
    assert "ladder" in full and "2026-12-02T21:13:05Z" in full


def test_submissions_and_standings_fit_80_columns() -> None:
    subs = [pb.Submission(submission_id=1234 + n, game="lost-cities", name="alice-bot",
                          version=str(n), stage=pb.SubmissionStage.Value("RATED"),
                          message="rated: its first matches are played", created=1.8e9,
                          size=3 << 20, match_ids=MATCH_IDS[:2], counted=True)
            for n in range(2)]
    stages = {pb.SubmissionStage.Value("RATED"): "RATED"}
    _fits(_text(submissions_table(subs, stages, "alice"), 80), [*MATCH_IDS[:2], "1234"])
    ladder = pb.GameStandings(game="lost-cities", ladder="spring-cup-lost-cities", matches=9,
                              rows=[pb.StandingRow(rank=1, name="a-bot-with-a-long-name-x",
                                                   version="12", rating=1523.4, low=1400,
                                                   high=1650, matches=9, wins=5, draws=1,
                                                   losses=3, owner="alice-the-contestant",
                                                   current=True)])
    _fits(_text(standings_table(ladder), 80), ["a-bot-with-a-long-name-x"])
