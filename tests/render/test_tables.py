"""Tables at 80 columns never cut an identifier a user must copy: ids stay whole on one line,
the less important columns go first (and the caption says which), nothing shows "…". Each
command's tables, rendered at 80 columns with long names and ids (the competition's, a
ladder's, the live views', the schedules', the SPRT's, the resource statistics, the catalogue's,
the games', the operator's)."""

from __future__ import annotations

import io
from dataclasses import replace

import pytest
from rich.console import Console, RenderableType

from arena.bots.catalogue import SubmittedBot
from arena.bots.images.prune import PruneCandidate
from arena.cluster.progress import HostProgress
from arena.gate.report import Check, GateReport
from arena.host.accounts import Contestant
from arena.ladder.reports import VersionRow, crosstable_of, standings_of
from arena.ladder.runner import InFlight, LadderEventKind, Progress
from arena.ladder.store import StoredMatch, VoidAttempt
from arena.model import Termination
from arena.render.catalogue import bots_table, images_table
from arena.render.competition import (
    contestants_table,
    matches_table,
    standings_table,
    submissions_table,
)
from arena.render.games import games_table, gate_table
from arena.render.ladder import (
    render_crosstable,
    render_live,
    render_matches,
    render_pairing,
    render_sprt_live,
    render_standings,
    render_versions,
    render_void_attempts,
)
from arena.render.match import render_bot_stats
from arena.render.schedule import render_schedule
from arena.render.sprt import render_result
from arena.render.tables import Col, fitted_table
from arena.sprt.run import SprtEvent, SprtStatus
from arena.stats.resources import BotStats, Spread
from arena.stats.sprt import Pentanomial, SprtParams
from arena.stats.sprt_pairs import PairBook
from arena.v1 import competition_pb2 as pb
from tests.support.fakes import SAMPLE_MATCHES
from tests.support.statuses import NOW, adaptive, swiss

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


# --- a ladder's tables (`arena standings`, `arena matches`, `arena ladder ...`, `run-ladder`) --
ALICE = "alice-the-long-named-bot-x"
BOB = "bob-the-other-long-named-bot"
GAMMA = "gamma-with-a-long-name-too"
LADDER_IDS = [f"spring-cup-lost-cities-c0012-e{n:04d}-l1" for n in range(5)]


def _ladder_matches() -> list[StoredMatch]:
    names = {"alpha": ALICE, "beta": BOB, "gamma": GAMMA}
    return [replace(m, match_id=LADDER_IDS[n], bots=(names[m.bots[0]], names[m.bots[1]]))
            for n, m in enumerate(SAMPLE_MATCHES)]


def test_the_standings_fit_80_columns_with_whole_names() -> None:
    """`arena standings`, `arena ladder standings`, and the live view's standings."""
    standings = standings_of("spring-cup-lost-cities", _ladder_matches(), live={ALICE: 1530.4})
    for live in (False, True):
        text = _text(render_standings(standings, live=live), 80)
        _fits(text, [ALICE, BOB, GAMMA])
    wide = _text(render_standings(standings, live=True), 200)
    assert "pts/match" in wide and "live Elo" in wide and "left out" not in wide


def test_a_ladders_matches_and_the_matches_given_up_fit_80_columns() -> None:
    """`arena matches LADDER` and `arena ladder void` (the matches the cluster gave up on)."""
    _fits(_text(render_matches(_ladder_matches()), 80), LADDER_IDS)
    attempts = [VoidAttempt(match_id, "e", 0, 0, "lost-cities", 7, (ALICE, BOB),
                            Termination.CANCELLED, "the match killed the workers that played it",
                            started_at=1.7e9, finished_at=1.7e9 + 10)
                for match_id in LADDER_IDS]
    _fits(_text(render_void_attempts(attempts), 80), LADDER_IDS)


def test_the_versions_the_crosstable_and_the_pairs_fit_80_columns() -> None:
    """`arena standings --versions`, `arena ladder crosstable`, the report's pentanomial."""
    keys = [f"{name}@2026-12-01.{n}" for n, name in enumerate((ALICE, BOB, GAMMA))]
    rows = [VersionRow(key, key.split("@")[0], key.split("@")[1], "dir:sha256:" + "ab" * 32,
                       1500.0 + n, 80.0, 12, 24, 1.7e9, 1.7e9 + 3600, n == 0)
            for n, key in enumerate(keys)]
    _fits(_text(render_versions(rows), 80), [*keys, rows[0].short_identity])
    matches = _ladder_matches()
    _fits(_text(render_crosstable(crosstable_of(matches)), 80), [ALICE, BOB, GAMMA])
    _fits(_text(render_pairing(standings_of("lad", matches)), 80), [ALICE, BOB])


def test_the_live_view_of_a_run_fits_80_columns() -> None:
    """`arena run-ladder`'s live view: the workers, the matches in flight (their ids whole, for
    `arena watch --match`) and the standings."""
    flights = tuple(InFlight(match_id, (ALICE, BOB), 12, 1, 100.0 + n)
                    for n, match_id in enumerate(LADDER_IDS))
    hosts = (HostProgress("tcp://127.0.0.1:40123", "worker-host-number-one.example", 2, 40,
                          12.5),)
    progress = Progress("spring-cup-lost-cities", 100, 0, 100, 40, flights, {}, 90.0,
                        hosts=hosts)
    standings = standings_of("spring-cup-lost-cities", _ladder_matches())
    text = _text(render_live("spring-cup-lost-cities", progress, standings, 160.0), 80)
    _fits(text, [*LADDER_IDS, "tcp://127.0.0.1:40123", ALICE, BOB, GAMMA])


def test_the_schedules_tables_fit_80_columns_with_whole_players() -> None:
    """An adaptive or continuous ladder's players, a Swiss's table (`arena standings`, the
    live view): version keys of long names, each whole on its line."""
    keys = [f"{name}@2026-12-01.3+0123abcd" for name in (ALICE, BOB, GAMMA)]
    status = adaptive()
    players = tuple(replace(status.players[0], player=key) for key in keys)
    _fits(_text(render_schedule(replace(status, players=players), NOW), 80), keys)
    state = swiss()
    table = tuple(replace(row, player=key, opponents=(keys[(n + 1) % 3],))
                  for n, (row, key) in enumerate(zip(state.table, keys, strict=False)))
    _fits(_text(render_schedule(replace(state, table=table)), 80), keys)


def test_the_sprt_views_fit_80_columns() -> None:
    """`arena sprt`: the live view (its matches in flight) and the calculator's table."""
    counts = Pentanomial((1, 2, 5, 8, 6))
    params = SprtParams(0.0, 50.0)
    status = SprtStatus.of(params, PairBook(counts=counts), 200, 23)
    flights = tuple(InFlight(f"sprt-{ALICE}-vs-{BOB}-p{n:05d}-l1", (ALICE, BOB), n, 1, 150.0)
                    for n in range(2))
    progress = Progress("t", 0, 0, 0, 30, flights, {}, 100.0)
    event = SprtEvent(LadderEventKind.MATCH_FINISHED, progress, status)
    text = _text(render_sprt_live(f"SPRT t: {ALICE} vs {BOB}", event, 160.0), 80)
    _fits(text, [f.match_id for f in flights])
    assert status.result is not None
    _fits(_text(render_result(status.result), 80), ["1 2 5 8 6"])


def test_the_resource_statistics_fit_80_columns() -> None:
    """`arena ladder stats` and `arena match --stats`: each bot whole, no figure folded."""
    spread = Spread(12.345, 45.678, 123.456)
    stats = [BotStats(name, 12, 1234, spread, spread, spread, spread, 1234.5, 123 << 20,
                      950.0, 12.5, 1000.0, meter="cgroup", clock="cpu")
             for name in (ALICE, BOB)]
    text = _text(render_bot_stats(stats), 80)
    _fits(text, [ALICE, BOB, "12.3 / 45.7 / 123.5"])
    assert "123.0 MiB" in _text(render_bot_stats(stats), 200)


# --- the catalogue, the games, the operator's tables ------------------------------------------
def test_the_catalogue_the_images_and_the_contestants_fit_80_columns() -> None:
    """`arena bots list`, `arena images prune`, `arena contestants list`."""
    bots = [SubmittedBot(name, "2026-12-01.3", "lost-cities", f"sha256:{n}{'ab' * 31}",
                         f"sha256:{'cd' * 32}", 1.8e9)
            for n, name in enumerate((ALICE, BOB))]
    _fits(_text(bots_table(bots), 80), [ALICE, BOB, bots[0].image[:19], bots[1].image[:19]])
    images = [PruneCandidate(f"sha256:{n}{'ef' * 31}", "bot image", 300 << 20, False,
                             f"used by a submitted bot: {ALICE}@2026-12-01.{n} and three more")
              for n in range(2)]
    _fits(_text(images_table(images, dry_run=True), 80), [i.image_id[7:19] for i in images])
    people = [Contestant(f"{name}-the-contestant", 1.8e9, None, (name,))
              for name in (ALICE, BOB)]
    _fits(_text(contestants_table(people), 80), [p.name for p in people])


def test_the_games_and_a_gate_verdict_fit_80_columns() -> None:
    """`arena games list`, `arena games check`: ids and statuses whole."""
    rows = [{"id": game_id, "title": "A game with a long title", "version": "12",
             "distribution": "arena-a-long-distribution-name", "dist_version": "1.2.3",
             "source": "/home/someone/.venv/lib/python3.11/site-packages/arena_game/",
             "gate": "not run"} for game_id in ("lost-cities", "goofspiel-variant-long")]
    _fits(_text(games_table(rows), 80), ["lost-cities", "goofspiel-variant-long", "not run"])
    report = GateReport("goofspiel-variant-long", "x", False, (
        Check("determinism", True, ""),
        Check("codec-round-trip", False, "seed 12, decision 7: the view came back different: "
                                         "hand [1, 2, 3] != [1, 2]"),))
    _fits(_text(gate_table(report, "goofspiel-variant-long"), 80),
          ["codec-round-trip", "determinism", "FAILED"])
