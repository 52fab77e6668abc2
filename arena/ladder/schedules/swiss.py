"""Swiss: each round's pairings as a pure function of the recorded results before it. PURE.

Every game of a Swiss is a duplicate encounter, so seats do not matter. A round's result for a
player is 1 (it scored more than half of the encounter's points), 1/2 (exactly half), 0. The
pairing of a round (Dutch-style, as FIDE's and lichess's Swiss): players sorted by score, then
by their rating-free order (the entrant order, the initial seed); within each score group the
top half meets the bottom half; a player who cannot be paired inside its group floats down to
the next; no two players meet twice; with an odd number of players the lowest-ranked player who
has not had one gets the bye, worth a win (at most one bye per player). Standings: score, then
Buchholz (the sum of the opponents' scores), then Sonneborn–Berger (the scores of the opponents
it beat, plus half of those it drew), then the initial order.

How a round is paired: the highest-ranked unpaired player takes, in this order of preference,
the first player of the bottom half of its score group (among the unpaired), the rest of the
bottom half, the top half from the middle up, then the players below its group in rank order
(it floats down); when that leads to a dead end (every remaining partner already met), the
search backs up and tries the next preference (a depth-first search, so the pairing is the most
preferred one that exists). With an odd field the bye is tried from the lowest-ranked player up.
Late rounds can run out of partners although each round on its own had a choice (after three
rounds, six players may be left with two triangles of possible opponents and no pairing): when
more rounds are to follow than every history allows (more than half the field, by Dirac's
theorem), a pairing is taken only if the rounds after it can still be paired without a rematch
(a search for the remaining rounds' pairings, bounded in steps). Only if that bound is reached
and the field then runs out of partners would a rematch be paired (the least preferred last):
never for a Swiss of at most half as many rounds as players.

The legs given are those of complete encounters (an encounter cut between its legs is still
being played). A leg of a round's encounter id whose players are not the pairing's is ignored.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from arena.ladder.schedules.schedule import pairing_key
from arena.stats.encounters import EncounterResult, Leg, fold


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
        """Whether every round is played."""
        return self.current >= self.rounds_total

    def to_play(self) -> tuple[tuple[str, str], ...]:
        """The current round's pairings whose encounter is not recorded yet."""
        if self.finished:
            return ()
        now = self.rounds[self.current]
        return tuple(pair for pair, result in zip(now.pairings, now.results, strict=True)
                     if result is None)


def max_rounds(players: int) -> int:
    """The most rounds a Swiss of ``players`` can pair without a rematch: players - 1 (an odd
    field, whose byes also need distinct players: as many)."""
    return players - 1 if players % 2 == 0 else players


def encounter_id(prefix: str, round_: int, first: str, second: str) -> str:
    """The id of the round's encounter of two players (its legs: ``<id>-l0``/``-l1``): the
    same for either order of the two."""
    return f"{prefix}-sw{round_:02d}-{pairing_key(first, second)}"


SEARCH_STEPS = 200_000
"""The steps the search for one round's pairing may take (a dead end is seen early: it is
reached only by fields far larger than a Swiss has)."""
LOOK_AHEAD_STEPS = 20_000
"""The steps one look-ahead for the later rounds may take."""


def swiss_state(prefix: str, players: Sequence[str], rounds_total: int,
                legs: Iterable[Leg]) -> SwissState:
    """The Swiss of ``players`` (initial order) over ``rounds_total`` rounds given the recorded
    legs of the ladder's complete encounters. Raises ``ValueError`` for fewer than two players,
    a repeated player, or more rounds than :func:`max_rounds` allows (or fewer than one)."""
    if len(players) < 2:
        raise ValueError("a Swiss needs at least two players")
    if len(set(players)) != len(players):
        raise ValueError("the same player is listed twice")
    if not 1 <= rounds_total <= max_rounds(len(players)):
        raise ValueError(f"a Swiss of {len(players)} players has 1 to "
                         f"{max_rounds(len(players))} rounds, not {rounds_total}")
    results = {r.encounter_id: r for r in fold(legs)}
    tally = _Tally(tuple(players))
    rounds: list[SwissRound] = []
    for index in range(rounds_total):
        pairings, bye = _pair_round(tally, rounds_total - index - 1)
        outcome = tuple(_result(results.get(encounter_id(prefix, index, a, b)), a, b)
                        for a, b in pairings)
        rounds.append(SwissRound(index, pairings, bye, outcome))
        if None in outcome:
            break
        tally.add(rounds[-1])
    current = len(tally.played)
    table = tally.table()
    groups: dict[float, list[str]] = {}
    for row in table:
        groups.setdefault(row.score, []).append(row.player)
    return SwissState(tuple(players), rounds_total, tuple(rounds), current, table,
                      tuple((score, tuple(group)) for score, group in groups.items()))


def _result(result: EncounterResult | None, first: str, second: str) -> float | None:
    """``first``'s round result: 1, 1/2 or 0 (None: not recorded, or not their encounter)."""
    if result is None or set(result.players) != {first, second}:
        return None
    score = result.score_of(first)
    half = result.legs / 2.0
    return 1.0 if score > half else 0.5 if score == half else 0.0


class _Tally:
    """The finished rounds as the pairing and the standings read them."""

    def __init__(self, players: tuple[str, ...]) -> None:
        self.players = players
        self.seed = {p: k for k, p in enumerate(players)}
        self.played: list[SwissRound] = []
        self.score = dict.fromkeys(players, 0.0)
        self.met: dict[str, list[tuple[str, float]]] = {p: [] for p in players}
        """Per player: (opponent, its round result) round by round."""
        self.byes = dict.fromkeys(players, 0)

    def add(self, finished: SwissRound) -> None:
        self.played.append(finished)
        for (a, b), result in zip(finished.pairings, finished.results, strict=True):
            assert result is not None
            self.met[a].append((b, result))
            self.met[b].append((a, 1.0 - result))
            self.score[a] += result
            self.score[b] += 1.0 - result
        if finished.bye is not None:
            self.byes[finished.bye] += 1
            self.score[finished.bye] += 1.0

    def ranked(self) -> list[str]:
        """The pairing order: score, then the initial order."""
        return sorted(self.players, key=lambda p: (-self.score[p], self.seed[p]))

    def table(self) -> tuple[SwissRow, ...]:
        """The standings: score, Buchholz, Sonneborn–Berger, then the initial order."""
        rows = []
        for p in self.players:
            buchholz = sum(self.score[o] for o, _ in self.met[p])
            sb = sum(result * self.score[o] for o, result in self.met[p])
            rows.append((p, buchholz, sb))
        rows.sort(key=lambda r: (-self.score[r[0]], -r[1], -r[2], self.seed[r[0]]))
        return tuple(SwissRow(rank, p, self.score[p], buchholz, sb, self.byes[p],
                              tuple(o for o, _ in self.met[p]))
                     for rank, (p, buchholz, sb) in enumerate(rows, start=1))


class _OutOfSteps(Exception):
    """The look-ahead's bound was reached."""


def _pair_round(tally: _Tally, rounds_after: int
                ) -> tuple[tuple[tuple[str, str], ...], str | None]:
    """The round's pairings (better-ranked first) and its bye (see the module doc)."""
    order = tally.ranked()
    met = {p: {o for o, _ in tally.met[p]} for p in order}
    search = _Search(tally, met, rounds_after)
    for allow_rematch in (False, True):
        found = search.round(order, allow_rematch)
        if found is not None:
            return found
    raise AssertionError("a pairing that allows rematches always exists")


class _Search:
    """The depth-first search of one round's pairing."""

    def __init__(self, tally: _Tally, met: dict[str, set[str]], rounds_after: int) -> None:
        self.tally = tally
        self.met = met
        self.rounds_after = rounds_after
        self.steps = SEARCH_STEPS

    def round(self, order: list[str], allow_rematch: bool
              ) -> tuple[tuple[tuple[str, str], ...], str | None] | None:
        """The most preferred pairing (and bye), or None if there is none."""
        byes: list[str | None] = [None]
        if len(order) % 2:
            lowest_first = list(reversed(order))
            if allow_rematch:
                lowest_first.sort(key=self.tally.byes.__getitem__)
            else:
                lowest_first = [p for p in lowest_first if not self.tally.byes[p]]
            byes = list(lowest_first)
        self.steps = SEARCH_STEPS
        try:
            for bye in byes:
                rest = [p for p in order if p != bye]
                for pairs in self._pairings(rest, allow_rematch):
                    if allow_rematch or self._continues(pairs, bye):
                        return tuple(pairs), bye
        except _OutOfSteps:
            pass
        return None

    def _pairings(self, remaining: list[str], allow_rematch: bool
                  ) -> Iterator[list[tuple[str, str]]]:
        """Every pairing of ``remaining`` (in rank order), most preferred first."""
        if not remaining:
            yield []
            return
        self.steps -= 1
        if self.steps < 0:
            raise _OutOfSteps
        top = remaining[0]
        for partner in self._preferences(remaining, allow_rematch):
            rest = [p for p in remaining[1:] if p != partner]
            if not allow_rematch and self._stranded(rest):
                continue
            for pairs in self._pairings(rest, allow_rematch):
                yield [(top, partner), *pairs]

    def _stranded(self, remaining: list[str]) -> bool:
        """Whether a player of ``remaining`` has met every other one (a dead end)."""
        return any(all(q == p or q in self.met[p] for q in remaining) for p in remaining)

    def _preferences(self, remaining: list[str], allow_rematch: bool) -> list[str]:
        """The partners of ``remaining[0]``, most preferred first (the module doc)."""
        top = remaining[0]
        score = self.tally.score
        group = [p for p in remaining if score[p] == score[top]]
        half = len(group) // 2
        if half:
            ordered = group[half:] + group[half - 1:0:-1] + remaining[len(group):]
        else:
            ordered = remaining[1:]
        fresh = [p for p in ordered if p not in self.met[top]]
        return fresh + [p for p in ordered if p in self.met[top]] if allow_rematch else fresh

    def _continues(self, pairs: Sequence[tuple[str, str]], bye: str | None) -> bool:
        """Whether the rounds after this one can still be paired without a rematch."""
        if self.rounds_after == 0:
            return True
        players = self.tally.players
        free: dict[str | None, set[str | None]] = {
            p: {q for q in players if q != p and q not in self.met[p]} for p in players}
        for a, b in pairs:
            free[a].discard(b)
            free[b].discard(a)
        if len(players) % 2:
            done = {p for p in players if self.tally.byes[p]} | {bye}
            free[None] = {p for p in players if p not in done}
            for p in players:
                if p in free[None]:
                    free[p].add(None)
        least = min(len(options) for options in free.values())
        if least - (self.rounds_after - 1) >= len(free) / 2:
            return True  # Dirac: every later round has a perfect matching, whatever it is
        steps = self.steps
        self.steps = min(steps, LOOK_AHEAD_STEPS)
        try:
            return self._rounds(free, self.rounds_after)
        except _OutOfSteps:
            return True  # unknown: the bound is reached, take it
        finally:
            self.steps = steps - 1

    def _seed(self, player: str | None) -> int:
        """The initial order (the bye first)."""
        return -1 if player is None else self.tally.seed[player]

    def _rounds(self, free: dict[str | None, set[str | None]], count: int) -> bool:
        """Whether ``count`` disjoint perfect matchings of ``free`` exist."""
        if count == 0:
            return True
        for matching in self._matchings(free, set(free)):
            for a, b in matching:
                free[a].discard(b)
                free[b].discard(a)
            ok = self._rounds(free, count - 1)
            for a, b in matching:
                free[a].add(b)
                free[b].add(a)
            if ok:
                return True
        return False

    def _matchings(self, free: dict[str | None, set[str | None]], left: set[str | None]
                   ) -> Iterator[list[tuple[str | None, str | None]]]:
        """Every perfect matching of ``free`` restricted to ``left`` (fewest options first)."""
        self.steps -= 1
        if self.steps < 0:
            raise _OutOfSteps
        if not left:
            yield []
            return
        vertex = min(left, key=lambda v: (len(free[v] & left), self._seed(v)))
        for other in sorted(free[vertex] & left, key=self._seed):
            for rest in self._matchings(free, left - {vertex, other}):
                yield [(vertex, other), *rest]
