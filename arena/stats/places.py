"""Places from ratings with 95% intervals: the final tournament's tie rule. PURE.

A rating is an estimate: two versions whose 95% intervals overlap are not told apart by the
matches played, and a table that ranks them 2nd and 3rd says more than the games do. The rule:

- version A is *surely ahead* of B when A's interval lies wholly above B's (A's low end above
  B's high end);
- a version's places run from 1 + the number of versions surely ahead of it to n - the number
  it is surely ahead of. A version whose interval overlaps another's shares places with it
  ("2-3"); one whose interval overlaps no other's has one place;
- the tie-break ``"none"`` reports exactly that; ``"rating"`` orders the versions by the rating
  estimate (then by name) and gives each one place, saying for every overlapping pair that the
  tie-break, not the matches, decided it.

The rows are always listed by the estimate (then by name), so the order of a table never depends
on the order of the input.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

NO_TIE_BREAK = "none"
BY_RATING = "rating"
TIE_BREAKS = (NO_TIE_BREAK, BY_RATING)


@dataclass(frozen=True)
class Rated:
    """A version's rating and the half-width of its 95% interval."""

    player: str
    rating: float
    ci95: float

    @property
    def low(self) -> float:
        return self.rating - self.ci95

    @property
    def high(self) -> float:
        return self.rating + self.ci95


@dataclass(frozen=True)
class Place:
    """One row of the final standings."""

    player: str
    rating: float
    ci95: float
    first: int
    """The best place it may hold (1-based)."""
    last: int
    """The worst place it may hold (``first`` when it has one place)."""
    tied_with: tuple[str, ...]
    """The versions whose intervals overlap its own, in the table's order."""
    decided_by: str = ""
    """``"rating"`` when the tie-break gave it its one place among overlapping versions; ""
    when the matches did (or it shares its places)."""

    @property
    def shown(self) -> str:
        """The place as the table shows it: ``3`` or ``2-4``."""
        return str(self.first) if self.first == self.last else f"{self.first}-{self.last}"

    def to_json(self) -> dict[str, object]:
        return {"player": self.player, "rating": self.rating, "ci95": self.ci95,
                "place": self.shown, "first": self.first, "last": self.last,
                "tied_with": list(self.tied_with), "decided_by": self.decided_by}


def overlap(a: Rated, b: Rated) -> bool:
    """Whether the two 95% intervals share a point."""
    return not (a.low > b.high or b.low > a.high)


def places(ratings: Sequence[Rated], tie_break: str = NO_TIE_BREAK) -> list[Place]:
    """The places of ``ratings`` under the tie rule (module doc). ``ValueError`` for an unknown
    tie-break or a player listed twice."""
    if tie_break not in TIE_BREAKS:
        raise ValueError(f"unknown tie-break {tie_break!r}; known: {', '.join(TIE_BREAKS)}")
    names = [r.player for r in ratings]
    if len(set(names)) != len(names):
        raise ValueError("a player is listed twice")
    ordered = sorted(ratings, key=lambda r: (-r.rating, r.player))
    n = len(ordered)
    rows: list[Place] = []
    for position, r in enumerate(ordered, start=1):
        ahead = sum(1 for o in ordered if o.low > r.high)
        behind = sum(1 for o in ordered if r.low > o.high)
        tied = tuple(o.player for o in ordered if o is not r and overlap(o, r))
        if tie_break == BY_RATING:
            rows.append(Place(r.player, r.rating, r.ci95, position, position, tied,
                              BY_RATING if tied else ""))
        else:
            rows.append(Place(r.player, r.rating, r.ci95, ahead + 1, n - behind, tied))
    return rows
