"""Moderation and scrimmages without a server: the operator's commands through the CLI on a
real SQLite database (their checks, one line and exit 2 each refusal), the audit log
append-only, the standings of a disqualification equal to those of a ladder that never had the
bot, a rerun standing in its void match's place, the scrimmages' quota, and the extra matches
handed to the ladder's players without starving it."""

from __future__ import annotations

import asyncio
import collections
import sqlite3
from dataclasses import replace
from pathlib import Path

import pytest

from arena.errors import ConfigError
from arena.host.accounts import Accounts
from arena.host.audit import AuditLog, extra_ladder
from arena.host.config import Scrimmages, ladder_config, load_competition
from arena.host.errors import QuotaExceeded
from arena.host.extras import Extra, ExtraMatches, ExtraSource, Seat, share_window
from arena.host.moderation import Moderator
from arena.host.results import LadderResults
from arena.host.scrimmages import ScrimmageBook
from arena.ladder.reports import standings_of
from arena.ladder.schedules.schedule import ScheduledMatch
from arena.ladder.store import LadderStore
from arena.model import BotSpec
from arena.referee.service import Lineup
from tests.support.competition import make_server
from tests.support.moderation import moderated, operate, rows
from tests.support.versioned import EARLY, LATE, bot, record_encounters, result

pytestmark = pytest.mark.unit

@pytest.fixture
def competition(tmp_path: Path) -> Path:
    """A competition (alice and bob) whose ladder recorded twelve encounters of alpha (two
    versions), beta and gamma; alice owns beta."""
    server = make_server(tmp_path / "c", sandbox="process")
    c = load_competition(server.file)
    with LadderStore(c.database) as store:
        record_encounters(store, c.ladder_name("lost-cities"), [*EARLY, *LATE])
    Accounts.open(c.database).assign("beta", "alice")
    return server.file


def _standing(file: Path) -> LadderResults:
    """The ladder's results as the server fits them, by the audit log now."""
    c = load_competition(file)
    config = ladder_config(c, "lost-cities")
    store = LadderStore(c.database)
    reruns = LadderResults("lost-cities", config, store, kind="rerun",
                           ladder=extra_ladder(config.name, "reruns"))
    reruns.refresh()
    results = LadderResults("lost-cities", config, store, reruns=reruns)
    results.moderate(AuditLog(store.engine).moderation())
    results.refresh()
    return results


def test_a_disqualification_refits_the_standings_as_if_the_bot_never_played(
        competition: Path, tmp_path: Path) -> None:
    """The standings after `arena contestants disqualify alice` equal those of a ladder that
    never had beta, made from the same matches minus beta's; beta's matches stay recorded."""
    before = _standing(competition).snapshot.standings
    assert before is not None and "beta" in {r.name for r in before.rows}
    code, out = operate(competition, "contestants", "disqualify", "alice", "--why", "shared code")
    assert code == 0 and "disqualified alice (beta)" in out, out

    after = _standing(competition).snapshot
    assert after.standings is not None
    never = tmp_path / "never.sqlite3"
    with LadderStore(f"sqlite:///{never}") as store:
        kept = [(a, b) for a, b in [*EARLY, *LATE] if "beta" not in (a.name, b.name)]
        record_encounters(store, "t-lost-cities", kept)
        config = ladder_config(load_competition(competition), "lost-cities")
        alone = standings_of("t-lost-cities", store.matches("t-lost-cities"),
                             prior=config.rating.prior, versions=True)
    assert rows(after.standings) == rows(alone)
    assert "beta" not in {r.name for r in after.standings.rows}
    assert sum("beta" in m.bots for m in after.matches) == 16  # still in the record
    code, out = operate(competition, "contestants", "assign", "gamma", "alice")
    assert code == 2 and "alice is disqualified (shared code): a bot name given to it" in out
    listed = operate(competition, "contestants", "list")[1]
    assert "alice" in listed and "shared code" in listed, listed
    assert Accounts.open(load_competition(competition).database).disqualified() == {
        "alice": "shared code"}
    code, out = operate(competition, "contestants", "disqualify", "ALICE", "--why", "again")
    assert code == 2 and "alice is disqualified already (audit entry 1: shared code)" in out


def test_void_and_rerun_are_checked_and_logged(competition: Path) -> None:
    """Each refusal is one line with exit 2 saying what to do; each action is an entry."""
    c = load_competition(competition)
    with LadderStore(c.database) as store:
        match = store.matches(c.ladder_name("lost-cities"))[3].match_id
    assert operate(competition, "host", "void", "nope", "--why", "x")[1].startswith(
        "error: no recorded match 'nope' in the competition t")
    assert "say why (--why TEXT)" in operate(competition, "host", "void", match)[1]
    assert "void it first (`arena host void" in operate(competition, "host", "rerun", match)[1]
    code, out = operate(competition, "host", "void", match, "--why", "an outage")
    assert code == 0 and out.startswith(f"voided {match}; audit entry 1"), out
    code, out = operate(competition, "host", "void", match, "--why", "twice")
    assert code == 2 and "voided already (audit entry 1: an outage)" in out
    code, out = operate(competition, "host", "rerun", match)
    assert code == 0 and f"rerun {match} as {match}-rerun1; audit entry 2" in out, out
    code, out = operate(competition, "host", "rerun", match)
    assert code == 2 and f"rerun already as {match}-rerun1 (waiting to be played)" in out
    assert operate(competition, "host", "void", f"{match}-rerun1", "--why", "x")[0] == 2

    entries = AuditLog(LadderStore(c.database).engine).entries()
    assert [(e.seq, e.action, e.subject) for e in entries] == [
        (1, "void", match), (2, "rerun", match)]
    with sqlite3.connect(c.database.removeprefix("sqlite:///")) as db:  # append-only
        for sql in ("UPDATE competition_audit SET why = 'x'", "DELETE FROM competition_audit"):
            with pytest.raises(sqlite3.DatabaseError, match="append-only"):
                db.execute(sql)


def test_a_void_match_leaves_the_standings_and_its_rerun_takes_its_place(
        competition: Path) -> None:
    c = load_competition(competition)
    ladder = c.ladder_name("lost-cities")
    with LadderStore(c.database) as store:
        matches = store.matches(ladder)
    target = matches[0]
    Moderator(c).void(target.match_id, "outage")
    voided = _standing(competition)
    config = ladder_config(c, "lost-cities")
    expect = [replace(m, void=True) if m.match_id == target.match_id else m for m in matches]
    assert rows(voided.snapshot.standings) == rows(standings_of(
        ladder, expect, prior=config.rating.prior, versions=True))

    Moderator(c).rerun(target.match_id, "")
    seats = (bot(*target.bots[0].split("@")[:1], target.versions[0]),
             bot(*target.bots[1].split("@")[:1], target.versions[1]))
    rerun = result(f"{target.match_id}-rerun1", 999, seats)  # another outcome than the first
    with LadderStore(c.database) as store:
        store.record_match(extra_ladder(ladder, "reruns"), rerun, seats,
                           encounter_id=target.encounter_id, leg=target.leg)
        rerun_row = store.matches(extra_ladder(ladder, "reruns"))[0]
    instead = [replace(rerun_row, encounter_id=m.encounter_id, cycle=m.cycle, leg=m.leg)
               if m.match_id == target.match_id else m for m in matches]
    assert rows(_standing(competition).snapshot.standings) == rows(standings_of(
        ladder, instead, prior=config.rating.prior, versions=True))


def test_the_scrimmage_quota_says_when_the_next_is_possible(tmp_path: Path) -> None:
    book = ScrimmageBook(LadderStore(f"sqlite:///{tmp_path / 'db.sqlite3'}").engine)
    quota = Scrimmages(per_hour=3, outstanding=2)
    t0 = 1_800_000_000.0
    book.open("alice", "lost-cities", "fox", "", "random", quota, now=t0)
    book.open("alice", "lost-cities", "fox", "", "random", quota, now=t0 + 60)
    with pytest.raises(QuotaExceeded, match="2 of your scrimmages against random wait to be "
                                            "played \\(at most 2\\)"):
        book.open("alice", "lost-cities", "fox", "", "random", quota, now=t0 + 120)
    scrimmage, left = book.open("alice", "lost-cities", "fox", "", "greedy", quota,
                                now=t0 + 180)
    assert left == 0
    book.end(scrimmage.id, "played")
    with pytest.raises(QuotaExceeded) as refused:
        book.open("alice", "lost-cities", "fox", "", "greedy", quota, now=t0 + 600)
    assert "3 scrimmages an hour is the quota" in str(refused.value)
    assert "next is possible at 2027-01-15T09:00:00Z (in 50 min 0 s)" in str(refused.value)
    book.open("bob", "lost-cities", "owl", "", "greedy", quota, now=t0 + 600)  # bob's own
    book.open("alice", "lost-cities", "fox", "", "greedy", quota, now=t0 + 3601)
    assert [s.id for s in book.waiting()] == [1, 2, 4, 5]  # refusals recorded nothing


# --- extras on the ladder's players ------------------------------------------------------------
class _Ladder:
    """A schedule that always has a match to hand out (or none, when ``idle``)."""

    def __init__(self, bots: tuple[BotSpec, ...]) -> None:
        self.bots = bots
        self.handed = 0
        self.idle = asyncio.Event()
        self.settled_ids: list[str] = []

    def lineup(self) -> Lineup:
        return Lineup("lost-cities", self.bots, None)  # type: ignore[arg-type]

    def status(self) -> object:
        return None

    def stopped(self) -> str:
        return ""

    def exhausted(self) -> bool:
        return False

    async def next_match(self) -> ScheduledMatch | None:
        while self.idle.is_set():
            await asyncio.sleep(0.001)
        self.handed += 1
        return ScheduledMatch(f"ladder-{self.handed}", f"e{self.handed}", 0, 0, 1, (0, 1))

    def settled(self, match: ScheduledMatch, result: object) -> None:
        self.settled_ids.append(match.match_id)


def _extra(n: int) -> Extra:
    return Extra(f"x{n}-l0", f"x{n}", 0, 0, 5, (Seat("alpha", "1"), Seat("beta", "1")),
                 "t:scrimmages", "scrimmage", n)


def test_extras_never_take_more_than_their_share_of_a_busy_ladder() -> None:
    """Twelve extras waiting and a ladder that always has a match: of every window of 8 matches
    handed out (share 0.25) at most 2 are extras; once the ladder is idle (``idle_s``), extras
    go whatever the share;
    each is recorded under its own ladder, its seats resolved in the lineup."""
    bots = (bot("alpha", "1"), bot("beta", "1"), bot("alpha", "2"))
    ladder = _Ladder(bots)

    async def main() -> tuple[list[ScheduledMatch], list[ScheduledMatch]]:
        extras = ExtraMatches()
        source = ExtraSource(ladder, extras, 0.25, idle_s=0.05)  # type: ignore[arg-type]
        for n in range(12):
            extras.add(_extra(n))
        busy = [await source.next_match() for _ in range(40)]
        ladder.idle.set()
        idle = [await asyncio.wait_for(source.next_match(), 5) for _ in range(2)]
        for match in [*busy, *idle]:
            assert match is not None
            source.settled(match, None if match.ladder else result(match.match_id, 1, (
                bots[0], bots[1])))
        return busy, idle  # type: ignore[return-value]

    busy, idle = asyncio.run(main())
    assert share_window(0.25) == 8
    kinds = [bool(m.ladder) for m in busy]
    assert all(sum(kinds[i:i + 8]) <= 2 for i in range(len(kinds) - 7)), kinds
    assert sum(kinds) == 10 and kinds[:2] == [True, True]
    assert [m.match_id for m in idle] == ["x10-l0", "x11-l0"]  # an idle ladder: at once
    extra = next(m for m in busy if m.ladder)
    assert (extra.ladder, extra.seats, extra.seed) == ("t:scrimmages", (0, 1), 5)
    assert collections.Counter(m.ladder for m in busy) == {"": 30, "t:scrimmages": 10}


def test_an_extra_whose_player_is_not_in_the_ladder_is_dropped_and_said() -> None:
    dropped: list[tuple[str, str]] = []
    ladder = _Ladder((bot("alpha", "1"), bot("beta", "1")))

    async def main() -> ScheduledMatch | None:
        extras = ExtraMatches(lambda extra, why: dropped.append((extra.match_id, why)))
        source = ExtraSource(ladder, extras, 0.25)  # type: ignore[arg-type]
        extras.add(replace(_extra(1), seats=(Seat("alpha", "9"), Seat("beta", "1"))))
        return await source.next_match()

    first = asyncio.run(main())
    assert first is not None and not first.ladder  # the ladder's: the extra could not be
    assert dropped == [("x1-l0", "alpha@9 is not a player of the ladder (not entered, or "
                                 "withdrawn)")]


def test_scrimmages_can_be_turned_off_and_the_share_is_checked(tmp_path: Path) -> None:
    server = make_server(tmp_path / "c", sandbox="process")
    text = server.file.read_text()
    server.file.write_text(text + "\n[scrimmages]\nper_hour = 0\n")
    assert load_competition(server.file).scrimmages.per_hour == 0
    server.file.write_text(text + "\n[scrimmages]\nshare = 1.5\n")
    with pytest.raises(ConfigError, match="share.*must be above 0 and below 1, got 1.5"):
        load_competition(server.file)


def test_the_final_leaves_a_disqualified_contestants_bots_out(tmp_path: Path) -> None:
    """Its default entrants (what the ladder plays) skip them; naming one is refused, and
    nothing is begun."""
    from arena.host.final import Final, default_entrants
    from arena.ladder.runner import signing_of

    c = load_competition(moderated(tmp_path / "c").file)
    with LadderStore(c.database) as store:
        assert [Path(r).name for r in default_entrants(c, "lost-cities", store)] == [
            "random", "greedy", "strong"]
        Moderator(c).disqualify("alice", "shared code")
        refs = default_entrants(c, "lost-cities", store)
        assert [Path(r).name for r in refs] == ["random", "strong"]
        final = Final(c, "lost-cities", store, signing_of(None, c.state_dir))
        greedy = str(c.game("lost-cities").house_dirs[1])
        with pytest.raises(ConfigError, match=r"greedy\S* is a bot of alice, who is "
                                              r"disqualified: leave it out of the final"):
            final.begin([*refs, greedy])
        assert final.state() is None

