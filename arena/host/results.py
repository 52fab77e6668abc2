"""The server's view of each ladder's results: what the public calls read, kept up to date off
the request path.

A ``LadderResults`` holds every recorded match of one ladder in memory (read from the store
incrementally: rows are only ever appended, so each refresh reads just the new ones), an index by
match id, and the standings fitted after the last change. ``refresh`` runs in the server's
results thread; the API answers from the last snapshot (one reference swap, no lock on the read
path), so a standings call costs the same with 100 matches or 100k, and a fit never runs inside
a call. The fit itself is bounded to a share of a core (``FIT_SHARE``): with a big store the
standings lag the match list by a few seconds rather than refit with every result. Matches
in flight are reported by the ladder's runner events (``started``/``finished``).
"""

from __future__ import annotations

import bisect
import gc
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from arena.host.audit import Moderation
from arena.ladder.config import LadderConfig
from arena.ladder.reports import Standings, rates_versions, standings_of
from arena.ladder.store import LadderStore, StoredMatch


@dataclass(frozen=True)
class Snapshot:
    """One consistent view of a ladder's results."""

    matches: tuple[StoredMatch, ...] = ()
    """Every recorded match, in recording order."""
    index: dict[str, int] = field(default_factory=dict)
    """Match id → position in ``matches``."""
    standings: Standings | None = None
    at: float = 0.0
    """time.time() of the refresh."""


@dataclass(frozen=True)
class Running:
    """A match being played."""

    match_id: str
    names: tuple[str, str]
    """The bot names in seat order (versions stripped)."""
    started: float


FIT_SHARE = 0.2
"""The most of one core the standings' fit may take while results arrive: a fit that took
F seconds is repeated no sooner than F / FIT_SHARE seconds later (a few results: at once;
100k matches, ~0.7 s a fit: every ~3.5 s)."""


def bot_name(key: str) -> str:
    """The name of a player key (``name@version`` in a continuous ladder, else the name)."""
    return key.split("@", 1)[0]


class LadderResults:
    """One hosted ladder's results (module doc)."""

    def __init__(self, game: str, config: LadderConfig, store: LadderStore, *,
                 ladder: str = "", kind: str = "ladder",
                 reruns: LadderResults | None = None) -> None:
        """``ladder``: the store's ladder to read ("": the config's); ``kind``: what its
        matches are ("ladder", "rerun", "scrimmage": only a ladder's are fitted);
        ``reruns``: the results of the ladder's reruns (a rerun stands where its void match
        stood, ``Moderation.standing``)."""
        self.game = game
        self.config = config
        self.store = store
        self.ladder = ladder or config.name
        self.kind = kind
        self.reruns = reruns
        self.moderation = Moderation()
        """What the audit log says (``moderate``): the fit goes by it."""
        self.snapshot = Snapshot()
        self._last_row = -1
        self._by_bot: dict[str, list[int]] = {}
        """Bot name (lower case) → the positions of its matches, ascending. Lists are only
        appended to, so a reader bounded by its snapshot's length needs no lock."""
        self._running: dict[str, Running] = {}
        self._lock = threading.Lock()
        self._stale = True
        """Matches came since the standings were fitted."""
        self._fitted = -1e9
        """time.monotonic() of the last fit."""
        self._fit_s = 0.0
        """How long the last fit took."""

    def refresh(self) -> int:
        """Read the matches recorded since the last refresh and refit the standings when they
        are stale and the last fit is old enough (``FIT_SHARE``); returns how many were new."""
        old = self.snapshot
        last = self.store.last_row(self.ladder)
        new: list[StoredMatch] = []
        fitted = self.kind == "ladder"
        if last != self._last_row or (fitted and old.standings is None):
            new = self.store.matches(self.ladder, skip=len(old.matches))
            self._last_row = last
        self._stale = fitted and (self._stale or bool(new) or old.standings is None)
        due = self._stale and time.monotonic() - self._fitted >= self._fit_s / FIT_SHARE
        if not new and not due:
            return 0
        matches = old.matches + tuple(new)
        index = dict(old.index) if new else old.index
        for position, match in enumerate(new, start=len(old.matches)):
            index[match.match_id] = position
            for name in {bot_name(b).lower() for b in match.bots}:
                self._by_bot.setdefault(name, []).append(position)
        standings = old.standings
        if due:
            began = time.monotonic()
            reruns = {} if self.reruns is None else {
                m.match_id: m for m in self.reruns.snapshot.matches}
            standings = standings_of(
                self.config.name, self.moderation.standing(matches, reruns),
                prior=self.config.rating.prior,
                live=self.store.live_elo(self.config.name),
                given_up=len(self.store.void_attempts(self.config.name)),
                versions=rates_versions(self.config))
            self._fitted, self._fit_s = time.monotonic(), time.monotonic() - began
            self._stale = False
        self.snapshot = Snapshot(matches, index, standings, time.time())
        # a long-lived heap of 100k results: keep the collector from walking it on every
        # full collection (a pause in the middle of an API call); acyclic garbage is still freed
        gc.freeze()
        with self._lock:
            for match in new:
                self._running.pop(match.match_id, None)
        return len(new)

    def moderate(self, moderation: Moderation) -> None:
        """Fit the standings by ``moderation`` from now on (at the next refresh)."""
        self.moderation = moderation
        self.stale()

    def stale(self) -> None:
        """Fit the standings again at the next refresh (its reruns changed)."""
        self._stale = self.kind == "ladder"

    def find(self, match_id: str) -> StoredMatch | None:
        """A recorded match of this ladder by id."""
        snap = self.snapshot
        position = snap.index.get(match_id)
        return None if position is None else snap.matches[position]

    def page(self, *, names: Sequence[str] = (), limit: int = 50, before: int | None = None
             ) -> tuple[list[StoredMatch], int | None]:
        """Recorded matches newest first: those before position ``before`` (a cursor) in which
        one of ``names`` played (all when empty); returns the page and the next cursor."""
        snap = self.snapshot
        end = len(snap.matches) if before is None else max(0, min(before, len(snap.matches)))
        if names:
            merged: set[int] = set()
            for name in {n.lower() for n in names}:
                positions = self._by_bot.get(name, [])
                cut = bisect.bisect_left(positions, end)
                merged.update(positions[max(0, cut - limit):cut])
            chosen = sorted(merged, reverse=True)[:limit]
        else:
            chosen = list(range(end - 1, max(-1, end - 1 - limit), -1))
        page = [snap.matches[p] for p in chosen]
        more = len(chosen) == limit and chosen[-1] > 0 and (
            not names or any(bisect.bisect_left(self._by_bot.get(n.lower(), []), chosen[-1])
                             for n in names))
        return page, (chosen[-1] if more else None)

    def started(self, match_id: str, keys: tuple[str, str]) -> None:
        """The runner started a match."""
        with self._lock:
            self._running[match_id] = Running(match_id, (bot_name(keys[0]), bot_name(keys[1])),
                                              time.time())

    def finished(self, match_id: str, recorded: bool = False) -> None:
        """The runner is done with a match (recorded, void, or dropped). A match just
        ``recorded`` stays in flight until a refresh lists it: between the two it would be
        neither, and a watcher asking for it told there is no such match."""
        with self._lock:
            if not recorded or match_id in self.snapshot.index:  # else: refresh drops it
                self._running.pop(match_id, None)

    def running(self, match_id: str) -> Running | None:
        """A match in flight by id."""
        with self._lock:
            return self._running.get(match_id)

    def in_flight(self) -> int:
        """How many matches are being played."""
        with self._lock:
            return len(self._running)

    def dropped(self) -> None:
        """The ladder stopped for good (the season's final): its matches in flight were
        dropped, never to be recorded."""
        with self._lock:
            self._running.clear()
