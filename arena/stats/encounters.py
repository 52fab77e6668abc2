"""Encounters as the schedule types read them: the legs of each recorded encounter folded into
one result per encounter. PURE (stdlib only).

A *leg* is one recorded match, named by its players' keys (a bot's name, or ``name@version``
where the ladder tells versions apart: ``arena.ladder.versions``). An encounter's result is
seen from ``players[0]``, the player in seat 0 of its first leg: its score over the legs that
count (a win 1, a draw 1/2) and its point margin. A void leg (the arena failed) counts for
nothing; an encounter whose every leg is void has ``legs == 0``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class Leg:
    """One recorded match of an encounter."""

    encounter_id: str
    leg: int
    """0 or 1 within the encounter."""
    players: tuple[str, str]
    """The player keys in seat 0 and seat 1."""
    winner: int | None
    """The winning seat; None: a draw (or a void match)."""
    totals: tuple[int, int]
    """Each seat's game points."""
    void: bool
    """The arena failed: the leg counts for nothing."""
    finished_at: float = 0.0
    """When it was recorded (seconds since the epoch)."""


@dataclass(frozen=True)
class EncounterResult:
    """An encounter (one or two legs with the same deal) seen from ``players[0]``."""

    encounter_id: str
    players: tuple[str, str]
    """``players[0]`` sat in seat 0 of the encounter's first leg."""
    legs: int
    """Legs recorded that count (not void)."""
    recorded: int
    """Legs recorded at all (void ones too)."""
    score: float
    """``players[0]``'s score over the legs that count: 1 per win, 1/2 per draw."""
    margin: int
    """``players[0]``'s game points minus ``players[1]``'s, over the legs that count."""
    finished_at: float
    """When its last leg was recorded."""

    @property
    def opponent_score(self) -> float:
        """``players[1]``'s score."""
        return self.legs - self.score

    def score_of(self, player: str) -> float:
        """``player``'s score in this encounter (``ValueError`` if it did not play)."""
        if player == self.players[0]:
            return self.score
        if player == self.players[1]:
            return self.opponent_score
        raise ValueError(f"{player!r} did not play {self.encounter_id}")

    def margin_of(self, player: str) -> int:
        """``player``'s point margin in this encounter."""
        return self.margin if player == self.players[0] else -self.margin


def fold(legs: Iterable[Leg]) -> list[EncounterResult]:
    """One result per encounter, in the order of their first recorded leg. The players are
    taken from the leg with the lowest ``leg`` number (seat 0 there is ``players[0]``)."""
    grouped: dict[str, list[Leg]] = {}
    for leg in legs:
        grouped.setdefault(leg.encounter_id, []).append(leg)
    results = []
    for encounter_id, group in grouped.items():
        first = min(group, key=lambda g: g.leg)
        me = first.players[0]
        score = 0.0
        margin = 0
        counted = 0
        for leg in group:
            if leg.void:
                continue
            counted += 1
            seat = 0 if leg.players[0] == me else 1
            score += 0.5 if leg.winner is None else float(leg.winner == seat)
            margin += leg.totals[seat] - leg.totals[1 - seat]
        results.append(EncounterResult(encounter_id, first.players, counted, len(group), score,
                                       margin, max(g.finished_at for g in group)))
    return results
