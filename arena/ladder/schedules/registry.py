"""The schedule types that decide as they go, by kind (``schedule.type``): how each opens its
source over the store, and where it stands at rest.

The runner opens a source through here (``open_schedule``), and the standings, the report and
the live view ask here where a schedule stands (``schedule_status``): neither needs to know
which module runs which kind, and the kinds never import the runner. A round robin and a
gauntlet are fixed plans (``schedule.build_schedule``): the runner plays them itself, and they
have no status.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Protocol

from arena.errors import ConfigError
from arena.ladder.config import LadderConfig
from arena.ladder.entrants import EntryFeed, ResolveBot
from arena.ladder.schedules import continuous, sources
from arena.ladder.schedules.schedule import ADAPTIVE, CONTINUOUS, KNOCKOUT, SWISS
from arena.ladder.schedules.sources import EncounterSource
from arena.ladder.schedules.status import ScheduleStatus
from arena.ladder.store import LadderStore


class OpenSource(Protocol):
    """Open a schedule's source over the store: its entrants resolved with ``resolve`` (None:
    ``arena.bots.resolve_bot``) in the sandbox ``sandbox`` (None: the ladder's), checked there
    when ``check``; ``secret`` salts its deal seeds; ``entries``: its entrants handed over in
    memory (a continuous ladder's only)."""

    def __call__(self, config: LadderConfig, store: LadderStore, secret: str, *,
                 resolve: ResolveBot | None, sandbox: str | None, check: bool,
                 max_matches: int | None, entries: EntryFeed | None = None
                 ) -> EncounterSource: ...


@dataclass(frozen=True)
class Schedule:
    """One kind of schedule that decides as it goes."""

    open: OpenSource
    """Its source, for a run."""
    status: Callable[[LadderConfig, LadderStore], ScheduleStatus | None]
    """Where it stands from the store and the state directory (nothing in flight); None
    before its first run."""


SCHEDULES: Mapping[str, Schedule] = {
    ADAPTIVE: Schedule(sources.open_entrants, sources.status_at_rest),
    KNOCKOUT: Schedule(sources.open_entrants, sources.status_at_rest),
    SWISS: Schedule(sources.open_entrants, sources.status_at_rest),
    CONTINUOUS: Schedule(continuous.open_continuous, continuous.continuous_status),
}
"""The kinds that decide as they go, and how."""


def open_schedule(config: LadderConfig, store: LadderStore, secret: str, *,
                  resolve: ResolveBot | None = None, sandbox: str | None = None,
                  check: bool = True, max_matches: int | None = None,
                  entries: EntryFeed | None = None) -> EncounterSource:
    """The source of the ladder's schedule (``OpenSource``). ``ConfigError`` for a fixed
    plan: it has no source."""
    kind = config.schedule.kind
    schedule = SCHEDULES.get(kind)
    if schedule is None:
        raise ConfigError(f"ladder {config.name!r} is a {kind}: it has no schedule source")
    return schedule.open(config, store, secret, resolve=resolve, sandbox=sandbox, check=check,
                         max_matches=max_matches, entries=entries)


def schedule_status(config: LadderConfig, store: LadderStore) -> ScheduleStatus | None:
    """Where the ladder's schedule stands, as far as the store and the state directory tell
    (for the standings and the report of a ladder that is not running): a knockout's bracket,
    a Swiss, an adaptive or continuous ladder's status; None for a round robin, a gauntlet or
    an SPRT test, and for a tournament before its first run."""
    schedule = SCHEDULES.get(config.schedule.kind)
    if config.sprt is not None or schedule is None:
        return None
    return schedule.status(config, store)
