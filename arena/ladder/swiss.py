"""Swiss: each round's pairings as a pure function of the recorded results before it. PURE.

SKELETON: the types below are the contract the runner, the reports and the views code against;
the functions are to be written (issue 20).

Every game of a Swiss is a duplicate encounter, so seats do not matter. A round's result for a
player is 1 (it scored more than half of the encounter's points), 1/2 (exactly half), 0. The
pairing of a round (Dutch-style, as FIDE's and lichess's Swiss): players sorted by score, then
by their rating-free order (the entrant order, the initial seed); within each score group the
top half meets the bottom half; a player who cannot be paired inside its group floats down to
the next; no two players meet twice; with an odd number of players the lowest-ranked player who
has not had one gets the bye, worth a win (at most one bye per player). Standings: score, then
Buchholz (the sum of the opponents' scores), then Sonneborn–Berger (the scores of the opponents
it beat, plus half of those it drew), then the initial order.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from arena.ladder.encounters import Leg


@dataclass(frozen=True)
class SwissRow:
    """One player's line of the standings."""

    rank: int
    player: str
    score: float
    buchholz: float
    sonneborn_berger: float
    byes: int
    opponents: tuple[str, ...]
    """Whom it met, round by round (the bye is not an opponent)."""


@dataclass(frozen=True)
class SwissRound:
    """One round's pairings."""

    index: int
    """0-based."""
    pairings: tuple[tuple[str, str], ...]
    """Who meets whom (the better-ranked player first)."""
    bye: str | None
    results: tuple[float | None, ...]
    """The first player's round result per pairing (1, 1/2, 0), None while unplayed."""


@dataclass(frozen=True)
class SwissState:
    """A Swiss now."""

    players: tuple[str, ...]
    """In their initial order (the tie-break of last resort)."""
    rounds_total: int
    rounds: tuple[SwissRound, ...]
    """The rounds paired so far: the finished ones and the one being played."""
    current: int
    """The round being played (== ``rounds_total`` when the Swiss is over)."""
    table: tuple[SwissRow, ...]
    """The standings after the finished rounds."""
    groups: tuple[tuple[float, tuple[str, ...]], ...]
    """The score groups before the current round, best first."""

    @property
    def finished(self) -> bool:
        return self.current >= self.rounds_total

    def to_play(self) -> tuple[tuple[str, str], ...]:
        """The current round's pairings whose encounter is not recorded yet."""
        raise NotImplementedError


def max_rounds(players: int) -> int:
    """The most rounds a Swiss of ``players`` can pair without a rematch: players - 1 (an odd
    field, whose byes also need distinct players: as many)."""
    return players - 1 if players % 2 == 0 else players


def encounter_id(prefix: str, round_: int, first: str, second: str) -> str:
    """The id of the round's encounter of two players (its legs: ``<id>-l0``/``-l1``)."""
    raise NotImplementedError


def swiss_state(prefix: str, players: Sequence[str], rounds_total: int,
                legs: Iterable[Leg]) -> SwissState:
    """The Swiss of ``players`` (initial order) over ``rounds_total`` rounds given every
    recorded leg of the ladder. Raises ``ValueError`` for fewer than two players, a repeated
    player, or more rounds than :func:`max_rounds` allows."""
    raise NotImplementedError
