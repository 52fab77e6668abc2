"""A ladder's entrants: a reference resolved to a runnable bot, the entrants lined up by the
match service, and the entries a program hands a running continuous ladder in memory
(``EntryFeed``: ``Entered`` and ``Withdrawn`` events, as the competition server does). Below
the runner and the schedules, which both line entrants up (a continuous ladder looks at its
entrants again while it runs)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from arena.bots import resolve_bot
from arena.errors import ConfigError
from arena.ladder.config import LadderConfig
from arena.model import BotSpec
from arena.referee.service import Lineup, line_up

ResolveBot = Callable[[str, Path], BotSpec]
"""(entrant reference, ladder directory) → a runnable bot."""


def default_resolve(ref: str, base_dir: Path) -> BotSpec:
    """Resolve an entrant with ``arena.bots.resolve_bot``."""
    return resolve_bot(ref, base_dir=base_dir)


def line_up_entrants(config: LadderConfig, resolve: ResolveBot | None = None,
                     sandbox: str | None = None, check: bool = True) -> Lineup:
    """The ladder's entrants lined up by the match service (resolved, identified, checked in
    the sandbox, "auto" decided once for the run). Raises ``ConfigError`` for a bot of another
    game or two entrants with the same name."""
    resolve = resolve or default_resolve
    specs = [resolve(ref, config.base_dir) for ref in config.entrants]
    for ref, spec in zip(config.entrants, specs, strict=True):
        if spec.game != config.game:
            raise ConfigError(
                f"entrant {ref!r} plays {spec.game!r}, "
                f"but ladder {config.name!r} is {config.game!r}"
            )
    names = [s.name for s in specs]
    dup = next((n for n in names if names.count(n) > 1), None)
    if dup is not None:
        raise ConfigError(f"two entrants of ladder {config.name!r} are both named {dup!r}")
    return line_up(specs, game=config.game, sandbox=sandbox or config.sandbox, check=check)


@dataclass(frozen=True)
class Entered:
    """An entrant joins a continuous ladder, or has a new version to play."""

    ref: str
    """The entrant (a bot directory or a submitted bot's name): its versions replace one
    another."""
    pinned: str = ""
    """What to resolve for it ("" : ``ref``), e.g. ``name@version``: the very version
    entered, not the catalogue's latest."""


@dataclass(frozen=True)
class Withdrawn:
    """An entrant leaves a continuous ladder (its current version retires, results kept)."""

    ref: str


EntryEvent = Entered | Withdrawn


class EntryFeed:
    """The entrants of a continuous ladder handed over in memory, instead of its file's
    ``entrants`` and the catalogue: the entrants it starts with, then events, sent from any
    thread (``send``). The running ladder is woken at once and looks at its entrants (it does
    not wait for ``refresh_s``); neither a file nor the catalogue is read to know who plays."""

    def __init__(self, entries: Iterable[Entered] = ()) -> None:
        self._lock = threading.Lock()
        self._refs: dict[str, str] = {}
        self._listeners: list[Callable[[], None]] = []
        self.generation = 0
        """Counts the events taken: a ladder that saw an older one looks again."""
        for entry in entries:
            self._refs[entry.ref] = entry.pinned or entry.ref

    def send(self, event: EntryEvent) -> None:
        """Take an event and wake every ladder listening (thread-safe)."""
        with self._lock:
            if isinstance(event, Entered):
                self._refs[event.ref] = event.pinned or event.ref
            else:
                self._refs.pop(event.ref, None)
            self.generation += 1
            listeners = list(self._listeners)
        for wake in listeners:
            try:
                wake()
            except RuntimeError:  # its event loop is closed: that run has ended
                self.ignore(wake)

    def refs(self) -> tuple[str, ...]:
        """The entrants now, in the order they first came."""
        with self._lock:
            return tuple(self._refs)

    def pinned(self, ref: str) -> str:
        """What to resolve for ``ref`` (itself when it is not a current entrant)."""
        with self._lock:
            return self._refs.get(ref, ref)

    def listen(self, wake: Callable[[], None]) -> None:
        """Call ``wake`` (from the sending thread) after every event."""
        with self._lock:
            self._listeners.append(wake)

    def ignore(self, wake: Callable[[], None]) -> None:
        """Stop calling ``wake``."""
        with self._lock:
            if wake in self._listeners:
                self._listeners.remove(wake)

    def resolver(self, resolve: ResolveBot) -> ResolveBot:
        """``resolve`` applied to what each entrant is pinned to."""
        return lambda ref, base_dir: resolve(self.pinned(ref), base_dir)
