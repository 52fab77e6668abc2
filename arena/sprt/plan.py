"""The pairs of an SPRT test: their match ids and deal seeds.

An SPRT test (``arena sprt``) plays pair after pair of the candidate (entrant 0) against the
baseline (entrant 1). Pair k is two legs with the same deal seed, the candidate in seat 0 in leg
0 and in seat 1 in leg 1. Its matches go in the ladder store like a ladder's encounters: the
pair is the encounter (``<test>-p00007``), its index the cycle, its legs the legs. Which of
them count is ``arena.stats.sprt_pairs``.

* **Ids.** The first attempt at a leg is ``<test>-p00007-l0``. A void leg (the arena failed,
  or both bots faulted: nothing was learned) is played again with the same seed as
  ``<test>-p00007-l0-r1``, then ``-r2``...: every attempt is recorded and its log kept, and the
  next attempt's number is the number of void ones before it (the void attempts the cluster
  gave up on, kept apart from the recorded matches, count too), so a resumed test names it the
  same way.
* **Seeds.** As a ladder's (``encounter_seed``): from the test's name, the pair index and the
  secret salt in the test's state directory; fresh for every pair, the same when resumed.
"""

from __future__ import annotations

from dataclasses import dataclass

from arena.ladder.schedules.schedule import ScheduledMatch, encounter_seed, pairing_key, slug


@dataclass(frozen=True)
class PairPlan:
    """How the pairs of one test are named and dealt."""

    test: str
    """The test's name (the ladder's)."""
    seed: int
    """The ladder's seed."""
    secret: str
    """The test's secret salt for deal seeds (``ladder_secret``)."""
    pairing: str
    """``pairing_key`` of the candidate's and the baseline's references."""

    @classmethod
    def of(cls, test: str, entrants: tuple[str, str], *, seed: int = 0,
           secret: str = "") -> PairPlan:
        """The plan of the test ``test`` between ``entrants`` (candidate, baseline refs)."""
        return cls(test, seed, secret, pairing_key(*entrants))

    def encounter_id(self, pair: int) -> str:
        """The pair's encounter id, ``<test>-p00007``."""
        return f"{slug(self.test)}-p{pair:05d}"

    def leg(self, pair: int, leg: int, attempt: int = 0) -> ScheduledMatch:
        """Attempt ``attempt`` (0: the first) at leg ``leg`` of pair ``pair``."""
        encounter = self.encounter_id(pair)
        match_id = f"{encounter}-l{leg}" + (f"-r{attempt}" if attempt else "")
        deal = encounter_seed(self.test, self.seed, pair, self.pairing, self.secret)
        seats = (0, 1) if leg == 0 else (1, 0)
        return ScheduledMatch(match_id, encounter, pair, leg, deal, seats)
