"""Frames of watched matches, computed once however many contestants watch.

A ``Feed`` is one (match, point of view): one thread reads the match's log (following it while
the match runs), replays it through the rules engine and renders each frame once, only as far
as its furthest watcher has read (plus ``LOOKAHEAD`` frames); every watcher of that view
iterates the same list. So fifty watchers of a match cost one replay and one rendering, not
fifty, and a watcher who leaves early costs only what they saw. ``Feeds`` keeps the live feeds
and the last ``KEEP_FINISHED`` finished ones (a popular replay is rendered once), and caps how
many feeds run at once (``MAX_FEEDS``): past it a new view is refused, never queued.

``Pacer`` paces what watchers receive: at most ``ARENA_WATCH_FPS`` frames a second per stream
(default 10) and ``ARENA_WATCH_TOTAL_FPS`` for the whole server (default 100, shared by all
streams), so an audience, however eager, takes a bounded share of the host from the matches
(a whole log is one `arena logs` call).
"""

from __future__ import annotations

import collections
import logging
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from arena.errors import ArenaError
from arena.host.views import Frame, seat_frames
from arena.model import MatchEvent
from arena.referee.log import follow_events, read_events

log = logging.getLogger(__name__)

KEEP_FINISHED = 64
"""Finished feeds kept for the next watcher."""
MAX_FEEDS = 256
"""Feeds alive at once."""
LOOKAHEAD = 32
"""Frames a feed renders ahead of its furthest watcher."""
UNWATCHED_S = 60.0
"""A feed nobody reads on from for this long stops (its place goes to another view)."""
IDLE_TIMEOUT_S = 600.0
"""A followed log that grows no line for this long ends its feed (a match that will not end)."""


class FeedsFull(ArenaError):
    """Too many matches are being watched at once."""


class Feed:
    """One match seen from one seat (None: the whole board)."""

    def __init__(self, path: Path, seat: int | None, follow: bool) -> None:
        self.frames: list[Frame] = []
        self.demand = 1
        """Frames some watcher has asked for: the feed renders up to ``LOOKAHEAD`` beyond."""
        self.done = False
        self.error = ""
        self._changed = threading.Condition()
        events: Callable[[], Iterable[MatchEvent]] = (
            (lambda: follow_events(path, poll_s=0.2, idle_timeout_s=IDLE_TIMEOUT_S)) if follow
            else (lambda: read_events(path)))
        self._thread = threading.Thread(target=self._run, args=(events, seat), daemon=True,
                                        name=f"feed-{path.stem}-{seat}")
        self._thread.start()

    def _run(self, events: Callable[[], Iterable[MatchEvent]], seat: int | None) -> None:
        try:
            for frame in seat_frames(events(), seat):
                with self._changed:
                    while len(self.frames) >= self.demand + LOOKAHEAD:
                        if not self._changed.wait(timeout=UNWATCHED_S):
                            self.error = "nobody watched it for a while"
                            return
                    self.frames.append(frame)
                    self._changed.notify_all()
        except (ArenaError, OSError, ValueError) as exc:
            self.error = str(exc)
            log.info("feed ended: %s", exc)
        finally:
            with self._changed:
                self.done = True
                self._changed.notify_all()

    def read(self, alive: Callable[[], bool]) -> Iterator[Frame]:
        """Every frame, waiting for new ones until the feed is done or ``alive()`` is false."""
        position = 0
        while True:
            with self._changed:
                if position + 1 > self.demand:
                    self.demand = position + 1
                    self._changed.notify_all()
                while position >= len(self.frames) and not self.done:
                    self._changed.wait(timeout=1.0)
                    if not alive():
                        return
                batch = self.frames[position:position + 1]
                finished = self.done
            yield from batch
            position += len(batch)
            if finished and position >= len(self.frames):
                return


class Pacer:
    """Frames a second, per stream and for the whole server (module doc)."""

    def __init__(self, per_stream: float, total: float) -> None:
        self.interval = 1.0 / per_stream
        self.rate = total
        self._tokens = total
        self._at = time.monotonic()
        self._lock = threading.Lock()

    def wait(self, last: float, alive: Callable[[], bool]) -> float:
        """Sleep until a stream that sent its previous frame at ``last`` may send the next;
        returns the time it may (0.0 when ``alive()`` turned false)."""
        while alive():
            now = time.monotonic()
            wait = last + self.interval - now
            if wait <= 0:
                with self._lock:
                    self._tokens = min(self.rate, self._tokens + (now - self._at) * self.rate)
                    self._at = now
                    if self._tokens >= 1:
                        self._tokens -= 1
                        return now
                    wait = (1 - self._tokens) / self.rate
            time.sleep(min(wait, 1.0))
        return 0.0


class Feeds:
    """The feeds of the server (module doc)."""

    def __init__(self) -> None:
        self._feeds: collections.OrderedDict[tuple[str, int | None], Feed] = (
            collections.OrderedDict())
        self._lock = threading.Lock()

    def feed(self, match_id: str, path: Path, seat: int | None, follow: bool) -> Feed:
        """The feed of ``match_id`` seen from ``seat`` (started if there is none)."""
        key = (match_id, seat)
        with self._lock:
            feed = self._feeds.get(key)
            if feed is not None and not (feed.done and feed.error):
                self._feeds.move_to_end(key)
                return feed
            self._trim()
            if len(self._feeds) >= MAX_FEEDS:
                raise FeedsFull(f"{MAX_FEEDS} matches are being watched: try again later")
            feed = self._feeds[key] = Feed(path, seat, follow)
            return feed

    def _trim(self) -> None:
        finished = [k for k, f in self._feeds.items() if f.done]
        for key in finished[:max(0, len(finished) - KEEP_FINISHED)]:
            del self._feeds[key]

    def live(self) -> int:
        """Feeds still reading their match."""
        with self._lock:
            return sum(1 for f in self._feeds.values() if not f.done)
