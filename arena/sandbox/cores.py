"""Fair cores: a host-wide allocator that gives each running bot container a core of its own.

Every core has lock files ``core-<n>.<level>`` in ``LOCK_DIR``; a container's seat holds one
with ``flock`` while it runs (the kernel drops it if the referee process dies), so all referee
processes of a host (every worker of a cluster) share one picture without a service. A lease is
taken at the lowest level that has a free core, avoiding the cores given to the other seat of
the same match: while a host runs no more containers than it has cores, every container (so each
seat of each match) has a core no other one uses; beyond that, cores are shared as evenly as
the locks allow. A cluster host plays floor((cores - 1) / 2) matches at once by default, so its
matches never share a core.
"""

from __future__ import annotations

import fcntl
import os
import tempfile
from collections.abc import Collection, Sequence
from pathlib import Path

LEVELS = 16
"""How many containers may share one core before the allocator gives up."""


def default_lock_dir() -> Path:
    """``/run/arena-cores`` as root, else a directory of this user's in the temporary dir."""
    if os.geteuid() == 0 and Path("/run").is_dir():
        return Path("/run/arena-cores")
    return Path(tempfile.gettempdir()) / f"arena-cores-{os.geteuid()}"


def host_cores() -> list[int]:
    """The cores this process may run on."""
    return sorted(os.sched_getaffinity(0))


class CoreLease:
    """One core held for one container until ``release``."""

    def __init__(self, core: int, level: int, fd: int) -> None:
        self.core = core
        self.level = level
        """0: nobody else holds this core; n: n other containers hold it too."""
        self._fd = fd

    def release(self) -> None:
        """Give the core back (idempotent)."""
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1


def reserve_core(avoid: Collection[int] = (), *, cores: Sequence[int] | None = None,
                 lock_dir: Path | None = None) -> CoreLease:
    """The least shared core, host-wide, preferring cores not in ``avoid`` (the other seat's);
    ``OSError`` when every core is held ``LEVELS`` times."""
    cores = list(cores) if cores is not None else host_cores()
    directory = lock_dir or default_lock_dir()
    directory.mkdir(mode=0o700, parents=True, exist_ok=True)
    preferred = [c for c in cores if c not in avoid] or cores
    for level in range(LEVELS):
        for core in preferred:
            fd = os.open(directory / f"core-{core}.{level}", os.O_RDWR | os.O_CREAT, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                continue
            return CoreLease(core, level, fd)
    raise OSError(f"every core is held by {LEVELS} containers")
