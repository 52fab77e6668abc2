"""arena.host.names: one function says whether a contestant may submit under a name, one
claims it, in the transaction that enters the submission; two contestants' submissions racing
for a new name give it one owner, and the other a clear refusal, on a real SQLite file."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from arena.host.accounts import Accounts
from arena.host.errors import Refused
from arena.host.names import claim_name, name_refusal, taken
from arena.host.submissions import BUILT, ENTERED, UPLOADED, VALIDATED, SubmissionBook
from arena.ladder.store import LadderStore

pytestmark = pytest.mark.unit


def _validated(book: SubmissionBook, who: str, name: str) -> int:
    sid = book.open(who, "lost-cities", name, "directory", 100, "0" * 64)
    for stage in (UPLOADED, BUILT, VALIDATED):
        book.advance(sid, stage, version=f"s{sid}" if stage == BUILT else None)
    return sid


def test_two_contestants_racing_for_a_name_one_owns_it_the_other_is_refused(
        tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'competition.sqlite3'}"
    accounts = Accounts.open(url)
    book = SubmissionBook(LadderStore(url).engine)
    racers = ("alice", "bob")
    for who in racers:
        accounts.add(who)
    for round_ in range(10):
        name = f"Foxy-{round_}"
        sids = {who: _validated(book, who, name if who == "alice" else name.lower())
                for who in racers}
        start = threading.Barrier(len(racers))
        outcome: dict[str, str] = {}

        def enter(who: str, name: str = name, start: threading.Barrier = start,
                  sids: dict[str, int] = sids, outcome: dict[str, str] = outcome) -> None:
            start.wait()
            try:
                book.advance(sids[who], ENTERED, "entered", within=lambda conn: claim_name(
                    accounts, name if who == "alice" else name.lower(), who, conn))
                outcome[who] = ENTERED
            except Refused as refused:
                outcome[who] = refused.message

        threads = [threading.Thread(target=enter, args=(who,)) for who in racers]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(30)
        winners = [who for who in racers if outcome[who] == ENTERED]
        assert len(winners) == 1, outcome
        (loser,) = set(racers) - set(winners)
        assert accounts.owner(name) == winners[0]
        assert outcome[loser].startswith("the name ")
        assert "belongs to another contestant: choose another name" in outcome[loser]
        row = book.get(sids[loser])
        assert row is not None and row.stage == VALIDATED  # nothing entered, nothing claimed
        # and the next submission under the name is refused at its start, in the same words
        assert name_refusal(accounts, set(), name, loser) == taken(name)
        assert name_refusal(accounts, set(), name, winners[0]) is None


def test_a_house_name_or_a_non_name_is_refused(tmp_path: Path) -> None:
    accounts = Accounts.open(f"sqlite:///{tmp_path / 'competition.sqlite3'}")
    accounts.add("alice")
    refusal = name_refusal(accounts, {"random"}, "Random", "alice")
    assert refusal is not None and "belongs to another contestant" in refusal
    assert "house bot" in refusal
    with accounts.engine.begin() as conn, pytest.raises(Refused, match="bot name"):
        claim_name(accounts, "not a name!", "alice", conn)
    assert accounts.bots_of("alice") == ()
