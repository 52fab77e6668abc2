"""The counting of an SPRT test's pairs: which recorded legs count, in which pentanomial cell,
and the LLR path. PURE.

An SPRT test (``arena sprt``) plays pair after pair of the candidate (entrant 0) against the
baseline (entrant 1): pair k is two legs with the same deal, the candidate in seat 0 in leg 0 and
in seat 1 in leg 1 (their ids and seeds: ``arena.sprt.plan``).

* **Counting.** A pair counts once both legs have a result that is not void, in the cell
  ``pair_cell(candidate's score in leg 0, in leg 1)``; a lone leg never counts. A void leg (the
  arena failed, or both bots faulted: nothing was learned) is played again, and the number of
  void attempts at a leg names the next attempt. A forfeit is a result (a loss for the bot at
  fault), as in chess. Which results are recorded decides the counts, not the order they
  arrived in.
* **The LLR path.** The order decides the path: ``llr_path`` replays the recorded legs through
  the same book, in recording order, and gives the LLR after each pair that completed.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Protocol

from arena.stats.sprt import Pentanomial, SprtParams, llr, pair_cell

LEGS = (0, 1)
"""The legs of a pair: the candidate sits in seat ``leg``."""

LegKey = tuple[int, int]
"""(pair index, leg)."""


class RecordedLeg(Protocol):
    """What the book reads of a recorded match (``arena.ladder.store.StoredMatch`` has it)."""

    @property
    def cycle(self) -> int:
        """The pair index."""

    @property
    def leg(self) -> int:
        """The leg."""

    @property
    def winner(self) -> int | None:
        """The winning seat (None: equal totals, or void)."""

    @property
    def void(self) -> bool:
        """Nothing learned: played again."""


def candidate_score(leg: int, winner: int | None) -> float:
    """The candidate's score in a leg (it sits in seat ``leg``): 1, ½ (equal totals) or 0."""
    if winner is None:
        return 0.5
    return 1.0 if winner == leg else 0.0


@dataclass
class PairBook:
    """The recorded legs of a test and the pentanomial counts of its complete pairs."""

    scores: dict[LegKey, float] = field(default_factory=dict)
    """The candidate's score in every leg with a result that is not void (the first one)."""
    voids: dict[LegKey, int] = field(default_factory=dict)
    """Void attempts per leg."""
    counts: Pentanomial = Pentanomial()
    """The pentanomial counts of the complete pairs."""
    draw_pairs: int = 0
    """Complete pairs of two draws (they are in cell 2 with the pairs won once, lost once)."""

    @classmethod
    def of(cls, matches: Iterable[RecordedLeg], given_up: Iterable[LegKey] = ()) -> PairBook:
        """The book of a test's recorded matches (in recording order); ``given_up``: the legs of
        its void attempts (the store's ``void_attempts``, matches the cluster gave up on), each
        a void attempt as well, so the next attempt's id is a new one."""
        book = cls()
        for m in matches:
            book.add(m.cycle, m.leg, m.winner, void=m.void)
        for pair, leg in given_up:
            book.add(pair, leg, None, void=True)
        return book

    def add(self, pair: int, leg: int, winner: int | None, *, void: bool = False) -> int | None:
        """Count one recorded leg; the cell of the pair if this completed it, else None (a void
        leg, a lone leg, or a leg already recorded)."""
        key = (pair, leg)
        if void:
            self.voids[key] = self.voids.get(key, 0) + 1
            return None
        if key in self.scores:
            return None
        self.scores[key] = candidate_score(leg, winner)
        other = self.scores.get((pair, 1 - leg))
        if other is None:
            return None
        legs = (self.scores[(pair, 0)], self.scores[(pair, 1)])
        cell = pair_cell(*legs)
        self.counts = self.counts.add(cell)
        self.draw_pairs += legs == (0.5, 0.5)
        return cell

    def attempts(self, pair: int, leg: int) -> int:
        """The attempts at a leg so far that were void: the number of the next attempt."""
        return self.voids.get((pair, leg), 0)

    @property
    def pairs_started(self) -> int:
        """One past the highest pair index with a recorded attempt (0: none yet)."""
        keys = [*self.scores, *self.voids]
        return max((pair for pair, _ in keys), default=-1) + 1

    def missing_legs(self) -> list[LegKey]:
        """The legs still without a result of the pairs begun, in order. Pairs are begun in
        index order, so every pair below ``pairs_started`` was: a leg of one may have been void,
        or in flight when its run stopped."""
        return [(pair, leg) for pair in range(self.pairs_started) for leg in LEGS
                if (pair, leg) not in self.scores]


@dataclass(frozen=True)
class LlrStep:
    """One point of a test's LLR path: the test just after one more pair completed."""

    pair: int
    """The index of the pair that completed."""
    cell: int
    """Its pentanomial cell (0 … 4)."""
    counts: Pentanomial
    """The counts of the complete pairs, this one included."""
    llr: float
    """The LLR of those counts."""


def llr_path(matches: Iterable[RecordedLeg], params: SprtParams) -> list[LlrStep]:
    """The LLR after each complete pair, in the order the pairs completed: the recorded legs
    (in recording order) go through ``PairBook.add`` exactly as the run counts them, so a void
    leg waits for its replay, a lone leg never counts and a pair counts once its second leg
    lands, whichever leg that is. The last step's counts are ``PairBook.of(matches).counts``."""
    book = PairBook()
    steps: list[LlrStep] = []
    for m in matches:
        cell = book.add(m.cycle, m.leg, m.winner, void=m.void)
        if cell is not None:
            steps.append(LlrStep(m.cycle, cell, book.counts, llr(book.counts, params)))
    return steps
