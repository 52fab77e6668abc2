"""Matches a hosted ladder's players play besides the ladder's own: reruns of void matches
(``arena host rerun``) and scrimmages (``arena challenge``).

They are played by the ladder's run itself, on its players (its cluster's workers), so they
need no player of their own and cannot hold one the ladder needs: ``ExtraSource`` wraps the
ladder's schedule (``run_ladder(wrap=...)``) and hands its workers an extra match instead of
the schedule's next one only while extras stay within ``share`` of the matches handed out
(at most 2 of every ``round(2 / share)``: with the default 0.25, 2 of every 8), or when the
schedule has had nothing to hand out for ``IDLE_S`` (an idle player takes one whatever the
share).
So the ladder keeps at least ``1 - share`` of its players' time however many extras wait, and
extras wait at most a few ladder matches.

Each extra is recorded under a ladder of its own (``ScheduledMatch.ladder``:
``<ladder>:reruns``, ``<ladder>:scrimmages``): the schedule, which reads the ladder's matches,
and the ladder's ratings never see it. Its players are versions the ladder has adopted (its
lineup: every version it ever played, so a retired one too); a player named without a version
plays at the ladder's current version of that name.

``ExtraMatches`` is the queue between the server's threads (the API's, the results thread that
applies the audit log) and the ladder's run; it outlives a run (the ladder is restarted after
an error) and is filled again from the database when the server starts, so a kill -9 loses
none (``arena.host.server``).
"""

from __future__ import annotations

import asyncio
import collections
import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from arena.bots.names import name_key
from arena.ladder.runner import MatchSource, ScheduleSource
from arena.ladder.schedules.schedule import ScheduledMatch
from arena.ladder.schedules.status import ScheduleStatus
from arena.model import MatchResult, Termination
from arena.referee.service import Lineup

log = logging.getLogger("arena.host")

IDLE_S = 1.0
"""The schedule has had nothing to hand out for this long: its player is idle, and takes a
waiting extra whatever the share (a look at the entrants takes milliseconds, a match seconds)."""
MAX_ATTEMPTS = 3
"""An extra the cluster gives up on this many times is dropped (``ExtraMatches.failed``)."""


@dataclass(frozen=True)
class Seat:
    """A player of an extra match: a bot name, at a version ("": the ladder's current one),
    with the code identity recorded for it ("": any)."""

    name: str
    version: str = ""
    identity: str = ""


@dataclass(frozen=True)
class Extra:
    """One extra match waiting for a player."""

    match_id: str
    encounter_id: str
    """Both legs of a duplicate scrimmage share it (and their seed): their seats are resolved
    together, and the runner never plays the two legs of one deal at once."""
    cycle: int
    leg: int
    seed: int
    seats: tuple[Seat, Seat]
    ladder: str
    """Where its result is recorded (``ScheduledMatch.ladder``)."""
    kind: str
    """"rerun" or "scrimmage"."""
    ref: int = 0
    """A scrimmage's number."""


Outcome = Callable[[Extra, str], None]
"""Told when an extra cannot be played (why, in words)."""


class ExtraMatches:
    """The extra matches waiting for one ladder's players (thread-safe: filled from any
    thread; the ladder's ``ExtraSource`` takes them)."""

    def __init__(self, on_dropped: Outcome | None = None) -> None:
        self._lock = threading.Lock()
        self._waiting: collections.deque[Extra] = collections.deque()
        self._ids: set[str] = set()
        """Every match id waiting or handed out (an id is queued once)."""
        self._attempts: collections.Counter[str] = collections.Counter()
        self._listeners: list[Callable[[], None]] = []
        self.on_dropped = on_dropped

    def add(self, extra: Extra) -> bool:
        """Queue ``extra`` (False: its id is queued or being played already); wakes the
        ladder."""
        with self._lock:
            if extra.match_id in self._ids:
                return False
            self._ids.add(extra.match_id)
            self._waiting.append(extra)
            listeners = list(self._listeners)
        for wake in listeners:
            try:
                wake()
            except RuntimeError:  # its loop is closed: that run has ended
                self.ignore(wake)
        return True

    def waiting(self) -> int:
        """How many wait for a player."""
        with self._lock:
            return len(self._waiting)

    def take(self) -> Extra | None:
        """The next waiting extra (None: none)."""
        with self._lock:
            return self._waiting.popleft() if self._waiting else None

    def pending(self) -> tuple[Extra, ...]:
        """Those waiting, in order."""
        with self._lock:
            return tuple(self._waiting)

    def again(self, extra: Extra) -> None:
        """A handed-out extra was dropped unplayed (the run stopped): first in line again."""
        with self._lock:
            self._waiting.appendleft(extra)

    def done(self, extra: Extra) -> None:
        """An extra was recorded."""
        with self._lock:
            self._ids.discard(extra.match_id)
            self._attempts.pop(extra.match_id, None)

    def failed(self, extra: Extra, why: str) -> None:
        """An extra could not be played (its players are not in the ladder; the cluster gave
        up on it too often): dropped, and said."""
        with self._lock:
            self._ids.discard(extra.match_id)
            self._attempts.pop(extra.match_id, None)
        log.warning("extra match %s (%s) dropped: %s", extra.match_id, extra.kind, why)
        if self.on_dropped is not None:
            self.on_dropped(extra, why)

    def given_up(self, extra: Extra) -> bool:
        """The cluster gave up on an attempt: True when it may be tried again."""
        with self._lock:
            self._attempts[extra.match_id] += 1
            return self._attempts[extra.match_id] < MAX_ATTEMPTS

    def listen(self, wake: Callable[[], None]) -> None:
        with self._lock:
            self._listeners.append(wake)

    def ignore(self, wake: Callable[[], None]) -> None:
        with self._lock:
            if wake in self._listeners:
                self._listeners.remove(wake)


def share_window(share: float) -> int:
    """The window of handed-out matches in which extras may take 2 (``share`` of them)."""
    return max(2, round(2 / share))


class ExtraSource:
    """A ladder's schedule with extra matches handed out besides it (module doc)."""

    def __init__(self, inner: ScheduleSource, extras: ExtraMatches, share: float,
                 idle_s: float = IDLE_S) -> None:
        self.inner = inner
        self.extras = extras
        self.idle_s = idle_s
        self._pull_since = 0.0
        """loop.time() when the pending ``_pull`` was asked."""
        self._window: collections.deque[bool] = collections.deque(maxlen=share_window(share))
        self._stash: collections.deque[ScheduledMatch] = collections.deque()
        """Matches the schedule handed out that no worker has taken yet."""
        self._pull: asyncio.Future[ScheduledMatch | None] | None = None
        """The schedule's pending ``next_match`` (one at a time)."""
        self._out: dict[str, Extra] = {}
        """Extras handed out, by match id."""
        self._resolved: dict[str, tuple[int, int]] = {}
        """Encounter id → the lineup indexes its seats were resolved to (seat 0, seat 1 of
        its first leg)."""
        self._wake = asyncio.Event()
        self._loop = asyncio.get_running_loop()
        extras.listen(self._waker)

    def _waker(self) -> None:
        """An extra was queued (from any thread): wake a worker waiting on the schedule."""
        self._loop.call_soon_threadsafe(self._wake.set)

    # -- the runner's ScheduleSource
    def lineup(self) -> Lineup:
        return self.inner.lineup()

    def status(self) -> ScheduleStatus:
        return self.inner.status()

    def stopped(self) -> str:
        return self.inner.stopped()

    def exhausted(self) -> bool:
        return self.inner.exhausted() and not self.extras.waiting() and not self._stash

    async def next_match(self) -> ScheduledMatch | None:
        """The schedule's next match, or an extra (module doc)."""
        while True:
            pull = self._pull
            if pull is not None and pull.done():
                self._pull = None
                match = pull.result()
                if match is None:  # the schedule is done: extras only, then the end
                    return self._hand_extra() if self.extras.waiting() else None
                self._stash.append(match)
                continue
            now = self._loop.time()
            idle = pull is not None and now - self._pull_since >= self.idle_s
            if self.extras.waiting() and (idle or self._share_allows()):
                extra = self._hand_extra()
                if extra is not None:
                    return extra
                continue
            if self._stash:
                self._window.append(False)
                return self._stash.popleft()
            if pull is None:
                self._pull = asyncio.ensure_future(self.inner.next_match())
                self._pull_since = now
                await asyncio.sleep(0)  # its answer, when it has one at once
                continue
            # extras wait (over the share): until the schedule answers or is idle long enough
            timeout = (max(0.0, self._pull_since + self.idle_s - now)
                       if self.extras.waiting() else None)
            self._wake.clear()
            woken: asyncio.Future[Any] = asyncio.ensure_future(self._wake.wait())
            try:
                await asyncio.wait([pull, woken], timeout=timeout,
                                   return_when=asyncio.FIRST_COMPLETED)
            finally:
                woken.cancel()

    def settled(self, match: ScheduledMatch, result: MatchResult | None) -> None:
        extra = self._out.pop(match.match_id, None)
        if extra is None:
            self.inner.settled(match, result)
            return
        if result is None:
            self.extras.again(extra)
        elif result.termination is Termination.CANCELLED and result.void:
            if self.extras.given_up(extra):
                self.extras.again(extra)
            else:
                self.extras.failed(extra, "the cluster gave up on it "
                                          f"{MAX_ATTEMPTS} times")
        else:
            self.extras.done(extra)
        if result is not None and extra.leg == 1:
            self._resolved.pop(extra.encounter_id, None)

    def close(self) -> None:
        """Stop listening to the queue (the run ended)."""
        self.extras.ignore(self._waker)
        if self._pull is not None:
            self._pull.cancel()

    def versions(self, name: str) -> tuple[str, ...]:
        """The versions of bot ``name`` the ladder has adopted (its lineup), oldest first."""
        key = name_key(name)
        return tuple(bot.version for bot in self.inner.lineup().bots
                     if name_key(bot.name) == key)

    # -- inside
    def _share_allows(self) -> bool:
        """Fewer than 2 extras among the last matches handed out (``share_window``)."""
        return sum(self._window) < 2

    def _hand_extra(self) -> ScheduledMatch | None:
        extra = self.extras.take()
        if extra is None:
            return None
        seats = self._seats(extra)
        if isinstance(seats, str):
            self.extras.failed(extra, seats)
            return None
        self._window.append(True)
        self._out[extra.match_id] = extra
        return ScheduledMatch(extra.match_id, extra.encounter_id, extra.cycle, extra.leg,
                              extra.seed, seats, ladder=extra.ladder)

    def _seats(self, extra: Extra) -> tuple[int, int] | str:
        """The lineup indexes of the extra's seats, or why it cannot be played."""
        known = self._resolved.get(extra.encounter_id)
        if known is not None:
            return known if extra.leg == 0 else (known[1], known[0])
        found = []
        for seat in extra.seats:
            index = self._index(seat)
            if index is None:
                version = f"@{seat.version}" if seat.version else ""
                return (f"{seat.name}{version} is not a player of the ladder (not entered, "
                        "or withdrawn)")
            found.append(index)
        seats = (found[0], found[1])
        first = seats if extra.leg == 0 else (seats[1], seats[0])
        self._resolved[extra.encounter_id] = first
        return seats

    def _index(self, seat: Seat) -> int | None:
        bots = self.inner.lineup().bots
        key = name_key(seat.name)
        if seat.version:
            for index, bot in enumerate(bots):
                if name_key(bot.name) == key and bot.version == seat.version and (
                        not seat.identity or bot.digest in ("", seat.identity)):
                    return index
            return None
        book = getattr(self.inner, "book", None)  # a continuous ladder: its current versions
        current = getattr(book, "current", {})
        for index in current.values():
            if name_key(bots[index].name) == key:
                return int(index)
        return None


def wrap_with(extras: ExtraMatches, share: float,
              on_open: Callable[[ExtraSource], None] | None = None
              ) -> Callable[[ScheduleSource], MatchSource]:
    """What ``run_ladder(wrap=...)`` takes: the schedule's source wrapped in an
    ``ExtraSource`` (told to ``on_open``: the server asks it which versions the ladder
    has)."""

    def wrap(source: ScheduleSource) -> MatchSource:
        wrapped = ExtraSource(source, extras, share)
        if on_open is not None:
            on_open(wrapped)
        return wrapped

    return wrap

