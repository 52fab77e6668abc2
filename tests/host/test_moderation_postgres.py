"""The audit log and the scrimmages' book on PostgreSQL (the competition's database may be one):
the log is append-only there too (UPDATE, DELETE and TRUNCATE refused), the store's tables keep
their triggers, and the quota holds. A fresh schema per test (``postgres_url``)."""

from __future__ import annotations

import pytest
from sqlalchemy import text
from sqlalchemy.exc import SQLAlchemyError

from arena.host.audit import DISQUALIFY, VOID, AuditLog
from arena.host.config import Scrimmages
from arena.host.errors import QuotaExceeded
from arena.host.scrimmages import ScrimmageBook
from arena.ladder.store import LadderStore

pytestmark = pytest.mark.integration


def test_the_audit_log_is_append_only_on_postgresql(postgres_url: str) -> None:
    store = LadderStore(postgres_url)
    try:
        audit = AuditLog(store.engine)
        AuditLog(store.engine)  # opened again: its triggers are not made twice
        with audit.writing() as conn:
            audit.append(conn, DISQUALIFY, "alice", "shared code", {"bots": ["fox"]})
            audit.append(conn, VOID, "m-1", "power cut", {"ladder": "t-lost-cities"})
        moderation = audit.moderation()
        assert moderation.out(["fox@s3"]) == "alice" and "m-1" in moderation.voided
        for sql in ("UPDATE competition_audit SET why = 'x'", "DELETE FROM competition_audit",
                    "TRUNCATE competition_audit"):
            with pytest.raises(SQLAlchemyError, match="append-only"), \
                    store.engine.begin() as conn:
                conn.execute(text(sql))
        assert [e.seq for e in audit.entries()] == [1, 2]
        with store.engine.connect() as conn:
            triggers = conn.execute(text(
                "SELECT count(*) FROM pg_trigger WHERE NOT tgisinternal AND tgrelid = "
                "'competition_audit'::regclass")).scalar()
        assert triggers == 2
    finally:
        store.close()


def test_the_scrimmage_quota_holds_on_postgresql(postgres_url: str) -> None:
    store = LadderStore(postgres_url)
    try:
        book = ScrimmageBook(store.engine)
        quota = Scrimmages(per_hour=2, outstanding=1)
        book.open("alice", "lost-cities", "fox", "", "random", quota, now=1000.0)
        with pytest.raises(QuotaExceeded, match="against random wait to be played"):
            book.open("alice", "lost-cities", "fox", "", "random", quota, now=1001.0)
        book.open("alice", "lost-cities", "fox", "s3", "greedy", quota, now=1002.0)
        with pytest.raises(QuotaExceeded, match="the next is possible at"):
            book.open("alice", "lost-cities", "fox", "", "strong", quota, now=1003.0)
        assert [(s.bot, s.version, s.rival) for s in book.waiting()] == [
            ("fox", "", "random"), ("fox", "s3", "greedy")]
    finally:
        store.close()
