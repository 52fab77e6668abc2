"""Match logs: JSON lines, one event per line, flushed as they happen (so `watch --follow` and
`replay` work on a running match). The records are the typed events of ``arena.model``
(``HeaderEvent``, ``DealEvent``, ``DecisionEvent``, ``RoundEndEvent``, ``MatchEndEvent``); each
line is one event's ``to_json()`` and reads back with ``event_from_json``. A signed log ends with
one more line, the signature record (``arena.record.signing``), and a log a contestant
downloaded with a signed statement instead: the readers here skip both.

The seed (log format 4): the header holds only a commitment, and the match end reveals the salt
(the result holds the seed). While the match runs the seed is in a private sidecar file
``<match_id>.seed`` beside the log (0600, removed when the log closes), so the operator's live
views (``arena watch --follow``, the competition's feeds) still replay the running match. The
readers fill ``HeaderEvent.seed`` in from the reveal or the sidecar; checking the commitment is
replay's job.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO

from arena.errors import LogFormatError
from arena.model import HeaderEvent, MatchEndEvent, MatchEvent, event_from_json

SIGNATURE_TYPE = "signature"
"""The ``type`` of a signed log's last line (``arena.record.signing``): not a match event."""
STATEMENT_TYPE = "statement"
"""The ``type`` of a downloaded log's last line, the referee's signed statement of it
(``arena.record.signing``): not a match event either."""


class MatchLogWriter:
    """Writes events to a new log file, one JSON object per line, flushed at once.

    A log already at ``path`` is an earlier attempt of the same match id that never finished
    (e.g. a ladder killed mid-match replays it with the same id): it is kept beside the new one
    as ``<match_id>.aborted-<n>.jsonl``, never appended to (with its seed sidecar, if left).

    A log holds every deal of its match: it is readable by its owner only (0600, in a directory
    made 0700), so no bot running as another user reads the deal of a match in progress."""

    def __init__(self, path: Path, seed: int | None = None) -> None:
        """``seed``: the match's seed, kept in the private sidecar while the log is open (a
        committed header does not state it)."""
        self.path = path
        private_dir(path.parent)
        if path.exists():
            aborted = aborted_name(path)
            path.rename(aborted)
            with contextlib.suppress(FileNotFoundError):  # its seed, if that attempt died
                seed_sidecar_path(path).rename(seed_sidecar_path(aborted))
        self._sidecar = None if seed is None else write_seed_sidecar(path, seed)
        self._file: IO[str] = open_private(path)

    def write(self, event: MatchEvent) -> None:
        self._file.write(json.dumps(event.to_json(), separators=(",", ":")) + "\n")
        self._file.flush()

    def close(self) -> None:
        self._file.close()
        if self._sidecar is not None:
            with contextlib.suppress(FileNotFoundError):
                self._sidecar.unlink()


def seed_sidecar_path(log_path: Path) -> Path:
    """Where a running match's seed is kept beside its log: ``<match_id>.seed``."""
    return log_path.with_name(f"{log_path.name.removesuffix('.jsonl')}.seed")


def write_seed_sidecar(log_path: Path, seed: int) -> Path:
    """Write the private sidecar of ``log_path`` (replacing an earlier attempt's)."""
    path = seed_sidecar_path(log_path)
    with contextlib.suppress(FileNotFoundError):
        path.unlink()
    with open_private(path) as handle:
        handle.write(json.dumps({"seed": seed}))
    return path


def _sidecar_seed(log_path: Path) -> int | None:
    try:
        data = json.loads(seed_sidecar_path(log_path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    seed = data.get("seed") if isinstance(data, dict) else None
    return seed if isinstance(seed, int) and not isinstance(seed, bool) else None


def with_seed(events: list[MatchEvent], log_path: Path | None = None) -> list[MatchEvent]:
    """``events`` with a committed header's seed filled in: from the match end's result (a
    finished log), else from the sidecar of ``log_path`` (a running one), else left None."""
    header = events[0] if events else None
    if not isinstance(header, HeaderEvent) or header.seed is not None:
        return events
    end = events[-1]
    seed = end.result.seed if isinstance(end, MatchEndEvent) else (
        None if log_path is None else _sidecar_seed(log_path))
    if seed is None:
        return events
    return [dataclasses.replace(header, seed=seed), *events[1:]]


def private_dir(path: Path) -> None:
    """Create ``path`` readable by its owner only, and every missing parent too (a parent made
    with the default mode would let anyone list and enter what the arena keeps there, as the
    parent of a state directory's ``keys/`` once did); an existing directory is left as it is
    (``tighten`` closes one the arena owns)."""
    missing = [path, *(p for p in path.parents)]
    for depth, directory in enumerate(missing):
        if directory.exists():
            missing = missing[:depth]
            break
    for directory in reversed(missing):
        with contextlib.suppress(FileExistsError):  # made meanwhile by another process
            os.mkdir(directory, 0o700)


def tighten(path: Path, mode: int) -> None:
    """Give ``path`` (a store, a state directory) ``mode`` if it is this user's and grants more
    (made by an older arena, or under a loose umask); nothing when it is not there or another
    user's."""
    with contextlib.suppress(FileNotFoundError):
        info = path.lstat()
        if info.st_uid == os.geteuid() and (info.st_mode & 0o777) & ~mode:
            os.chmod(path, (info.st_mode & 0o777) & mode)


def open_private(path: Path) -> IO[str]:
    """A new text file readable by its owner only (``FileExistsError`` if it exists)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    return os.fdopen(fd, "w", encoding="utf-8")


def seat_log_path(log_path: Path, seat: int) -> Path:
    """Where a seat's output tail is kept: beside its match log ``<match_id>.jsonl``, as
    ``<match_id>.seat<n>.log`` (the referee writes it there; the cluster's head too)."""
    return log_path.with_name(f"{log_path.name.removesuffix('.jsonl')}.seat{seat}.log")


def aborted_name(path: Path) -> Path:
    """The free name ``<match_id>.aborted-<n>.jsonl`` beside ``path`` (the lowest ``n``) under
    which an unfinished log of an earlier attempt is kept."""
    stem = path.name.removesuffix(".jsonl")
    n = 1
    while (candidate := path.with_name(f"{stem}.aborted-{n}.jsonl")).exists():
        n += 1
    return candidate


def read_events(path: Path) -> Iterator[MatchEvent]:
    """The events of a (possibly still growing) log; a torn last line is ignored, and so is a
    signature or statement record; a committed header's seed is filled in (``with_seed``).
    Anything else that is not a match event is a ``LogFormatError`` naming the file and
    line."""
    yield from with_seed(list(_read_events(path)), path)


def _read_events(path: Path) -> Iterator[MatchEvent]:
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise LogFormatError(f"{path} is not a match log: not UTF-8 text ({exc.reason} at "
                             f"byte {exc.start})") from None
    except OSError as exc:
        raise LogFormatError(f"cannot read match log {path}: {exc.strerror}") from None
    lines = text.split("\n")
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except json.JSONDecodeError:
            if number == len(lines):  # the writer is in the middle of this line
                return
            raise LogFormatError(f"{path}:{number}: not a JSON object") from None
        if _is_signature(data):
            continue
        yield _event(data, f"{path}:{number}")


def _is_signature(data: object) -> bool:
    """Whether a record is a signature or a statement (not a match event)."""
    return isinstance(data, dict) and data.get("type") in (SIGNATURE_TYPE, STATEMENT_TYPE)


def _event(data: object, where: str) -> MatchEvent:
    try:
        return event_from_json(data)
    except LogFormatError as exc:
        raise LogFormatError(f"{where}: not a match log event ({exc})") from None


def follow_events(path: Path, poll_s: float = 0.1, idle_timeout_s: float | None = None,
                  stopped: Callable[[], bool] | None = None) -> Iterator[MatchEvent]:
    """Tail a log that may still be written: yield each complete event as it appears and stop
    after the match end (or after ``idle_timeout_s`` without a new line, or when ``stopped()``
    says so while it waits: a watcher closing).

    The file is read through one handle: if ``path`` comes to name another file (a cluster
    match's final log replacing its live copy, or a new attempt of the match setting this one
    aside as ``.aborted-<n>``), what was written to the followed file is read to its end first.
    A replaced live copy ends with the match end, so the follower finishes normally; a log set
    aside unfinished raises ``LogFormatError`` (the match started again: follow ``path`` anew)
    rather than waiting forever for lines that will never come."""
    waited = 0.0
    while not path.exists():
        if stopped is not None and stopped():
            return
        if idle_timeout_s is not None and waited >= idle_timeout_s:
            raise LogFormatError(f"{path} did not appear within {idle_timeout_s:.0f} s")
        time.sleep(poll_s)
        waited += poll_s
    buffer = ""
    idle = 0.0
    number = 0
    replaced = False
    with path.open("r", encoding="utf-8", errors="strict") as handle:
        while True:
            try:
                chunk = handle.read()
            except UnicodeDecodeError:
                raise LogFormatError(f"{path} is not a match log: not UTF-8 text") from None
            if chunk:
                idle = 0.0
                buffer += chunk
                *lines, buffer = buffer.split("\n")
                for line in lines:
                    number += 1
                    if not line.strip():
                        continue
                    try:
                        data = json.loads(line)
                    except json.JSONDecodeError:
                        raise LogFormatError(f"{path}:{number}: not a JSON object") from None
                    if _is_signature(data):
                        continue
                    event = _event(data, f"{path}:{number}")
                    if isinstance(event, HeaderEvent) and event.seed is None:
                        event = _followed_header(path, event)
                    yield event
                    if isinstance(event, MatchEndEvent):
                        return
                continue
            if replaced:  # and nothing more was written to the followed file before that
                raise LogFormatError(
                    f"{path} was set aside before its match ended: the match started again "
                    f"(the log followed is kept beside it as .aborted-<n>.jsonl); follow "
                    f"{path} again to watch the new attempt")
            replaced = _replaced(path, handle)
            if replaced:
                continue  # read what reached the followed file before it was replaced
            if idle_timeout_s is not None and idle >= idle_timeout_s:
                return
            if stopped is not None and stopped():
                return
            time.sleep(poll_s)
            idle += poll_s


def _followed_header(path: Path, header: HeaderEvent) -> HeaderEvent:
    """A followed log's committed header with its seed: the sidecar's while the match runs,
    else the reveal of the log as written so far (a finished log)."""
    seed = _sidecar_seed(path)
    if seed is None:
        with contextlib.suppress(LogFormatError):
            end = list(_read_events(path))[-1:]
            if end and isinstance(end[0], MatchEndEvent):
                seed = end[0].result.seed
    return header if seed is None else dataclasses.replace(header, seed=seed)


def _replaced(path: Path, handle: IO[str]) -> bool:
    """Whether ``path`` no longer names the file ``handle`` reads (renamed, replaced, gone)."""
    try:
        named = path.stat()
    except FileNotFoundError:
        return True
    held = os.fstat(handle.fileno())
    return (named.st_dev, named.st_ino) != (held.st_dev, held.st_ino)
