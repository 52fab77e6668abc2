"""The operator's moderation actions (``arena contestants disqualify``, ``arena host void``,
``arena host rerun``): each checks what it acts on and appends its entry to the audit log
(``arena.host.audit``) in one transaction, in the competition's database, also while the
server runs (it applies the entry within a second). Every refusal is one ``ConfigError`` line
saying what to do."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import Connection, select

from arena.bots.names import name_key, shown
from arena.errors import ConfigError
from arena.host.accounts import Accounts
from arena.host.audit import (
    DISQUALIFY,
    RERUN,
    RERUN_SUFFIX,
    RERUNS,
    SCRIMMAGES,
    VOID,
    AuditLog,
    Entry,
    check_why,
    extra_ladder,
)
from arena.host.config import Competition
from arena.ladder.store import matches_t


@dataclass(frozen=True)
class Recorded:
    """A recorded match of the competition, as moderation sees it."""

    match_id: str
    ladder: str
    """The store's ladder: a game's ladder, its reruns' or its scrimmages'."""
    kind: str
    """"ladder", "rerun" or "scrimmage"."""
    void: bool
    bots: tuple[str, str]


class Moderator:
    """The operator's actions on one competition's database."""

    def __init__(self, competition: Competition) -> None:
        self.competition = competition
        self.accounts = Accounts.open(competition.database)
        self.audit = AuditLog(self.accounts.engine)

    def close(self) -> None:
        self.accounts.close()

    def disqualify(self, name: str, why: str | None) -> Entry:
        """Disqualify a contestant: its bots leave the ladders and the final, its matches
        leave the standings (kept in the record, marked)."""
        text = check_why(why, "disqualification")
        who = self.accounts.contestant(name)
        bots = self.accounts.bots_of(who)
        with self.audit.writing() as conn:
            found = self.audit.moderation(conn).disqualified.get(name_key(who))
            if found is not None:
                raise ConfigError(f"{who} is disqualified already (audit entry {found.seq}: "
                                  f"{found.why})")
            return self.audit.append(conn, DISQUALIFY, who, text, {"bots": list(bots)})

    def void(self, match_id: str, why: str | None) -> Entry:
        """Void a recorded match of a ladder (or a rerun): it leaves the standings."""
        text = check_why(why, "void")
        with self.audit.writing() as conn:
            match = self._match(conn, match_id)
            if match.kind == "scrimmage":
                raise ConfigError(f"match {match_id} is a scrimmage: never rated, there is "
                                  "nothing to void")
            moderation = self.audit.moderation(conn)
            found = moderation.voided.get(match_id)
            if found is not None:
                raise ConfigError(f"match {match_id} is voided already (audit entry "
                                  f"{found.seq}: {found.why})")
            if match.void:
                raise ConfigError(f"match {match_id} is void in the record already: `arena "
                                  f"host rerun {match_id}` plays it again")
            return self.audit.append(conn, VOID, match_id, text, {"ladder": match.ladder})

    def rerun(self, match_id: str, why: str | None) -> Entry:
        """Play a void ladder match again (same bots and seats, same deal seed) as
        ``<match>-rerun<n>``: once recorded, it stands where the void match stood."""
        text = " ".join((why or "").split())[:500]
        with self.audit.writing() as conn:
            match = self._match(conn, match_id)
            if match.kind != "ladder":
                original = match_id.rsplit(RERUN_SUFFIX, 1)[0]
                raise ConfigError(f"match {match_id} is a {match.kind}: rerun a ladder's match "
                                  f"(`arena host rerun {original}` after voiding this one)"
                                  if match.kind == "rerun" else
                                  f"match {match_id} is a scrimmage: only ladder matches are "
                                  "rerun")
            moderation = self.audit.moderation(conn)
            if not (match.void or match_id in moderation.voided):
                raise ConfigError(f"match {match_id} stands in the standings: void it first "
                                  f"(`arena host void {match_id} --why ...`)")
            who = moderation.out(match.bots)
            if who is not None:
                raise ConfigError(f"match {match_id} was played by a bot of {who}, who is "
                                  "disqualified: it is not played again")
            earlier = moderation.reruns.get(match_id, ())
            if earlier:
                latest = earlier[-1]
                row = conn.execute(select(matches_t.c.void)
                                   .where(matches_t.c.match_id == latest)).first()
                if latest not in moderation.voided and (row is None or not row.void):
                    state = "waiting to be played" if row is None else "recorded"
                    raise ConfigError(f"match {match_id} is rerun already as {latest} "
                                      f"({state}): void that one to play it once more")
            rerun = f"{match_id}{RERUN_SUFFIX}{len(earlier) + 1}"
            return self.audit.append(conn, RERUN, match_id, text,
                                     {"ladder": match.ladder, "rerun": rerun})

    def _match(self, conn: Connection, match_id: str) -> Recorded:
        """A recorded match of this competition; ``ConfigError`` when there is none."""
        kinds = {}
        for game in self.competition.games:
            ladder = self.competition.ladder_name(game.game)
            kinds[ladder] = "ladder"
            kinds[extra_ladder(ladder, RERUNS)] = "rerun"
            kinds[extra_ladder(ladder, SCRIMMAGES)] = "scrimmage"
        row = conn.execute(select(matches_t.c.ladder, matches_t.c.void, matches_t.c.bot0,
                                  matches_t.c.bot1)
                           .where(matches_t.c.match_id == match_id)).first()
        if row is None or row.ladder not in kinds:
            raise ConfigError(f"no recorded match {shown(match_id)} in the competition "
                              f"{self.competition.name} (`arena matches --server ...` lists "
                              "them)")
        return Recorded(match_id, str(row.ladder), kinds[row.ladder], bool(row.void),
                        (str(row.bot0), str(row.bot1)))
