"""CPU and memory meters: what a bot's whole sandbox used, read cheaply while it plays.

The CPU clock charges a decision the CPU its bot's sandbox used between the request and the
answer, so the referee reads a meter before each request, while it waits and after the answer.
A meter counts every process of the sandbox (children and forked helpers included) and is read
by ``os.pread`` on a descriptor kept open from the start (a few microseconds), never through a
daemon's API. Three kinds:

* ``cgroup-v1``: the ``cpuacct.usage`` counter (ns) of the sandbox's cgroup, the peak from
  ``memory.max_usage_in_bytes``;
* ``cgroup-v2``: ``usage_usec`` of the cgroup's ``cpu.stat``, the peak from ``memory.peak``;
* ``proc``: no cgroup of its own (not root, or cgroups not writable): the CPU of the bot's
  process tree from ``/proc`` (utime + stime of each live process of the tree, plus the
  cutime + cstime its processes inherited from the children they reaped; clock-tick resolution)
  and the sum of the tree's peak RSS (``VmHWM``). A helper that leaves the tree (a double fork
  reparented outside it) is not counted: only a cgroup holds everything.

A Docker container's cgroup is found from its init process (``/proc/<pid>/cgroup``, either
cgroup driver); the process sandbox gives each seat a cgroup of its own (:class:`SeatCgroup`),
below the arena's own cgroup in each hierarchy, that the bot enters before its code runs and
that is removed when it stops. Cgroup directories and files are root's: a bot (an unprivileged
user, or a container with a read-only ``/sys/fs/cgroup``) can neither reset its counter nor
move itself out. A meter never raises: once its cgroup or process is gone it returns the last
value it read, and its readings never go down.
"""

from __future__ import annotations

import contextlib
import os
import re
import time
import uuid
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

CGROUP_ROOT = Path("/sys/fs/cgroup")
"""Where cgroup hierarchies are mounted by convention (the mount table is what is read)."""
SEAT_PARENT = "arena"
"""The directory, below the arena's own cgroup, that holds the per-seat cgroups."""
NO_COUNTER = ('no cgroup cpuacct controller mounted and no /proc: the CPU clock cannot be '
              'used; use clock = "wall"')
"""Why there is no CPU counter at all on this host (one line)."""
REMOVE_TRIES = 50
"""How many times a seat's cgroup removal is tried (10 ms apart) while its processes exit."""
_READ_BYTES = 4096
_TICK_NS = 1e9 / os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 1e7


class Meter(Protocol):
    """The CPU and memory counters of one bot's whole sandbox."""

    kind: str
    """``cgroup-v1``, ``cgroup-v2`` or ``proc``."""

    def cpu_ns(self) -> int:
        """Cumulative CPU of the sandbox (every process in it), in ns; never raises; after the
        bot is gone, the last value read."""
        ...

    def peak_memory_bytes(self) -> int | None:
        """The sandbox's peak memory so far (None: not known)."""
        ...

    def close(self) -> None:
        """Stop reading (keep the last values); idempotent."""
        ...


# --- the mount table and a process's cgroups ------------------------------------------------


@dataclass(frozen=True)
class CgroupMount:
    """One mounted cgroup hierarchy (a line of ``/proc/self/mountinfo``)."""

    version: int
    """1 or 2."""
    root: str
    """The directory of the hierarchy mounted there ("/" unless a namespace or bind moved it)."""
    point: Path
    """Where it is mounted."""
    controllers: frozenset[str]
    """A v1 hierarchy's controllers (e.g. ``cpu``, ``cpuacct``); empty for v2."""


def _unescape(field: str) -> str:
    return re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), field)


def parse_mountinfo(text: str) -> list[CgroupMount]:
    """The cgroup hierarchies of a ``/proc/<pid>/mountinfo`` text."""
    mounts = []
    for line in text.splitlines():
        left, sep, right = line.partition(" - ")
        fields, tail = left.split(), right.split()
        if not sep or len(fields) < 5 or len(tail) < 3 or tail[0] not in ("cgroup", "cgroup2"):
            continue
        options = frozenset(tail[2].split(","))
        known = {"cpu", "cpuacct", "memory", "cpuset", "pids", "devices", "freezer", "blkio"}
        mounts.append(CgroupMount(
            version=2 if tail[0] == "cgroup2" else 1,
            root=_unescape(fields[3]),
            point=Path(_unescape(fields[4])),
            controllers=frozenset(options & known) if tail[0] == "cgroup" else frozenset(),
        ))
    return mounts


def parse_proc_cgroup(text: str) -> dict[str, str]:
    """A ``/proc/<pid>/cgroup`` text as {controller: path}; the v2 (unified) path is under
    the key ``""``."""
    paths: dict[str, str] = {}
    for line in text.splitlines():
        parts = line.split(":", 2)
        if len(parts) != 3:
            continue
        _, controllers, path = parts
        if not controllers:
            paths[""] = path
        for controller in controllers.split(","):
            if controller:
                paths[controller] = path
    return paths


def cgroup_directory(mounts: Sequence[CgroupMount], paths: dict[str, str],
                     controller: str) -> Path | None:
    """The directory of a process's cgroup (``paths``: :func:`parse_proc_cgroup`) in the
    hierarchy of ``controller`` (``""``: the v2 one), or None when that hierarchy is not
    mounted where its path can be reached."""
    path = paths.get(controller)
    if path is None:
        return None
    for mount in mounts:
        if controller and controller not in mount.controllers:
            continue
        if not controller and mount.version != 2:
            continue
        root = mount.root.rstrip("/")
        if path != root and not path.startswith(root + "/"):
            continue
        return mount.point / path[len(root):].lstrip("/")
    return None


def _read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except OSError:
        return ""


def host_mounts() -> list[CgroupMount]:
    """The cgroup hierarchies mounted here (as this process sees them)."""
    return parse_mountinfo(_read_text(Path("/proc/self/mountinfo")))


def cgroup_cpu_problem(mounts: Sequence[CgroupMount] | None = None) -> str | None:
    """None when a cgroup CPU counter is mounted here (v1 ``cpuacct`` or v2); else one line."""
    mounts = host_mounts() if mounts is None else mounts
    if any("cpuacct" in m.controllers or m.version == 2 for m in mounts):
        return None
    return NO_COUNTER


def proc_cpu_problem() -> str | None:
    """None when processes' CPU can be read from ``/proc`` here; else one line."""
    return None if Path("/proc/self/stat").is_file() else NO_COUNTER


# --- counters --------------------------------------------------------------------------------


def parse_cpuacct_usage(data: bytes) -> int:
    """v1 ``cpuacct.usage``: ns."""
    return int(data.strip())


def parse_cpu_stat(data: bytes) -> int:
    """v2 ``cpu.stat``: its ``usage_usec`` line, in ns."""
    for line in data.splitlines():
        key, _, value = line.partition(b" ")
        if key == b"usage_usec":
            return int(value) * 1000
    raise ValueError("cpu.stat has no usage_usec line")


def parse_bytes(data: bytes) -> int:
    """A single number of bytes (``memory.max_usage_in_bytes``, ``memory.peak``)."""
    return int(data.strip())


class CounterFile:
    """A counter file kept open; ``read`` is one ``pread`` at offset 0."""

    def __init__(self, path: Path, parse: Callable[[bytes], int]) -> None:
        self.path = path
        """The file."""
        self._parse = parse
        self._fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)

    def read(self) -> int | None:
        """The counter now; None when it cannot be read any more (the cgroup is gone)."""
        if self._fd < 0:
            return None
        try:
            return self._parse(os.pread(self._fd, _READ_BYTES, 0))
        except (OSError, ValueError):
            return None

    def close(self) -> None:
        """Close the descriptor (idempotent)."""
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1


def _open(path: Path | None, parse: Callable[[bytes], int]) -> CounterFile | None:
    if path is None:
        return None
    try:
        counter = CounterFile(path, parse)
    except OSError:
        return None
    return counter if counter.read() is not None else None


class CgroupMeter:
    """The counters of one cgroup, read by kept-open descriptors (see the module doc)."""

    def __init__(self, kind: str, cpu: CounterFile, memory: CounterFile | None = None,
                 memory_fallback: Callable[[], int | None] | None = None) -> None:
        self.kind = kind
        """``cgroup-v1`` or ``cgroup-v2``."""
        self._cpu = cpu
        self._memory = memory
        self.memory_fallback = memory_fallback
        """Where the peak memory is read when the cgroup has no peak counter (e.g. a v2 cgroup
        without the memory controller): the process tree's, for a seat of its own."""
        self._last_cpu = 0
        self._peak: int | None = None

    def cpu_ns(self) -> int:
        """The cgroup's CPU in ns (the last value once it is gone; never lower than before)."""
        value = self._cpu.read()
        if value is not None and value > self._last_cpu:
            self._last_cpu = value
        return self._last_cpu

    def peak_memory_bytes(self) -> int | None:
        """The cgroup's peak memory (the highest value read)."""
        value = self._memory.read() if self._memory is not None else None
        if value is None and self.memory_fallback is not None:
            value = self.memory_fallback()
        if value is not None and (self._peak is None or value > self._peak):
            self._peak = value
        return self._peak

    def close(self) -> None:
        """Take a last reading and close the descriptors (idempotent)."""
        self.cpu_ns()
        self.peak_memory_bytes()
        self._cpu.close()
        if self._memory is not None:
            self._memory.close()
        self.memory_fallback = None


def meter_of_directories(cpu_dir: Path | None, memory_dir: Path | None, version: int,
                         memory_fallback: Callable[[], int | None] | None = None,
                         ) -> CgroupMeter | None:
    """A meter of the cgroup whose CPU counter is in ``cpu_dir`` and memory peak in
    ``memory_dir`` (``version`` 1 or 2); None when the CPU counter cannot be opened."""
    if version == 1:
        cpu = _open(cpu_dir and cpu_dir / "cpuacct.usage", parse_cpuacct_usage)
        memory = _open(memory_dir and memory_dir / "memory.max_usage_in_bytes", parse_bytes)
    else:
        cpu = _open(cpu_dir and cpu_dir / "cpu.stat", parse_cpu_stat)
        memory = _open(memory_dir and memory_dir / "memory.peak", parse_bytes)
    if cpu is None:
        if memory is not None:
            memory.close()
        return None
    return CgroupMeter(f"cgroup-v{version}", cpu, memory, memory_fallback)


def process_meter(pid: int, mounts: Sequence[CgroupMount] | None = None) -> CgroupMeter | None:
    """A meter of the cgroup process ``pid`` is in (a container's init: the container's cgroup),
    v1 ``cpuacct`` where mounted, else v2; None when neither can be read."""
    mounts = host_mounts() if mounts is None else mounts
    paths = parse_proc_cgroup(_read_text(Path(f"/proc/{pid}/cgroup")))
    v1 = cgroup_directory(mounts, paths, "cpuacct")
    if v1 is not None:
        meter = meter_of_directories(v1, cgroup_directory(mounts, paths, "memory"), 1)
        if meter is not None:
            return meter
    v2 = cgroup_directory(mounts, paths, "")
    return meter_of_directories(v2, v2, 2) if v2 is not None else None


# --- the proc meter ---------------------------------------------------------------------------


def parse_stat(text: str) -> tuple[int, int]:
    """(utime + stime + cutime + cstime in clock ticks, start time) of a
    ``/proc/<pid>/stat`` line (the command name may hold spaces and parentheses)."""
    fields = text[text.rindex(")") + 2:].split()
    # fields[0] is the state (field 3 of proc(5)): utime is field 14, starttime field 22
    ticks = sum(int(f) for f in fields[11:15])
    return ticks, int(fields[19])


def parse_vmhwm(text: str) -> int:
    """A ``/proc/<pid>/status`` text's peak RSS (``VmHWM``) in bytes (0 when absent)."""
    for line in text.splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    return 0


def _children(pid: int) -> list[int]:
    found: list[int] = []
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return found
    for task in tasks:
        with contextlib.suppress(OSError, ValueError):
            with open(f"/proc/{pid}/task/{task}/children", encoding="ascii") as handle:
                found.extend(int(child) for child in handle.read().split())
    return found


class ProcMeter:
    """The CPU and peak RSS of a process tree, from ``/proc`` (see the module doc)."""

    kind = "proc"
    """The meter's kind."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        """The tree's root (the process the sandbox started)."""
        first = self._stat(pid)
        self._start = first[1] if first is not None else -1
        self._last_cpu = 0
        self._peak: int | None = None
        self._closed = False

    @staticmethod
    def _stat(pid: int) -> tuple[int, int] | None:
        try:
            with open(f"/proc/{pid}/stat", encoding="utf-8", errors="replace") as handle:
                return parse_stat(handle.read())
        except (OSError, ValueError, IndexError):
            return None

    def _tree(self) -> list[int]:
        root = self._stat(self.pid)
        if self._closed or root is None or root[1] != self._start:
            return []  # gone (or its pid reused by another process)
        tree: list[int] = []
        queue = [self.pid]
        while queue and len(tree) < 100_000:
            pid = queue.pop()
            tree.append(pid)
            queue.extend(_children(pid))
        return tree

    def cpu_ns(self) -> int:
        """The tree's CPU in ns (the last value once it is gone; never lower than before)."""
        tree = self._tree()
        if tree:
            ticks = sum(stat[0] for pid in tree if (stat := self._stat(pid)) is not None)
            self._last_cpu = max(self._last_cpu, int(ticks * _TICK_NS))
        return self._last_cpu

    def peak_memory_bytes(self) -> int | None:
        """The sum of the tree's peak RSS (the highest value read)."""
        tree = self._tree()
        if tree:
            value = sum(parse_vmhwm(_read_text(Path(f"/proc/{pid}/status"))) for pid in tree)
            self._peak = value if self._peak is None else max(self._peak, value)
        return self._peak

    def close(self) -> None:
        """Take a last reading and stop (idempotent)."""
        if not self._closed:
            self.cpu_ns()
            self.peak_memory_bytes()
            self._closed = True


# --- a seat's own cgroup (the process sandbox) ----------------------------------------------


def _own_cgroup_dir(mounts: Sequence[CgroupMount], controller: str) -> Path | None:
    return cgroup_directory(mounts, parse_proc_cgroup(_read_text(Path("/proc/self/cgroup"))),
                            controller)


def _stale(name: str) -> bool:
    """Whether a seat cgroup's name belongs to a referee process that is gone."""
    pid = name.split("-", 1)[0]
    if not pid.isdigit():
        return False
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    return False


class SeatCgroup:
    """A cgroup of its own for one seat of the process sandbox: one directory per hierarchy
    (v1: ``cpuacct`` and ``memory``; v2: the unified one), below the arena's own cgroup."""

    def __init__(self, version: int, directories: Sequence[Path],
                 meter: CgroupMeter) -> None:
        self.version = version
        """1 or 2."""
        self.directories = tuple(directories)
        """The seat's cgroup directories (the first holds the CPU counter)."""
        self.meter = meter
        """The seat's meter."""

    @classmethod
    def create(cls, versions: Iterable[int] = (1, 2),
               mounts: Sequence[CgroupMount] | None = None,
               memory_fallback: Callable[[], int | None] | None = None) -> SeatCgroup | None:
        """A new seat cgroup (the first of ``versions`` that works); None when none can be
        made here (not root, not mounted, not writable: then the ``proc`` meter is used)."""
        if os.geteuid() != 0:
            return None
        mounts = host_mounts() if mounts is None else mounts
        name = f"{os.getpid()}-{uuid.uuid4().hex[:12]}"
        for version in versions:
            controllers = ("cpuacct", "memory") if version == 1 else ("",)
            parents = [_own_cgroup_dir(mounts, c) for c in controllers]
            if parents[0] is None:
                continue
            made = _make([p / SEAT_PARENT / name for p in parents if p is not None])
            if not made:
                continue
            memory = made[1] if len(made) > 1 else made[0]
            meter = meter_of_directories(made[0], memory, version, memory_fallback)
            if meter is not None:
                return cls(version, made, meter)
            _remove_directories(made)
        return None

    def procs_files(self) -> list[Path]:
        """The ``cgroup.procs`` files a process is written to, to enter the seat's cgroup."""
        return [d / "cgroup.procs" for d in self.directories]

    def enter(self, pid: int) -> None:
        """Move process ``pid`` into the seat's cgroup (``OSError`` when it cannot)."""
        for procs in self.procs_files():
            procs.write_text(str(pid), encoding="ascii")

    def pids(self) -> list[int]:
        """The processes in the seat's cgroup now."""
        found: set[int] = set()
        for procs in self.procs_files():
            found.update(int(p) for p in _read_text(procs).split() if p.isdigit())
        return sorted(found)

    def remove(self) -> bool:
        """Take the meter's last reading, kill whatever is still in the cgroup, remove its
        directories; True when they are gone. Blocks up to ``REMOVE_TRIES`` x 10 ms."""
        self.meter.close()
        for _ in range(REMOVE_TRIES):
            for pid in self.pids():
                with contextlib.suppress(OSError):
                    os.kill(pid, 9)
            if _remove_directories(self.directories):
                return True
            time.sleep(0.01)
        return False


def _make(directories: Sequence[Path]) -> list[Path]:
    """Create the seat directories (and their ``SEAT_PARENT``, clearing stale siblings there);
    [] when one cannot be made (those made are removed)."""
    made: list[Path] = []
    for directory in directories:
        try:
            directory.parent.mkdir(mode=0o755, exist_ok=True)
            _clear_stale(directory.parent)
            directory.mkdir(mode=0o755)
        except OSError:
            _remove_directories(made)
            return []
        made.append(directory)
    return made


def _clear_stale(parent: Path) -> None:
    with contextlib.suppress(OSError):
        for entry in os.scandir(parent):
            if entry.is_dir(follow_symlinks=False) and _stale(entry.name):
                with contextlib.suppress(OSError):
                    os.rmdir(entry.path)  # busy (processes still in it): left for later


def _remove_directories(directories: Iterable[Path]) -> bool:
    gone = True
    for directory in directories:
        try:
            os.rmdir(directory)
        except FileNotFoundError:
            pass
        except OSError:
            gone = False
    return gone
