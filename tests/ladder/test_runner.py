"""The runner with a fast in-process player: resume, bounds, concurrency, clean stop, matches
the cluster gave up on, reports."""

from __future__ import annotations

import asyncio
import dataclasses
from pathlib import Path
from typing import Any

import pytest

from arena.cluster import session
from arena.ladder.config import LadderConfig, load_ladder, parse_ladder
from arena.ladder.reports import crosstable_of, load_matches, load_standings
from arena.ladder.runner import (
    LadderEvent,
    LadderEventKind,
    RunSummary,
    ladder_schedule,
    legs_in_blocks,
    plan_run,
    run_ladder,
)
from arena.ladder.schedules.schedule import build_schedule
from arena.ladder.store import LadderStore
from arena.model import BotSpec, MatchSpec, Termination
from tests.support.fakes import GIVEN_UP, FakePlayer, fake_resolve

pytestmark = pytest.mark.integration


def config(tmp_path: Path, cycles: int = 2, bots: str = '"alpha", "beta", "gamma", "delta"'
           ) -> LadderConfig:
    path = tmp_path / "fake.toml"
    path.write_text(f'name = "fake"\ngame = "lost-cities"\nentrants = [{bots}]\n'
                    f"concurrency = 2\n[schedule]\ncycles = {cycles}\n")
    return parse_ladder(path.read_text(), source=path)


def run(cfg: LadderConfig, player: FakePlayer, **kwargs: Any) -> RunSummary:
    return asyncio.run(run_ladder(cfg, play=player, resolve=fake_resolve, **kwargs))


def test_plays_the_whole_schedule_once(tmp_path: Path) -> None:
    cfg = config(tmp_path)
    player = FakePlayer()
    events: list[LadderEvent] = []
    summary = run(cfg, player, on_event=events.append)
    schedule = ladder_schedule(cfg)
    expected = {m.match_id: m.seed for e in schedule for m in e.matches}
    assert len(expected) == 2 * 6 * 2
    assert {s.match_id: s.seed for s in player.calls} == expected
    found = load_matches(cfg)
    assert {m.match_id: m.seed for m in found} == expected
    assert summary.played == len(expected) and summary.remaining == 0
    assert events[0].kind is LadderEventKind.START and events[-1].kind is LadderEventKind.DONE
    finished = [e for e in events if e.kind is LadderEventKind.MATCH_FINISHED]
    assert [e.progress.done for e in finished] == list(range(1, len(expected) + 1))
    # a second run has nothing to do
    again = FakePlayer()
    summary = run(cfg, again)
    assert again.calls == [] and summary.skipped == len(expected)


def test_resume_after_a_bounded_run(tmp_path: Path) -> None:
    cfg = config(tmp_path)
    first = FakePlayer()
    run(cfg, first, max_matches=5)
    assert len(first.calls) == 6  # rounded up to whole encounters
    second = FakePlayer()
    run(cfg, second)
    done_first = {s.match_id for s in first.calls}
    assert not done_first & {s.match_id for s in second.calls}
    assert len(load_matches(cfg)) == 24
    assert len(LadderStore(cfg.database_url).elo_history("fake")) == 48


def test_cycles_override_extends_the_ladder(tmp_path: Path) -> None:
    cfg = config(tmp_path, cycles=1)
    run(cfg, FakePlayer())
    more = FakePlayer()
    run(cfg, more, cycles=3)
    assert len(more.calls) == 2 * 6 * 2
    assert {m.cycle for m in load_matches(cfg)} == {0, 1, 2}


def test_concurrency_is_bounded(tmp_path: Path) -> None:
    cfg = config(tmp_path)
    player = FakePlayer(delay=0.01)
    run(cfg, player, concurrency=3)
    assert player.max_active == 3
    serial = FakePlayer(delay=0.001)
    (tmp_path / "x").mkdir()
    run(config(tmp_path / "x"), serial, concurrency=1)
    assert serial.max_active == 1


def test_stop_drops_in_flight_matches_and_the_next_run_replays_them(tmp_path: Path) -> None:
    cfg = config(tmp_path)
    in_flight: list[MatchSpec] = []

    async def scenario() -> None:
        stop = asyncio.Event()
        player = FakePlayer(delay=0.05)

        def hook(spec: MatchSpec) -> None:
            if len(player.calls) == 7:  # the 7th match starts: stop while it is in flight
                in_flight.append(spec)
                stop.set()

        player.hook = hook
        summary = await run_ladder(cfg, play=player, resolve=fake_resolve, stop=stop)
        assert summary.interrupted
        recorded = {m.match_id for m in load_matches(cfg)}
        assert in_flight[0].match_id not in recorded
        assert len(recorded) < len(player.calls)

    asyncio.run(scenario())
    before = {m.match_id: m for m in load_matches(cfg)}
    replay = FakePlayer()
    run(cfg, replay)
    replayed = {s.match_id: s.seed for s in replay.calls}
    assert replayed[in_flight[0].match_id] == in_flight[0].seed
    after = {m.match_id: m for m in load_matches(cfg)}
    assert len(after) == 24
    for match_id, m in before.items():
        assert after[match_id] == m  # nothing lost, nothing rewritten


def test_a_finished_ladder_opens_no_cluster(tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    cfg = config(tmp_path, cycles=1, bots='"alpha", "beta"')
    run(cfg, FakePlayer())
    opened: list[object] = []
    monkeypatch.setattr(session, "open_cluster",
                        lambda *args, **kwargs: opened.append(args))  # never entered

    def with_a_directory(ref: str, base_dir: Path) -> BotSpec:  # what the process sandbox needs
        return dataclasses.replace(fake_resolve(ref, base_dir), directory=str(tmp_path))

    summary = asyncio.run(run_ladder(cfg, resolve=with_a_directory, sandbox="process"))
    assert opened == [] and summary.played == 0 and summary.skipped == 2


def test_void_matches_are_listed_but_never_rated(tmp_path: Path) -> None:
    cfg = config(tmp_path, cycles=1, bots='"alpha", "beta"')
    schedule = ladder_schedule(cfg)
    void_id = schedule[0].matches[0].match_id
    run(cfg, FakePlayer(void_ids={void_id}))
    found = load_matches(cfg)
    assert [m.void for m in found if m.match_id == void_id] == [True]
    standings = load_standings(cfg)
    assert standings.void == 1 and standings.rated == 1
    assert all(r.matches == 1 for r in standings.rows)


def test_a_match_the_cluster_gave_up_on_is_a_void_attempt_played_again_by_the_next_run(
        tmp_path: Path) -> None:
    cfg = config(tmp_path, cycles=1, bots='"alpha", "beta"')
    lost = ladder_schedule(cfg)[0].matches[1]
    events: list[LadderEvent] = []
    summary = run(cfg, FakePlayer(given_up_ids={lost.match_id}), on_event=events.append)
    assert (summary.played, summary.void, summary.given_up, summary.remaining) == (1, 1, 1, 1)
    finished = [e for e in events if e.kind is LadderEventKind.MATCH_FINISHED]
    assert [(e.result.match_id, e.result.termination, e.applied) for e in finished
            if e.result is not None and e.result.void] == \
        [(lost.match_id, Termination.CANCELLED, False)]
    assert finished[-1].progress.given_up == 1  # the live view counts it during the run
    with LadderStore(cfg.database_url) as db:
        (attempt,) = db.void_attempts("fake")
        assert (attempt.match_id, attempt.encounter_id, attempt.cycle, attempt.leg,
                attempt.seed) == (lost.match_id, lost.encounter_id, lost.cycle, lost.leg,
                                  lost.seed)
        assert attempt.detail == GIVEN_UP and attempt.started_at is not None
        assert lost.match_id not in db.recorded_ids("fake")
        assert len(db.elo_history("fake")) == 2  # only the match played to the end is rated
    assert load_standings(cfg).rated == 1

    again = FakePlayer()
    summary = run(cfg, again)
    assert [(s.match_id, s.seed) for s in again.calls] == [(lost.match_id, lost.seed)]
    assert (summary.played, summary.void, summary.given_up, summary.remaining) == (1, 0, 0, 0)
    replayed = {m.match_id: m for m in load_matches(cfg)}[lost.match_id]
    assert not replayed.void and replayed.termination is Termination.NORMAL
    assert load_standings(cfg).rated == 2
    with LadderStore(cfg.database_url) as db:
        assert len(db.elo_history("fake")) == 4
        assert [a.match_id for a in db.void_attempts("fake")] == [lost.match_id]  # kept


def test_standings_rank_the_fake_strengths(tmp_path: Path) -> None:
    cfg = config(tmp_path, cycles=12)
    run(cfg, FakePlayer())
    standings = load_standings(cfg)
    assert [r.bot for r in standings.rows] == ["alpha", "beta", "gamma", "delta"]
    assert standings.rated == 144
    for row in standings.rows:
        assert row.wins + row.draws + row.losses == row.matches == 72
        assert row.live_elo is not None
    # the fake's deal luck is shared by both legs and cancels exactly: every paired margin
    # difference is the same, a variance of 0 that supports no ratio (issue 20, point 6)
    assert standings.pairing.encounters == 72
    assert standings.pairing.margin_ratio is None
    assert "every paired difference is the same" in standings.pairing.margin_note
    cells = crosstable_of(load_matches(cfg)).cells
    assert cells[("alpha", "delta")].games == 24
    assert cells[("alpha", "delta")].wins == cells[("delta", "alpha")].losses
    data = standings.to_json()
    assert data["standings"][0]["bot"] == "alpha"
    assert data["duplicate_deals"]["encounters"] == 72


@pytest.mark.unit
def test_the_deal_secret_is_made_once_and_kept(tmp_path: Path) -> None:
    from arena.ladder.runner import SECRET_FILE, ladder_schedule, ladder_secret

    path = tmp_path / "s.toml"
    path.write_text('name = "s"\ngame = "lost-cities"\nentrants = ["alpha", "beta"]\n')
    cfg = load_ladder(path)
    first = ladder_schedule(cfg)
    secret_file = cfg.state_dir / SECRET_FILE
    assert secret_file.stat().st_mode & 0o777 == 0o600
    assert ladder_secret(cfg) == secret_file.read_text().strip()
    assert [e.seed for e in ladder_schedule(cfg)] == [e.seed for e in first]
    secret_file.write_text("another secret")
    assert [e.seed for e in ladder_schedule(cfg)] != [e.seed for e in first]


def test_a_fixed_schedule_shows_no_schedule_status_and_keeps_its_files(tmp_path: Path) -> None:
    """A round robin as before issue 20: no schedule status, no state files of the new types,
    nothing that stopped by itself."""
    from arena.ladder.schedules.registry import schedule_status
    from arena.ladder.schedules.sources import tournament_players

    cfg = config(tmp_path, cycles=1)
    events: list[LadderEvent] = []
    summary = run(cfg, FakePlayer(), on_event=events.append)
    assert summary.stopped == "" and all(e.progress.schedule is None for e in events)
    assert tournament_players(cfg) is None
    with LadderStore(cfg.database_url) as db:
        assert schedule_status(cfg, db) is None
    files = {p.name for p in cfg.state_dir.iterdir()}
    assert files & {"players.json", "pairings.jsonl", "versions.jsonl", "versions"} == set()


@pytest.mark.unit
def test_a_plan_plays_second_legs_in_blocks() -> None:
    """First legs of a block of encounters, then their second legs: one epoch drain of the host
    serves the block (``arena.sandbox.epochs``). Nothing is added, lost or renamed; an
    encounter with one leg left (a resumed run) plays it in its block's first part."""
    schedule = build_schedule("lad", ["a", "b", "c", "d"], cycles=2, seed=3)
    planned = plan_run(schedule, recorded={schedule[0].matches[0].match_id})
    ordered = legs_in_blocks(planned, 3)
    assert sorted(m.match_id for m in ordered) == sorted(m.match_id for m in planned)
    encounters = list(dict.fromkeys(m.encounter_id for m in planned))
    assert len(encounters) == 12
    for start in range(0, len(encounters), 3):
        block = encounters[start:start + 3]
        legs = [m for m in ordered if m.encounter_id in block]
        at = ordered.index(legs[0])
        assert legs == ordered[at:at + len(legs)]  # a block stays together
        pending = {e: [m for m in legs if m.encounter_id == e] for e in block}
        firsts = [legs.index(ms[0]) for ms in pending.values()]
        seconds = [legs.index(m) for ms in pending.values() for m in ms[1:]]
        assert max(firsts) < min(seconds)
    assert [m.leg for m in ordered[:4]] == [1, 0, 0, 1]  # encounter 1's leg 0 was recorded
