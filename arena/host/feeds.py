"""Frames of watched matches, computed once however many contestants watch.

A ``Feed`` is one (match, point of view): its frames are drawn once, only as far as its
furthest watcher has read (plus ``LOOKAHEAD`` frames), in chunks, by the feeds' **drawing
process**: a process of its own at the lowest CPU priority (``nice`` 19, unless the server's
``ARENA_WATCH_NICE`` says otherwise), which replays the log from its start (about 15 µs an
event) and draws the chunk's frames (about 5 ms each; a watcher who asks for records only, as
`arena watch --server`'s app does, gets each event as a record they may have instead,
``views.watch_records``, no board drawn). So an audience gets the CPU the matches leave: on a
busy host the frames come later, the matches do not slow down (a thread of the server could not
be given a lower priority without holding the interpreter's lock from the ladder's thread).
Every watcher of that view iterates the same
list: fifty watchers of a match cost one drawing, not fifty, and a watcher who leaves early
costs only what they saw. ``Feeds`` keeps the live feeds
and the last ``KEEP_FINISHED`` finished ones (a popular replay is rendered once), and caps how
many feeds run at once (``MAX_FEEDS``): past it a new view is refused, never queued.

``Pacer`` paces what watchers receive: at most ``ARENA_WATCH_FPS`` frames a second per stream
(default 10) and ``ARENA_WATCH_TOTAL_FPS`` for the whole server (default 100, shared by all
streams), so an audience, however eager, takes a bounded share of the host from the matches
(a whole log is one `arena logs` call).
"""

from __future__ import annotations

import collections
import concurrent.futures
import concurrent.futures.process
import contextlib
import dataclasses
import itertools
import logging
import multiprocessing
import os
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from arena.errors import ArenaError
from arena.host.errors import FeedsFull
from arena.host.views import watch_records
from arena.record.log import follow_events, read_events
from arena.record.replay import replay_events
from arena.render.frames import Frame, step_frames

log = logging.getLogger(__name__)

KEEP_FINISHED = 64
"""Finished feeds kept for the next watcher."""
MAX_FEEDS = 256
"""Feeds alive at once."""
LOOKAHEAD = 32
"""Frames a feed draws ahead of its furthest watcher."""
CHUNK = 32
"""Frames the drawing process draws in one go."""
FOLLOW_POLL_S = 0.3
"""How often a feed of a running match looks for new moves."""
UNWATCHED_S = 60.0
"""A feed nobody reads on from for this long stops (its place goes to another view)."""
IDLE_TIMEOUT_S = 600.0
"""A followed log that grows no line for this long ends its feed (a match that will not end)."""


LOWEST_NICE = 19
"""The drawing process's nice value unless the server is told otherwise (``ARENA_WATCH_NICE``)."""


ORPHAN_CHECK_S = 1.0
"""How often the drawing process looks whether the server that started it is still there."""


def _low_priority(nice: int, server: int) -> None:
    """The drawing process's initializer: a low CPU priority (``nice``; the lowest, 19, by
    default). Where the kernel groups the processes of a session (autogroup scheduling, Linux's
    default on desktops and many servers), a process's nice value counts only within its
    session, and each session (each sandboxed bot is one) gets an equal share: so the drawing
    process also becomes a session of its own whose group has that priority.

    It ends when the server (pid ``server``) is gone, however it went: a server killed with
    SIGKILL closes nothing, the pool's queue never says so (this process holds both of its
    ends), and the killed server's session does not hold it."""
    os.nice(nice)
    with contextlib.suppress(OSError):
        os.setsid()
        Path("/proc/self/autogroup").write_text(str(nice))
    threading.Thread(target=_end_with, args=(server,), name="orphan-watch", daemon=True).start()


def _end_with(server: int) -> None:
    while os.getppid() == server:
        time.sleep(ORPHAN_CHECK_S)
    os._exit(0)


def draw(path: str, seat: int | None, start: int, follow: bool, boards: bool = True
         ) -> tuple[list[Frame], bool]:
    """In the drawing process: frames ``start`` to ``start + CHUNK`` of the log at ``path`` as
    it is now (a growing log: its complete lines), and whether the match has ended. Without
    ``boards``, nothing is drawn: each frame has its caption and its record for the watcher
    (``views.watch_records``) instead."""
    log_path = Path(path)
    if follow and not log_path.exists():
        return [], False
    events = (follow_events(log_path, poll_s=0.05, idle_timeout_s=0.0) if follow
              else read_events(log_path))
    steps = replay_events(events)
    if boards:
        frames = list(itertools.islice(step_frames(steps, seat, start), CHUNK))
    else:  # the records (one replay for both), with the captions
        captioned, recorded = itertools.tee(steps)
        frames = [dataclasses.replace(frame, record=record.decode().rstrip("\n"))
                  for frame, record in itertools.islice(
                      zip(step_frames(captioned, seat, start, boards=False),
                          watch_records(recorded, seat, start=start), strict=True), CHUNK)]
    ended = bool(frames) and frames[-1].final
    return frames, ended or (not follow and len(frames) < CHUNK)


class Feed:
    """One match seen from one seat (None: the whole board), with its boards drawn or only its
    records."""

    def __init__(self, pool: concurrent.futures.Executor, path: Path, seat: int | None,
                 follow: bool, boards: bool = True) -> None:
        self.frames: list[Frame] = []
        self.demand = 1
        """Frames some watcher has asked for: the feed draws up to ``LOOKAHEAD`` beyond."""
        self.done = False
        self.error = ""
        self._changed = threading.Condition()
        self._thread = threading.Thread(target=self._run, args=(pool, path, seat, follow, boards),
                                        daemon=True, name=f"feed-{path.stem}-{seat}")
        self._thread.start()

    def _run(self, pool: concurrent.futures.Executor, path: Path, seat: int | None,
             follow: bool, boards: bool) -> None:
        idle = 0.0
        try:
            while True:
                with self._changed:
                    while len(self.frames) >= self.demand + LOOKAHEAD:
                        if not self._changed.wait(timeout=UNWATCHED_S):
                            self.error = "nobody watched it for a while"
                            return
                    start = len(self.frames)
                frames, ended = pool.submit(draw, str(path), seat, start, follow, boards).result()
                with self._changed:
                    self.frames.extend(frames)
                    self._changed.notify_all()
                if ended:
                    return
                if not frames:  # a running match: its next moves are not played yet
                    idle += FOLLOW_POLL_S
                    if idle > IDLE_TIMEOUT_S:
                        self.error = f"{path.name} grew no line for {IDLE_TIMEOUT_S:.0f} s"
                        return
                    time.sleep(FOLLOW_POLL_S)
                else:
                    idle = 0.0
        except (ArenaError, OSError, ValueError, concurrent.futures.process.BrokenProcessPool,
                RuntimeError) as exc:
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
    """Frames a second, per stream and for the whole server (module doc): each frame gets the
    next free slot of the server's schedule (a virtual clock: one slot every 1/total seconds),
    no sooner than its stream's previous frame plus 1/per_stream; a stream sleeps once, until
    its slot (no polling, so a thousand waiting streams cost nothing while they wait)."""

    def __init__(self, per_stream: float, total: float) -> None:
        self.interval = 1.0 / per_stream
        self.step = 1.0 / total
        self._next = 0.0
        self._lock = threading.Lock()

    def wait(self, last: float, alive: Callable[[], bool]) -> float:
        """Sleep until a stream that sent its previous frame at ``last`` may send the next;
        returns that time (0.0 when ``alive()`` turned false first)."""
        with self._lock:
            slot = max(time.monotonic(), self._next, last + self.interval)
            self._next = slot + self.step
        while alive():
            left = slot - time.monotonic()
            if left <= 0:
                return slot
            time.sleep(min(left, 1.0))
        return 0.0


class Feeds:
    """The feeds of the server (module doc)."""

    def __init__(self, nice: int = LOWEST_NICE) -> None:
        if not 0 <= nice <= LOWEST_NICE:
            raise ValueError(f"the drawing process's nice value {nice} is not within 0-19")
        self._feeds: collections.OrderedDict[tuple[str, int | None, bool], Feed] = (
            collections.OrderedDict())
        self._lock = threading.Lock()
        # spawned, not forked: the server's process runs gRPC threads
        self._pool = concurrent.futures.ProcessPoolExecutor(
            max_workers=1, mp_context=multiprocessing.get_context("spawn"),
            initializer=_low_priority, initargs=(nice, os.getpid()))

    def feed(self, match_id: str, path: Path, seat: int | None, follow: bool,
             boards: bool = True) -> Feed:
        """The feed of ``match_id`` seen from ``seat``, its boards drawn or not (started if
        there is none)."""
        key = (match_id, seat, boards)
        with self._lock:
            feed = self._feeds.get(key)
            if feed is not None and not (feed.done and feed.error):
                self._feeds.move_to_end(key)
                return feed
            self._trim()
            if len(self._feeds) >= MAX_FEEDS:
                raise FeedsFull(f"{MAX_FEEDS} matches are being watched: try again later")
            feed = self._feeds[key] = Feed(self._pool, path, seat, follow, boards)
            return feed

    def close(self) -> None:
        """Stop the drawing process, without waiting for the frames it is drawing: nobody will
        read them, and at the lowest priority on a busy host they took tens of seconds, which
        the server's exit waited for (the executor's exit handler joins its workers)."""
        # the executor's own list of its processes: 3.11 has no public way to end a busy worker
        workers = list((getattr(self._pool, "_processes", None) or {}).values())
        self._pool.shutdown(wait=False, cancel_futures=True)
        for worker in workers:
            worker.terminate()

    def _trim(self) -> None:
        finished = [k for k, f in self._feeds.items() if f.done]
        for key in finished[:max(0, len(finished) - KEEP_FINISHED)]:
            del self._feeds[key]

    def live(self) -> int:
        """Feeds still reading their match."""
        with self._lock:
            return sum(1 for f in self._feeds.values() if not f.done)
