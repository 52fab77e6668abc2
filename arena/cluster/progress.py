"""Per-worker progress of a cluster run, folded from the workers' Dask events (``play_task``
reports each match starting and ending on ``EVENT_TOPIC``): nothing polls files or workers."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class HostProgress:
    """One worker process as the live view shows it."""

    worker: str
    """Its Dask address."""
    host: str
    """The host name it reported."""
    in_flight: int
    """Matches it is playing now."""
    done: int
    """Matches it finished in this run."""
    per_min: float
    """Finished matches per minute since its first match started."""


@dataclass
class _Tally:
    host: str
    first: float
    playing: set[str] = field(default_factory=set)
    done: int = 0


class HostBoard:
    """Folds match events into per-worker tallies (``handle`` is the topic subscriber)."""

    def __init__(self) -> None:
        self._workers: dict[str, _Tally] = {}

    def handle(self, event: tuple[float, Any]) -> None:
        """One ``(time, message)`` event of ``EVENT_TOPIC``; malformed ones are ignored."""
        _, message = event
        if not isinstance(message, dict):
            return
        worker, match_id = message.get("worker"), message.get("match_id")
        if not isinstance(worker, str) or not isinstance(match_id, str):
            return
        tally = self._workers.setdefault(
            worker, _Tally(str(message.get("host", "")), float(message.get("time", time.time())))
        )
        if message.get("kind") == "start":
            tally.playing.add(match_id)
        elif message.get("kind") == "end" and match_id in tally.playing:
            tally.playing.discard(match_id)
            tally.done += 1

    def forget(self, worker: str) -> None:
        """A worker left (or died): its matches are no longer in flight there."""
        tally = self._workers.get(worker)
        if tally is not None:
            tally.playing.clear()

    def snapshot(self, now: float | None = None) -> tuple[HostProgress, ...]:
        """Every worker seen so far, by host then address."""
        now = time.time() if now is None else now
        rows = []
        for worker, t in self._workers.items():
            minutes = max(now - t.first, 1e-9) / 60
            rows.append(HostProgress(worker, t.host, len(t.playing), t.done,
                                     t.done / minutes if t.done else 0.0))
        return tuple(sorted(rows, key=lambda r: (r.host, r.worker)))
