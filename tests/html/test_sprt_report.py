"""The SPRT test in `arena ladder report`: the LLR path from the recorded legs (counted as the run
counts them), the path drawn between its bounds, and the test's section of the report page."""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from arena.cli.main import app
from arena.ladder.config import LadderConfig, parse_ladder
from arena.ladder.reports import crosstable_of, load_matches, standings_of
from arena.ladder.runner import SECRET_FILE, LadderEventKind
from arena.ladder.store import StoredMatch
from arena.model import MatchResult, MatchSpec
from arena.render.html.charts import llr_chart
from arena.site.report_page import ReportData, SprtReport, report_page, sprt_report
from arena.sprt.run import SprtEvent, SprtOutcome, SprtSummary, run_sprt
from arena.stats.sprt import Decision, Pentanomial, SprtParams, decide, llr
from arena.stats.sprt_pairs import PairBook, llr_path
from tests.support.fakes import FakePlayer, fake_resolve, stored

pytestmark = pytest.mark.integration

runner = CliRunner()
PARAMS = SprtParams(elo0=0, elo1=50)


@dataclass(frozen=True)
class Leg:
    """A recorded leg (the fields the pair book reads)."""

    cycle: int
    leg: int
    winner: int | None
    void: bool = False


@pytest.mark.unit
def test_the_path_counts_pairs_in_the_order_they_completed() -> None:
    legs = [
        Leg(0, 0, 0),  # pair 0, leg 0: the candidate (seat 0) wins
        Leg(1, 0, 1),  # pair 1, leg 0: the candidate loses
        Leg(1, 1, None, void=True),  # void: nothing learned, the leg waits for its replay
        Leg(1, 1, 0),  # the replay: the baseline (seat 0 now) wins, pair 1 lost twice
        Leg(0, 1, None),  # equal totals: pair 0 completes second, won and drawn
        Leg(2, 1, 1),  # a lone leg never counts
    ]
    path = llr_path(legs, PARAMS)
    assert [(step.pair, step.cell) for step in path] == [(1, 0), (0, 3)]
    assert [step.counts for step in path] == [Pentanomial((1, 0, 0, 0, 0)),
                                              Pentanomial((1, 0, 0, 1, 0))]
    assert [step.llr for step in path] == [llr(step.counts, PARAMS) for step in path]
    assert path[0].llr < 0  # lost twice: evidence for H0
    assert path[-1].counts == PairBook.of(legs).counts
    assert llr_path(legs[:3], PARAMS) == []  # no pair complete yet
    assert llr_path([], PARAMS) == []


# --- a test recorded by the real run -----------------------------------------------------------
def _test_file(tmp_path: Path, candidate: str, baseline: str, extra: str = "",
               concurrency: int = 3) -> LadderConfig:
    tmp_path.mkdir(parents=True, exist_ok=True)
    path = tmp_path / "test.toml"
    path.write_text(f'name = "t"\ngame = "lost-cities"\nconcurrency = {concurrency}\n'
                    f'[sprt]\ncandidate = "{candidate}"\nbaseline = "{baseline}"\n'
                    f"elo0 = 0\nelo1 = 50\n{extra}")
    config = parse_ladder(path.read_text(), source=path)
    config.state_dir.mkdir(parents=True, exist_ok=True)
    (config.state_dir / SECRET_FILE).write_text("ab" * 16)  # repeatable fake results
    return config


def _run(config: LadderConfig, **kwargs: Any) -> tuple[SprtSummary, list[SprtEvent]]:
    """The fast fake player, one leg void once, and pair 0's second leg slow: pair 1 (and
    more) complete before pair 0 does."""
    fake = FakePlayer(void_ids={"t-p00002-l0"})

    async def play(spec: MatchSpec, **options: Any) -> MatchResult:
        await asyncio.sleep(0.3 if spec.match_id == "t-p00000-l1" else 0.002)
        return await fake(spec, **options)

    events: list[SprtEvent] = []
    summary = asyncio.run(run_sprt(config, play=play, resolve=fake_resolve,
                                   on_event=events.append, **kwargs))
    return summary, events


@pytest.fixture(scope="module")
def decided(tmp_path_factory: pytest.TempPathFactory) -> tuple[LadderConfig, SprtSummary,
                                                                list[SprtEvent]]:
    config = _test_file(tmp_path_factory.mktemp("sprt"), "beta", "gamma")
    summary, events = _run(config)
    return config, summary, events


def test_the_path_from_the_store_is_the_run_s_own_llr_after_each_pair(
        decided: tuple[LadderConfig, SprtSummary, list[SprtEvent]]) -> None:
    config, summary, events = decided
    assert summary.outcome is SprtOutcome.H1
    matches = load_matches(config)
    assert "t-p00002-l0-r1" in {m.match_id for m in matches}  # the void leg was played again
    path = llr_path(matches, summary.status.params)
    # the run's live status after every recorded match: its LLR each time a pair completed
    live: list[float] = []
    pairs = 0
    for event in events:
        if event.kind is LadderEventKind.MATCH_FINISHED and event.status.pairs != pairs:
            assert event.status.pairs == pairs + 1
            pairs = event.status.pairs
            live.append(event.status.llr)
    assert [step.llr for step in path] == live and len(path) == summary.status.pairs
    assert [step.counts.pairs for step in path] == list(range(1, len(path) + 1))
    assert path[-1].counts == summary.status.counts
    order = [step.pair for step in path]
    assert order != sorted(order) and order.index(0) > order.index(1)  # completion order
    assert sorted(order) == list(range(len(path)))
    # the run stopped at the crossing: the matches in flight then (at most one per worker, each
    # with the other leg of its deal waiting beside it) still count, so at most `concurrency`
    # pairs complete from the crossing on; if they moved the LLR back between the bounds, the
    # run went on, so the crossing that counts is the last one
    bound = PARAMS.bounds
    h1 = [decide(step.llr, bound) is Decision.H1 for step in path]
    crossing = max(i for i, now in enumerate(h1) if now and (i == 0 or not h1[i - 1]))
    assert h1[-1] and len(path) - crossing <= config.concurrency, (crossing, len(path))


def _section(index: str) -> str:
    found = re.search(r'<section id="sprt">(.*?)</section>', index, re.S)
    assert found is not None, "no SPRT section"
    return found.group(1)


def _figure(section: str, name: str) -> str:
    found = re.search(rf'<td data-figure="{name}">([^<]*)</td>', section)
    assert found is not None, name
    return found.group(1)


def test_the_report_of_a_test_shows_it(decided: tuple[LadderConfig, SprtSummary,
                                                       list[SprtEvent]], tmp_path: Path) -> None:
    config, summary, _ = decided
    out = tmp_path / "site"
    assert config.source is not None
    result = runner.invoke(app, ["ladder", "report", str(config.source), "--out", str(out)])
    assert result.exit_code == 0, result.output
    index = (out / "index.html").read_text(encoding="utf-8")
    assert "<h1>SPRT test t (lost-cities)</h1>" in index
    section = _section(index)
    status = summary.status
    assert ("beta (candidate) against gamma (baseline)" in section
            and "H0: the candidate is at most 0 Elo stronger; H1: at least 50 Elo" in section)
    assert "LLR bounds -2.94 (accept H0) and +2.94 (accept H1)" in section
    assert (f'<p class="decision" data-outcome="H1">H1 accepted after {status.pairs} pairs: '
            "beta is at least 50 Elo stronger than gamma.</p>") in section
    cells = re.findall(r'<td class="num" data-cell="(\d)">(\d+)</td>', section)
    assert [int(n) for _, n in cells] == list(status.counts.counts)
    assert _figure(section, "LLR") == f"{status.llr:+.2f} (bounds -2.94 and +2.94)"
    assert _figure(section, "complete pairs") == f"{status.pairs} ({status.pairs_started} begun)"
    assert status.result is not None
    est = status.result.estimate
    assert _figure(section, "Elo") == (f"{est.elo:+.1f} (95% interval {est.low:+.1f} to "
                                       f"{est.high:+.1f})")
    assert _figure(section, "LOS").startswith(f"{100 * est.los:.1f}%")
    points = re.search(r'data-llr-path="" points="([^"]+)"', section)
    assert points is not None and len(points.group(1).split()) == status.pairs + 1
    # the match list is the ladder's: every recorded match, the void one marked
    assert index.count('<tr data-match="') + index.count('<tr class="void" data-match="') \
        == len(load_matches(config))


def test_an_undecided_and_an_inconclusive_test_say_so(tmp_path: Path) -> None:
    stopped = _test_file(tmp_path / "stopped", "beta", "gamma", concurrency=1)
    _run(stopped, max_pairs=4)  # a run's budget: the file has none, the test goes on
    report = sprt_report(stopped, load_matches(stopped))
    assert report is not None and report.status.outcome is SprtOutcome.UNFINISHED
    assert len(report.path) == 4
    page = report_page(_data(stopped, report))
    assert "No decision yet after 4 pairs: the LLR is between the bounds" in page
    assert 'data-outcome="unfinished"' in page

    spent = _test_file(tmp_path / "spent", "beta", "gamma", "max_pairs = 4\n", concurrency=1)
    _run(spent)
    report = sprt_report(spent, load_matches(spent))
    assert report is not None and report.status.outcome is SprtOutcome.INCONCLUSIVE
    page = report_page(_data(spent, report))
    assert ("Inconclusive: the budget of 4 pairs is spent and the LLR reached neither bound."
            in page)
    assert '<td data-figure="complete pairs">4 of at most 4 (4 begun)</td>' in page


@pytest.mark.unit
def test_a_test_without_a_complete_pair_and_a_plain_ladder(tmp_path: Path) -> None:
    config = _test_file(tmp_path, "../bots/v2", "../bots/v1")
    lone = [stored("t-p00000-l0", ("beta", "gamma"), (30, 10), winner=0, leg=0)]
    report = sprt_report(config, lone)
    assert report is not None and report.path == [] and report.status.pairs == 0
    assert (report.candidate, report.baseline) == ("beta", "gamma")  # as recorded
    assert report.status.pairs_started == 1
    empty = sprt_report(config, [])
    assert empty is not None and (empty.candidate, empty.baseline) == ("v2", "v1")
    page = report_page(_data(config, empty, []))
    assert '<td data-figure="Elo">— (no complete pair yet)</td>' in page
    assert "No decision yet after 0 pairs" in page
    points = re.search(r'data-llr-path="" points="([^"]+)"', page)
    assert points is not None and len(points.group(1).split()) == 1
    plain = parse_ladder('name = "p"\ngame = "portas"\nentrants = ["a", "b"]\n',
                         source=tmp_path / "p.toml")
    assert sprt_report(plain, []) is None
    assert 'id="sprt"' not in report_page(_data(plain, None, []))


def _data(config: LadderConfig, report: SprtReport | None,
          matches: list[StoredMatch] | None = None) -> ReportData:
    matches = load_matches(config) if matches is None else matches
    return ReportData(config.name, config.game, standings_of(config.name, matches),
                      crosstable_of(matches), matches, [], sprt=report)


# --- the chart ---------------------------------------------------------------------------------
def _ys(svg: str, key: str) -> float:
    found = re.search(rf'<line x1="[\d.]+" y1="([\d.]+)"[^>]*data-bound="{key}"', svg)
    assert found is not None, key
    return float(found.group(1))


def _path(svg: str) -> list[tuple[float, float]]:
    found = re.search(r'data-llr-path="" points="([^"]+)"', svg)
    assert found is not None
    return [(float(x), float(y)) for x, y in (p.split(",") for p in found.group(1).split())]


@pytest.mark.unit
def test_the_llr_chart_draws_the_path_between_its_bounds() -> None:
    svg = llr_chart([0.5, 1.5, -0.5, 3.5], (-2.94, 2.94), title="LLR")
    upper, lower = _ys(svg, "H1"), _ys(svg, "H0")
    assert upper < lower  # H1's line is the upper one (SVG's y grows downwards)
    points = _path(svg)
    assert len(points) == 5 and [x for x, _ in points] == sorted({x for x, _ in points})
    zero = points[0][1]
    assert upper < zero < lower and points[3][1] > zero  # starts at 0; pair 3 dipped below
    assert points[-1][1] < upper and all(upper < y < lower for _, y in points[:-1])
    assert "H1 +2.94" in svg and "H0 -2.94" in svg and "after 4 pairs: LLR +3.50" in svg
    # a path far past a bound widens the axis instead of leaving the chart
    deep = llr_chart([-1.0, -4.0, -9.5], (-2.94, 2.94), title="LLR")
    assert min(y for _, y in _path(deep)) >= 0 and max(y for _, y in _path(deep)) <= 300
    assert "-10" in re.findall(r'text-anchor="end">([^<]+)<', deep)
    # no pair yet: the bounds and the start
    assert len(_path(llr_chart([], (-2.94, 2.94), title="LLR"))) == 1
