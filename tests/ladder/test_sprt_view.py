"""The live view of an SPRT test and the end of a run, rendered to text."""

from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path

import pytest

from arena.ladder.runner import InFlight, LadderEventKind, Progress, RunSummary
from arena.render.ladder import (
    SprtLiveView,
    llr_fill,
    render_sprt_live,
    sprt_counts_line,
    sprt_estimate_line,
)
from arena.render.sprt import render_sprt_summary
from arena.sprt.run import SprtEvent, SprtStatus, SprtSummary
from arena.stats.sprt import EloModel, Pentanomial, SprtParams, evaluate, expected_pairs
from arena.stats.sprt_pairs import PairBook
from tests.support.views import text_of

pytestmark = pytest.mark.unit

PARAMS = SprtParams(0.0, 50.0)


def status_of(counts: tuple[int, int, int, int, int], params: SprtParams = PARAMS,
              max_pairs: int | None = 200) -> SprtStatus:
    book = PairBook(counts=Pentanomial(counts))
    return SprtStatus.of(params, book, max_pairs, sum(counts) + 1)


def progress(done: int, started: float = 100.0, **kwargs: object) -> Progress:
    fields: dict[str, object] = dict(ladder="t", scheduled=0, already=0, planned=0, done=done,
                                     in_flight=(), elo={}, started=started)
    return Progress(**(fields | kwargs))  # type: ignore[arg-type]


def test_the_live_view_shows_what_the_issue_asks() -> None:
    status = status_of((1, 2, 5, 8, 6))
    flight = InFlight("t-p00022-l1", ("v1", "v2"), cycle=22, leg=1, started=150.0)
    event = SprtEvent(LadderEventKind.MATCH_FINISHED, progress(30, in_flight=(flight,)), status)
    text = " ".join(text_of(render_sprt_live("SPRT t: v2 vs v1", event, now=160.0),
                            width=140).split())
    lower, upper = PARAMS.bounds
    result = evaluate(Pentanomial((1, 2, 5, 8, 6)), PARAMS)
    assert "SPRT t: v2 vs v1 elapsed 1:00" in text
    assert f"LLR {lower:+.2f}" in text and f"{upper:+.2f} now {result.llr:+.2f} (continue)" in text
    assert "pentanomial [LL LD WL/DD WD WW]: 1 2 5 8 6 pairs 22 of at most 200" in text
    ahead = expected_pairs(result.llr, 22, PARAMS.bounds)
    assert ahead is not None and f"expected still: ~{ahead:.0f} pairs" in text
    est = result.estimate
    assert f"Elo {est.elo:+.1f} (95%: {est.low:+.1f} to {est.high:+.1f})" in text
    assert f"LOS {100 * est.los:.1f}%" in text
    assert "30.0 matches/min 30 played this run" in text
    assert "│ t-p00022-l1 │ v1 │ v2 │ 10.0s │" in text


def test_before_the_first_pair_and_at_the_start() -> None:
    empty = status_of((0, 0, 0, 0, 0), max_pairs=None)
    assert sprt_counts_line(empty) == \
        "pentanomial [LL LD WL/DD WD WW]: 0 0 0 0 0  pairs 0  expected still: -- pairs"
    assert sprt_estimate_line(empty) == "Elo: -- (no complete pair yet)"
    assert llr_fill(empty) == pytest.approx(0.5)
    normalized = status_of((0, 0, 0, 0, 0), SprtParams(0, 5, model=EloModel.normalized))
    assert sprt_estimate_line(normalized).startswith("nElo: --")
    view = SprtLiveView("SPRT t")
    assert text_of(view).strip() == "SPRT t: starting…"
    event = SprtEvent(LadderEventKind.START, progress(0), empty)
    view.update(event)
    assert view.event is event and "0.0 matches/min" in text_of(view)
    stopping = SprtEvent(LadderEventKind.STOPPING, progress(0, stopping=True), empty)
    assert "[stopping: finishing nothing new]" in text_of(render_sprt_live("t", stopping, 101))


@pytest.mark.parametrize(("counts", "fill"), [
    ((0, 0, 40, 0, 0), 0.0),       # far below the lower bound: empty
    ((0, 0, 0, 0, 30), 1.0),       # far above the upper bound: full
])
def test_the_llr_bar_is_clamped_to_the_bounds(counts: tuple[int, int, int, int, int],
                                             fill: float) -> None:
    assert llr_fill(status_of(counts)) == fill


def test_the_llr_bar_is_linear_between_the_bounds() -> None:
    status = status_of((1, 2, 5, 8, 6))
    lower, upper = PARAMS.bounds
    assert math.isclose(llr_fill(status), (status.llr - lower) / (upper - lower))
    assert 0.0 < llr_fill(status) < 1.0


def test_the_end_of_a_run_counts_the_legs_the_cluster_gave_up_on() -> None:
    run = RunSummary(played=8, skipped=0, remaining=0, void=1, interrupted=True,
                     duration_s=60.0, given_up=1)
    summary = SprtSummary("t", Path("t.toml"), ("v2", "v1"), status_of((0, 1, 2, 1, 0)), run)
    text = " ".join(text_of(render_sprt_summary(summary), width=200).split())
    assert ("this run: 8 matches in 1:00 (8.0/min, 1 void); 1 match was given up by the "
            "cluster (void: never rated, played again). Matches: arena matches t.toml"
            ) in text
    quiet = SprtSummary("t", Path("t.toml"), ("v2", "v1"), status_of((0, 1, 2, 1, 0)),
                        replace(run, void=0, given_up=0))
    assert "given up" not in text_of(render_sprt_summary(quiet), width=200)
