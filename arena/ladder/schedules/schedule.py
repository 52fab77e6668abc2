"""The ladder schedule: encounters of duplicate-deal matches with deterministic ids and seeds. PURE.

An *encounter* is the unit of scheduling and of paired statistics: two matches between the same
two bots with the same deal seed and the seats swapped (duplicate deals), or a single match when
duplicates are off (then the seats alternate from cycle to cycle).

Match ids are derived from (ladder name, cycle, pairing, leg), where the pairing is identified by
the two entrants' references (not by their position in the list), so adding an entrant does not
rename the matches already played. Ids are what make results idempotent: a runner that finds an
id in the store skips it, and a crashed run replays exactly the missing matches with the same
seeds.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass

ROUND_ROBIN = "round-robin"
GAUNTLET = "gauntlet"
CONTINUOUS = "continuous"
"""Runs until stopped, picking up new versions and entrants (``arena.ladder.schedules.pairing``)."""
ADAPTIVE = "adaptive"
"""Information-driven pairing within a budget of encounters, until the order is known."""
KNOCKOUT = "knockout"
"""Single elimination (``arena.ladder.schedules.knockout``)."""
SWISS = "swiss"
"""N rounds of Dutch-style Swiss pairings (``arena.ladder.schedules.swiss``)."""
SCHEDULE_KINDS = (ROUND_ROBIN, GAUNTLET, CONTINUOUS, ADAPTIVE, KNOCKOUT, SWISS)
FIXED_KINDS = (ROUND_ROBIN, GAUNTLET)
"""The kinds whose whole schedule is known in advance (``build_schedule``)."""


@dataclass(frozen=True)
class ScheduledMatch:
    """One match of the schedule."""

    match_id: str
    encounter_id: str
    cycle: int
    """0-based cycle."""
    leg: int
    """0 or 1 within the encounter."""
    seed: int
    """The deal seed (shared by both legs of a duplicate encounter)."""
    seats: tuple[int, int]
    """Entrant indexes in seat 0 and seat 1."""
    ladder: str = ""
    """The ladder its result is recorded under ("": the run's own). A program that hands a
    run matches of its own besides the schedule's (the competition server's scrimmages and
    reruns) records them apart, so the schedule and the ladder's ratings never see them."""


@dataclass(frozen=True)
class Encounter:
    """A pair of entrants meeting once in a cycle: one or two matches (duplicate deals)."""

    encounter_id: str
    cycle: int
    pairing: tuple[int, int]
    """Entrant indexes (the first sits in seat 0 in leg 0)."""
    seed: int
    matches: tuple[ScheduledMatch, ...]


def slug(text: str) -> str:
    """A lower-case id fragment: letters, digits and dashes."""
    out = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    return out or "x"


def _digest(*parts: str) -> bytes:
    return hashlib.sha256("\x1f".join(parts).encode()).digest()


def pairing_key(ref_a: str, ref_b: str) -> str:
    """A short stable id of an unordered pair of entrant references."""
    first, second = sorted((ref_a, ref_b))
    return _digest("pair", first, second).hex()[:10]


def encounter_seed(ladder: str, seed: int, cycle: int, key: str, secret: str = "") -> int:
    """The deal seed of an encounter: 63 bits from (secret, ladder seed, name, cycle, pairing).

    Bots see match ids (which name the ladder, cycle and pairing) and may read the ladder file;
    the ``secret`` (random, kept in the ladder's state directory) is what stops them from
    recomputing the deals."""
    parts = ("seed", secret, str(seed), ladder, str(cycle), key)
    return int.from_bytes(_digest(*parts)[:8], "big") >> 1


def pairings(n: int, kind: str = ROUND_ROBIN, challenger: int | None = None
             ) -> list[tuple[int, int]]:
    """The pairings of one cycle (entrant indexes), spread so that no bot waits long.

    Round robin uses the circle method (every bot plays once per round where possible);
    gauntlet pairs the challenger with every other entrant. Raises ``ValueError``."""
    if kind == GAUNTLET:
        if challenger is None or not 0 <= challenger < n:
            raise ValueError("a gauntlet needs a challenger among the entrants")
        return [(challenger, k) for k in range(n) if k != challenger]
    if kind != ROUND_ROBIN:
        raise ValueError(f"unknown schedule {kind!r}; known: {', '.join(SCHEDULE_KINDS)}")
    players: list[int | None] = list(range(n))
    if n % 2:
        players.append(None)
    m = len(players)
    result: list[tuple[int, int]] = []
    for rnd in range(m - 1):
        for k in range(m // 2):
            a, b = players[k], players[m - 1 - k]
            if a is not None and b is not None:
                # alternate who gets seat 0 in leg 0 so it is balanced across rounds
                result.append((a, b) if (rnd + k) % 2 == 0 else (b, a))
        players = [players[0], players[-1], *players[1:-1]]
    return result


def build_schedule(
    ladder: str,
    entrants: Sequence[str],
    *,
    cycles: int,
    kind: str = ROUND_ROBIN,
    challenger: int | None = None,
    duplicate: bool = True,
    seed: int = 0,
    secret: str = "",
) -> tuple[Encounter, ...]:
    """Every encounter of ``cycles`` cycles, in playing order (cycle by cycle).

    ``entrants`` are the entrants' references (directories or bot names) as written in the
    ladder file; they name the pairings. Raises ``ValueError`` on duplicate entrants, fewer than
    two entrants, or a bad schedule kind."""
    if len(set(entrants)) != len(entrants):
        raise ValueError("the same entrant is listed twice")
    if len(entrants) < 2:
        raise ValueError("a ladder needs at least two entrants")
    prefix = slug(ladder)
    result: list[Encounter] = []
    cycle_pairings = pairings(len(entrants), kind, challenger)
    for cycle in range(cycles):
        for a, b in cycle_pairings:
            key = pairing_key(entrants[a], entrants[b])
            if not duplicate and cycle % 2:
                a, b = b, a
            enc_id = f"{prefix}-c{cycle:04d}-{key}"
            deal = encounter_seed(ladder, seed, cycle, key, secret)
            seat_orders = [(a, b), (b, a)] if duplicate else [(a, b)]
            matches = tuple(
                ScheduledMatch(f"{enc_id}-l{leg}", enc_id, cycle, leg, deal, seats)
                for leg, seats in enumerate(seat_orders)
            )
            result.append(Encounter(enc_id, cycle, (a, b), deal, matches))
    return tuple(result)
