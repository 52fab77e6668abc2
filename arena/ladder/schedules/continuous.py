"""Continuous ladders: they run until stopped and pick up new versions and new entrants while
they run (``schedule.type = "continuous"``).

Every ``refresh_s`` seconds the source looks at its entrants again: the ladder file's
``entrants`` (the operator edits it; a file that no longer parses keeps the old list, and the
status says so) and, with ``catalogue = true``, every submitted bot of the ladder's game (its
latest version; a name the entrant list already holds is the entrant's). Each reference is
resolved; a new code identity of an entrant is a new **version**, a player of its own
(``name@version``, ``arena.ladder.versions``):

* it first plays ``placement`` encounters (priority over every other rule), against opponents
  spread over the standings (``pairing.choose``);
* the version it replaces stops playing (retired: its results stay recorded against it). An
  entrant's next version is taken up only once the current one has played its placement and
  the ladder has handed out a window of encounters since it came (twice the placement, at
  least the fairness window), so an author who submits without pause gets at most
  ``placement`` encounters of every window for placements and cannot starve the others;
* a bot directory is **snapshotted** when a version is seen: its files are copied to
  ``<state_dir>/versions/bots/<content hash>/`` (packed and unpacked as a cluster ships a
  directory, the copy's hash checked), so the version that plays is the version recorded even
  if the directory changes during a match. The copy's directories are 0755 and its files 0644
  (0755 when executable): a separated process bot reads it below the private state directory
  (``arena.sandbox.isolation`` hides closed parents and brings back only the bot's own path);
* a version the sandbox refuses (``Sandbox.check``), one of another game, one whose name is
  another entrant's (unless both entrants are versions, ``name@version``, of that name: a
  competition's frozen ladder plays two selected versions of one bot), or an entrant that does
  not resolve is listed as refused in the status,
  never played, and the ladder goes on;
* an entrant removed from the list retires its version ("withdrawn").
* with ``rest_s``, a leg starts no sooner than that after the one before (a ladder on a
  shared machine need not play flat out).

A program that runs the ladder (the competition server) may hand it its entrants in memory
instead (``entries``: an ``arena.ladder.entrants.EntryFeed`` of ``Entered`` and ``Withdrawn``
events): then neither the ladder file nor the catalogue is read to know who plays, and an event
wakes the ladder, which looks at once rather than at its next ``refresh_s``.

What the ladder saw is appended to ``<state_dir>/versions.jsonl`` (one JSON object a line:
adopted, refused, withdrawn), so a resumed run starts with the same lineup, and a report of the
ladder at rest lists every version (``continuous_status``). A continuous ladder never stops by
itself: while fewer than two players can play, it waits.
"""

from __future__ import annotations

import asyncio
import collections
import json
import logging
import sqlite3
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from arena.bots.catalogue import list_bots
from arena.bots.identity import bot_identity, directory_hash
from arena.bots.manifest import load_bot_dir
from arena.cluster.shipping import cached_directory, pack_directory, unpack_directory
from arena.errors import ArenaError, ConfigError
from arena.ladder.config import LadderConfig, load_ladder
from arena.ladder.entrants import EntryFeed, ResolveBot, default_resolve
from arena.ladder.schedules import pairing
from arena.ladder.schedules.schedule import CONTINUOUS, ScheduledMatch, slug
from arena.ladder.schedules.sources import (
    PAIRINGS_FILE,
    AdaptiveSource,
    PlayerEntry,
    adaptive_status,
    append_line,
    by_encounter,
    complete_legs,
    encounter_number,
    legs_per_encounter,
    read_decisions,
    read_lines,
)
from arena.ladder.schedules.status import AdaptiveStatus
from arena.ladder.store import LadderStore, StoredMatch
from arena.ladder.versions import Version, VersionKeys, legs_of
from arena.model import BotSpec
from arena.referee.service import Lineup
from arena.sandbox import get_sandbox
from arena.sandbox.api import Sandbox
from arena.stats.encounters import Leg

log = logging.getLogger(__name__)

LOOK_RETRY_S = 2.0
"""A look at the entrants that failed (the catalogue's database busy, a bug) is tried again
this much later (or at ``refresh_s``, when sooner); the entry events it did not take stay due."""

VERSIONS_FILE = "versions.jsonl"
"""What a continuous ladder saw of its entrants, in its state directory."""
SNAPSHOTS = "versions"
"""Where a continuous ladder keeps the snapshots of bot directories (in its state directory)."""
ADOPTED, REFUSED, WITHDRAWN = "adopted", "refused", "withdrawn"
"""The events of ``VERSIONS_FILE``."""


# --- what the ladder saw ---------------------------------------------------------------------
def spec_record(spec: BotSpec) -> dict[str, Any]:
    """A bot spec as ``VERSIONS_FILE`` keeps it."""
    return {"name": spec.name, "game": spec.game, "version": spec.version,
            "identity": spec.digest, "directory": spec.directory, "image": spec.image,
            "command": list(spec.command), "base": spec.base}


def record_spec(record: Mapping[str, Any]) -> BotSpec | None:
    """The bot spec of a ``VERSIONS_FILE`` record (None: it names none)."""
    try:
        return BotSpec(name=str(record["name"]), game=str(record["game"]),
                       directory=record.get("directory") or None,
                       command=tuple(str(c) for c in record.get("command") or ()),
                       image=record.get("image") or None, version=str(record["version"]),
                       digest=str(record["identity"]), base=str(record.get("base") or "python"))
    except (KeyError, TypeError):
        return None


def version_of(spec: BotSpec) -> Version:
    """The version a spec is (its digest is its identity)."""
    return Version(spec.name, spec.version, spec.digest)


@dataclass
class VersionBook:
    """The versions a continuous ladder saw: its lineup (every adopted version, in the order
    first seen: the seats of its matches index it), each entrant's current version, the
    refusals, and why a version was retired."""

    bots: list[BotSpec] = field(default_factory=list)
    """Every adopted version, in the order first seen."""
    current: dict[str, int] = field(default_factory=dict)
    """Entrant reference → its current version (an index of ``bots``)."""
    refusals: dict[str, tuple[BotSpec | None, str]] = field(default_factory=dict)
    """Entrant reference → its latest refusal (the version refused, if resolved, and why)."""
    retired: dict[int, str] = field(default_factory=dict)
    """Version index → why it stopped playing."""
    adopted_after: dict[int, int] = field(default_factory=dict)
    """Version index → encounters of the ladder when it was (last) adopted."""

    @classmethod
    def of(cls, records: Iterable[Mapping[str, Any]]) -> VersionBook:
        """The book of ``VERSIONS_FILE``'s records, in order."""
        book = cls()
        for record in records:
            book.apply(record)
        return book

    def index(self, spec: BotSpec) -> int | None:
        """The lineup index of this version, if adopted."""
        wanted = version_of(spec)
        return next((i for i, bot in enumerate(self.bots) if version_of(bot) == wanted), None)

    def apply(self, record: Mapping[str, Any]) -> None:
        """Take one event (adopted, refused, withdrawn) into the book."""
        ref, event = str(record.get("ref", "")), record.get("event")
        spec = record_spec(record)
        if event == ADOPTED and spec is not None:
            index = self.index(spec)
            if index is None:
                index = len(self.bots)
                self.bots.append(spec)
            old = self.current.get(ref)
            if old is not None and old != index:
                self.retired[old] = f"replaced by {spec.name}@{spec.version or '?'}"
            self.current[ref] = index
            self.retired.pop(index, None)
            self.refusals.pop(ref, None)
            self.adopted_after[index] = int(record.get("after", 0))
        elif event == REFUSED:
            self.refusals[ref] = (spec, str(record.get("reason", "")))
        elif event == WITHDRAWN and ref in self.current:
            self.retired[self.current.pop(ref)] = "withdrawn"
            self.refusals.pop(ref, None)

    def keys(self, matches: Sequence[StoredMatch] = ()) -> VersionKeys:
        """The keys of every version seen or recorded."""
        keys = VersionKeys(version_of(bot) for bot in self.bots)
        for match in matches:
            for seat in (0, 1):
                keys.add(seat_version(match, seat))
        return keys

    def owner(self, name: str) -> str | None:
        """The entrant whose current version is called ``name``."""
        return next((ref for ref, i in self.current.items() if self.bots[i].name == name), None)


def seat_version(match: StoredMatch, seat: int) -> Version:
    """The version that played a recorded match's seat."""
    return Version(match.bots[seat], match.versions[seat], match.identities[seat])


def read_book(config: LadderConfig) -> VersionBook:
    """The versions the ladder saw (an empty book before its first run)."""
    return VersionBook.of(read_lines(config.state_dir / VERSIONS_FILE))


def keyed(matches: Sequence[StoredMatch], keys: VersionKeys) -> list[Leg]:
    """The recorded matches as legs, their players named by version key."""
    return [replace(leg, players=(keys.key(seat_version(m, 0)), keys.key(seat_version(m, 1))))
            for m, leg in zip(matches, legs_of(matches), strict=True)]


def entries(book: VersionBook, keys: VersionKeys, placement: Mapping[str, int],
            total: int) -> list[PlayerEntry]:
    """Every version for the status: current ones, then retired, then refused ones."""
    out = []
    current = set(book.current.values())
    for index in sorted(current):
        bot = book.bots[index]
        key = keys.key(version_of(bot))
        left = placement.get(key, 0)
        state = f"placement {total - left + 1}/{total}" if left else "playing"
        out.append(PlayerEntry(key, bot.name, bot.version, state))
    for index, bot in enumerate(book.bots):
        if index not in current:
            why = book.retired.get(index, "replaced")
            out.append(PlayerEntry(keys.key(version_of(bot)), bot.name, bot.version,
                                   f"retired ({why})"))
    for ref, (spec, reason) in book.refusals.items():
        name = spec.name if spec is not None else ref
        key = f"{spec.name}@{spec.version or '?'}" if spec is not None else ref
        out.append(PlayerEntry(key, name, spec.version if spec else "", f"refused: {reason}"))
    return out


def placement_left(current: Sequence[str], legs: Sequence[Leg], outstanding: Iterable[
        tuple[str, str]], total: int) -> dict[str, int]:
    """Placement encounters each current player has still to play: ``total`` less the
    encounters it has (recorded, complete or not, or handed out)."""
    played: dict[str, set[str]] = collections.defaultdict(set)
    for leg in legs:
        for key in leg.players:
            played[key].add(leg.encounter_id)
    count = collections.Counter(key for pair in outstanding for key in pair)
    left = {key: total - len(played[key]) - count[key] for key in current}
    return {key: n for key, n in left.items() if n > 0}


def continuous_status(config: LadderConfig, store: LadderStore) -> AdaptiveStatus:
    """A continuous ladder's status from its store and state directory (nothing in flight)."""
    book = read_book(config)
    matches = store.matches(config.name)
    keys = book.keys(matches)
    all_legs = keyed(matches, keys)
    legs = complete_legs(matches, all_legs, legs_per_encounter(config))
    current = [keys.key(version_of(book.bots[i])) for i in sorted(book.current.values())]
    total = config.schedule.placement
    left = placement_left(current, all_legs, (), total)
    separation = (pairing.separation(current, legs, config.rating.prior)
                  if len(current) > 1 else None)
    prefix = slug(config.name)
    encounters = sum(1 for e in by_encounter(matches) if encounter_number(prefix, e) >= 0)
    return adaptive_status(
        CONTINUOUS, entries(book, keys, left, total), separation, all_legs,
        encounters=encounters, budget=None, decisions=read_decisions(config),
        confidence=config.schedule.confidence, stopped="", now=time.time())


# --- looking at the entrants -----------------------------------------------------------------
@dataclass(frozen=True)
class Found:
    """What an entrant reference stands for now."""

    ref: str
    spec: BotSpec | None
    """Its version (a bot directory's snapshot; digest: its identity); None when it does
    not resolve."""
    refused: str = ""
    """Why it may not play ("" when it may)."""


@dataclass(frozen=True)
class Scan:
    """One look at the entrants."""

    refs: tuple[str, ...]
    """The entrant references (the file's, then the catalogue's names)."""
    found: tuple[Found, ...]
    notice: str = ""
    """Why the ladder file was not taken ("" when it was)."""
    taken: tuple[tuple[str, ...], bool] = ((), False)
    """The entrant list and the catalogue switch this look went by."""


def catalogue_names(game: str, taken: Iterable[str]) -> list[str]:
    """The names of the catalogue's bots of ``game``, except those in ``taken``."""
    skip = set(taken)
    return [name for name in dict.fromkeys(b.name for b in list_bots() if b.game == game)
            if name not in skip]


def snapshot(spec: BotSpec, identity: str, root: Path) -> BotSpec:
    """The version of a bot directory as a copy of its files under ``root`` (kept by content
    hash; made once), read back from the copy. ``ArenaError`` when the directory changed
    while it was copied (the next look takes it) or cannot be read."""
    target = cached_directory(root, identity)
    if not (target.is_dir() and directory_hash(target) == identity):
        target = unpack_directory(pack_directory(spec.directory or ""), identity, root)
    return replace(load_bot_dir(target), digest=identity)


def entrant_list(config: LadderConfig, last: tuple[tuple[str, ...], bool]
                 ) -> tuple[tuple[str, ...], bool, str]:
    """The entrants and the catalogue switch the ladder file says now: (entrants, catalogue,
    "") — or, when the file no longer parses, ``last`` and why it was not taken."""
    if config.source is None:
        return (*last, "")
    try:
        again = load_ladder(config.source)
    except ConfigError as exc:
        return (*last, f"the ladder file was not taken, the entrants stay as they were: {exc}")
    return again.entrants, again.schedule.catalogue, ""


def scan(config: LadderConfig, resolve: ResolveBot, sandbox: Sandbox | None,
         known: Mapping[str, str], refused: Mapping[str, str],
         last: tuple[tuple[str, ...], bool]) -> Scan:
    """Look at the entrants (see the module doc): ``known`` maps a reference to its current
    version's identity (not snapshotted or checked again), ``refused`` an identity to why it
    was refused; ``sandbox`` checks every new version (None: no check); ``last`` is the
    entrant list and catalogue switch last taken (kept when the file no longer parses). Does
    I/O: run it in a thread."""
    entrants, catalogue, notice = entrant_list(config, last)
    refs = entrants
    if catalogue:
        try:
            refs = (*entrants, *catalogue_names(config.game, entrants))
        except (ArenaError, OSError, sqlite3.Error) as exc:
            notice = f"the catalogue of submitted bots could not be read: {exc}"
    found = tuple(look(config, ref, resolve, sandbox, known, refused) for ref in refs)
    return Scan(tuple(refs), found, notice, (entrants, catalogue))


def look(config: LadderConfig, ref: str, resolve: ResolveBot, sandbox: Sandbox | None,
         known: Mapping[str, str], refused: Mapping[str, str]) -> Found:
    """What one entrant reference stands for now."""
    try:
        spec = resolve(ref, config.base_dir)
        identity = bot_identity(spec)
    except (ArenaError, OSError) as exc:
        return Found(ref, None, str(exc))
    spec = replace(spec, digest=identity)
    if spec.game != config.game:
        return Found(ref, spec, f"plays {spec.game}, but the ladder is {config.game}")
    if known.get(ref) == identity:
        return Found(ref, spec)
    if identity in refused:
        return Found(ref, spec, refused[identity])
    try:
        if spec.directory:
            spec = snapshot(spec, identity, config.state_dir / SNAPSHOTS)
        if sandbox is not None:
            sandbox.check([spec])
    except (ArenaError, OSError) as exc:
        return Found(ref, spec, str(exc))
    return Found(ref, spec)


# --- the source ------------------------------------------------------------------------------
class ContinuousSource(AdaptiveSource):
    """The matches of a continuous ladder: information-driven pairing of every entrant's
    current version, new versions first, entrants looked at again every ``refresh_s``."""

    kind = CONTINUOUS

    def __init__(self, config: LadderConfig, store: LadderStore, sandbox: Sandbox, secret: str,
                 resolve: ResolveBot, check: bool = True, max_matches: int | None = None,
                 clock: Callable[[], float] = time.time,
                 entries: EntryFeed | None = None) -> None:
        self.book = read_book(config)
        self.resolve = resolve if entries is None else entries.resolver(resolve)
        self.feed = entries
        """The entrants handed over in memory (None: the file's and the catalogue's)."""
        self._seen = -1
        """The feed's generation the last look went by."""
        self._listening = False
        self._look: asyncio.Future[None] | None = None
        """The look an entry event started (kept: a task nobody holds may vanish)."""
        self.check = check
        self.notice_text = ""
        self.taken = (config.entrants, config.schedule.catalogue)
        self.refused_ids: dict[str, str] = {}
        self._keys = self.book.keys()
        self._refreshing = False
        self._next_look = 0.0
        self._retry_at = 0.0
        """Before this, a failed look's events wait (no look is tried again at once)."""
        self._rested = 0.0
        """When the ladder may start its next leg (``rest_s`` after the last one started)."""
        lineup = Lineup(config.game, tuple(self.book.bots), sandbox)
        super().__init__(config, store, lineup, secret, (), max_matches, clock)
        self.forget_lost()

    # -- the players
    def current(self) -> tuple[str, ...]:
        """Every entrant's current version, in the order first seen."""
        return tuple(self._keys.key(version_of(self.book.bots[i]))
                     for i in sorted(self.book.current.values()))

    def index_of(self, key: str) -> int | None:
        return next((i for i, bot in enumerate(self.book.bots)
                     if self._keys.key(version_of(bot)) == key), None)

    def player_key(self, match: StoredMatch, seat: int) -> str:
        return self._keys.key(seat_version(match, seat))

    def withdrawn(self, key: str) -> bool:
        """A withdrawn entrant's version (removed from the list, or disqualified) plays no
        more: after a restart, not even the leg of an encounter that was in flight when it was
        withdrawn (a replaced version's cut encounter is completed: its results count)."""
        index = self.index_of(key)
        return index is not None and self.book.retired.get(index) == "withdrawn"

    def key_of(self, index: int) -> str:
        return self._keys.key(version_of(self.book.bots[index]))

    def keyed_legs(self, matches: Sequence[StoredMatch]) -> list[Leg]:
        return keyed(matches, self._keys)

    def read_store(self) -> None:
        before = len(self.matches)
        super().read_store()
        for match in self.matches[before:]:
            for seat in (0, 1):
                self._keys.add(seat_version(match, seat))

    def placement(self) -> dict[str, int]:
        return placement_left(self.current(), self.all_legs(), self.in_flight(),
                              self.config.schedule.placement)

    def entries(self) -> list[PlayerEntry]:
        return entries(self.book, self._keys, self.placement(), self.config.schedule.placement)

    def notice(self) -> str:
        return self.notice_text

    def stopped(self) -> str:
        """Never: a continuous ladder runs until it is stopped."""
        return ""

    def pick(self) -> None:
        self.decide()

    # -- running
    async def next_match(self) -> ScheduledMatch | None:
        """The next leg; while there is none, look at the entrants again when it is time,
        and wait (a continuous ladder never runs out: only the run's bound ends it). With
        ``rest_s``, no leg starts sooner than that after the one before."""
        while True:
            await self.refresh_if_due()
            rest = self._rested - time.monotonic()
            if rest > 0:
                await self.wait(rest)  # a change wakes it: the entrants are looked at
                continue
            match = self.take()
            if match is not None:
                self._rested = time.monotonic() + self.config.schedule.rest_s
                return match
            if not self.room():
                return None  # the run's bound (--matches) is reached
            await self.wait(None if self._refreshing
                            else max(0.05, self._next_look - time.monotonic()))

    def due(self) -> bool:
        """Whether to look at the entrants now: ``refresh_s`` has passed since the last look,
        or an entry event came since; never while a look is under way."""
        if self._refreshing:
            return False
        now = time.monotonic()
        fed = self.feed is not None and self.feed.generation != self._seen
        return (fed and now >= self._retry_at) or now >= self._next_look

    async def refresh_if_due(self, *, quiet: bool = True) -> None:
        """Look at the entrants (in a thread) if it is time (``due``); one look at a time. A
        look that fails is tried again after ``LOOK_RETRY_S``, the entry events it did not take
        still due; it is logged and said in the ladder's notice (``quiet``: a running ladder
        plays on), or raised (the first look, before any match)."""
        if self.feed is not None and not self._listening:  # an entry event wakes it
            loop = asyncio.get_running_loop()

            def wake() -> None:
                loop.call_soon_threadsafe(self.entry_arrived)

            self.feed.listen(wake)
            self._listening = True
        if not self.due():
            return
        self._refreshing = True
        taken = self._seen
        if self.feed is not None:
            self._seen = self.feed.generation
        again_s = self.config.schedule.refresh_s
        try:
            found = await asyncio.to_thread(self.look)
            self.apply(found)
        except Exception as exc:
            self._seen = taken  # the events it did not take stay due
            again_s = min(LOOK_RETRY_S, again_s)
            self._retry_at = time.monotonic() + again_s
            if not quiet:
                raise
            # an entry event's look used to die here silently, in a task no one awaited, its
            # event taken: the entrant waited for the next refresh_s (an hour in a test)
            self.notice_text = f"the entrants could not be looked at: {exc}"[:300]
            log.warning(json.dumps({"event": "look_failed", "ladder": self.config.name,
                                    "error": str(exc)[:300]}))
            self.changed()
        finally:
            self._refreshing = False
            self._next_look = time.monotonic() + again_s

    def entry_arrived(self) -> None:
        """An entry event came (on the ladder's loop): look at the entrants now, even while
        every worker is busy with a match (the look does not wait for the next one to be
        asked for)."""
        self.changed()
        if not self._refreshing:
            self._look = asyncio.ensure_future(self.refresh_if_due())

    def look(self) -> Scan:
        """One look at the entrants (I/O)."""
        known = {ref: self.book.bots[i].digest for ref, i in self.book.current.items()}
        box = self._lineup.sandbox if self.check else None
        if self.feed is not None:  # in memory: no file, no catalogue
            fed = replace(self.config, source=None,
                          schedule=replace(self.config.schedule, catalogue=False))
            return scan(fed, self.resolve, box, known, self.refused_ids,
                        (self.feed.refs(), False))
        return scan(self.config, self.resolve, box, known, self.refused_ids, self.taken)

    def apply(self, result: Scan) -> None:
        """Take a look's findings: new versions adopted (or left for later, or refused),
        entrants no longer listed withdrawn."""
        self.notice_text, self.taken = result.notice, result.taken
        for ref in [r for r in self.book.current if r not in result.refs]:
            self.write({"event": WITHDRAWN, "ref": ref})
        for found in result.found:
            self.take_up(found)
        self.changed()

    def take_up(self, found: Found) -> None:
        """One entrant's finding."""
        spec, ref = found.spec, found.ref
        current = self.book.current.get(ref)
        if spec is not None and current is not None and \
                self.book.bots[current].digest == spec.digest and not found.refused:
            return
        refused = found.refused
        owner = self.book.owner(spec.name) if spec is not None else None
        if not refused and owner is not None and owner != ref and not (
                spec is not None and self.versions_apart(ref, owner, spec)):
            refused = f"the name {spec.name if spec else ''} is entrant {owner!r}'s"
        if refused:
            if spec is not None and spec.digest and found.refused:
                self.refused_ids[spec.digest] = found.refused  # not looked at again
            if self.book.refusals.get(ref) != (spec, refused):
                self.write({"event": REFUSED, "ref": ref, "reason": refused,
                            **(spec_record(spec) if spec is not None else {})})
            return
        assert spec is not None
        if current is not None and not self.may_replace(current):
            return  # the new version waits for its turn (a later look takes it)
        self.write({"event": ADOPTED, "ref": ref, "after": self.encounters(),
                    **spec_record(spec)})

    def versions_apart(self, ref: str, owner: str, spec: BotSpec) -> bool:
        """Whether ``ref`` and ``owner``, two entrants whose versions share a name, are each
        that very version (``name@version``: a competition's frozen ladder plays the versions
        contestants selected, two of one bot may be among them), so may both play."""
        held = self.book.bots[self.book.current[owner]]
        return ref == f"{spec.name}@{spec.version}" and owner == f"{held.name}@{held.version}" \
            and spec.version != held.version

    def may_replace(self, current: int) -> bool:
        """Whether an entrant's current version may be replaced now: once it has played its
        placement and the ladder has handed out ``replace_window`` encounters since it came
        (so an author who submits without pause gets at most ``placement`` encounters of
        every window for placements, and every other player keeps its share)."""
        key = self._keys.key(version_of(self.book.bots[current]))
        if self.placement().get(key):
            return False
        return self.encounters() - self.book.adopted_after.get(current, 0) >= \
            self.replace_window()

    def replace_window(self) -> int:
        """Encounters between two versions of one entrant taken up: twice the placement, and
        at least the fairness window (``fairness``, else twice the current players)."""
        fairness = self.config.schedule.fairness or 2 * len(self.book.current)
        return max(2 * self.config.schedule.placement, fairness)

    def write(self, record: dict[str, Any]) -> None:
        """Record an event (``VERSIONS_FILE``) and take it into the book and the lineup."""
        record = {"at": self.clock(), **record}
        append_line(self.config.state_dir / VERSIONS_FILE, record)
        self.book.apply(record)
        if len(self.book.bots) > len(self._lineup.bots):
            self._lineup = replace(self._lineup, bots=tuple(self.book.bots))
            for bot in self._lineup.bots:
                self._keys.add(version_of(bot))
        self.forget_legs()

    def forget_lost(self) -> None:
        """A current version whose snapshot is gone is no one's current version (the next
        look adopts the entrant again, snapshotting it anew)."""
        for ref, index in list(self.book.current.items()):
            directory = self.book.bots[index].directory
            if directory and not Path(directory).is_dir():
                del self.book.current[ref]

    async def open(self) -> None:
        """The first look at the entrants (before the first match): its failure is the run's."""
        await self.refresh_if_due(quiet=False)


def pairings_path(config: LadderConfig) -> Path:
    """The ladder's pairing log."""
    return config.state_dir / PAIRINGS_FILE


def open_continuous(config: LadderConfig, store: LadderStore, secret: str, *,
                    resolve: ResolveBot | None, sandbox: str | None, check: bool,
                    max_matches: int | None, entries: EntryFeed | None = None
                    ) -> ContinuousSource:
    """The source of a continuous ladder over the store, in the sandbox ``sandbox`` (else the
    ladder's), checked there first when ``check``; ``entries``: its entrants in memory."""
    box = get_sandbox(sandbox or config.sandbox)
    if check:
        box.check([])
    return ContinuousSource(config, store, box, secret, resolve or default_resolve, check,
                            max_matches, entries=entries)
