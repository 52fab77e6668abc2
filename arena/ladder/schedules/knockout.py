"""Knockout (single elimination): the bracket as a pure function of the seeds and the recorded
encounters. PURE (stdlib only).

The bracket has ``2**ceil(log2(n))`` slots, seeded the usual way (seed 1 meets the lowest seed,
seeds 1 and 2 can meet only in the final: the positions of a bracket of 2m are those of m with
each seed s followed by 2m + 1 − s); the missing seeds are byes, which go to the top seeds. A
*tie* is ``encounters_per_tie`` duplicate encounters between its two players; the winner is the
one with the higher total score over them, then the higher total point margin; still level,
the tie gets one more encounter at a time (at most ``MAX_EXTRA_ENCOUNTERS``, after which the
higher seed goes through, and ``decided_by`` says so). Encounter ids come from
:func:`encounter_id`, so a resumed run (or a report) rebuilds the same bracket from the store.

The legs given are those of complete encounters (an encounter cut between its legs is still
being played): every encounter of a tie found among them counts as played. A leg whose players
are not the tie's is not the tie's (ignored).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from arena.stats.encounters import EncounterResult, Leg, fold

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
    played: tuple[int, ...] = ()
    """The encounter index of each of ``results`` (encounters in flight leave gaps)."""

    @property
    def decided(self) -> bool:
        """Whether the tie has a winner."""
        return self.winner is not None


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
    prefix: str = ""
    """The encounter ids' prefix (``encounter_id``)."""

    def to_play(self) -> tuple[tuple[Tie, int], ...]:
        """The encounters that can be played now: (tie, encounter index within the tie), for
        every tie whose two players are known, undecided, with fewer recorded encounters than
        it needs (in bracket order: round, then slot)."""
        return tuple((tie, index) for round_ in self.rounds for tie in round_
                     if tie.winner is None and None not in tie.players
                     for index in range(tie.needed) if index not in tie.played)


def encounter_id(prefix: str, round_: int, slot: int, index: int) -> str:
    """The id of encounter ``index`` (0-based) of the tie at ``round_``/``slot``; its legs are
    ``<id>-l0``/``-l1``."""
    return f"{prefix}-k{round_:02d}-s{slot:03d}-e{index:02d}"


def positions(size: int) -> list[int]:
    """The seeds (1-based) of a bracket of ``size`` slots (a power of two), top to bottom:
    [1, 2]; [1, 4, 2, 3]; [1, 8, 4, 5, 2, 7, 3, 6]; ..."""
    order = [1]
    while len(order) < size:
        mirror = 2 * len(order) + 1
        order = [seed for s in order for seed in (s, mirror - s)]
    return order


def bracket(prefix: str, seeds: Sequence[str], legs: Iterable[Leg],
            encounters_per_tie: int = 1) -> Bracket:
    """The bracket of ``seeds`` (best first, at least two) given the recorded legs of the
    ladder's complete encounters (legs of other encounter ids are ignored). Raises
    ``ValueError`` for fewer than two seeds, a repeated seed or ``encounters_per_tie`` < 1."""
    if len(seeds) < 2:
        raise ValueError("a knockout needs at least two players")
    if len(set(seeds)) != len(seeds):
        raise ValueError("the same player is seeded twice")
    if encounters_per_tie < 1:
        raise ValueError("a tie needs at least one encounter")
    results = {result.encounter_id: result for result in fold(legs)}
    size = 1 << (len(seeds) - 1).bit_length()
    entrants: list[tuple[str | None, int | None]] = [
        (seeds[s - 1], s) if s <= len(seeds) else (None, None) for s in positions(size)]
    rounds: list[tuple[Tie, ...]] = []
    round_ = 0
    while len(entrants) > 1:
        ties = tuple(_tie(prefix, round_, slot, entrants[2 * slot], entrants[2 * slot + 1],
                          results, encounters_per_tie, first_round=round_ == 0)
                     for slot in range(len(entrants) // 2))
        rounds.append(ties)
        entrants = [_through(tie) for tie in ties]
        round_ += 1
    final = rounds[-1][0]
    return Bracket(tuple(seeds), encounters_per_tie, tuple(rounds), final.winner, prefix)


def _through(tie: Tie) -> tuple[str | None, int | None]:
    """Who goes on from ``tie`` (None while undecided), with its seed."""
    if tie.winner is None:
        return None, None
    return tie.winner, tie.seeds[tie.players.index(tie.winner)]


def _tie(prefix: str, round_: int, slot: int, top: tuple[str | None, int | None],
         bottom: tuple[str | None, int | None], results: dict[str, EncounterResult],
         per_tie: int, first_round: bool) -> Tie:
    """One tie: its players (the better seed first) and how far it got."""
    if top[1] is None or (bottom[1] is not None and bottom[1] < top[1]):
        top, bottom = bottom, top
    players, seeds = (top[0], bottom[0]), (top[1], bottom[1])
    if first_round and (players[0] is None or players[1] is None):
        winner = players[0] if players[0] is not None else players[1]
        return Tie(round_, slot, players, seeds, (), winner, "bye", 0)
    if players[0] is None or players[1] is None:
        return Tie(round_, slot, players, seeds, (), None, "", 0)
    return _played(prefix, round_, slot, (players[0], players[1]), seeds, results, per_tie)


def _played(prefix: str, round_: int, slot: int, players: tuple[str, str],
            seeds: tuple[int | None, int | None], results: dict[str, EncounterResult],
            per_tie: int) -> Tie:
    """A tie of two known players: its encounters so far and, once they are in, its winner."""
    found: list[tuple[int, EncounterResult]] = []
    for index in range(per_tie + MAX_EXTRA_ENCOUNTERS):
        result = results.get(encounter_id(prefix, round_, slot, index))
        if result is not None and set(result.players) == set(players):
            found.append((index, _seen_from(result, players[0])))
    needed = per_tie
    while True:
        counted = [r for i, r in found if i < needed]
        if len(counted) < needed:
            winner, how = None, ""
            break
        winner, how = _verdict(players, counted, needed - per_tie)
        if winner is not None or needed == per_tie + MAX_EXTRA_ENCOUNTERS:
            break
        needed += 1
    if winner is None and len(counted) == needed:  # level after every extra encounter
        winner, how = players[0], f"seed (level after {needed} encounters)"
    kept = [(i, r) for i, r in found if i < needed]
    return Tie(round_, slot, players, seeds, tuple(r for _, r in kept), winner, how, needed,
               tuple(i for i, _ in kept))


def _verdict(players: tuple[str, str], results: Sequence[EncounterResult], extra: int
             ) -> tuple[str | None, str]:
    """The winner by score, then by point margin; None if level."""
    score = sum(r.score for r in results)
    other = sum(r.opponent_score for r in results)
    if score != other:
        winner = players[0] if score > other else players[1]
        high, low = max(score, other), min(score, other)
        after = f" after {extra} extra encounter{'s' if extra > 1 else ''}" if extra else ""
        return winner, f"score {high:g}-{low:g}{after}"
    margin = sum(r.margin for r in results)
    if margin != 0:
        return (players[0] if margin > 0 else players[1],
                f"point margin {abs(margin):+d} after a level score")
    return None, ""


def _seen_from(result: EncounterResult, player: str) -> EncounterResult:
    """``result`` with ``player`` as ``players[0]``."""
    if result.players[0] == player:
        return result
    return replace(result, players=(result.players[1], result.players[0]),
                   score=result.legs - result.score, margin=-result.margin)
