"""The store on every backend (SQLite, and PostgreSQL when $ARENA_TEST_POSTGRES_URL names one):
idempotent match ids, also under concurrent writers, append-only tables, live Elo history, void
attempts (recorded apart, never rated, played again); SQLite settings."""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from sqlalchemy import text

from arena.bots.identity import directory_hash
from arena.cluster.executor import given_up
from arena.ladder.schedules.schedule import build_schedule
from arena.ladder.store import LadderStore, Recorded, private_sqlite_file
from arena.model import BotSpec, MatchSpec, Termination
from arena.stats.rating import elo_update
from tests.support.fakes import fake_result

pytestmark = pytest.mark.unit

A = BotSpec("alpha", "lost-cities", digest="sha256:aaa", version="1")
B = BotSpec("beta", "lost-cities", digest="sha256:bbb", version="1")


def spec(match_id: str, seed: int, flip: bool = False) -> MatchSpec:
    return MatchSpec("lost-cities", seed, (B, A) if flip else (A, B), match_id=match_id)


@pytest.fixture()
def store(store_url: str) -> Iterator[LadderStore]:
    db = LadderStore(store_url)
    yield db
    db.close()


def test_same_match_id_is_applied_once(store: LadderStore) -> None:
    result = fake_result(spec("m-1", 1))
    first = store.record_match("lad", result, (A, B), elo_k=16)
    second = store.record_match("lad", result, (A, B), elo_k=16)
    assert first.applied and not second.applied
    assert second.elo == first.elo
    assert [m.match_id for m in store.matches("lad")] == ["m-1"]
    assert len(store.elo_history("lad")) == 2
    assert store.recorded_ids("lad") == {"m-1"}


def test_round_trip_of_a_match(store: LadderStore) -> None:
    result = fake_result(spec("m-2", 12345678901234567))
    store.record_match("lad", result, (A, B), encounter_id="enc", cycle=3, leg=1)
    (m,) = store.matches("lad")
    assert m.seed == 12345678901234567 and m.bots == ("alpha", "beta")
    assert (m.encounter_id, m.cycle, m.leg) == ("enc", 3, 1)
    assert m.totals == result.totals and m.rounds == result.rounds
    assert m.winner == result.winner and m.termination is Termination.NORMAL
    assert m.log_path == "/logs/m-2.jsonl" and not m.void
    assert m.versions == ("1", "1") and m.identities == ("sha256:aaa", "sha256:bbb")


def test_live_elo_history_and_void_matches(store: LadderStore) -> None:
    seeds = [e.seed for e in build_schedule("x", ["a", "b"], cycles=6)]
    for k, seed in enumerate(seeds):
        store.record_match("lad", fake_result(spec(f"m{k}", seed, flip=k % 2 == 1)), (A, B))
    void = fake_result(spec("void-1", 99), Termination.INTERNAL)
    rec = store.record_match("lad", void, (A, B))
    assert rec.applied
    history = store.elo_history("lad")
    assert len(history) == 2 * len(seeds)  # the void match adds no rating rows
    assert all(mid != "void-1" for mid, *_ in history)
    elo = store.live_elo("lad")
    assert sum(elo.values()) == pytest.approx(3000)
    assert elo == rec.elo
    assert [m.void for m in store.matches("lad")][-1] is True


def test_tables_are_append_only(store: LadderStore) -> None:
    store.record_match("lad", fake_result(spec("m-1", 1)), (A, B))
    store.record_void_attempt("lad", given_up(spec("m-2", 2), "killed"))
    statements = ["UPDATE matches SET winner = 1", "DELETE FROM matches", "DELETE FROM ratings",
                  "UPDATE bots SET name = 'x'", "UPDATE ratings SET rating = 0",
                  "UPDATE void_attempts SET detail = 'x'", "DELETE FROM void_attempts"]
    if store.is_postgresql:
        statements += ["TRUNCATE ratings", "TRUNCATE matches, ratings", "TRUNCATE bots CASCADE",
                       "TRUNCATE void_attempts"]
    for statement in statements:
        with pytest.raises(Exception, match="append-only"), store.engine.begin() as conn:
            conn.execute(text(statement))
    assert len(store.matches("lad")) == 1
    assert [a.detail for a in store.void_attempts("lad")] == ["killed"]
    assert len(store.elo_history("lad")) == 2 and len(store.bot_rows()) == 2
    assert store.matches("lad")[0].winner == fake_result(spec("m-1", 1)).winner


def test_a_void_attempt_is_listed_never_rated_and_played_again(store: LadderStore) -> None:
    store.record_match("lad", fake_result(spec("m-1", 1)), (A, B))
    before = store.elo_history("lad")
    lost = given_up(spec("m-2", 22, flip=True), "the match killed the workers that played it")
    store.record_void_attempt("lad", lost, encounter_id="e1", cycle=1, leg=1, started_at=5.0)
    store.record_void_attempt("lad", lost, encounter_id="e1", cycle=1, leg=1)  # given up again
    store.record_void_attempt("other", given_up(spec("m-3", 3), "elsewhere"))
    first, second = store.void_attempts("lad")
    assert (first.match_id, first.encounter_id, first.cycle, first.leg) == ("m-2", "e1", 1, 1)
    assert first.seed == 22 and first.bots == ("beta", "alpha") and first.game == "lost-cities"
    assert first.termination is Termination.CANCELLED and "killed the workers" in first.detail
    assert first.started_at == 5.0 and second.started_at is None
    assert first.finished_at <= second.finished_at
    # not a recorded match: the next run plays it; never rated: no rating row, no bot row
    assert store.recorded_ids("lad") == {"m-1"}
    assert [m.match_id for m in store.matches("lad")] == ["m-1"]
    assert store.elo_history("lad") == before and len(store.bot_rows()) == 2
    # once played to the end it is recorded and rated like any match
    assert store.record_match("lad", fake_result(spec("m-2", 22, flip=True)), (B, A)).applied
    assert store.recorded_ids("lad") == {"m-1", "m-2"} and len(store.elo_history("lad")) == 4
    assert len(store.void_attempts("lad")) == 2


def test_only_a_void_result_is_a_void_attempt(store: LadderStore) -> None:
    with pytest.raises(ValueError, match="m-1 is not void .*record_match"):
        store.record_void_attempt("lad", fake_result(spec("m-1", 1)))
    assert store.void_attempts("lad") == []


def test_a_store_made_before_void_attempts_gets_the_table(store_url: str) -> None:
    with LadderStore(store_url) as db:
        db.record_match("lad", fake_result(spec("m-1", 1)), (A, B))
        with db.engine.begin() as conn:  # as the store was before the table existed
            conn.execute(text("DROP TABLE void_attempts"))
    with LadderStore(store_url) as db:
        db.record_void_attempt("lad", given_up(spec("m-2", 2), "killed"))
        assert [a.match_id for a in db.void_attempts("lad")] == ["m-2"]
        assert db.recorded_ids("lad") == {"m-1"}
        with pytest.raises(Exception, match="append-only"), db.engine.begin() as conn:
            conn.execute(text("DELETE FROM void_attempts"))


def run_together(store_url: str, count: int,
                 work: Callable[[LadderStore, int], Recorded]) -> list[Recorded]:
    """``work(store, i)`` in ``count`` threads released at once, each with its own store."""
    stores = [LadderStore(store_url) for _ in range(count)]
    barrier = threading.Barrier(count)
    out: dict[int, Recorded] = {}
    errors: list[BaseException] = []

    def thread(i: int) -> None:
        try:
            barrier.wait(timeout=30)
            out[i] = work(stores[i], i)
        except BaseException as exc:  # re-raised in the test's thread below
            errors.append(exc)

    threads = [threading.Thread(target=thread, args=(i,)) for i in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    for db in stores:
        db.close()
    assert not errors, errors
    assert len(out) == count
    return [out[i] for i in range(count)]


def test_concurrent_writers_apply_a_match_id_once(store: LadderStore, store_url: str) -> None:
    result = fake_result(spec("m-race", 7))
    recs = run_together(store_url, 4, lambda db, _i: db.record_match("lad", result, (A, B)))
    assert sorted(r.applied for r in recs) == [False, False, False, True]
    assert all(r.elo == recs[0].elo for r in recs)
    assert store.recorded_ids("lad") == {"m-race"}
    assert len(store.elo_history("lad")) == 2 and len(store.bot_rows()) == 2


def test_concurrent_writers_lose_no_elo_update(store: LadderStore, store_url: str) -> None:
    """Writers of different matches between the same bots are serialized: every rating row
    follows from the previous one (a lost update would break the chain)."""
    rounds = 3

    def work(db: LadderStore, i: int) -> Recorded:
        rec = Recorded(False, {})
        for r in range(rounds):
            rec = db.record_match("lad", fake_result(spec(f"m{i}-{r}", 100 * i + r)), (A, B))
        return rec

    store.record_match("lad", fake_result(spec("first", 1)), (A, B))  # the bots exist
    recs = run_together(store_url, 4, work)
    assert all(r.applied for r in recs)
    matches = store.matches("lad")
    assert len(matches) == 1 + 4 * rounds
    elo = {"alpha": 1500.0, "beta": 1500.0}
    expected = []
    for m in matches:
        elo["alpha"], elo["beta"] = elo_update(elo["alpha"], elo["beta"], m.score0, 16.0)
        expected += [(m.match_id, "alpha", elo["alpha"]), (m.match_id, "beta", elo["beta"])]
    assert [(mid, bot, rating) for mid, bot, rating, _ in store.elo_history("lad")] == expected
    assert store.live_elo("lad") == elo


def test_sqlite_settings(tmp_path: Path) -> None:
    with LadderStore(f"sqlite:///{tmp_path / 'ladder.db'}") as store, \
            store.engine.connect() as conn:
        assert conn.execute(text("PRAGMA journal_mode")).scalar() == "wal"
        assert conn.execute(text("PRAGMA foreign_keys")).scalar() == 1


def test_bot_versions_are_recorded_once_per_identity(store: LadderStore, tmp_path: Path) -> None:
    store.record_match("lad", fake_result(spec("m-1", 1)), (A, B))
    store.record_match("lad", fake_result(spec("m-2", 2)), (A, B))
    new_a = BotSpec("alpha", "lost-cities", digest="sha256:new", version="2")
    store.record_match("lad", fake_result(spec("m-3", 3)), (new_a, B))
    rows = store.bot_rows()
    assert [(r["name"], r["identity"]) for r in rows] == [
        ("alpha", "sha256:aaa"), ("beta", "sha256:bbb"), ("alpha", "sha256:new")]


def test_reopening_keeps_everything(store_url: str) -> None:
    with LadderStore(store_url) as db:
        db.record_match("lad", fake_result(spec("m-1", 1)), (A, B))
    with LadderStore(store_url) as db:
        assert db.recorded_ids("lad") == {"m-1"}
        assert not db.record_match("lad", fake_result(spec("m-1", 1)), (A, B)).applied
        assert len(db.elo_history("lad")) == 2


def test_directory_hash_tracks_content(tmp_path: Path) -> None:
    (tmp_path / "bot.py").write_text("print(1)\n")
    first = directory_hash(tmp_path)
    (tmp_path / "__pycache__").mkdir()
    (tmp_path / "__pycache__" / "x.pyc").write_bytes(b"junk")
    assert directory_hash(tmp_path) == first
    (tmp_path / "bot.py").write_text("print(2)\n")
    assert directory_hash(tmp_path) != first


def test_a_reader_that_holds_some_matches_reads_only_the_new_ones(store: LadderStore) -> None:
    for n in range(5):
        store.record_match("lad", fake_result(spec(f"m-{n}", n)), (A, B))
        store.record_match("other", fake_result(spec(f"o-{n}", n)), (A, B))
    every = store.matches("lad")
    assert [m.match_id for m in store.matches("lad", skip=3)] == ["m-3", "m-4"]
    assert store.matches("lad", skip=3) == every[3:] and store.matches("lad", skip=5) == []


@pytest.mark.integration
def test_making_a_store_private_keeps_this_process_s_locks_on_it(tmp_path: Path) -> None:
    """Closing any descriptor of a file drops every POSIX lock the process holds on it (the
    locks SQLite keeps): making an open store private must never open it again. Before, the
    competition server's second connection to its store dropped the first one's locks, and
    another process read a half-written page ("database disk image is malformed")."""
    path = tmp_path / "state" / "ladder.db"
    private_sqlite_file(path)
    fd = os.open(path, os.O_RDWR)
    try:
        fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # as SQLite holds its write lock
        private_sqlite_file(path)
        probe = ("import fcntl, os, sys; fd = os.open(sys.argv[1], os.O_RDWR)\n"
                 "try: fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)\n"
                 "except OSError: print('held')\nelse: print('free')")
        out = subprocess.run([sys.executable, "-c", probe, str(path)], capture_output=True,
                             text=True, check=True).stdout.strip()
    finally:
        os.close(fd)
    assert out == "held"
    assert path.stat().st_mode & 0o777 == 0o600


@pytest.mark.integration
@pytest.mark.slow
def test_a_new_store_opened_while_another_process_holds_its_lock_waits(tmp_path: Path) -> None:
    """Another connection holds a new database's lock for longer than the SQLite driver's own
    5 s wait (an `arena ladder` reader opening the store as `arena run-ladder` creates it, on a
    loaded host): opening the store waits for it (its 30 s busy timeout), where it stopped
    with "database is locked" (a kill -9 test's `arena run-ladder` exited 2 so, once)."""
    import sqlite3

    path = tmp_path / "ladder.db"
    private_sqlite_file(path)
    holder = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    holder.execute("BEGIN EXCLUSIVE")
    release = threading.Timer(6.5, holder.execute, ("COMMIT",))
    release.start()
    try:
        with LadderStore(f"sqlite:///{path}") as db:
            assert db.recorded_ids("x") == set()
    finally:
        release.join()
        holder.close()
