"""Knockout (single elimination): the bracket as a pure function of the seeds and the recorded
encounters. PURE (stdlib only).

SKELETON: the types below are the contract the runner, the reports and the views code against;
the functions are to be written (issue 20).

The bracket has ``2**ceil(log2(n))`` slots, seeded the usual way (seed 1 meets the lowest seed,
seeds 1 and 2 can meet only in the final); the missing seeds are byes, which go to the top
seeds. A *tie* is ``encounters_per_tie`` duplicate encounters between its two players; the
winner is the one with the higher total score over them, then the higher total point margin;
still level, the tie gets one more encounter at a time (at most ``MAX_EXTRA_ENCOUNTERS``, after
which the higher seed goes through, and ``decided_by`` says so). Encounter ids come from
:func:`encounter_id`, so a resumed run (or a report) rebuilds the same bracket from the store.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from arena.ladder.encounters import EncounterResult, Leg

MAX_EXTRA_ENCOUNTERS = 4
"""Extra encounters a level tie gets before the higher seed goes through."""


@dataclass(frozen=True)
class Tie:
    """One tie of the bracket."""

    round: int
    """0 for the first round; the final is the last."""
    slot: int
    """Its position in the round, top to bottom."""
    players: tuple[str | None, str | None]
    """The two players (the better seed first); None: a bye in round 0, or a player not known
    yet (the tie before it is undecided)."""
    seeds: tuple[int | None, int | None]
    """Their seeds (1 is the top seed)."""
    results: tuple[EncounterResult, ...]
    """Its recorded encounters, in order, each seen from ``players[0]``."""
    winner: str | None
    """None while undecided."""
    decided_by: str
    """"" while undecided; else how, in words: "bye", "score 1.5-0.5", "point margin +37
    after a level score", "seed (level after 5 encounters)"."""
    needed: int
    """How many encounters the tie has been given so far (``encounters_per_tie`` plus the
    extra ones a level tie added); 0 for a bye or a tie whose players are not known yet."""


@dataclass(frozen=True)
class Bracket:
    """The whole bracket now."""

    seeds: tuple[str, ...]
    """The players, best seed first."""
    encounters_per_tie: int
    rounds: tuple[tuple[Tie, ...], ...]
    """Every round, first to final."""
    champion: str | None
    """The winner of the final, once decided."""

    def to_play(self) -> tuple[tuple[Tie, int], ...]:
        """The encounters that can be played now: (tie, encounter index within the tie), for
        every tie whose two players are known, undecided, with fewer recorded encounters than
        it needs (in bracket order: round, then slot)."""
        raise NotImplementedError


def encounter_id(prefix: str, round_: int, slot: int, index: int) -> str:
    """The id of encounter ``index`` (0-based) of the tie at ``round_``/``slot``; its legs are
    ``<id>-l0``/``-l1``."""
    return f"{prefix}-k{round_:02d}-s{slot:03d}-e{index:02d}"


def bracket(prefix: str, seeds: Sequence[str], legs: Iterable[Leg],
            encounters_per_tie: int = 1) -> Bracket:
    """The bracket of ``seeds`` (best first, at least two) given every recorded leg of the
    ladder (legs of other encounter ids are ignored). Raises ``ValueError`` for fewer than two
    seeds, a repeated seed or ``encounters_per_tie`` < 1."""
    raise NotImplementedError
