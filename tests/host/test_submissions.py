"""arena.host.submissions: the submission book (stages, events, the quota clock) over a real
SQLite file."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from arena.host.config import Quotas
from arena.host.errors import QuotaExceeded
from arena.host.submissions import (
    BUILT,
    CANCELLED,
    DETAIL_MAX,
    ENTERED,
    FAILED,
    RATED,
    RECEIVING,
    REFUSED,
    UPLOADED,
    VALIDATED,
    SubmissionBook,
)
from arena.ladder.store import LadderStore

pytestmark = pytest.mark.unit

DAY = 24 * 3600.0


def _book(path: Path) -> SubmissionBook:
    return SubmissionBook(LadderStore(f"sqlite:///{path / 'competition.sqlite3'}").engine)


def _open(book: SubmissionBook, who: str = "alice", name: str = "bot", **kw: object) -> int:
    return book.open(who, "lost-cities", name, "directory", 100, "0" * 64, **kw)  # type: ignore[arg-type]


def _enter(book: SubmissionBook, sid: int) -> None:
    for stage in (UPLOADED, BUILT, VALIDATED, ENTERED):
        book.advance(sid, stage, version=f"s{sid}" if stage == BUILT else None)


def test_a_submission_moves_through_its_stages_one_event_each(tmp_path: Path) -> None:
    book = _book(tmp_path)
    sid = _open(book, name="")
    row = book.get(sid)
    assert row is not None and (row.stage, row.counted, row.name, row.version) == (
        RECEIVING, True, "", "")
    book.advance(sid, UPLOADED, "uploaded 100 bytes", name="greedy2", size=100)
    book.advance(sid, BUILT, "built", version=f"s{sid}")
    event = book.advance(sid, VALIDATED, "validated", match_ids=(f"s{sid}-self",
                                                                   f"s{sid}-reference"))
    assert (event.stage, event.version, event.name, event.final) == (
        VALIDATED, f"s{sid}", "greedy2", False)
    book.advance(sid, ENTERED, "entered")
    book.advance(sid, RATED, "first rated match", match_ids=("spring-lost-cities-c1-0",))
    row = book.get(sid)
    assert row is not None and row.final and row.stage == RATED and row.counted
    assert row.match_ids == (f"s{sid}-self", f"s{sid}-reference", "spring-lost-cities-c1-0")
    events = book.events(sid)
    assert [e.stage for e in events] == [RECEIVING, UPLOADED, BUILT, VALIDATED, ENTERED, RATED]
    assert [e.seq for e in events] == sorted(e.seq for e in events)
    assert [e.stage for e in book.events(sid, after=events[2].seq)] == [VALIDATED, ENTERED,
                                                                         RATED]
    assert events[-1].final and all(e.name == "greedy2" for e in events)
    with pytest.raises(ValueError, match="has ended"):
        book.advance(sid, FAILED)


def test_a_submission_never_goes_back(tmp_path: Path) -> None:
    book = _book(tmp_path)
    sid = _open(book)
    book.advance(sid, BUILT)
    book.advance(sid, BUILT, "built again after a restart")  # staying is saying more
    with pytest.raises(ValueError, match="cannot go back"):
        book.advance(sid, UPLOADED)
    with pytest.raises(ValueError, match="no submission 999"):
        book.advance(999, UPLOADED)


def test_detail_is_plain_and_bounded(tmp_path: Path) -> None:
    """ATTACK: a bot's output tail with escape sequences, and megabytes of it, is recorded as
    bounded plain text."""
    book = _book(tmp_path)
    sid = _open(book)
    book.advance(sid, REFUSED, "\x1b]0;owned\x07refused", "\x1b[2J" + "y" * 100_000 + "END")
    row = book.get(sid)
    assert row is not None
    assert "\x1b" not in row.message and "\x07" not in row.message
    assert len(row.detail) <= DETAIL_MAX and row.detail.endswith("END")
    assert "\x1b" not in row.detail


def test_the_daily_quota_counts_refusals_but_not_the_servers_failures(tmp_path: Path) -> None:
    book = _book(tmp_path)
    quotas = Quotas(submissions_per_day=3)
    first, second, third = (_open(book, quotas=quotas) for _ in range(3))
    with pytest.raises(QuotaExceeded, match="3 submissions in the last 24 hours.*allows 3"):
        _open(book, quotas=quotas)
    assert book.used_today("alice") == 3
    book.advance(first, REFUSED, "crashed")  # the bot's fault: still counted
    assert book.quota_problem("alice", quotas) is not None
    book.advance(second, FAILED, "the Docker engine did not answer")  # the server's: not
    assert book.used_today("alice") == 2
    fourth = _open(book, quotas=quotas)
    book.advance(third, CANCELLED, "the upload stopped")
    fifth = _open(book, quotas=quotas)
    assert book.quota_problem("alice", quotas) is not None
    assert book.quota_problem("bob", quotas) is None  # one contestant's quota is theirs
    assert [r.id for r in book.list("alice")] == [fifth, fourth, third, second, first]
    assert [r.id for r in book.list("alice", limit=2)] == [fifth, fourth]
    assert not book.get(second).counted and book.get(first).counted  # type: ignore[union-attr]


def test_the_window_rolls_and_says_when_the_next_one_is_possible(tmp_path: Path) -> None:
    book = _book(tmp_path)
    quotas = Quotas(submissions_per_day=2)
    now = time.time()
    _open(book, now=now - DAY - 60)  # outside the window
    _open(book, now=now - DAY + 3 * 3600)  # leaves the window in 3 hours
    _open(book, now=now - 3600)
    problem = book.quota_problem("alice", quotas, now=now)
    assert problem is not None and "possible in 3 h 00 min" in problem
    assert book.quota_problem("alice", quotas, now=now + 3 * 3600 + 1) is None


def test_the_quota_clock_survives_a_restart(tmp_path: Path) -> None:
    """The quota is the database's: a restarted server (a new engine on the same file) counts
    the same submissions and refuses the same one."""
    quotas = Quotas(submissions_per_day=2)
    book = _book(tmp_path)
    _open(book, quotas=quotas)
    failed = _open(book, quotas=quotas)
    book.advance(failed, FAILED)
    _open(book, quotas=quotas)
    book.engine.dispose()
    again = _book(tmp_path)
    assert again.used_today("alice") == 2
    with pytest.raises(QuotaExceeded):
        _open(again, quotas=quotas)


def test_active_bots_refuse_a_new_name_not_a_new_version(tmp_path: Path) -> None:
    book = _book(tmp_path)
    quotas = Quotas(submissions_per_day=100, active_bots=2)
    for name in ("one", "Two"):
        _enter(book, _open(book, name=name))
    assert book.entered_names("alice") == ("Two", "one")
    with pytest.raises(QuotaExceeded, match="2 active bots.*allows 2.*'three'"):
        _open(book, name="three", quotas=quotas)
    _open(book, name="one", quotas=quotas)  # a new version of an active bot
    _open(book, name="two", quotas=quotas)  # names are compared ignoring case
    unnamed = _open(book, name="", quotas=quotas)  # bot.toml's name: checked once known
    assert book.active_problem("alice", quotas, "three") is not None
    assert book.active_problem("alice", quotas, "ONE") is None
    assert book.quota_problem("alice", quotas, name="x", owned_entered=()) is not None
    assert Quotas().active_bots == 3
    assert book.quota_problem("bob", Quotas(active_bots=1), name="b",
                              owned_entered=("assigned",)) is not None
    assert book.get(unnamed).stage == RECEIVING  # type: ignore[union-attr]
    assert [r.stage for r in book.unfinished()].count(ENTERED) == 2


def test_two_uploads_racing_for_the_last_place_get_one(tmp_path: Path) -> None:
    """ATTACK: a contestant opening many submissions at once to pass the daily quota (each
    check seeing the others not yet recorded) gets exactly the quota: the check and the
    insert are one transaction."""
    book = _book(tmp_path)
    quotas = Quotas(submissions_per_day=3)
    barrier = threading.Barrier(12)
    outcomes: list[str] = []

    def race() -> None:
        barrier.wait()
        try:
            _open(book, quotas=quotas)
            outcomes.append("opened")
        except QuotaExceeded:
            outcomes.append("refused")

    threads = [threading.Thread(target=race) for _ in range(12)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert sorted(outcomes) == ["opened"] * 3 + ["refused"] * 9
    assert book.used_today("alice") == 3
