"""Information-driven pairing for adaptive and continuous ladders: which encounter teaches the
most about the ranking next, under fairness rules, and when the ranking is known. PURE.

SKELETON: the types below are the contract the runner, the reports, the views and the
simulation benchmark code against; the functions are to be written (issue 20).

The model is the ladder's: the Bradley–Terry fit of ``arena.ladder.rating`` over the players'
legs (each version of a bot is a player of its own in a continuous ladder). The choice, in this
order of priority:

1. **placement**: a player with placement encounters left plays first, against opponents spread
   over the standings (its k-th placement encounter meets the player at the k-th of
   ``placement`` evenly spaced ranks), new players in the order they arrived;
2. **fairness**: a current player that has not played in the last ``fairness_k`` encounters of
   the ladder plays now (the longest-waiting first), against its most informative opponent;
3. **information**: otherwise the pair whose order the model is least sure of, weighted by how
   little they have played: e.g. the expected information gain on the order of the pair, or the
   pair of neighbours whose 95% intervals overlap most, divided by (1 + encounters between them);
   never a pair that is in flight, and not the pair of the last encounter while others are open.

Deterministic: a pure function of its input (ties broken by the players' order), so a resumed
run picks what the crashed one would have picked from the same store. Each choice carries one
line saying why ("greedy@1 vs strong@2: intervals overlap 38%").
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from arena.ladder.encounters import Leg

DEFAULT_CONFIDENCE = 0.95
"""An adaptive ladder stops when every adjacent pair is ordered at least this surely."""
DEFAULT_PLACEMENT = 4
"""Placement encounters a new version plays before the information rule picks its games."""


@dataclass(frozen=True)
class PairingInput:
    """What the next choice depends on."""

    players: tuple[str, ...]
    """The current players (who may be paired), in their stable order (arrival)."""
    legs: tuple[Leg, ...]
    """Every recorded leg of the ladder (retired versions' too: they anchor the ratings)."""
    in_flight: tuple[tuple[str, str], ...] = ()
    """Pairs handed out whose encounter is not recorded yet (complete or not)."""
    placement: Mapping[str, int] = field(default_factory=dict)
    """Players with placement encounters still to play, and how many."""
    placement_total: int = DEFAULT_PLACEMENT
    """Placement encounters a new player plays in all."""
    fairness_k: int = 0
    """Every current player plays at least once every ``fairness_k`` encounters (0: twice the
    number of current players)."""
    prior: float = 1.0
    """The Bradley–Terry prior (the ladder's ``rating.prior``)."""


@dataclass(frozen=True)
class Choice:
    """The next encounter."""

    pair: tuple[str, str]
    """Who meets whom (``pair[0]`` sits in seat 0 of the first leg)."""
    reason: str
    """One line: why this pair ("placement 1/4: strong@3 vs greedy@1 (rank 2 of 3)",
    "fairness: random@1 has waited 7 encounters", "greedy@1 vs strong@2: intervals overlap
    38%")."""
    rule: str
    """"placement", "fairness" or "information"."""


@dataclass(frozen=True)
class Separation:
    """How surely the current players are ordered."""

    order: tuple[str, ...]
    """The current players by rating, best first."""
    adjacent: tuple[tuple[str, str, float], ...]
    """Each adjacent pair (better, worse) with the model's probability that their order is
    right (from the rating difference and its standard error)."""

    def separated(self, confidence: float = DEFAULT_CONFIDENCE) -> int:
        """How many adjacent pairs are ordered at least that surely."""
        return sum(1 for _, _, p in self.adjacent if p >= confidence)

    def all_separated(self, confidence: float = DEFAULT_CONFIDENCE) -> bool:
        return self.separated(confidence) == len(self.adjacent)


def choose(state: PairingInput) -> Choice | None:
    """The next encounter (see the module doc); None when fewer than two current players are
    free of encounters in flight (every pair is in flight, or there are not two players)."""
    raise NotImplementedError


def separation(players: Sequence[str], legs: Sequence[Leg], prior: float = 1.0) -> Separation:
    """How surely ``players`` are ordered by the fit over ``legs``."""
    raise NotImplementedError
