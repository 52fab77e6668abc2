"""The store: idempotent match ids, append-only tables, live Elo history, SQLite settings."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import text

from arena.ladder.schedule import build_schedule
from arena.ladder.store import LadderStore, directory_hash
from arena.model import BotSpec, MatchSpec, Termination
from tests.ladder.fakes import fake_result

A = BotSpec("alpha", "lost-cities", digest="sha256:aaa", version="1")
B = BotSpec("beta", "lost-cities", digest="sha256:bbb", version="1")


def spec(match_id: str, seed: int, flip: bool = False) -> MatchSpec:
    return MatchSpec("lost-cities", seed, (B, A) if flip else (A, B), match_id=match_id)


@pytest.fixture()
def store(tmp_path: Path) -> Iterator[LadderStore]:
    db = LadderStore(f"sqlite:///{tmp_path / 'state' / 'ladder.db'}")
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
    for statement in ("UPDATE matches SET winner = 1", "DELETE FROM matches",
                      "DELETE FROM ratings", "UPDATE bots SET name = 'x'"):
        with pytest.raises(Exception, match="append-only"), store.engine.begin() as conn:
            conn.execute(text(statement))
    assert len(store.matches("lad")) == 1


def test_sqlite_settings(store: LadderStore) -> None:
    with store.engine.connect() as conn:
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


def test_reopening_keeps_everything(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'db.sqlite'}"
    with LadderStore(url) as db:
        db.record_match("lad", fake_result(spec("m-1", 1)), (A, B))
    with LadderStore(url) as db:
        assert db.recorded_ids("lad") == {"m-1"}
        assert not db.record_match("lad", fake_result(spec("m-1", 1)), (A, B)).applied


def test_directory_hash_tracks_content(tmp_path: Path) -> None:
    (tmp_path / "bot.py").write_text("print(1)\n")
    first = directory_hash(tmp_path)
    (tmp_path / "__pycache__").mkdir()
    (tmp_path / "__pycache__" / "x.pyc").write_bytes(b"junk")
    assert directory_hash(tmp_path) == first
    (tmp_path / "bot.py").write_text("print(2)\n")
    assert directory_hash(tmp_path) != first
