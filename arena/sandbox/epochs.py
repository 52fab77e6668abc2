"""Deal epochs: the two legs of one deal never meet on a kernel, even through a third party.

In a duplicate encounter a bot plays the same deal from both seats, one leg after the other or
at the same time. Whatever its leg-0 instance could leave for its leg-1 instance on the same
kernel is the opponent's hand: a page of a shared file pulled into the page cache (timed, or
asked with ``mincore``), a dentry, a counter. The sandboxes mask host-wide counters; what they
cannot mask, the kernel's caches and the timing of everything shared, is cut here, in time:

* every separated match on a host runs inside the host's current **epoch**;
* two matches of one deal (the same seed) never run in the same epoch;
* an epoch ends only when every match in it has ended (its bots stopped and removed); the page
  cache, dentries and inodes are then dropped (``/proc/sys/vm/drop_caches``: root only), and
  the next epoch begins.

So nothing a bot of one epoch touched survives into the next, and a path from one leg to the
other, direct or relayed by a third instance of the same bot (or a colluding bot) playing
meanwhile, would have to cross an epoch. A match whose deal already ran in the current epoch
closes it and waits, and so does every match that arrives meanwhile: the host drains, drops its
caches, and both go on in the next epoch. Matches of different deals share epochs freely, so
the cost is one drain per conflict (ladders order their matches so that one drain serves many
encounters, ``arena.ladder.runner``).

Every referee process of the host (each worker of a cluster, ``arena serve``, a competition
server, ``arena match``) shares one state through ``flock`` on files in ``state_dir()``
(``/run/arena-epochs`` as root, or ``ARENA_EPOCH_DIR``): the kernel drops a dead process's
locks, so a crash never wedges the host, and a closer that died is replaced by the next process
that looks. A match that cannot enter within ``ARENA_EPOCH_WAIT_S`` (a stuck or frozen match
keeps the epoch open) is not played: ``SandboxError``, a void match the ladder plays again.

Only matches whose bots are separated take part (the Docker sandbox; the process sandbox as root
on Linux): the development level of the process sandbox separates nothing, so an epoch would
protect nothing there.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import hashlib
import json
import logging
import os
import tempfile
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path

from arena.errors import SandboxError
from arena.sandbox.isolation import isolation_available

log = logging.getLogger(__name__)

DIR_ENV = "ARENA_EPOCH_DIR"
"""Where the epochs are kept instead of the default: every referee that shares the host's kernel
must see the same directory (the test suite gives each of its processes one of its own)."""
WAIT_ENV = "ARENA_EPOCH_WAIT_S"
"""How long a match may wait to enter an epoch before it is void (seconds)."""
DEFAULT_WAIT_S = 3600.0
"""Longer than any match: the wait only ends a host's wedge (a frozen process), never a match."""
DROP_CACHES = Path("/proc/sys/vm/drop_caches")
"""Writing 3 drops the clean page cache, dentries and inodes (root only)."""
POLL_S = (0.005, 0.1)
"""The first and the longest pause between two looks at the epoch's state."""

_warned: set[str] = set()


def state_dir() -> Path:
    """``$ARENA_EPOCH_DIR`` when set; else ``/run/arena-epochs`` as root (every referee of the
    host), else a directory of this user's in the temporary directory (its own referees only)."""
    if os.environ.get(DIR_ENV):
        return Path(os.environ[DIR_ENV])
    if os.geteuid() == 0 and Path("/run").is_dir():
        return Path("/run/arena-epochs")
    return Path(tempfile.gettempdir()) / f"arena-epochs-{os.geteuid()}"


def takes_part(sandbox: str) -> bool:
    """Whether a match in the sandbox called ``sandbox`` runs inside the host's epochs: where
    its bots are separated from the host (containers; the process sandbox as root on Linux)."""
    if sandbox == "docker":
        return True
    if sandbox == "process":
        return isolation_available()
    return False


def deal_key(seed: int) -> str:
    """The name under which a deal is remembered in its epoch (a digest: no seed on disk)."""
    return hashlib.sha256(f"arena-deal:{seed}".encode()).hexdigest()[:32]


def drop_caches() -> str | None:
    """Drop the kernel's clean page cache, dentries and inodes; None, or why it could not."""
    try:
        with DROP_CACHES.open("w") as handle:
            handle.write("3\n")
    except OSError as exc:
        return f"cannot drop the kernel's caches ({exc.strerror or exc})"
    return None


@dataclass
class Ticket:
    """A match's place in an epoch: held until the match's bots are gone."""

    epoch: int
    fd: int

    def release(self) -> None:
        """Leave the epoch (idempotent)."""
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1


class Epochs:
    """The host's epochs, kept in ``directory`` (see the module doc)."""

    def __init__(self, directory: Path | None = None, *, wait_s: float | None = None) -> None:
        self.directory = directory or state_dir()
        self.wait_s = wait_s if wait_s is not None else float(
            os.environ.get(WAIT_ENV) or DEFAULT_WAIT_S)
        self.switches = 0
        """Epochs this object closed (for the benchmarks and tests)."""

    # --- files --------------------------------------------------------------------------
    def _ready(self) -> None:
        for path in (self.directory, self.directory / "deals"):
            try:
                os.mkdir(path, 0o700)
            except FileExistsError:
                pass
            info = path.lstat()
            if not path.is_dir() or path.is_symlink() or info.st_uid != os.geteuid() or (
                    info.st_mode & 0o077):
                raise SandboxError(f"the epoch directory {path} is not this user's private "
                                   "directory: remove it (or fix its owner and mode 0700)")

    def _open(self, name: str) -> int:
        return os.open(self.directory / name, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC
                       | os.O_NOFOLLOW, 0o600)

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        fd = self._open("lock")
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)

    def _read(self) -> tuple[int, bool]:
        try:
            data = json.loads((self.directory / "state").read_text(encoding="utf-8"))
            return int(data["epoch"]), bool(data["closing"])
        except (OSError, ValueError, KeyError, TypeError):
            return 0, False

    def _write(self, epoch: int, closing: bool) -> None:
        part = self.directory / "state.part"
        fd = os.open(part, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
        with open(fd, "w", encoding="utf-8") as handle:
            json.dump({"epoch": epoch, "closing": closing}, handle)
        os.replace(part, self.directory / "state")

    @staticmethod
    def _try_lock(fd: int, kind: int) -> bool:
        try:
            fcntl.flock(fd, kind | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        return True

    # --- entering -----------------------------------------------------------------------
    def _try_enter(self, key: str) -> Ticket | int | None:
        """Under the state lock: a ticket in the current epoch; or the closer's lock (an fd)
        when this caller must close the epoch; or None: wait (another closes it)."""
        with self._locked():
            epoch, closing = self._read()
            if closing:
                closer = self._open("closer")
                if self._try_lock(closer, fcntl.LOCK_EX):
                    return closer  # the closer died: take its place
                os.close(closer)
                return None
            if not (self.directory / "deals" / key).exists():
                fd = self._open(f"epoch-{epoch}")
                if not self._try_lock(fd, fcntl.LOCK_SH):
                    os.close(fd)  # a closer giving up still holds it for a moment
                    return None
                os.close(os.open(self.directory / "deals" / key,
                                 os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW, 0o600))
                return Ticket(epoch, fd)
            closer = self._open("closer")
            if not self._try_lock(closer, fcntl.LOCK_EX):
                os.close(closer)
                return None
            self._write(epoch, True)
            return closer

    async def enter(self, seed: int) -> Ticket:
        """A place in the host's current epoch for a match of the deal ``seed``, once no match
        of the same deal is in it (closing it and waiting for the next when one is).
        ``SandboxError`` after ``wait_s`` without one."""
        await asyncio.to_thread(self._ready)
        key = deal_key(seed)
        deadline = time.monotonic() + self.wait_s
        pause = POLL_S[0]
        while True:
            got = await asyncio.to_thread(self._try_enter, key)
            if isinstance(got, Ticket):
                return got
            if got is not None:
                await self._close(got, deadline)
                pause = POLL_S[0]
                continue
            if time.monotonic() > deadline:
                raise SandboxError(self._stuck())
            await asyncio.sleep(pause)
            pause = min(pause * 2, POLL_S[1])

    def _stuck(self) -> str:
        return (f"no epoch of this host could be entered within {self.wait_s:g} s: a match on "
                f"this host keeps the epoch open (a frozen or stuck referee?); the match is void "
                f"and is played again ({WAIT_ENV})")

    async def _close(self, closer: int, deadline: float) -> None:
        """End the current epoch: wait until every match in it has left, drop the caches,
        start the next. Holding the closer's lock ``closer`` (released here)."""
        try:
            epoch, _ = await asyncio.to_thread(self._locked_read)
            run = self._open(f"epoch-{epoch}")
            try:
                pause = POLL_S[0]
                while not self._try_lock(run, fcntl.LOCK_EX):
                    if time.monotonic() > deadline:
                        await asyncio.to_thread(self._reopen, epoch)
                        raise SandboxError(self._stuck())
                    await asyncio.sleep(pause)
                    pause = min(pause * 2, POLL_S[1])
                problem = await asyncio.to_thread(drop_caches)
                if problem is not None and problem not in _warned:
                    _warned.add(problem)
                    log.warning("%s: the page cache of files shared by bots outlives an epoch "
                                "on this host (run the arena as root, or play the legs of a "
                                "deal on different hosts)", problem)
                await asyncio.to_thread(self._next, epoch)
                self.switches += 1
            finally:
                os.close(run)
        finally:
            os.close(closer)

    def _locked_read(self) -> tuple[int, bool]:
        with self._locked():
            return self._read()

    def _reopen(self, epoch: int) -> None:
        """Give up closing ``epoch`` (it stays open)."""
        with self._locked():
            self._write(epoch, False)

    def _next(self, epoch: int) -> None:
        with self._locked():
            self._write(epoch + 1, False)
            deals = self.directory / "deals"
            for entry in os.listdir(deals):
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(deals / entry)
            with contextlib.suppress(FileNotFoundError):
                os.unlink(self.directory / f"epoch-{epoch}")

    def current(self) -> int:
        """The current epoch's number (for tests and the benchmark)."""
        self._ready()
        return self._locked_read()[0]


_host: Epochs | None = None


def host_epochs() -> Epochs:
    """The host's epochs (one object per process)."""
    global _host
    if _host is None:
        _host = Epochs()
    return _host


@contextlib.asynccontextmanager
async def deal_epoch(seed: int, sandbox: str) -> AsyncIterator[None]:
    """Hold a place in the host's epoch for a match of deal ``seed`` in the sandbox called
    ``sandbox`` while the body runs (a match's whole life, bots stopped included); nothing where
    that sandbox's bots are not separated (``takes_part``)."""
    if not takes_part(sandbox):
        yield
        return
    ticket = await host_epochs().enter(seed)
    try:
        yield
    finally:
        ticket.release()
