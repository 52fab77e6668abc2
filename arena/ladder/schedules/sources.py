"""The match sources of the schedule types that decide as they go: adaptive and continuous
ladders (information-driven pairing), knockouts and Swiss tournaments.

Each source hands the runner (``arena.ladder.runner.run_matches``) the legs of one encounter at
a time (both legs of a duplicate encounter, back to back, with one deal seed from
``schedule.encounter_seed``, the ladder's secret and the encounter id), is told when each leg
ended, and shows where the schedule stands (``status()``: an ``AdaptiveStatus``, a knockout's
``Bracket`` or a ``SwissState``, the live view's ``Progress.schedule``).

What to play next is a pure function of the store and of state files written before any match,
so a run that was stopped or killed (``kill -9``) resumes with the very pairings an
uninterrupted run would have made:

* ``<state_dir>/players.json``: the players of an adaptive ladder, a Swiss (in their initial
  order) or a knockout (its seeds, best first), frozen at the ladder's first run; a later change
  of the entrants, or of the standings a knockout was seeded from, does not reshuffle a running
  tournament (changed entrants are refused with one error).
* Only *complete* encounters (both legs of a duplicate encounter recorded) reach the pure
  functions (``pairing.choose``, ``knockout.bracket``, ``swiss.swiss_state``): an encounter a
  crash cut between its legs is completed first, its missing leg played with the recorded seed
  and the seats swapped.
* ``<state_dir>/pairings.jsonl``: every decision of an adaptive or continuous ladder (time,
  encounter, pair, rule, reason), one JSON object a line, for people: nothing is read back but
  the latest few, for the status.

Encounter ids: ``<slug>-a<NNNNNN>-<pairing key>`` (adaptive, continuous: numbered from the
store, the next after the highest recorded or handed out), ``knockout.encounter_id`` and
``swiss.encounter_id``; legs are ``<encounter id>-l0`` and ``-l1``.

A continuous ladder's versions (picking up new ones while it runs) are in
``arena.ladder.schedules.continuous``.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import json
import os
import re
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.errors import ConfigError
from arena.ladder.config import LadderConfig, load_ladder
from arena.ladder.entrants import EntryFeed, ResolveBot, line_up_entrants
from arena.ladder.reports import load_standings
from arena.ladder.schedules import knockout, pairing, swiss
from arena.ladder.schedules.schedule import (
    ADAPTIVE,
    KNOCKOUT,
    SWISS,
    ScheduledMatch,
    encounter_seed,
    pairing_key,
    slug,
)
from arena.ladder.schedules.status import (
    MAX_DECISIONS,
    AdaptiveStatus,
    Decision,
    PlayerActivity,
    ScheduleStatus,
)
from arena.ladder.store import LadderStore, StoredMatch
from arena.ladder.versions import legs_of
from arena.model import MatchResult, Termination
from arena.record.log import private_dir
from arena.referee.service import Lineup
from arena.stats.encounters import Leg

PLAYERS_FILE = "players.json"
"""The frozen players of an adaptive ladder, a knockout (its seeds) or a Swiss, in the ladder's
state directory."""
PAIRINGS_FILE = "pairings.jsonl"
"""The pairing decisions of an adaptive or continuous ladder, in its state directory."""
FROZEN_KINDS = (ADAPTIVE, KNOCKOUT, SWISS)
"""The schedule types whose players are frozen at the first run."""
MAX_GIVEN_UP = 3
"""A leg the cluster gives up on this many times in one run is left for the next run."""
HOUR_S = 3600.0


# --- state files ---------------------------------------------------------------------------------
def write_private(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` atomically (a temporary file, then a rename), readable by
    its owner only; the directory is made private if need be."""
    private_dir(path.parent)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(text)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(temporary, path)


def append_line(path: Path, record: Mapping[str, Any]) -> None:
    """Append one JSON object as a line to ``path`` (made readable by its owner only)."""
    private_dir(path.parent)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    with os.fdopen(fd, "a", encoding="utf-8") as handle:
        handle.write(json.dumps(record, sort_keys=True) + "\n")


def read_lines(path: Path, last: int | None = None) -> list[dict[str, Any]]:
    """The JSON objects of a JSON-lines file, in order (``last``: only the last ones, read from
    the end); a line that is not one (a write cut by a crash) is skipped; no file: none."""
    try:
        with path.open("rb") as handle:
            if last is not None:
                size = handle.seek(0, os.SEEK_END)
                handle.seek(max(0, size - 2048 * (last + 1)))
            raw = handle.read()
    except FileNotFoundError:
        return []
    records = []
    for line in raw.decode("utf-8", "replace").splitlines():
        with contextlib.suppress(ValueError):
            record = json.loads(line)
            if isinstance(record, dict):
                records.append(record)
    return records if last is None else records[-last:]


def tournament_players(config: LadderConfig) -> tuple[str, ...] | None:
    """The frozen players of an adaptive ladder or a Swiss (in their initial order) or a
    knockout (its seeds, best first), as the ladder's first run wrote them; None before that,
    or for another schedule type."""
    if config.schedule.kind not in FROZEN_KINDS:
        return None
    try:
        data = json.loads((config.state_dir / PLAYERS_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    players = data.get("players") if isinstance(data, dict) else None
    if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
        return None
    return tuple(players)


def freeze_players(config: LadderConfig, players: Sequence[str]) -> tuple[str, ...]:
    """The ladder's frozen players: ``players`` at its first run (written to ``PLAYERS_FILE``
    before any match), else the ones written then. ``ConfigError`` when the entrants now are
    other bots than then."""
    frozen = tournament_players(config)
    if frozen is None:
        write_private(config.state_dir / PLAYERS_FILE, json.dumps(
            {"kind": config.schedule.kind, "players": list(players)}, indent=1) + "\n")
        return tuple(players)
    if set(frozen) != set(players):
        gone = sorted(set(frozen) - set(players))
        new = sorted(set(players) - set(frozen))
        raise ConfigError(
            f"ladder {config.name!r}: the {config.schedule.kind} began with "
            f"{', '.join(frozen)}; its entrants now"
            + (f" lack {', '.join(gone)}" if gone else "")
            + (" and" if gone and new else "")
            + (f" add {', '.join(new)}" if new else "")
            + ": restore them, or start a new ladder (another name)")
    return frozen


def knockout_seeds(config: LadderConfig, names: Sequence[str]) -> tuple[str, ...]:
    """The seeds of a knockout, best first: the official standings of the ``seed_from``
    ladder (names not in them follow in entrant order), else the entrant order."""
    source = config.schedule.seed_from
    if source is None:
        return tuple(names)
    seeding = load_ladder(source)
    ranked = ([row.bot.split("@", 1)[0] for row in load_standings(seeding).rows]
              if seeding.store_exists() else [])
    first = [name for name in dict.fromkeys(ranked) if name in names]
    return (*first, *(name for name in names if name not in first))


def read_decisions(config: LadderConfig, last: int = MAX_DECISIONS) -> tuple[Decision, ...]:
    """The latest pairing decisions of the ladder, newest first."""
    decisions = []
    for record in read_lines(config.state_dir / PAIRINGS_FILE, last):
        pair = record.get("pair")
        if not (isinstance(pair, list) and len(pair) == 2):
            continue
        decisions.append(Decision(str(record.get("encounter", "")), (str(pair[0]),
                                  str(pair[1])), str(record.get("reason", "")),
                                  float(record.get("at", 0.0))))
    return tuple(reversed(decisions))


# --- encounters in the store -----------------------------------------------------------------
def legs_per_encounter(config: LadderConfig) -> int:
    """Matches in one encounter: two with duplicate deals, else one."""
    return 2 if config.duplicate else 1


def by_encounter(matches: Iterable[StoredMatch]) -> dict[str, list[StoredMatch]]:
    """The recorded matches grouped by encounter id, in order of their first leg."""
    grouped: dict[str, list[StoredMatch]] = {}
    for match in matches:
        grouped.setdefault(match.encounter_id or match.match_id, []).append(match)
    return grouped


def complete_legs(matches: Sequence[StoredMatch], legs: Sequence[Leg], per_encounter: int
                  ) -> list[Leg]:
    """The ``legs`` (one per match of ``matches``) of complete encounters: an encounter with a
    leg still missing (cut by a crash) does not count yet."""
    recorded = collections.Counter(m.encounter_id or m.match_id for m in matches)
    return [leg for leg in legs if recorded[leg.encounter_id] >= per_encounter]


def activity(entries: Sequence[tuple[str, str, str, str]], legs: Sequence[Leg], order:
             Sequence[str], now: float) -> tuple[PlayerActivity, ...]:
    """What each player did: ``entries`` are (key, name, version, state), current players
    first; those in ``order`` (by rating) are listed in that order, the others after them."""
    encounters: dict[str, set[str]] = collections.defaultdict(set)
    recent: collections.Counter[str] = collections.Counter()
    last: dict[str, float] = {}
    for leg in legs:
        for key in leg.players:
            encounters[key].add(leg.encounter_id)
            if leg.finished_at >= now - HOUR_S:
                recent[key] += 1
            last[key] = max(last.get(key, 0.0), leg.finished_at)
    rank = {key: index for index, key in enumerate(order)}
    ordered = sorted(entries, key=lambda e: (e[0] not in rank, rank.get(e[0], 0)))
    return tuple(PlayerActivity(key, name, version, state, len(encounters[key]), recent[key],
                                last.get(key)) for key, name, version, state in ordered)


# --- the sources -----------------------------------------------------------------------------
class EncounterSource:
    """What the schedule sources share: encounters handed out leg by leg, a leg that was
    dropped (the run stopped) or given up on (the cluster) handed out again as it was, the
    store's matches read as they land. A subclass says what to play next (``pick``), when it
    is done (``stopped``) and what it shows (``compute_status``)."""

    kind = ""

    def __init__(self, config: LadderConfig, store: LadderStore, lineup: Lineup, secret: str,
                 max_matches: int | None = None) -> None:
        self.config = config
        self.store = store
        self._lineup = lineup
        self.secret = secret
        self.prefix = slug(config.name)
        self.per_encounter = legs_per_encounter(config)
        self.max_matches = max_matches
        self.matches: list[StoredMatch] = []
        self.recorded: dict[str, list[StoredMatch]] = {}
        self.queue: collections.deque[ScheduledMatch] = collections.deque()
        self.outstanding: dict[str, set[str]] = {}
        """Encounters handed out (or queued) with legs not recorded yet: their match ids."""
        self.pairs: dict[str, tuple[int, int]] = {}
        """The players (lineup indexes) of each outstanding encounter."""
        self.out = 0
        self.handed = 0
        self.given_up: collections.Counter[str] = collections.Counter()
        self.abandoned: set[str] = set()
        self._changed = asyncio.Event()
        self._status: ScheduleStatus | None = None
        self._legs: list[Leg] | None = None
        self._all_legs: list[Leg] | None = None
        self.read_store()

    # -- what a subclass says
    def pick(self) -> None:
        """Queue what to play next, if anything (the queue is empty when it is called)."""
        raise NotImplementedError

    def stopped(self) -> str:
        """Why the schedule has nothing more to play ("" while it has)."""
        raise NotImplementedError

    def compute_status(self) -> ScheduleStatus:
        """The schedule's status now."""
        raise NotImplementedError

    def player_key(self, match: StoredMatch, seat: int) -> str:
        """The player a recorded match's seat was (its bot's name here)."""
        return match.bots[seat]

    def index_of(self, key: str) -> int | None:
        """The lineup index of a player (None: not in the lineup)."""
        return next((i for i, bot in enumerate(self._lineup.bots) if bot.name == key), None)

    def key_of(self, index: int) -> str:
        """The player a lineup index is (its bot's name here)."""
        return self._lineup.bots[index].name

    def in_flight(self) -> tuple[tuple[str, str], ...]:
        """The players of the encounters handed out (or queued) and not recorded yet."""
        return tuple((self.key_of(a), self.key_of(b)) for a, b in self.pairs.values())

    def keyed_legs(self, matches: Sequence[StoredMatch]) -> list[Leg]:
        """The recorded matches as legs of encounters, named by ``player_key``."""
        return legs_of(matches)

    # -- the runner's MatchSource
    def lineup(self) -> Lineup:
        """The bots the matches' seats index (a continuous ladder's grows while it runs)."""
        return self._lineup

    def status(self) -> ScheduleStatus:
        """Where the schedule stands (recomputed after every change)."""
        if self._status is None:
            self._status = self.compute_status()
        return self._status

    def exhausted(self) -> bool:
        """Nothing handed out or queued, and the schedule says it is done."""
        return not self.out and not self.queue and bool(self.stopped())

    async def next_match(self) -> ScheduledMatch | None:
        """The next leg: one queued, else what ``pick`` queues; with nothing to hand out,
        wait for the matches in flight (their results may open new encounters), or None when
        none is in flight."""
        while True:
            match = self.take()
            if match is not None:
                return match
            if not self.out:
                return None
            await self.wait()

    def settled(self, match: ScheduledMatch, result: MatchResult | None) -> None:
        """A leg ended: recorded (the store is read again), dropped by a stopping run (handed
        out again as it was), or given up on by the cluster (handed out again, at most
        ``MAX_GIVEN_UP`` times in a run; then its encounter waits for the next run)."""
        self.out -= 1
        if result is None:
            self.queue.appendleft(match)
        elif result.termination is Termination.CANCELLED:
            self.given_up[match.match_id] += 1
            if self.given_up[match.match_id] < MAX_GIVEN_UP:
                self.queue.appendleft(match)
            else:
                self.abandon(match.encounter_id)
        else:
            legs = self.outstanding.get(match.encounter_id, set())
            legs.discard(match.match_id)
            if not legs:
                self.outstanding.pop(match.encounter_id, None)
                self.pairs.pop(match.encounter_id, None)
            self.read_store()
        self.changed()

    # -- helpers
    def room(self) -> bool:
        """Whether the run's bound (``max_matches``) lets another encounter start (the legs
        handed out and queued are fewer)."""
        return self.max_matches is None or self.handed + len(self.queue) < self.max_matches

    def take(self) -> ScheduledMatch | None:
        if not self.queue and self.room():
            self.pick()
        if not self.queue:
            return None
        self.out += 1
        self.handed += 1
        self.changed()
        return self.queue.popleft()

    async def wait(self, timeout: float | None = None) -> None:
        """Until something changes (or ``timeout`` seconds pass)."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._changed.wait(), timeout)

    def changed(self) -> None:
        """Something changed: the status is recomputed, waiting workers look again."""
        self._status = None
        self._changed.set()
        self._changed = asyncio.Event()

    def read_store(self) -> None:
        """Read the matches recorded since the last look."""
        new = self.store.matches(self.config.name, skip=len(self.matches))
        self.matches.extend(new)
        for match in new:
            self.recorded.setdefault(match.encounter_id or match.match_id, []).append(match)
        if new:
            self.forget_legs()

    def forget_legs(self) -> None:
        """The legs are read again (new matches, or players' keys changed)."""
        self._legs = self._all_legs = None

    def all_legs(self) -> list[Leg]:
        """Every recorded leg, named by ``player_key``."""
        if self._all_legs is None:
            self._all_legs = self.keyed_legs(self.matches)
        return self._all_legs

    def legs(self) -> list[Leg]:
        """The legs of the complete encounters (what the pure functions see)."""
        if self._legs is None:
            self._legs = complete_legs(self.matches, self.all_legs(), self.per_encounter)
        return self._legs

    def abandon(self, encounter_id: str) -> None:
        """Leave an encounter to the next run (its legs keep failing in this one)."""
        self.abandoned.add(encounter_id)
        self.queue = collections.deque(m for m in self.queue if m.encounter_id != encounter_id)
        self.outstanding.pop(encounter_id, None)
        self.pairs.pop(encounter_id, None)

    def partial(self, encounter_id: str) -> StoredMatch | None:
        """The one recorded leg of an encounter a crash cut between its legs; else None."""
        legs = self.recorded.get(encounter_id, [])
        return legs[0] if len(legs) == 1 and self.per_encounter == 2 else None

    def start(self, encounter_id: str, cycle: int, pair: tuple[str, str]) -> bool:
        """Queue an encounter of ``pair`` (``pair[0]`` in seat 0 of leg 0): both legs with a
        fresh deal, or only the missing leg of a cut one (its recorded seed, the recorded
        leg's seats swapped). False when a player is not in the lineup (the encounter is left
        alone)."""
        cut = self.partial(encounter_id)
        if cut is not None:  # the recorded leg's seats, swapped
            pair = (self.player_key(cut, 1), self.player_key(cut, 0))
        seats = (self.index_of(pair[0]), self.index_of(pair[1]))
        if seats[0] is None or seats[1] is None:
            self.abandon(encounter_id)
            return False
        a, b = seats[0], seats[1]
        if cut is not None:
            missing = 1 - cut.leg
            legs = [ScheduledMatch(f"{encounter_id}-l{missing}", encounter_id, cut.cycle,
                                   missing, cut.seed, (a, b))]
        else:
            seed = encounter_seed(self.config.name, self.config.seed, cycle, encounter_id,
                                  self.secret)
            orders = [(a, b), (b, a)][:self.per_encounter]
            legs = [ScheduledMatch(f"{encounter_id}-l{leg}", encounter_id, cycle, leg, seed,
                                   order) for leg, order in enumerate(orders)]
        self.queue.extend(legs)
        self.outstanding[encounter_id] = {m.match_id for m in legs}
        self.pairs[encounter_id] = (a, b)
        return True


class KnockoutSource(EncounterSource):
    """A knockout: the bracket from the frozen seeds and the complete encounters; every
    encounter that can be played now is handed out (ties in parallel with concurrency)."""

    kind = KNOCKOUT

    def __init__(self, config: LadderConfig, store: LadderStore, lineup: Lineup, secret: str,
                 seeds: Sequence[str], max_matches: int | None = None) -> None:
        self.seeds = tuple(seeds)
        super().__init__(config, store, lineup, secret, max_matches)

    def bracket(self) -> knockout.Bracket:
        """The bracket now."""
        return knockout.bracket(self.prefix, self.seeds, self.legs(),
                                self.config.schedule.encounters)

    def pick(self) -> None:
        for tie, index in self.bracket().to_play():
            encounter_id = knockout.encounter_id(self.prefix, tie.round, tie.slot, index)
            a, b = tie.players
            if encounter_id in self.outstanding or encounter_id in self.abandoned:
                continue
            if a is not None and b is not None and self.room():
                self.start(encounter_id, tie.round, (a, b))

    def stopped(self) -> str:
        champion = self.bracket().champion
        return "" if champion is None else f"{champion} won the knockout"

    def compute_status(self) -> knockout.Bracket:
        return self.bracket()


class SwissSource(EncounterSource):
    """A Swiss: the current round's pairings from the frozen players and the complete
    encounters; the next round is paired once the round is complete."""

    kind = SWISS

    def __init__(self, config: LadderConfig, store: LadderStore, lineup: Lineup, secret: str,
                 players: Sequence[str], max_matches: int | None = None) -> None:
        self.players = tuple(players)
        super().__init__(config, store, lineup, secret, max_matches)

    def state(self) -> swiss.SwissState:
        """The Swiss now."""
        return swiss.swiss_state(self.prefix, self.players, self.config.schedule.rounds,
                                 self.legs())

    def pick(self) -> None:
        state = self.state()
        for a, b in state.to_play():
            encounter_id = swiss.encounter_id(self.prefix, state.current, a, b)
            if encounter_id not in self.outstanding and encounter_id not in self.abandoned \
                    and self.room():
                self.start(encounter_id, state.current, (a, b))

    def stopped(self) -> str:
        state = self.state()
        return f"all {state.rounds_total} rounds are played" if state.finished else ""

    def compute_status(self) -> swiss.SwissState:
        return self.state()


ADAPTIVE_ID = re.compile(r"-a(\d{6,})-[0-9a-f]+$")
"""The number of an adaptive or continuous encounter id (after the ladder's slug)."""


def encounter_number(prefix: str, encounter_id: str) -> int:
    """The number of an adaptive or continuous encounter id of the ladder whose slug is
    ``prefix`` (-1: not one)."""
    if not encounter_id.startswith(f"{prefix}-a"):
        return -1
    found = ADAPTIVE_ID.search(encounter_id)
    return int(found.group(1)) if found else -1


@dataclass(frozen=True)
class PlayerEntry:
    """A player of an adaptive or continuous ladder, as its status lists it."""

    key: str
    name: str
    version: str
    state: str
    """"playing", "placement 1/4", "retired (…)", "refused: …"."""


class AdaptiveSource(EncounterSource):
    """Information-driven pairing (``pairing.choose``) of the frozen players, within a budget
    of encounters, until every adjacent pair is separated at the configured confidence."""

    kind = ADAPTIVE

    def __init__(self, config: LadderConfig, store: LadderStore, lineup: Lineup, secret: str,
                 players: Sequence[str], max_matches: int | None = None,
                 clock: Callable[[], float] = time.time) -> None:
        self.players = tuple(players)
        self.clock = clock
        self.decisions: collections.deque[Decision] = collections.deque(
            read_decisions(config), maxlen=MAX_DECISIONS)
        self._separation: pairing.Separation | None = None
        super().__init__(config, store, lineup, secret, max_matches)
        self.number = 1 + max((self.number_of(e) for e in self.recorded), default=-1)
        self.resume_cut()

    # -- players
    def current(self) -> tuple[str, ...]:
        """The players who may be paired now."""
        return self.players

    def entries(self) -> list[PlayerEntry]:
        """Every player for the status, current ones first."""
        return name_entries(self.players, self.matches)

    def placement(self) -> dict[str, int]:
        """Placement encounters still to play, by player (none in an adaptive ladder)."""
        return {}

    # -- the decision
    def number_of(self, encounter_id: str) -> int:
        """The number of an adaptive encounter id of this ladder (-1: not one)."""
        return encounter_number(self.prefix, encounter_id)

    def encounters(self) -> int:
        """Encounters of the ladder so far: recorded, or handed out and not recorded yet."""
        ours = {e for e in self.recorded if self.number_of(e) >= 0}
        return len(ours | set(self.outstanding))

    def resume_cut(self) -> None:
        """Queue the missing leg of every encounter a crash cut between its legs, unless one
        of its players plays no more (``withdrawn``)."""
        for encounter_id, legs in self.recorded.items():
            if self.number_of(encounter_id) >= 0 and self.partial(encounter_id) is not None:
                first = legs[0]
                pair = (self.player_key(first, 0), self.player_key(first, 1))
                if not any(self.withdrawn(key) for key in pair):
                    self.start(encounter_id, first.cycle, pair)

    def withdrawn(self, key: str) -> bool:
        """Whether the player ``key`` plays no more, not even the rest of an encounter (none
        does here: a continuous ladder's withdrawn entrants do)."""
        return False

    def separation(self) -> pairing.Separation:
        """How surely the current players are ordered by the complete encounters."""
        if self._separation is None:
            self._separation = pairing.separation(self.current(), self.legs(),
                                                  self.config.rating.prior)
        return self._separation

    def forget_legs(self) -> None:
        super().forget_legs()
        self._separation = None

    def stopped(self) -> str:
        separation = self.separation() if len(self.current()) > 1 else None
        return adaptive_stop(self.config, self.encounters(), separation)

    def pick(self) -> None:
        if self.stopped():
            return
        self.decide()

    def decide(self) -> None:
        """Choose the next encounter, queue it and log the decision."""
        choice = pairing.choose(pairing.PairingInput(
            players=self.current(), legs=tuple(self.legs()),
            in_flight=self.in_flight(), placement=self.placement(),
            placement_total=self.config.schedule.placement,
            fairness_k=self.config.schedule.fairness, prior=self.config.rating.prior,
            confidence=self.config.schedule.confidence))
        if choice is None:
            return
        number = self.number
        self.number += 1
        a, b = choice.pair
        encounter_id = f"{self.prefix}-a{number:06d}-{pairing_key(a, b)}"
        if not self.start(encounter_id, number, choice.pair):
            return
        decision = Decision(encounter_id, choice.pair, choice.reason, self.clock())
        self.decisions.appendleft(decision)
        append_line(self.config.state_dir / PAIRINGS_FILE, {
            "at": decision.at, "encounter": encounter_id, "pair": list(choice.pair),
            "rule": choice.rule, "reason": choice.reason})

    def notice(self) -> str:
        """What the status says besides the decisions (nothing here)."""
        return ""

    def compute_status(self) -> AdaptiveStatus:
        return adaptive_status(
            self.kind, self.entries(), self.separation() if len(self.current()) > 1 else None,
            self.all_legs(), encounters=self.encounters(),
            budget=self.config.schedule.encounters if self.kind == ADAPTIVE else None,
            decisions=tuple(self.decisions)[:MAX_DECISIONS], notice=self.notice(),
            confidence=self.config.schedule.confidence,
            stopped="" if self.out or self.queue else self.stopped(), now=self.clock())


def adaptive_stop(config: LadderConfig, encounters: int,
                  separation: pairing.Separation | None) -> str:
    """Why an adaptive ladder stops ("" while it goes on): its budget of encounters is spent,
    or every adjacent pair of its players is separated at its confidence."""
    budget = config.schedule.encounters
    if encounters >= budget:
        return f"the budget of {budget} encounters is spent"
    confidence = config.schedule.confidence
    if separation is not None and separation.all_separated(confidence):
        return f"every adjacent pair is separated at {confidence:.0%}"
    return ""


def name_entries(players: Sequence[str], matches: Sequence[StoredMatch]) -> list[PlayerEntry]:
    """The players of an adaptive ladder (names) for its status, with the version each played
    last."""
    versions = {m.bots[s]: m.versions[s] for m in matches for s in (0, 1)}
    return [PlayerEntry(p, p, versions.get(p, ""), "playing") for p in players]


def adaptive_status(kind: str, entries: Sequence[PlayerEntry],
                    separation: pairing.Separation | None, all_legs: Sequence[Leg], *,
                    encounters: int, budget: int | None, decisions: Sequence[Decision],
                    confidence: float, stopped: str, now: float,
                    notice: str = "") -> AdaptiveStatus:
    """The status of an adaptive or continuous ladder: ``separation`` of its current players
    (None: fewer than two), ``all_legs`` every recorded leg (the activity)."""
    order = separation.order if separation is not None else ()
    players = activity([(e.key, e.name, e.version, e.state) for e in entries], all_legs,
                       order, now)
    return AdaptiveStatus(
        kind=kind, encounters=encounters, budget=budget, decisions=tuple(decisions),
        players=players,
        separated=separation.separated(confidence) if separation is not None else 0,
        adjacent=len(separation.adjacent) if separation is not None else 0,
        confidence=confidence, stopped=stopped, notice=notice)


# --- opening a source and the status of a ladder at rest -------------------------------------
def status_at_rest(config: LadderConfig, store: LadderStore) -> ScheduleStatus | None:
    """Where an adaptive ladder, a knockout or a Swiss stands, as far as the store and the
    state directory tell (nothing in flight): a knockout's bracket, a Swiss, an adaptive
    ladder's status; None for a tournament before its first run. (Every kind's:
    ``arena.ladder.schedules.registry.schedule_status``.)"""
    kind = config.schedule.kind
    if kind not in FROZEN_KINDS:
        return None
    players = tournament_players(config)
    if players is None:
        return None
    matches = store.matches(config.name)
    legs = complete_legs(matches, legs_of(matches), legs_per_encounter(config))
    prefix = slug(config.name)
    if kind == KNOCKOUT:
        return knockout.bracket(prefix, players, legs, config.schedule.encounters)
    if kind == SWISS:
        return swiss.swiss_state(prefix, players, config.schedule.rounds, legs)
    return adaptive_at_rest(config, store.matches(config.name), players)


def adaptive_at_rest(config: LadderConfig, matches: Sequence[StoredMatch],
                     players: Sequence[str]) -> AdaptiveStatus:
    """An adaptive ladder's status from its recorded matches alone (nothing in flight)."""
    prefix = slug(config.name)
    all_legs = legs_of(matches)
    legs = complete_legs(matches, all_legs, legs_per_encounter(config))
    encounters = sum(1 for e in by_encounter(matches) if encounter_number(prefix, e) >= 0)
    separation = pairing.separation(players, legs, config.rating.prior) if len(players) > 1 \
        else None
    return adaptive_status(
        ADAPTIVE, name_entries(players, matches), separation, all_legs, encounters=encounters,
        budget=config.schedule.encounters, decisions=read_decisions(config),
        confidence=config.schedule.confidence,
        stopped=adaptive_stop(config, encounters, separation), now=time.time())


def open_source(config: LadderConfig, store: LadderStore, lineup: Lineup, secret: str,
                max_matches: int | None = None) -> EncounterSource:
    """The source of an adaptive ladder, a knockout or a Swiss over ``lineup`` (the entrants
    lined up), its players frozen at the first run. ``ConfigError`` when the entrants are not
    the bots it began with."""
    names = [bot.name for bot in lineup.bots]
    kind = config.schedule.kind
    if kind == KNOCKOUT:
        seeds = freeze_players(config, knockout_seeds(config, names))
        return KnockoutSource(config, store, lineup, secret, seeds, max_matches)
    players = freeze_players(config, names)
    if kind == SWISS:
        return SwissSource(config, store, lineup, secret, players, max_matches)
    if kind == ADAPTIVE:
        return AdaptiveSource(config, store, lineup, secret, players, max_matches)
    raise ConfigError(f"ladder {config.name!r} is a {kind}: it has no schedule source")


def open_entrants(config: LadderConfig, store: LadderStore, secret: str, *,
                  resolve: ResolveBot | None, sandbox: str | None, check: bool,
                  max_matches: int | None, entries: EntryFeed | None = None) -> EncounterSource:
    """``open_source`` over the ladder's entrants, lined up now (``line_up_entrants``).
    ``ConfigError`` for ``entries``: its players are frozen, none enters while it runs."""
    if entries is not None:
        raise ConfigError(f"ladder {config.name!r} is a {config.schedule.kind}: its players are "
                          "frozen at its first run (entries are for a continuous ladder)")
    lineup = line_up_entrants(config, resolve, sandbox, check=check)
    return open_source(config, store, lineup, secret, max_matches)

