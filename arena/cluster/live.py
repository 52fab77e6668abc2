"""Live match logs of cluster matches: a worker streams a match's log to the head while it grows,
and the head writes it where a referee in the ladder process would have, so ``arena watch
--follow <log_dir>/<match_id>.jsonl`` follows a cluster match move by move.

Worker side: ``LogStream`` runs as an asyncio task in the match's own event loop (the task runs
``asyncio.run`` around ``play_match``). Every ``INTERVAL_S`` it reads what the referee appended to
the log file in the worker's temporary directory and sends the new complete lines as one Dask
event on ``LOG_TOPIC``: ``{"match_id", "worker", "attempt", "offset", "data"}`` (``attempt`` a
random token of this run of the task, ``offset`` where the bytes start in the log, ``data`` the
bytes compressed with zlib level 1). Reading the file, rather than the ``on_event`` hook, sends
exactly the bytes the referee wrote without a second JSON encoding; batching by interval makes a
match of ~250 lines (~20 KB, ~4 KB compressed) two to a handful of events. A last flush after
the match end sends the rest, so the stream of a finished match always ends with its
``match_end`` line.

Head side: ``LiveLogs`` subscribes to the topic (in the head's event loop) and writes the chunks of
the matches the head has in flight to their final path, a private file. An attempt's first chunk
(offset 0, an attempt not seen yet) opens the file; an earlier file there (an attempt whose worker
died, or a killed run) is set aside as ``.aborted-<n>`` first, never appended to. Chunks of a
superseded or unknown attempt, or out of order, are dropped; a gap in the offsets stops the live
copy (the final log is still written). The ``match_end`` line names the head's paths (as
``write_outputs`` relocates it), so the live copy ends exactly as the final log does;
``write_outputs`` completes it (when chunks were lost) and then replaces it. Dask delivers a
worker's events in order, and a dead worker's events before the scheduler replays its match, so an
older attempt's chunks precede the new one's.

Bounded: chunks of match ids not in flight are ignored, a live copy stops at ``LIVE_LOG_CAP``
bytes (decompression included), a match opens at most ``MAX_ATTEMPTS`` live copies, and the
scheduler keeps no history of the topic (``VersionGate.log_event``): the omniscient log reaches
only the head's private log directory.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import zlib
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from distributed import get_worker

from arena.cluster import LIVE_LOG_CAP, LOG_TOPIC
from arena.cluster.settings import ALLOWED_FAILURES
from arena.model import MatchEndEvent
from arena.record.log import (
    aborted_name,
    open_private,
    private_dir,
    seat_log_path,
    write_seed_sidecar,
)

log = logging.getLogger(__name__)

INTERVAL_S = 0.3
"""How often a worker sends what its match log gained."""
MAX_ATTEMPTS = ALLOWED_FAILURES + 2
"""The most attempts of one match the head opens a live copy for (Dask gives a match up after
``ALLOWED_FAILURES`` + 1 worker deaths)."""
_MATCH_END = b'"match_end"'

Send = Callable[[dict[str, Any]], None]


# --- the worker's side -----------------------------------------------------------------------
class LogStream:
    """Streams one match's growing log file as ``LOG_TOPIC`` chunks through ``send``."""

    def __init__(self, path: Path, match_id: str, worker: str, attempt: str,
                 send: Send | None = None) -> None:
        self.path = path
        self.match_id, self.worker, self.attempt = match_id, worker, attempt
        self.send = send or _log_event
        self.offset = 0
        """Bytes of the log sent so far (always whole lines)."""

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[LogStream]:
        """Stream while the body (the match) runs, then send the rest of the log."""
        pump = asyncio.create_task(self._pump())
        try:
            yield self
        finally:
            pump.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await pump
            self.flush()

    async def _pump(self) -> None:
        while True:
            await asyncio.sleep(INTERVAL_S)
            self.flush()

    def flush(self) -> None:
        """Send the complete lines written since the last flush (none: nothing is sent). A
        failure to read or send stops nothing but this flush: a live view never breaks a
        match."""
        if self.offset >= LIVE_LOG_CAP:
            return
        try:
            with self.path.open("rb") as handle:
                handle.seek(self.offset)
                data = handle.read(LIVE_LOG_CAP - self.offset)
        except FileNotFoundError:  # the referee has not opened it yet
            return
        end = data.rfind(b"\n") + 1
        if not end:
            return
        try:
            self.send({"match_id": self.match_id, "worker": self.worker,
                       "attempt": self.attempt, "offset": self.offset,
                       "data": zlib.compress(data[:end], 1)})
        except Exception:  # noqa: BLE001 — e.g. the worker is closing
            log.debug("live log chunk of %s not sent", self.match_id, exc_info=True)
            return
        self.offset += end


def _log_event(message: dict[str, Any]) -> None:
    get_worker().log_event(LOG_TOPIC, message)


# --- the head's side -------------------------------------------------------------------------
@dataclass(frozen=True)
class Chunk:
    """One ``LOG_TOPIC`` event, checked."""

    match_id: str
    attempt: tuple[str, str]
    """(worker address, token)."""
    offset: int
    data: bytes
    """Compressed."""

    @classmethod
    def of(cls, message: Any) -> Chunk | None:
        """The chunk of a topic message; None for anything malformed."""
        if not isinstance(message, dict):
            return None
        match_id, worker = message.get("match_id"), message.get("worker")
        attempt, offset, data = message.get("attempt"), message.get("offset"), message.get("data")
        if not (isinstance(match_id, str) and isinstance(worker, str)
                and isinstance(attempt, str) and isinstance(data, bytes)
                and isinstance(offset, int) and not isinstance(offset, bool) and offset >= 0):
            return None
        return cls(match_id, (worker, attempt), offset, data)


@dataclass
class LiveLog:
    """The head's live copy of one match in flight: which attempt it holds and how far."""

    path: Path
    cap: int = LIVE_LOG_CAP
    attempt: tuple[str, str] | None = None
    seen: set[tuple[str, str]] = field(default_factory=set)
    handle: IO[str] | None = None
    received: int = 0
    """Bytes of the attempt's log taken: the offset the next chunk must have."""
    written: int = 0
    """Bytes in the live file (its ``match_end`` line relocated)."""
    stopped: bool = False
    """A gap, the cap or a failure: this attempt's live copy grows no more."""
    ended: bool = False
    """The ``match_end`` line is in."""

    def take(self, chunk: Chunk) -> None:
        """Append ``chunk`` if it continues the current attempt (or starts a new one)."""
        if chunk.attempt != self.attempt:
            if chunk.attempt in self.seen or chunk.offset != 0 or len(self.seen) >= MAX_ATTEMPTS:
                return  # superseded, joined midway, or one attempt too many
            self._start(chunk.attempt)
        if self.stopped or self.ended or chunk.offset < self.received:
            return
        if chunk.offset > self.received:  # a chunk was lost: the final write has it all
            self.stopped = True
            return
        data = inflate(chunk.data, self.cap - self.received)
        if data is None:
            self.stopped = True
            return
        self.received += len(data)
        self._write(self._relocated(data))

    def holds(self, worker: str, attempt: str) -> bool:
        """Whether the file at ``path`` is this attempt's live copy."""
        return self.handle is not None and self.attempt == (worker, attempt)

    def complete(self, final: bytes) -> None:
        """Append what the live copy lacks of ``final`` (the relocated log of its attempt), so a
        follower holding the file reads on to the match end after the file is replaced."""
        if self.handle is not None and not self.ended and self.written < len(final):
            self._write(final[self.written:])

    def close(self) -> None:
        if self.handle is not None:
            self.handle.close()
            self.handle = None

    def _start(self, attempt: tuple[str, str]) -> None:
        self.close()
        private_dir(self.path.parent)
        if self.path.exists():
            self.path.rename(aborted_name(self.path))
        self.handle = open_private(self.path)
        self.attempt = attempt
        self.seen.add(attempt)
        self.received = self.written = 0
        self.stopped = self.ended = False

    def _write(self, data: bytes) -> None:
        assert self.handle is not None
        self.handle.write(data.decode("utf-8"))
        self.handle.flush()
        self.written += len(data)

    def _relocated(self, data: bytes) -> bytes:
        """``data`` with a last ``match_end`` line naming the head's paths."""
        start = data.rfind(b"\n", 0, len(data) - 1) + 1
        if _MATCH_END not in data[start:]:
            return data
        line = relocate_end(data[start:].decode("utf-8"), self.path)
        if line is None:
            return data
        self.ended = True
        return data[:start] + line.encode("utf-8")


def inflate(data: bytes, room: int) -> bytes | None:
    """``data`` decompressed, None if it holds more than ``room`` bytes (checked while
    inflating: a zlib bomb stops there) or is not one whole zlib stream."""
    inflater = zlib.decompressobj()
    try:
        out = inflater.decompress(data, max(room, 0) + 1)
    except zlib.error:
        return None
    if len(out) > room or not inflater.eof:
        return None
    return out


class LiveLogs:
    """The head's live copies of the matches in flight; ``handle`` is the topic's subscriber."""

    def __init__(self, cap: int = LIVE_LOG_CAP) -> None:
        self.cap = cap
        self._logs: dict[str, LiveLog] = {}
        self._sidecars: dict[str, Path] = {}

    def expect(self, match_id: str, log_dir: Path, seed: int | None = None) -> LiveLog:
        """Take the chunks of ``match_id`` from now on, into ``log_dir``. ``seed``: the match's
        seed, kept in the live copy's private sidecar until ``release`` (its header commits to
        the seed: the head's watchers read it there)."""
        path = log_dir / f"{match_id}.jsonl"
        live = LiveLog(path, self.cap)
        if seed is not None:
            private_dir(log_dir)
            self._sidecars[match_id] = write_seed_sidecar(path, seed)
        self._logs[match_id] = live
        return live

    def release(self, match_id: str) -> None:
        """Take no more chunks of ``match_id`` (its live copy stays open for ``complete``);
        its seed sidecar is removed."""
        self._logs.pop(match_id, None)
        sidecar = self._sidecars.pop(match_id, None)
        if sidecar is not None:
            sidecar.unlink(missing_ok=True)

    def handle(self, event: tuple[float, Any]) -> None:
        """One ``(time, message)`` event of ``LOG_TOPIC``; never raises."""
        chunk = Chunk.of(event[1])
        live = None if chunk is None else self._logs.get(chunk.match_id)
        if chunk is None or live is None:
            return
        try:
            live.take(chunk)
        except Exception as exc:  # noqa: BLE001 — the live copy is a view, the final log counts
            log.warning("live log of %s stopped: %s", chunk.match_id, exc)
            live.stopped = True


# --- paths -----------------------------------------------------------------------------------
def relocate(text: str, log_path: str, seat_logs: tuple[str | None, str | None]) -> str:
    """A match log whose final ``match_end`` record names the head's paths of the logs (the
    worker wrote it in a temporary directory)."""
    lines = text.splitlines()
    if not lines:
        return text
    try:
        last = json.loads(lines[-1])
    except json.JSONDecodeError:
        return text
    if not isinstance(last, dict) or last.get("type") != MatchEndEvent.type:
        return text
    last["result"]["log"] = log_path
    last["bot_logs"] = list(seat_logs)
    lines[-1] = json.dumps(last, separators=(",", ":"))
    return "\n".join(lines) + "\n"


def relocate_end(line: str, log_path: Path) -> str | None:
    """A worker's ``match_end`` line naming the head's paths: ``log_path``, and beside it the
    log of each seat whose output the worker kept (where ``write_outputs`` puts it); None if
    ``line`` is not a ``match_end`` record."""
    record = json.loads(line)
    if not isinstance(record, dict) or record.get("type") != MatchEndEvent.type:
        return None
    kept = list(record.get("bot_logs") or ())[:2] + [None, None]
    seats = tuple(str(seat_log_path(log_path, seat)) if kept[seat] else None for seat in (0, 1))
    return relocate(line, str(log_path), (seats[0], seats[1]))
