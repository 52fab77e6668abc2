"""Match logs: JSON lines, one event per line, flushed as they happen (so `watch --follow` and
`replay` work on a running match). The events:

* ``header``: match_id, game, game_version, options, seed, bots, time_control, arena_version
* ``deal``: round, deal (the game's full deal of the round: hidden cards included)
* ``decision``: n, round, seat, action (canonical text), ms (time the referee measured)
* ``round_end``: round, scores, totals
* ``match_end``: result (the MatchResult object, as ``arena match --format json`` prints it)
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from arena.errors import LogFormatError

EVENT_TYPES = ("header", "deal", "decision", "round_end", "match_end")


class MatchLogWriter:
    """Writes events to a new log file, one JSON object per line, flushed at once.

    A log already at ``path`` is an earlier attempt of the same match id that never finished
    (e.g. a ladder killed mid-match replays it with the same id): it is kept beside the new one
    as ``<match_id>.aborted-<n>.jsonl``, never appended to."""

    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.exists():
            path.rename(_free_name(path))
        self._file: IO[str] = path.open("x", encoding="utf-8")

    def write(self, event: dict[str, Any]) -> None:
        self._file.write(json.dumps(event, separators=(",", ":")) + "\n")
        self._file.flush()

    def close(self) -> None:
        self._file.close()


def _free_name(path: Path) -> Path:
    stem = path.name.removesuffix(".jsonl")
    n = 1
    while (candidate := path.with_name(f"{stem}.aborted-{n}.jsonl")).exists():
        n += 1
    return candidate


def read_events(path: Path) -> Iterator[dict[str, Any]]:
    """The events of a (possibly still growing) log; a torn last line is ignored."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise LogFormatError(f"cannot read match log {path}: {exc.strerror}") from None
    lines = text.split("\n")
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            event = json.loads(line)
        except json.JSONDecodeError:
            if number == len(lines):  # the writer is in the middle of this line
                return
            raise LogFormatError(f"{path}:{number}: not a JSON object") from None
        if not isinstance(event, dict) or event.get("type") not in EVENT_TYPES:
            raise LogFormatError(f"{path}:{number}: not a match log event")
        yield event


def follow_events(path: Path, poll_s: float = 0.1, idle_timeout_s: float | None = None
                  ) -> Iterator[dict[str, Any]]:
    """Tail a log that may still be written: yield each complete event as it appears and stop
    after ``match_end`` (or after ``idle_timeout_s`` without a new line)."""
    import time

    waited = 0.0
    while not path.exists():
        if idle_timeout_s is not None and waited >= idle_timeout_s:
            raise LogFormatError(f"{path} did not appear within {idle_timeout_s:.0f} s")
        time.sleep(poll_s)
        waited += poll_s
    buffer = ""
    idle = 0.0
    with path.open("r", encoding="utf-8") as handle:
        while True:
            chunk = handle.read()
            if chunk:
                idle = 0.0
                buffer += chunk
                *lines, buffer = buffer.split("\n")
                for line in lines:
                    if not line.strip():
                        continue
                    try:
                        event = json.loads(line)
                    except json.JSONDecodeError:
                        raise LogFormatError(f"{path}: a line is not JSON") from None
                    yield event
                    if event.get("type") == "match_end":
                        return
                continue
            if idle_timeout_s is not None and idle >= idle_timeout_s:
                return
            time.sleep(poll_s)
            idle += poll_s
