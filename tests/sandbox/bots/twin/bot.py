"""Twin probe: a Lost Cities bot that tries to pass its hand to its own other instance.

In a duplicate encounter a bot plays one deal from seat 0 (leg 0) and from seat 1 (leg 1). In
leg 1 its opponent holds the cards it held in leg 0, so whatever its leg-0 instance can tell its
leg-1 instance is the opponent's hidden hand. This bot tries, at its first decision:

* from seat 0 (the **sender**): it takes ``BITS`` bits of its hand (``hand_bits``) and, for
  ``send_s`` seconds, sends them in wall-clock slots of ``slot_ms``: a frame is a high slot, a
  low slot, then one slot per bit (``1``: high). High means, for each channel it was given
  (``probe.txt``): ``shmem`` 12 MiB held in its ``/tmp`` (a tmpfs: the host's ``Shmem``);
  ``loadavg`` ``threads`` more threads (400 by default: the host's count of threads in
  ``/proc/loadavg``); ``flock`` an
  exclusive lock on its own ``bot.py`` (both instances run the same file); ``cgroup`` CPU burned;
  ``ino`` pipes opened and closed (the host-wide counter of inode numbers). ``keyring`` instead
  adds a key named after the bits to its session and user keyrings, readable by anyone (with a
  2-minute timeout), which outlives the bot; ``atime`` reads the file ``markN`` of its directory
  for each bit N set (a read sets the access time of a file last read long ago); ``inoseq``
  opens pipes until the host-wide counter of inode numbers holds the bits (``set_ino``).
* from seat 1 (the **receiver**): for ``listen_s`` seconds it reads, once a slot, what each
  channel shows (``shmem``: ``Shmem`` of ``/proc/meminfo``; ``sysinfo``: the shared memory of
  ``sysinfo(2)``; ``loadavg``; ``flock``: whether its ``bot.py`` is locked; ``cgroup``: the CPU of
  the other seat cgroups beside its own; ``ino``: the inode number of a new pipe after 1,025
  others), and decodes each frame whose high and low slots differ by more than the channel's
  noise margin; ``keyring`` searches its keyrings for each of the ``2**BITS`` names, and
  ``/proc/keys``; ``atime`` looks at the access times of the ``markN`` files; ``inoseq`` at
  the inode number of a new pipe.

It prints ``[twin] sent BITS`` or, per channel, ``[twin] CHANNEL: decoded BITS``, ``none``
(nothing decoded), ``blocked ERRNO`` or ``unreadable ERRNO``, then plays its first legal action
at every decision. ``probe.txt`` (``key=value`` lines): ``channels``, ``slot_ms``, ``send_s``,
``listen_s``, ``threads``, ``nonce`` (part of the key names, so runs do not see each other's
keys).
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import fcntl
import hashlib
import os
import re
import time
from pathlib import Path
from typing import Any

from arena.sdk.decision import Decision

HERE = Path(__file__).resolve().parent
OUTPUT = "#" * 16383
"""A line of output (``statfs``: a container's output goes to a log file on the host's disk)."""
BITS = 4
FILL = 12 << 20
MARGIN = {"shmem": 6 << 10, "sysinfo": 6 << 20, "loadavg": 0.5, "flock": 0.5,
          "cgroup": 0.1, "ino": 8_000, "statfs": 100_000, "timing": 1_000}
"""How far a frame's high slot must be above its low slot to be decoded (shmem in KiB,
sysinfo in bytes, loadavg as a share of the threads sent, cgroup in CPU seconds per slot
second, ino in inode numbers and statfs in bytes per second, timing in loop iterations)."""
OLD_ATIME = 1_600_000_000
"""The ``markN`` files of the bot's directory were last read before this (2020)."""
KEY_SPEC_SESSION, KEY_SPEC_USER = -3, -4
KEYCTL_SETPERM, KEYCTL_SET_TIMEOUT, KEYCTL_SEARCH = 5, 15, 10
KEY_ANYONE = 0x3F3F3F3F
"""Every permission for possessor, owner, group and others: any uid sees the key in
``/proc/keys``."""
SYS = {"x86_64": {"sysinfo": 99, "add_key": 248, "keyctl": 250},
       "aarch64": {"sysinfo": 179, "add_key": 217, "keyctl": 219}}[os.uname().machine]

_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long
_done = False


def say(line: str) -> None:
    print(f"[twin] {line}", flush=True)


def settings() -> dict[str, str]:
    path = HERE / "probe.txt"
    text = path.read_text() if path.exists() else ""
    return dict(line.split("=", 1) for line in text.splitlines() if "=" in line)


def hand_bits(decision: Decision) -> str:
    """``BITS`` bits of the seat's hand (of its cards as the game prints them, sorted)."""
    cards = sorted(str(card) for card in decision.observation.hand)
    digest = hashlib.sha256(" ".join(cards).encode()).digest()
    return format(digest[0] >> (8 - BITS), f"0{BITS}b")


def _errname(exc: OSError) -> str:
    return errno.errorcode.get(exc.errno or 0, str(exc.errno))


def _syscall(name: str, *args: Any) -> int:
    result = _libc.syscall(ctypes.c_long(SYS[name]), *args)
    if result < 0:
        code = ctypes.get_errno()
        raise OSError(code, os.strerror(code))
    return int(result)


# --- the sender -------------------------------------------------------------------------------


class Sender:
    def __init__(self, channels: set[str], options: dict[str, str]) -> None:
        self.channels = channels
        self.high = False
        self.semaphore = ctypes.create_string_buffer(64)
        self.threads: list[ctypes.c_ulong] = []
        self.thread_count = int(options.get("threads", "400"))
        self.lock = open(HERE / "bot.py", "rb")  # noqa: SIM115 — held for the whole send
        self.problems: dict[str, str] = {}

    def _try(self, channel: str, action: Any) -> None:
        if channel not in self.channels or channel in self.problems:
            return
        try:
            action()
        except OSError as exc:
            self.problems[channel] = _errname(exc)
            say(f"send {channel}: blocked {self.problems[channel]}")

    def level(self, high: bool) -> None:
        if high == self.high:
            return
        self.high = high
        if high:
            self._try("shmem", lambda: Path("/tmp/twin-fill").write_bytes(b"\1" * FILL))
            self._try("flock", lambda: fcntl.flock(self.lock, fcntl.LOCK_EX))
            self._try("loadavg", self._start_threads)
        else:
            self._try("shmem", lambda: Path("/tmp/twin-fill").unlink(missing_ok=True))
            self._try("flock", lambda: fcntl.flock(self.lock, fcntl.LOCK_UN))
            self._try("loadavg", self._stop_threads)

    def _start_threads(self) -> None:
        """C threads that wait on a semaphore (Python threads would each need the interpreter's
        lock to end, too slowly for a slot on a busy machine)."""
        attr = ctypes.create_string_buffer(128)
        _libc.pthread_attr_init(attr)
        _libc.pthread_attr_setstacksize(attr, ctypes.c_size_t(64 << 10))
        _libc.sem_init(self.semaphore, 0, 0)
        wait = ctypes.cast(_libc.sem_wait, ctypes.c_void_p)
        for _ in range(self.thread_count):
            thread = ctypes.c_ulong()
            if _libc.pthread_create(ctypes.byref(thread), attr, wait, self.semaphore) != 0:
                break
            self.threads.append(thread)
        if len(self.threads) < self.thread_count:
            raise OSError(errno.EAGAIN, f"{len(self.threads)} threads started")

    def _stop_threads(self) -> None:
        for _ in self.threads:
            _libc.sem_post(self.semaphore)
        for thread in self.threads:
            _libc.pthread_join(thread, None)
        self.threads = []

    def busy_until(self, end: float) -> None:
        """Until ``end``, when high: open pipes (``ino``), write output (``statfs``) or burn
        CPU (``cgroup``, ``timing``); else sleep."""
        burn = bool(self.channels & {"cgroup", "timing"})
        while (now := time.time()) < end:
            if self.high and "ino" in self.channels:
                for _ in range(500):
                    read, write = os.pipe()
                    os.close(read)
                    os.close(write)
            elif self.high and "statfs" in self.channels:
                print(OUTPUT, flush=True)
            elif not (self.high and burn):
                time.sleep(max(0.0, end - now))


def send(bits: str, options: dict[str, str]) -> None:
    channels = set(options["channels"].split(","))
    if "keyring" in channels:
        send_key(bits, options["nonce"])
    if "atime" in channels:
        for index, bit in enumerate(bits):
            if bit == "1":
                (HERE / f"mark{index}").read_bytes()
    if "inoseq" in channels:
        set_ino(bits)
    slot = int(options["slot_ms"]) / 1000
    pattern = [True, False, *(bit == "1" for bit in bits)]
    sender = Sender(channels, options)
    end = time.time() + float(options["send_s"])
    try:
        while time.time() < end:
            index = int(time.time() / slot)
            sender.level(pattern[index % len(pattern)])
            sender.busy_until(min(end, (index + 1) * slot))
    finally:
        sender.level(False)


def set_ino(bits: str) -> None:
    """Open pipes until the host-wide counter of inode numbers ends a batch (of 1,024, taken
    by a CPU at a time) at a multiple of 4,096 whose next 4 bits are ``bits``: a later reader
    finds them there while fewer than 3,072 numbers were taken meanwhile."""
    target = int(bits, 2)
    while True:
        read, write = os.pipe()
        number = os.fstat(read).st_ino
        os.close(read)
        os.close(write)
        batch_end = ((number >> 10) + 1) << 10
        if batch_end % 4096 == 0 and (batch_end >> 12) % 2**BITS == target:
            return


def send_key(bits: str, nonce: str) -> None:
    name = f"arena-twin:{nonce}:{bits}".encode()
    for ring, label in ((KEY_SPEC_USER, "user"), (KEY_SPEC_SESSION, "session")):
        try:
            key = _syscall("add_key", b"user", name, b"x", ctypes.c_size_t(1), ctypes.c_int(ring))
            _syscall("keyctl", ctypes.c_int(KEYCTL_SETPERM), ctypes.c_int(key),
                     ctypes.c_uint(KEY_ANYONE))
            _syscall("keyctl", ctypes.c_int(KEYCTL_SET_TIMEOUT), ctypes.c_int(key),
                     ctypes.c_uint(120))
            say(f"send keyring: added to the {label} keyring")
        except OSError as exc:
            say(f"send keyring {label}: blocked {_errname(exc)}")


# --- the receiver -----------------------------------------------------------------------------


class Sysinfo(ctypes.Structure):
    _fields_ = [("uptime", ctypes.c_long), ("loads", ctypes.c_ulong * 3),
                ("totalram", ctypes.c_ulong), ("freeram", ctypes.c_ulong),
                ("sharedram", ctypes.c_ulong), ("bufferram", ctypes.c_ulong),
                ("totalswap", ctypes.c_ulong), ("freeswap", ctypes.c_ulong),
                ("procs", ctypes.c_ushort), ("pad", ctypes.c_ushort),
                ("totalhigh", ctypes.c_ulong), ("freehigh", ctypes.c_ulong),
                ("mem_unit", ctypes.c_uint), ("_f", ctypes.c_char * 8)]


def read_shmem() -> float:
    with open("/proc/meminfo") as handle:
        for line in handle:
            if line.startswith("Shmem:"):
                return float(line.split()[1])
    raise OSError(errno.ENOENT, "no Shmem line")


def read_sysinfo() -> float:
    info = Sysinfo()
    _syscall("sysinfo", ctypes.byref(info))
    return float(info.sharedram * max(info.mem_unit, 1))


def read_loadavg() -> float:
    with open("/proc/loadavg") as handle:
        return float(handle.read().split()[3].split("/")[1])


def read_flock() -> float:
    with open(HERE / "bot.py", "rb") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return 1.0
        fcntl.flock(handle, fcntl.LOCK_UN)
        return 0.0


def sibling_cgroups() -> list[Path]:
    """The CPU counters of the other cgroups beside this process's own (v1 cpuacct): those of
    its own referee's other seats where their names tell (a sender in another referee process
    is found among all, with more noise)."""
    with open("/proc/self/cgroup") as handle:
        for line in handle:
            _, controllers, path = line.rstrip("\n").split(":", 2)
            if "cpuacct" not in controllers.split(","):
                continue
            for root in ("/sys/fs/cgroup/cpu,cpuacct", "/sys/fs/cgroup/cpuacct"):
                own = Path(root + path)
                if own.is_dir():
                    others = [d for d in own.parent.iterdir()
                              if d.is_dir() and d != own and (d / "cpuacct.usage").exists()]
                    # seat cgroups are named <referee pid>-<id>: its own referee's first
                    kin = [d for d in others if d.name.split("-")[0] == own.name.split("-")[0]]
                    return [d / "cpuacct.usage" for d in kin or others]
            raise OSError(errno.ENOENT, "own cgroup not visible")
    raise OSError(errno.ENOENT, "no cpuacct cgroup")


class CgroupCounters:
    """The sum of the other seats' CPU counters; a cgroup removed meanwhile keeps its last
    value (so the sum never drops)."""

    def __init__(self, counters: list[Path]) -> None:
        self.last = dict.fromkeys(counters, 0)
        self.read()

    def read(self) -> float:
        for path in self.last:
            with contextlib.suppress(OSError, ValueError):
                self.last[path] = int(path.read_text())
        return sum(self.last.values()) / 1e9


def read_statfs() -> float:
    """Bytes used on the file system of ``/`` (a container's: the host's disk under it)."""
    info = os.statvfs("/")
    return float((info.f_blocks - info.f_bfree) * info.f_frsize)


def read_timing() -> float:
    """Minus the iterations of a tight loop in 20 ms (less when the CPU is shared)."""
    count, end = 0, time.perf_counter() + 0.02
    while time.perf_counter() < end:
        count += 1
    return -float(count)


def read_ino() -> float:
    """The inode number of a new pipe, after 1,024 others (so this CPU takes a new batch of
    numbers from the host-wide counter)."""
    for _ in range(1025):
        read, write = os.pipe()
        number = os.fstat(read).st_ino
        os.close(read)
        os.close(write)
    return float(number)


class Receiver:
    RATES = ("cgroup", "ino", "statfs")

    def __init__(self, channels: set[str]) -> None:
        self.readers: dict[str, Any] = {}
        self.failed: dict[str, str] = {}
        wanted = {"shmem": read_shmem, "sysinfo": read_sysinfo, "loadavg": read_loadavg,
                  "flock": read_flock, "ino": read_ino, "statfs": read_statfs,
                  "timing": read_timing}
        for channel in channels - {"keyring", "atime", "inoseq"}:
            try:
                if channel == "cgroup":
                    counters = sibling_cgroups()
                    if not counters:
                        raise OSError(errno.ENOENT, "no other cgroup")
                    self.readers[channel] = CgroupCounters(counters).read
                else:
                    self.readers[channel] = wanted[channel]
                self.readers[channel]()
            except OSError as exc:
                self.readers.pop(channel, None)
                self.failed[channel] = ("blocked " if exc.errno in (errno.EPERM, errno.ENOSYS)
                                        else "unreadable ") + _errname(exc)

    def read(self, channels: tuple[str, ...]) -> dict[str, float]:
        values = {}
        for channel in channels:
            try:
                values[channel] = self.readers[channel]()
            except OSError:
                values[channel] = float("nan")
        return values


def listen(options: dict[str, str]) -> None:
    channels = set(options["channels"].split(","))
    slot = int(options["slot_ms"]) / 1000
    receiver = Receiver(channels)
    rates = tuple(c for c in receiver.readers if c in Receiver.RATES)
    levels = tuple(c for c in receiver.readers if c not in Receiver.RATES)
    series: dict[str, dict[int, float]] = {c: {} for c in receiver.readers}
    end = time.time() + float(options["listen_s"])
    index = int(time.time() / slot) + 1
    while (index + 1) * slot <= end:
        # levels: the median of readings from 0.2 to 0.9 of the slot; rates: from 0.45 to 0.9
        # (the sender's switch, at the slot's start, costs CPU and pipes of its own)
        _sleep_until((index + 0.2) * slot)
        samples: list[dict[str, float]] = []
        first: dict[str, float] | None = None
        started = 0.0
        while time.time() < (index + 0.9) * slot:
            if first is None and time.time() >= (index + 0.45) * slot:
                first, started = receiver.read(rates), time.time()
            samples.append(receiver.read(levels))
            time.sleep(slot / 25)
        last = receiver.read(rates)
        for channel in rates:
            span = time.time() - started if first else 0.0
            series[channel][index] = ((last[channel] - first[channel]) / span if first and span
                                      else float("nan"))
        for channel in levels:
            values = sorted(sample[channel] for sample in samples)
            series[channel][index] = values[len(values) // 2] if values else float("nan")
        index += 1
    for channel in sorted(channels - {"keyring", "atime", "inoseq"}):
        if channel in receiver.failed:
            say(f"{channel}: {receiver.failed[channel]}")
        else:
            values = series[channel]
            say(f"{channel} slots: " + " ".join(f"{i % (2 + BITS)}:{values[i]:.4g}"
                                                 for i in sorted(values)))
            margin = MARGIN[channel] * (int(options.get("threads", "400"))
                                        if channel == "loadavg" else 1)
            say(f"{channel}: {decode(values, margin)}")
    if "keyring" in channels:
        say(f"keyring: {find_key(options['nonce'])}")
    if "inoseq" in channels:
        say(f"inoseq: decoded {format((int(read_ino()) >> 12) & (2**BITS - 1), f'0{BITS}b')}")
    if "atime" in channels:
        read = ["1" if (HERE / f"mark{i}").stat().st_atime > OLD_ATIME else "0"
                for i in range(BITS)]
        say(f"atime: {'decoded ' + ''.join(read) if '1' in read else 'none'}")


def _sleep_until(moment: float) -> None:
    time.sleep(max(0.0, moment - time.time()))


def decode(values: dict[int, float], margin: float) -> str:
    """Each bit by the frames' vote, weighed by how far the bit's slot lies from the middle of
    its frame's high and low slots (``decoded BITS``); ``none`` when no frame's markers differ
    by more than ``margin``."""
    frame = 2 + BITS
    scores = [0.0] * BITS
    frames = 0
    for start in sorted(i for i in values if i % frame == 0):
        slots = [values.get(start + k) for k in range(frame)]
        if any(v is None or v != v for v in slots):
            continue
        high, low = slots[0], slots[1]
        assert high is not None and low is not None
        if high - low <= margin:
            continue
        frames += 1
        for bit, value in enumerate(slots[2:]):
            assert value is not None
            scores[bit] += (value - (high + low) / 2) / (high - low)
    if not frames:
        return "none"
    return "decoded " + "".join("1" if score > 0 else "0" for score in scores)


def find_key(nonce: str) -> str:
    found = []
    with contextlib.suppress(OSError), open("/proc/keys") as handle:
        found += re.findall(rf"arena-twin:{nonce}:([01]{{{BITS}}})", handle.read())
    problem = ""
    for value in range(2**BITS):
        bits = format(value, f"0{BITS}b")
        name = f"arena-twin:{nonce}:{bits}".encode()
        for ring in (KEY_SPEC_SESSION, KEY_SPEC_USER):
            try:
                _syscall("keyctl", ctypes.c_int(KEYCTL_SEARCH), ctypes.c_int(ring), b"user",
                         name, ctypes.c_int(0))
                found.append(bits)
            except OSError as exc:
                if exc.errno in (errno.EPERM, errno.ENOSYS):
                    problem = f"blocked {_errname(exc)}"
    if found:
        return f"decoded {found[0]}"
    return problem or "none"


# --- the bot ----------------------------------------------------------------------------------


def choose(decision: Decision) -> Any:
    """At the first decision: send (seat 0) or listen (seat 1); then the first legal action."""
    global _done
    if not _done:
        _done = True
        options = settings()
        if decision.seat == 0:
            bits = hand_bits(decision)
            send(bits, options)
            say(f"sent {bits}")
        else:
            listen(options)
    return decision.legal_actions[0]


if __name__ == "__main__":
    from arena.sdk import run

    run(choose, name="twin")
