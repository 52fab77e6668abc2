"""`arena ladder report`: the static site (index + replays) from a real ladder's store and logs,
and the charts it is drawn with."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli.main import app
from arena.ladder.config import load_ladder
from arena.ladder.reports import (
    crosstable_of,
    load_history,
    load_matches,
    load_standings,
    standings_of,
)
from arena.ladder.runner import ladder_schedule, run_ladder
from arena.ladder.schedules.knockout import Bracket, Tie
from arena.ladder.store import VoidAttempt
from arena.model import Termination
from arena.render.html.charts import Interval, heat_colour, interval_chart, line_chart, ticks
from arena.site.match_pages import replay_name
from arena.site.refresh import refresh_site
from arena.site.report_page import ReportData, report_page
from tests.support import statuses
from tests.support.fakes import GIVEN_UP, FakePlayer, fake_resolve, stored
from tests.support.pages import assert_fetches_only_the_site, mini_ladder, page_data
from tests.support.versioned import versioned_ladder

pytestmark = pytest.mark.unit

runner = CliRunner()


@pytest.fixture(scope="module")
def ladder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return mini_ladder(tmp_path_factory.mktemp("ladder"))


@pytest.mark.integration
def test_the_site_has_an_index_and_one_replay_per_match(ladder: Path, tmp_path: Path) -> None:
    out = tmp_path / "site"
    result = runner.invoke(app, ["ladder", "report", str(ladder), "--out", str(out)])
    assert result.exit_code == 0, result.output
    config = load_ladder(ladder)
    matches = load_matches(config)
    index = (out / "index.html").read_text(encoding="utf-8")
    replays = sorted(p.name for p in (out / "replays").iterdir())
    assert replays == sorted(replay_name(m.match_id) for m in matches) and len(replays) == 12
    links = re.findall(r'<a href="(replays/[^"]+)">([^<]+)</a>', index)
    assert sorted(name for name, _ in links) == [f"replays/{r}" for r in replays]
    for page in [out / "index.html", *((out / "replays" / r) for r in replays)]:
        assert_fetches_only_the_site(page, out)
    first = (out / "replays" / replay_name(matches[0].match_id)).read_text(encoding="utf-8")
    assert page_data(first)["match_id"] == matches[0].match_id
    standings = load_standings_rows(index)
    assert [row[1] for row in standings] == [
        r.bot for r in standings_of(config.name, matches, prior=config.rating.prior).rows]
    assert 'id="interval-chart"' in index and 'id="history-chart"' in index
    assert index.count("<polyline") == 3  # one rating-history line per bot
    assert "paired variance" in index or "to estimate" in index


def load_standings_rows(index: str) -> list[tuple[str, ...]]:
    """(rank, bot) of each standings row of the index page."""
    table = re.search(r'<table class="grid" id="standings">(.*?)</table>', index, re.S)
    assert table is not None
    return re.findall(r'<tr><td class="num">(\d+)</td><td>([^<]+)</td>', table.group(1))


@pytest.mark.integration
def test_the_rating_history_chart_is_the_refitted_history(ladder: Path, tmp_path: Path) -> None:
    config = load_ladder(ladder)
    history = load_history(config)
    matches = load_matches(config)
    assert max(p.step for p in history) == len(matches) // 2  # one step per encounter
    last = {p.player: p.rating for p in history if p.step == len(matches) // 2}
    assert last == {r.bot: r.rating for r in load_standings(config).rows}
    out = tmp_path / "site"
    assert runner.invoke(app, ["ladder", "report", str(ladder), "--out", str(out)]).exit_code == 0
    index = (out / "index.html").read_text(encoding="utf-8")
    chart = re.search(r'<div class="chart" id="history-chart">(.*?)</div>', index, re.S)
    assert chart is not None
    assert "official rating after each complete encounter" in chart.group(1)
    lines = re.findall(r'points="([^"]+)"><title>([^<]+)</title>', chart.group(1))
    assert sorted(name for _, name in lines) == ["ann", "ben", "cy"]
    for points, name in lines:  # a point from the first step the bot appears in
        assert len(points.split()) == sum(1 for p in history if p.player == name)
    assert "Not the live Elo" in index and "arena ladder history" in index


@pytest.mark.integration
def test_a_match_without_a_log_is_listed_without_a_replay(ladder: Path, tmp_path: Path
                                                         ) -> None:
    config = load_ladder(ladder)
    victim = load_matches(config)[3]
    log = config.match_log_dir / f"{victim.match_id}.jsonl"
    saved = log.read_bytes()
    log.write_text("not a match log\nat all\n")
    try:
        out = tmp_path / "site"
        result = runner.invoke(app, ["ladder", "report", str(ladder), "--out", str(out)])
    finally:
        log.write_bytes(saved)
    assert result.exit_code == 0, result.output
    said = " ".join(result.output.split())
    assert f"warning: no replay of {victim.match_id}" in said and "not a JSON object" in said
    assert "and 11 replays" in said and "(1 match without a replay)" in said
    index = (out / "index.html").read_text(encoding="utf-8")
    assert 'title="its log cannot be replayed' in index
    assert f'href="replays/{replay_name(victim.match_id)}"' not in index


def test_a_ladder_without_results_is_one_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "empty.toml"
    path.write_text('name = "empty"\ngame = "portas"\nentrants = ["a", "b"]\n')
    result = runner.invoke(app, ["ladder", "report", str(path), "--out", str(tmp_path / "o")])
    assert result.exit_code == 2 and "no results yet" in " ".join(result.output.split())


def test_report_page_from_recorded_matches() -> None:
    matches = [
        stored("m1", ("ann", "ben"), (30, 10), winner=0, encounter="e1", leg=0),
        stored("m2", ("ben", "ann"), (12, 25), winner=1, encounter="e1", leg=1),
        stored("m3", ("ann", "<b>cy</b>"), (0, 0), termination=Termination.INTERNAL),
    ]
    data = ReportData("t", "lost-cities", standings_of("t", matches), crosstable_of(matches),
                      matches, [], {"m1": "replays/m1.html"}, {"m2": "its log is missing"})
    html = report_page(data)
    assert "2 rated matches, 1 void" in html
    assert '<a href="replays/m1.html">m1</a>' in html
    assert 'title="its log is missing">m2<' in html
    assert "&lt;b&gt;cy&lt;/b&gt;" in html and "<b>cy" not in html
    assert "No complete encounter yet." in html  # no history given
    assert "<td>void</td>" in html


def test_report_page_counts_and_lists_the_matches_the_cluster_gave_up_on() -> None:
    matches = [stored("m1", ("ann", "ben"), (30, 10), winner=0, encounter="e1", leg=0)]
    lost = [VoidAttempt(f"m{k}", "e1", 0, 1, "lost-cities", 7, ("ben", "ann"),
                        Termination.CANCELLED, "killed <workers>", None, 1_700_000_000.0 + k)
            for k in (2, 3)]
    data = ReportData("t", "lost-cities", standings_of("t", matches, given_up=2),
                      crosstable_of(matches), matches, [], given_up=lost)
    html = report_page(data)
    assert "1 rated matches, 0 void (recorded, never rated) · 2 matches were given up by the " \
           "cluster (void: never rated, played again) · 2 bots" in html
    table = re.search(r'<table class="grid" id="given-up">(.*?)</table>', html, re.S)
    assert table is not None
    rows = re.findall(r'<tr class="void" data-given-up="(m\d)"><td>m\d</td><td>0/1</td>'
                      r"<td>ben</td><td>ann</td><td>([^<]+)</td><td>([^<]+)</td></tr>",
                      table.group(1))
    assert rows == [("m2", "2023-11-14 22:13:22 UTC", "killed &lt;workers&gt;"),
                    ("m3", "2023-11-14 22:13:23 UTC", "killed &lt;workers&gt;")]
    assert 'id="given-up"' not in report_page(
        ReportData("t", "lost-cities", standings_of("t", matches), crosstable_of(matches),
                   matches, []))


@pytest.mark.integration
def test_the_site_reads_the_matches_the_cluster_gave_up_on(tmp_path: Path) -> None:
    path = tmp_path / "lost.toml"
    path.write_text('name = "lost"\ngame = "lost-cities"\nentrants = ["alpha", "beta"]\n')
    config = load_ladder(path)
    lost = ladder_schedule(config)[0].matches[0].match_id
    asyncio.run(run_ladder(config, play=FakePlayer(given_up_ids={lost}), resolve=fake_resolve))
    summary = refresh_site(config, tmp_path / "site")
    index = summary.index.read_text(encoding="utf-8")
    assert "1 match was given up by the cluster" in index
    assert f'data-given-up="{lost}"' in index and GIVEN_UP in index


def test_charts() -> None:
    assert ticks(586.2, 1746.9)[0] <= 586.2 and ticks(586.2, 1746.9)[-1] >= 1746.9
    assert ticks(5, 5)[0] == 5 and len(ticks(5, 5)) > 1  # an empty range still has an axis
    assert ticks(1, 12, integer=True) == [0, 5, 10, 15]
    assert heat_colour(0) == "rgb(230,120,110)" and heat_colour(1) == "rgb(110,205,115)"
    assert heat_colour(0.5) == "rgb(255,255,255)" and heat_colour(7) == heat_colour(1)
    svg = interval_chart([Interval("a", 1400, 1500, 1600), Interval("b", 1300, 1350, 1400)],
                         title="t")
    assert svg.startswith("<svg") and svg.count("<circle") == 2
    dots = [float(x) for x in re.findall(r'<circle cx="([\d.]+)"', svg)]
    assert dots[0] > dots[1]  # a higher rating sits further right
    lines = line_chart({"a": [(1, 1500), (2, 1510)], "b": [(1, 1500), (2, 1490)]}, title="t",
                       x_label="match", y_label="elo")
    assert lines.count("<polyline") == 2


# --- the schedule types' states -----------------------------------------------------------------
def _page(schedule: object = None, **more: object) -> str:
    matches = [stored("m1", ("alpha", "delta"), (30, 10), winner=0, encounter="e1", leg=0)]
    return report_page(ReportData("t", "lost-cities", standings_of("t", matches),
                                  crosstable_of(matches), matches, [],
                                  schedule=schedule, **more))  # type: ignore[arg-type]


def test_a_knockout_report_draws_its_bracket_as_svg() -> None:
    html = _page(statuses.bracket())
    chart = re.search(r'<div class="chart" id="bracket-chart">(<svg.*?</svg>)</div>', html,
                      re.S)
    assert chart is not None
    svg = chart.group(1)
    ties = re.findall(r'<g data-tie="(\d-\d)"><title>([^<]*)</title>', svg)
    assert [t for t, _ in ties] == ["0-0", "0-1", "0-2", "0-3", "1-0", "1-1", "2-0"]
    assert dict(ties)["0-1"] == "(4) delta vs (5) eps: 1-1 (+37)"
    assert ">point margin +37 after a level" in svg  # the note (clipped: the table has it all)
    delta = re.findall(r'<text[^>]*?( font-weight="bold")?>\(4\) delta</text>', svg)
    assert delta == [' font-weight="bold"', ""]  # through in round 1 (bold), out in round 2
    assert svg.count("<polyline") == 6  # each tie but the final joined to the next round
    assert "champion" not in svg and ">final<" in svg and ">quarter-final<" in svg
    rows = re.findall(r'<tr data-tie="(\d-\d)">(.*?)</tr>', html)
    assert len(rows) == 7
    assert "<td>waiting" not in html and "<td>point margin +37 after a level score</td>" in html
    assert "knockout: 5 seeds, 1 encounter per tie · now: the semi-final" in html
    done = _page(statuses.decided())
    assert re.search(r'data-champion="">champion: \[red\]beta\[/\]</text>', done)


def test_bracket_names_are_text_in_the_svg() -> None:
    tie = Tie(0, 0, ("<i>x</i>", "y&z"), (1, 2), (), None, "", 1)
    html = _page(Bracket(("<i>x</i>", "y&z"), 1, ((tie,),), None))
    assert "<i>x" not in html and "(1) &lt;i&gt;x&lt;/i&gt;" in html
    assert "(2) y&amp;z" in html and "0 of 1 encounters played" in html


def test_a_swiss_report_shows_its_table_groups_and_round() -> None:
    html = _page(statuses.swiss())
    table = re.search(r'<table class="grid" id="swiss">(.*?)</table>', html, re.S)
    assert table is not None
    rows = re.findall(r'<tr><td class="num">(\d)</td><td>([^<]+)</td><td class="num" '
                      r'data-score="[^"]+">([^<]+)</td><td class="num">([^<]+)</td>'
                      r'<td class="num">([^<]+)</td><td class="num">(\d)</td><td>([^<]*)</td>',
                      table.group(1))
    assert rows[1] == ("2", "eps", "1", "0", "0", "1", "")
    assert rows[2] == ("3", "[red]beta[/]", "0.5", "0.5", "0.25", "0", "gamma")
    assert "Score groups before round 2: 1: alpha, eps · 0.5: [red]beta[/], gamma · 0: " \
           "delta" in html
    assert "Round 2: alpha vs eps (to play), [red]beta[/] vs gamma 1-0, bye: delta" in html
    assert "swiss: round 2 of 3, 5 players" in html and "Buchholz" in html


def test_an_adaptive_report_shows_its_decisions_and_players() -> None:
    html = _page(statuses.adaptive("adaptive", 40))
    assert "adaptive: 12 of at most 40 encounters · 1 of 2 adjacent pairs separated" in html
    decisions = re.findall(r"<li>(.*?)</li>", html)
    assert len(decisions) == 2 and "greedy@2 vs strong@1: intervals overlap 38%" in decisions[0]
    assert 'data-player="strong@1"' in html
    assert "\x1b" not in html and "refused: [2Jbot.toml says [link=x]y[/link]" in html


def test_a_continuous_ladders_report_lists_its_versions(tmp_path: Path) -> None:
    config = versioned_ladder(tmp_path)
    index = refresh_site(config, tmp_path / "site").index.read_text("utf-8")
    versions = re.findall(r'<tr(?: class="dim")? data-version="([^"]+)">.*?<td>(current|retired)'
                          r"</td></tr>", index)
    assert versions == [("alpha@1", "retired"), ("alpha@2", "current"), ("beta@1", "current"),
                        ("gamma@1", "current")]
    rows = load_standings_rows(index)
    assert sorted(bot for _, bot in rows) == ["alpha@2", "beta@1", "gamma@1"]
    assert re.search(r"<td>alpha <span class=\"dim\">2 · [0-9a-f]{8}</span></td>", index)


@pytest.mark.integration
def test_the_site_of_a_knockout_and_of_a_swiss_run_by_the_ladder(tmp_path: Path) -> None:
    """The report reads the schedule's state from the store, as `arena standings`."""
    field = '["alpha", "beta", "gamma", "delta", "eps"]'
    for kind, keys, section in (("knockout", "encounters = 1", "bracket-chart"),
                                ("swiss", "rounds = 2", "swiss")):
        path = tmp_path / f"{kind}.toml"
        path.write_text(f'name = "{kind}"\ngame = "lost-cities"\nentrants = {field}\n'
                        f'[schedule]\ntype = "{kind}"\n{keys}\n')
        config = load_ladder(path)
        summary = asyncio.run(run_ladder(config, play=FakePlayer(), resolve=fake_resolve))
        index = refresh_site(config, tmp_path / kind).index.read_text("utf-8")
        assert f'id="{section}"' in index, kind
        if kind == "knockout":
            champion = summary.stopped.removesuffix(" won the knockout")
            assert f'data-champion="">champion: {champion}</text>' in index
        else:
            assert "swiss: finished after 2 rounds, 5 players" in index
