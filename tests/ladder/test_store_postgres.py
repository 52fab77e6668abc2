"""The store on PostgreSQL against the same store on SQLite: identical read-back, a real ladder
run, the schema it creates, and a writer that bypasses the store's lock.

Each test gets a fresh schema (see ``postgres_url`` in conftest.py); without
$ARENA_TEST_POSTGRES_URL these tests skip, or fail under ARENA_REQUIRE_POSTGRES=1.
"""

from __future__ import annotations

import asyncio
import dataclasses
import threading
import time
from pathlib import Path

import pytest
from sqlalchemy import select, text

from arena.ladder.config import LadderConfig, parse_ladder
from arena.ladder.reports import load_matches, load_standings, standings_of
from arena.ladder.runner import ladder_schedule, run_ladder
from arena.ladder.schedules.schedule import build_schedule
from arena.ladder.store import LadderStore, Recorded, StoredMatch, matches_t
from arena.model import BotSpec, MatchSpec, Termination
from tests.support.fakes import FakePlayer, fake_resolve, fake_result

pytestmark = pytest.mark.integration

A = BotSpec("alpha", "lost-cities", digest="sha256:aaa", version="1")
B = BotSpec("beta", "lost-cities", digest="sha256:bbb", version="1")
C = BotSpec("gamma", "lost-cities", directory="/bots/gamma", version="2")
OPTIONS = {"rounds": 3, "variant": {"purple": True, "weights": [1.5, 2]}}


def record_a_season(db: LadderStore) -> None:
    """Three bots, four cycles of duplicate encounters, one void match, one replayed id."""
    bots = (A, B, C)
    schedule = build_schedule("season", ["a", "b", "c"], cycles=4)
    crashed = schedule[4].matches[1].match_id
    for enc in schedule:
        for m in enc.matches:
            specs = (bots[m.seats[0]], bots[m.seats[1]])
            spec = MatchSpec("lost-cities", m.seed, specs, options=OPTIONS, match_id=m.match_id)
            term = Termination.INTERNAL if m.match_id == crashed else Termination.NORMAL
            db.record_match("lad", fake_result(spec, term), specs, encounter_id=m.encounter_id,
                            cycle=m.cycle, leg=m.leg, started_at=1000.0 + m.cycle)
    first = schedule[0].matches[0]
    spec = MatchSpec("lost-cities", first.seed, (A, B), options=OPTIONS, match_id=first.match_id)
    assert not db.record_match("lad", fake_result(spec), (A, B)).applied


def without_clock(matches: list[StoredMatch]) -> list[StoredMatch]:
    return [dataclasses.replace(m, finished_at=0.0) for m in matches]


def test_reads_back_identical_to_sqlite(postgres_url: str, tmp_path: Path) -> None:
    with LadderStore(f"sqlite:///{tmp_path / 'ladder.db'}") as lite, \
            LadderStore(postgres_url) as pg:
        assert pg.is_postgresql and lite.is_sqlite
        record_a_season(lite)
        record_a_season(pg)
        matches = pg.matches("lad")
        assert len(matches) == 3 * 4 * 2 and [m.void for m in matches].count(True) == 1
        assert without_clock(matches) == without_clock(lite.matches("lad"))
        assert pg.elo_history("lad") == lite.elo_history("lad")
        assert pg.live_elo("lad") == lite.live_elo("lad")
        assert pg.recorded_ids("lad") == lite.recorded_ids("lad")
        assert [{k: v for k, v in r.items() if k != "created_at"} for r in pg.bot_rows()] == \
            [{k: v for k, v in r.items() if k != "created_at"} for r in lite.bot_rows()]
        standings = standings_of("lad", matches, live=pg.live_elo("lad"))
        assert standings == standings_of("lad", lite.matches("lad"), live=lite.live_elo("lad"))
        assert [r.bot for r in standings.rows] == ["alpha", "beta", "gamma"]
        for db in (pg, lite):  # the JSON column holds the nested options as they were
            with db.engine.connect() as conn:
                assert conn.execute(select(matches_t.c.options).limit(1)).scalar() == OPTIONS


def ladder(tmp_path: Path, database: str | None) -> LadderConfig:
    tmp_path.mkdir()
    path = tmp_path / "fake.toml"
    db_line = f'database = "{database}"\n' if database else ""
    path.write_text(f'name = "fake"\ngame = "lost-cities"\n{db_line}'
                    'entrants = ["alpha", "beta", "gamma", "delta"]\nconcurrency = 2\n'
                    "[schedule]\ncycles = 2\n")
    return parse_ladder(path.read_text(), source=path)


def test_a_ladder_runs_on_postgresql(postgres_url: str, tmp_path: Path) -> None:
    pg_cfg = ladder(tmp_path / "pg", postgres_url)
    lite_cfg = ladder(tmp_path / "lite", None)
    assert pg_cfg.database_url == postgres_url

    crashed = {ladder_schedule(pg_cfg)[3].matches[0].match_id}

    def run(cfg: LadderConfig, max_matches: int | None = None) -> FakePlayer:
        player = FakePlayer(void_ids=crashed)
        asyncio.run(run_ladder(cfg, play=player, resolve=fake_resolve, max_matches=max_matches))
        return player

    first = run(pg_cfg, max_matches=5)
    assert len(first.calls) == 6  # whole encounters
    rest = run(pg_cfg)
    assert len(first.calls) + len(rest.calls) == 2 * 6 * 2
    assert run(pg_cfg).calls == []  # resume: nothing left
    run(lite_cfg)
    pg_matches = load_matches(pg_cfg)
    assert {m.match_id for m in pg_matches} == {m.match_id for m in load_matches(lite_cfg)}
    by_id = {m.match_id: m for m in without_clock(load_matches(lite_cfg))}
    assert all(by_id[m.match_id] == m for m in without_clock(pg_matches))
    pg_rows = load_standings(pg_cfg).rows
    lite_rows = load_standings(lite_cfg).rows
    assert [(r.bot, r.matches, r.wins, r.draws, r.losses) for r in pg_rows] == \
        [(r.bot, r.matches, r.wins, r.draws, r.losses) for r in lite_rows]
    assert [r.bot for r in pg_rows] == ["alpha", "beta", "gamma", "delta"]
    assert sum(m.void for m in pg_matches) == 1
    with LadderStore(pg_cfg.database_url) as db:
        assert len(db.elo_history("fake")) == 2 * (24 - 1)


def test_schema_has_the_triggers_once(postgres_url: str) -> None:
    for _ in range(2):  # reopening adds nothing
        LadderStore(postgres_url).close()
    with LadderStore(postgres_url) as db, db.engine.connect() as conn:
        triggers = conn.execute(text(
            "SELECT tgrelid::regclass::text, tgname FROM pg_trigger WHERE NOT tgisinternal"
            " AND tgrelid IN ('bots'::regclass, 'matches'::regclass, 'ratings'::regclass,"
            " 'void_attempts'::regclass) ORDER BY 1, 2")).all()
        types: dict[str, str] = dict(conn.execute(text(
            "SELECT column_name, data_type FROM information_schema.columns"
            " WHERE table_schema = current_schema() AND table_name = 'matches'")).all())
    assert triggers == [(t, f"{t}_append_only_{k}")
                        for t in ("bots", "matches", "ratings", "void_attempts")
                        for k in ("rows", "truncate")]
    assert types["options"] == types["rounds"] == "json"
    assert types["duration_s"] == "double precision"


def test_a_writer_bypassing_the_lock_cannot_double_apply(postgres_url: str) -> None:
    """Another writer inserts the same match id without the store's lock and commits only
    once ``record_match`` waits on its row: the id is still applied once."""
    result = fake_result(MatchSpec("lost-cities", 3, (A, B), match_id="m-dup"))
    with LadderStore(postgres_url) as db:
        db.record_match("lad", fake_result(MatchSpec("lost-cities", 2, (A, B),
                                                      match_id="m-0")), (A, B))
        out: list[Recorded] = []
        with db.engine.connect() as other:
            row = dict(other.execute(select(matches_t).where(matches_t.c.match_id == "m-0"))
                       .mappings().one())
            del row["id"]
            other.execute(matches_t.insert().values(row | {"match_id": "m-dup"}))
            writer = threading.Thread(
                target=lambda: out.append(db.record_match("lad", result, (A, B))))
            writer.start()
            deadline = time.monotonic() + 10
            while not _someone_waits_on_a_row_lock(db) and time.monotonic() < deadline:
                time.sleep(0.02)
            assert _someone_waits_on_a_row_lock(db), "record_match never waited on the row"
            other.commit()
            writer.join(timeout=30)
        assert [r.applied for r in out] == [False]
        assert [m.match_id for m in db.matches("lad")] == ["m-0", "m-dup"]
        assert len(db.elo_history("lad")) == 2  # only m-0 was rated


def _someone_waits_on_a_row_lock(db: LadderStore) -> bool:
    with db.engine.connect() as conn:
        return bool(conn.execute(text(
            "SELECT count(*) FROM pg_locks WHERE NOT granted AND locktype = 'transactionid'"
        )).scalar())
