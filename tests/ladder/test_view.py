"""The ladder's terminal views: the pure renderers and the live view's model, rendered to text."""

from __future__ import annotations

from dataclasses import replace

import pytest

from arena.ladder.config import parse_ladder
from arena.ladder.reports import crosstable_of, standings_of
from arena.ladder.runner import InFlight, LadderEvent, LadderEventKind, Progress, RunSummary
from arena.ladder.schedules.schedule import build_schedule
from arena.ladder.store import VoidAttempt
from arena.model import BotSpec, MatchSpec, Termination
from arena.render.ladder import (
    LiveView,
    render_crosstable,
    render_live,
    render_matches,
    render_pairing,
    render_report,
    render_standings,
    render_summary,
    render_void_attempts,
    stored_from_result,
)
from arena.render.schedule import format_clock
from tests.support.fakes import SAMPLE_MATCHES, fake_result
from tests.support.views import row_of, text_of

pytestmark = pytest.mark.unit

MATCHES = SAMPLE_MATCHES[:4]


def test_clock() -> None:
    assert [format_clock(s) for s in (-3, 0, 59.9, 65, 3599, 3605, 36000)] == \
        ["0:00", "0:00", "0:59", "1:05", "59:59", "1:00:05", "10:00:00"]


def test_standings_table() -> None:
    standings = standings_of("lad", MATCHES, live={"alpha": 1530.4})
    text = text_of(render_standings(standings))
    assert "Ladder lad: 3 rated matches, 1 void" in text
    row = row_of(text, str([r.bot for r in standings.rows].index("alpha") + 1))
    alpha = next(r for r in standings.rows if r.bot == "alpha")
    assert row[1:] == ["alpha", f"{alpha.rating:.0f}",
                       f"{alpha.rating - alpha.ci95:.0f}..{alpha.rating + alpha.ci95:.0f}",
                       "3", "1/1/1", "50.0%", "15.7"]
    assert "live Elo" not in text and "encounter-clustered" in text
    live = text_of(render_standings(standings, live=True))
    assert "live Elo" in live and "1530" in live and "Bradley-Terry fit so far" in live


def test_pairing_and_the_report() -> None:
    standings = standings_of("lad", MATCHES)
    pairing = text_of(render_pairing(standings))
    assert "duplicate deals: 1 complete encounters" in pairing
    assert "alpha vs beta" in pairing
    assert text_of(render_report(standings)) == \
        text_of(render_standings(standings), render_pairing(standings))
    none_yet = standings_of("lad", MATCHES[2:])
    assert text_of(render_pairing(none_yet)).strip() == \
        "duplicate deals: no complete encounters yet"


def test_the_report_counts_the_matches_the_cluster_gave_up_on() -> None:
    standings = standings_of("lad", MATCHES, given_up=2)
    assert standings.to_json()["given_up_matches"] == 2
    assert text_of(render_report(standings)) == text_of(
        render_standings(standings),
        "2 matches were given up by the cluster (void: never rated, played again)",
        render_pairing(standings))


def test_the_matches_the_cluster_gave_up_on_are_listed() -> None:
    attempt = VoidAttempt("lad-c0-e1-l0", "lad-c0-e1", 0, 0, "lost-cities", 7, ("alpha", "beta"),
                          Termination.CANCELLED, "the match killed the workers that played it",
                          started_at=1_699_999_990.0, finished_at=1_700_000_000.0)
    text = text_of(render_void_attempts([attempt]), width=160)
    assert "1 match was given up by the cluster (void: never rated, played again)" in text
    assert row_of(text, "lad-c0-e1-l0")[1:] == [
        "alpha", "beta", "2023-11-14 22:13:20 UTC", "the match killed the workers that played it"]


def test_crosstable() -> None:
    cross = crosstable_of(MATCHES)
    text = text_of(render_crosstable(cross))
    header = next(line for line in text.splitlines() if "bot" in line)
    assert sorted(cross.order, key=header.index) == list(cross.order)
    assert row_of(text, "alpha")[1:] == [
        {"alpha": "—", "beta": "1-1-0 (75%)", "gamma": "0-0-1 (0%)"}[b] for b in cross.order
    ]
    assert row_of(text, "beta")[1 + cross.order.index("gamma")] == ""  # never met


def test_match_list() -> None:
    text = text_of(render_matches(MATCHES), width=120)
    assert "4 matches" in text
    assert row_of(text, "m0")[3] == "alpha wins 30:10"
    assert row_of(text, "m1")[3] == "draw 12:12"
    assert row_of(text, "m2")[3] == "gamma wins 5:25 (forfeit)"
    assert row_of(text, "m3")[3:5] == ["void", "internal (VOID, not rated)"]


def test_summary_line() -> None:
    done = RunSummary(played=12, skipped=4, remaining=0, void=1, interrupted=False,
                      duration_s=75.4)
    assert text_of(render_summary(done)).strip() == \
        "done: 12 matches played in 1:15 (1 void), 4 already recorded, 0 still to play"
    stopped = RunSummary(3, 0, 9, 0, True, 3700)
    assert text_of(render_summary(stopped)).startswith("stopped early: 3 matches played in 1:01:40")
    lost = RunSummary(played=1, skipped=0, remaining=1, void=1, interrupted=False,
                      duration_s=2.0, given_up=1)
    assert text_of(render_summary(lost)).splitlines() == [
        "done: 1 matches played in 0:02 (1 void), 0 already recorded, 1 still to play",
        "1 match was given up by the cluster (void: never rated, played again)"]


def _progress(done: int, planned: int = 4, **kwargs: object) -> Progress:
    fields: dict[str, object] = dict(ladder="lad", scheduled=6, already=2, planned=planned,
                                     done=done, in_flight=(), elo={"alpha": 1520.0},
                                     started=100.0)
    return Progress(**(fields | kwargs))  # type: ignore[arg-type]


def test_live_snapshot() -> None:
    flight = InFlight("lad-c0-e1-l0", ("alpha", "beta"), cycle=0, leg=0, started=130.0)
    progress = _progress(1, in_flight=(flight,), stopping=True)
    text = text_of(render_live("lad", progress, standings_of("lad", MATCHES), now=160.0))
    assert "ladder lad: 1/4 matches this run (3/6 of the schedule)" in text
    assert "elapsed 1:00 ETA 3:00 [stopping: finishing nothing new]" in " ".join(text.split())
    assert row_of(text, "lad-c0-e1-l0")[1:] == ["alpha", "beta", "30.0s"]
    assert "live Elo" in text
    assert "ETA --:--" in text_of(render_live("lad", _progress(0), None, now=160.0))
    assert "ETA 0:00" in text_of(render_live("lad", _progress(4), None, now=160.0))
    assert text_of(render_live("lad", None, None, now=0.0)).strip() == "ladder lad: starting…"
    assert "given up" not in text
    lost = text_of(render_live("lad", _progress(2, given_up=2), None, now=160.0))
    assert "2 matches were given up by the cluster (void: never rated, played again)" in lost


def test_live_view_folds_the_events() -> None:
    cfg = parse_ladder('name = "lad"\ngame = "lost-cities"\nentrants = ["alpha", "beta"]\n')
    view = LiveView(cfg, [MATCHES[3]])
    assert view.table is None  # only a void match so far: nothing to rate
    schedule = build_schedule("lad", ["alpha", "beta"], cycles=1)
    bots = (BotSpec("alpha", "lost-cities"), BotSpec("beta", "lost-cities"))
    start = LadderEvent(LadderEventKind.START, _progress(0, planned=2))
    view.update(start)
    assert view.progress is start.progress and view.table is None
    for done, m in enumerate(schedule[0].matches, start=1):
        seats = (bots[m.seats[0]], bots[m.seats[1]])
        result = fake_result(MatchSpec("lost-cities", m.seed, seats, match_id=m.match_id))
        view.update(LadderEvent(LadderEventKind.MATCH_STARTED, _progress(done - 1, 2), m))
        assert len(view.results) == done
        view.update(LadderEvent(LadderEventKind.MATCH_FINISHED, _progress(done, 2), m, result,
                                applied=True))
        expected = stored_from_result(result, m)
        assert view.results[-1] == replace(expected, finished_at=view.results[-1].finished_at)
    assert [m.match_id for m in view.results[1:]] == [m.match_id for m in schedule[0].matches]
    assert view.table is not None and view.table.rated == 2  # refitted at the last match
    assert {r.live_elo for r in view.table.rows} == {1520.0, None}
    again = schedule[0].matches[0]
    view.update(LadderEvent(LadderEventKind.MATCH_FINISHED, _progress(2, 2), again,
                            fake_result(MatchSpec("lost-cities", again.seed, bots,
                                                  match_id=again.match_id)), applied=False))
    assert len(view.results) == 3, "a result the store already had is not counted twice"
    assert "Ladder lad: 2 rated matches, 1 void" in text_of(view)


def test_stored_from_result_reads_like_the_store() -> None:
    spec = MatchSpec("lost-cities", 99, (BotSpec("alpha", "lost-cities"),
                                         BotSpec("beta", "lost-cities")), match_id="lad-x")
    result = fake_result(spec, Termination.INTERNAL)
    m = build_schedule("lad", ["alpha", "beta"], cycles=1)[0].matches[1]
    got = stored_from_result(result, m)
    assert (got.match_id, got.encounter_id, got.cycle, got.leg) == \
        ("lad-x", m.encounter_id, m.cycle, m.leg)
    assert (got.bots, got.totals, got.rounds, got.winner, got.termination, got.void) == \
        (result.bots, result.totals, result.rounds, None, Termination.INTERNAL, True)
    assert got.log_path == result.log and got.seed == 99 and got.finished_at > 0
