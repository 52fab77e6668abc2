"""What a bot may not read or do of the host, in both sandboxes; and the launcher that confines a
separated bot of the process sandbox.

A duplicate encounter plays one deal twice, each bot once from each seat: whatever a bot's first
instance could leave for its second (at the same time or later) is the opponent's hand. So no
bot may read host-wide state that another bot can move, nor leave state that outlives it:

* **Counters of the whole machine** in ``/proc`` (memory, CPU, load, disks, interrupts,
  pressure, file handles, locks, keys...) and ``/sys`` (memory per node, block devices, other
  cgroups' counters): every top-level ``/proc`` entry but the process directories and
  ``PROC_KEPT`` is masked, ``/sys`` hidden as a whole, and the four files programs do read
  (``PROC_SYNTHETIC``: ``meminfo``, ``stat``, ``loadavg``, ``cpuinfo``) are replaced by static
  text derived from the bot's limits (``synthetic_proc``): one CPU, the memory limit as total
  and free memory, no load. Static text carries nothing.
* **System calls** that read or move such state, or leave it behind (``DENIED``): ``sysinfo``
  (free, shared memory and load, even with ``/proc`` masked), the kernel keyrings (``add_key``,
  ``keyctl``, ``request_key``: a key outlives its bot and the keyrings are not namespaced),
  ``syslog``, ``cachestat``; new namespaces (``unshare``, ``setns``, ``clone`` with a
  ``CLONE_NEW*`` flag; ``clone3`` fails with ENOSYS, so the C library falls back to ``clone``),
  since a user namespace would let a bot mount a fresh ``/proc``; sockets of any family but
  ``AF_UNIX`` (the memory of TCP and UDP sockets is counted host-wide, and a bot has no network
  anyway); locks and change notifications on files (``flock``, ``fcntl`` locks and ``F_NOTIFY``,
  ``inotify_add_watch``, ``fanotify``): two instances of one bot share its files, so a lock or an
  access event would pass a bit; ``io_uring`` (its operations bypass this filter),
  ``perf_event_open``, ``bpf``, ``userfaultfd``, and the mount calls.

The Docker sandbox applies the same lists through the engine (``arena.sandbox.hostview``). The
process sandbox, where it separates bots, runs this file as a program, as root inside the bot's
new namespaces, right before the command that drops to the bot's user::

    python -I -S confine.py --memory-mb 512 -- setpriv ... -- command...

It masks ``/proc``, hides ``/sys``, ``/dev/pts`` and ``/dev/kmsg``, makes every mount
``noatime`` (reading a shared file must not change its access time), gives the bot a new empty
session keyring (it would otherwise possess the referee's), installs the seccomp filter
(``filter_program``) and ``exec``s the command. A filter is a classic BPF program built here
(no library): it refuses foreign architectures (i386 and x32 calls on x86_64, arm32 on
aarch64) by killing the process. Standard library only, no ``arena`` import: it runs under
``-I -S`` (no site, no environment), about 12-20 ms per bot start.

What no mask or filter hides: numbers the kernel draws for every process from machine-wide
counters (above all the inode number of a new pipe or socket, which also outlives a bot) and
timing; docs/containers.md says what they carry, as measured (``benchmarks/confinement.py``).
"""

from __future__ import annotations

import ctypes
import errno
import os
import platform
import struct
import sys
from collections.abc import Sequence

PROC_SYNTHETIC = ("cpuinfo", "loadavg", "meminfo", "stat")
"""``/proc`` files replaced by static text (``synthetic_proc``): what runtimes read (the memory
size: Node.js, the JVM; the CPU count: the C library's ``get_nprocs`` falls back to ``stat``)."""
PROC_KEPT = ("self", "thread-self", "net", "mounts", "filesystems", "version")
"""Top-level ``/proc`` entries left as they are: the process's own view (``net`` is its network
namespace's) and static facts. Every other non-numeric entry is masked (``proc_masked``)."""
DOCKER_MASKED = ("/proc/asound", "/proc/acpi", "/proc/kcore", "/proc/keys",
                 "/proc/latency_stats", "/proc/timer_list", "/proc/timer_stats",
                 "/proc/sched_debug", "/proc/scsi", "/sys/firmware")
"""Docker's own masked paths (a list given to the engine replaces them, so they are kept)."""
HIDDEN = ("/sys",)
"""Hidden as a whole: every host-wide counter in sysfs, and other cgroups' counters."""
DEV_HIDDEN = ("/dev/pts", "/dev/ptmx", "/dev/kmsg")
"""The process sandbox sees the host's ``/dev``: its terminals (a bot could open one for the
other to list) and the kernel log."""

# --- the seccomp filter ---------------------------------------------------------------------

X86_64, AARCH64 = "x86_64", "aarch64"
AUDIT_ARCH = {X86_64: 0xC000003E, AARCH64: 0xC00000B7}
"""``AUDIT_ARCH_*`` (linux/audit.h): what ``seccomp_data.arch`` holds for a native call."""
X32_BIT = 0x40000000
"""x32 calls on x86_64 carry this bit in their number."""

SYSCALLS: dict[str, dict[str, int]] = {
    # name: {arch: number} (asm/unistd_64.h; aarch64 uses asm-generic/unistd.h)
    "add_key": {X86_64: 248, AARCH64: 217},
    "request_key": {X86_64: 249, AARCH64: 218},
    "keyctl": {X86_64: 250, AARCH64: 219},
    "sysinfo": {X86_64: 99, AARCH64: 179},
    "ustat": {X86_64: 136},
    "syslog": {X86_64: 103, AARCH64: 116},
    "cachestat": {X86_64: 451, AARCH64: 451},
    "unshare": {X86_64: 272, AARCH64: 97},
    "setns": {X86_64: 308, AARCH64: 268},
    "flock": {X86_64: 73, AARCH64: 32},
    "inotify_add_watch": {X86_64: 254, AARCH64: 27},
    "fanotify_init": {X86_64: 300, AARCH64: 262},
    "fanotify_mark": {X86_64: 301, AARCH64: 263},
    "io_uring_setup": {X86_64: 425, AARCH64: 425},
    "io_uring_enter": {X86_64: 426, AARCH64: 426},
    "io_uring_register": {X86_64: 427, AARCH64: 427},
    "perf_event_open": {X86_64: 298, AARCH64: 241},
    "bpf": {X86_64: 321, AARCH64: 280},
    "userfaultfd": {X86_64: 323, AARCH64: 282},
    "mount": {X86_64: 165, AARCH64: 40},
    "umount2": {X86_64: 166, AARCH64: 39},
    "pivot_root": {X86_64: 155, AARCH64: 41},
    "open_tree": {X86_64: 428, AARCH64: 428},
    "move_mount": {X86_64: 429, AARCH64: 429},
    "fsopen": {X86_64: 430, AARCH64: 430},
    "fsconfig": {X86_64: 431, AARCH64: 431},
    "fsmount": {X86_64: 432, AARCH64: 432},
    "fspick": {X86_64: 433, AARCH64: 433},
    "mount_setattr": {X86_64: 442, AARCH64: 442},
    # allowed with conditions (below)
    "clone": {X86_64: 56, AARCH64: 220},
    "clone3": {X86_64: 435, AARCH64: 435},
    "socket": {X86_64: 41, AARCH64: 198},
    "fcntl": {X86_64: 72, AARCH64: 25},
}
DENIED = tuple(name for name in SYSCALLS if name not in ("clone", "clone3", "socket", "fcntl"))
"""System calls refused outright (EPERM); see the module doc for why each."""
CLONE_NEW_FLAGS = 0x7E020000
"""CLONE_NEWNS | NEWCGROUP | NEWUTS | NEWIPC | NEWUSER | NEWPID | NEWNET: ``clone`` with any of
them is refused (the mask Docker's default profile uses)."""
AF_UNIX = 1
"""The one socket family a bot may create (its seat's socket, socket pairs)."""
FCNTL_DENIED = (5, 6, 7, 36, 37, 38, 1026)
"""``fcntl`` commands refused: F_GETLK, F_SETLK, F_SETLKW, the F_OFD_* lock commands and
F_NOTIFY (directory change notifications)."""

_LD_W_ABS, _JEQ, _JGE, _JSET, _RET = 0x20, 0x15, 0x35, 0x45, 0x06
_RET_ALLOW, _RET_KILL_PROCESS, _RET_ERRNO = 0x7FFF0000, 0x80000000, 0x00050000
_NR, _ARCH = 0, 4


def _arg(index: int) -> int:
    """Offset of argument ``index``'s low 32 bits in ``struct seccomp_data`` (little-endian);
    the kernel reads the arguments checked here as 32-bit values (``int`` family, ``unsigned
    int`` command, the low half of the clone flags), so their high half is not looked at."""
    return 16 + 8 * index


def _insn(code: int, k: int, jt: int = 0, jf: int = 0) -> bytes:
    return struct.pack("=HBBI", code, jt, jf, k)


def _errno(number: int) -> int:
    return _RET_ERRNO | number


def filter_program(arch: str) -> bytes:
    """The classic BPF program of the filter for ``arch`` (``x86_64`` or ``aarch64``): a
    native call in ``DENIED`` gets EPERM, ``clone`` with a new-namespace flag EPERM, ``clone3``
    ENOSYS, ``socket`` of another family than AF_UNIX EPERM, ``fcntl`` with a command of
    ``FCNTL_DENIED`` EPERM; a call of another architecture kills the process. ``ValueError`` for
    an architecture it does not know."""
    if arch not in AUDIT_ARCH:
        raise ValueError(f"no seccomp filter for {arch}: only {', '.join(AUDIT_ARCH)}")
    number = {name: table[arch] for name, table in SYSCALLS.items() if arch in table}
    eperm = _errno(errno.EPERM)
    out = [_insn(_LD_W_ABS, _ARCH), _insn(_JEQ, AUDIT_ARCH[arch], 1, 0),
           _insn(_RET, _RET_KILL_PROCESS), _insn(_LD_W_ABS, _NR)]
    if arch == X86_64:
        out += [_insn(_JGE, X32_BIT, 0, 1), _insn(_RET, _RET_KILL_PROCESS)]
    for name in DENIED:
        if name in number:
            out += [_insn(_JEQ, number[name], 0, 1), _insn(_RET, eperm)]
    out += [_insn(_JEQ, number["clone3"], 0, 1), _insn(_RET, _errno(errno.ENOSYS))]
    # each conditional block ends in a return, so the number need not be loaded again
    out += [_insn(_JEQ, number["clone"], 0, 4), _insn(_LD_W_ABS, _arg(0)),
            _insn(_JSET, CLONE_NEW_FLAGS, 0, 1), _insn(_RET, eperm), _insn(_RET, _RET_ALLOW)]
    out += [_insn(_JEQ, number["socket"], 0, 4), _insn(_LD_W_ABS, _arg(0)),
            _insn(_JEQ, AF_UNIX, 1, 0), _insn(_RET, eperm), _insn(_RET, _RET_ALLOW)]
    checks = len(FCNTL_DENIED)
    out += [_insn(_JEQ, number["fcntl"], 0, checks + 3), _insn(_LD_W_ABS, _arg(1))]
    for index, command in enumerate(FCNTL_DENIED):
        out.append(_insn(_JEQ, command, checks - index, 0))
    out += [_insn(_RET, _RET_ALLOW), _insn(_RET, eperm), _insn(_RET, _RET_ALLOW)]
    return b"".join(out)


def machine_arch() -> str:
    """This machine's architecture as ``filter_program`` names it."""
    machine = platform.machine().lower()
    return {"amd64": X86_64, "arm64": AARCH64}.get(machine, machine)


# --- what /proc shows -----------------------------------------------------------------------


def proc_masked(proc: str = "/proc") -> list[tuple[str, bool]]:
    """The top-level entries of ``proc`` to mask, as (name, is a directory): every one but the
    process directories, symbolic links, ``PROC_KEPT`` and ``PROC_SYNTHETIC``."""
    masked = []
    for entry in sorted(os.scandir(proc), key=lambda e: e.name):
        if (entry.name.isdigit() or entry.is_symlink() or entry.name in PROC_KEPT
                or entry.name in PROC_SYNTHETIC):
            continue
        masked.append((entry.name, entry.is_dir(follow_symlinks=False)))
    return masked


def _read(path: str) -> str:
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return handle.read()
    except OSError:
        return ""


def _meminfo(memory_kib: int, host: str) -> str:
    full = ("MemTotal", "MemFree", "MemAvailable", "CommitLimit")
    lines = []
    for line in host.splitlines():
        name, sep, rest = line.partition(":")
        if not sep:
            continue
        kib = rest.strip().endswith("kB")
        value = memory_kib if name in full else 0
        if name in ("Hugepagesize", "VmallocTotal"):
            value = int(rest.split()[0])  # sizes of the kernel's, not counters
        lines.append(f"{name + ':':<16}{value:>8}{' kB' if kib else ''}")
    return "\n".join(lines or [f"MemTotal:       {memory_kib} kB"]) + "\n"


def _cpuinfo(host: str) -> str:
    first = host.split("\n\n", 1)[0]
    fixed = {"processor": "0", "siblings": "1", "core id": "0", "cpu cores": "1",
             "apicid": "0", "initial apicid": "0", "physical id": "0"}
    lines = []
    for line in first.splitlines():
        name, sep, _ = line.partition(":")
        key = name.strip()
        if "MHz" in key:
            continue  # a frequency moves with the load of the machine
        lines.append(f"{name}: {fixed[key]}" if sep and key in fixed else line)
    return "\n".join(lines) + "\n\n"


def _stat(host: str) -> str:
    btime = next((line for line in host.splitlines() if line.startswith("btime ")), "btime 0")
    zeros = " ".join(["0"] * 10)
    return (f"cpu  {zeros}\ncpu0 {zeros}\nintr 0\nctxt 0\n{btime}\nprocesses 1\n"
            f"procs_running 1\nprocs_blocked 0\nsoftirq 0 0 0 0 0 0 0 0 0 0 0\n")


def synthetic_proc(memory_mb: int, proc: str = "/proc") -> dict[str, str]:
    """The static text of each ``PROC_SYNTHETIC`` file for a bot with ``memory_mb`` of memory:
    the machine's field names and facts (CPU model, boot time), none of its counters."""
    memory_kib = memory_mb * 1024
    return {
        "cpuinfo": _cpuinfo(_read(f"{proc}/cpuinfo")),
        "loadavg": "0.00 0.00 0.00 1/1 1\n",
        "meminfo": _meminfo(memory_kib, _read(f"{proc}/meminfo")),
        "stat": _stat(_read(f"{proc}/stat")),
    }


# --- the launcher (root, inside the bot's namespaces) ----------------------------------------

STAGE = "/mnt"
"""Where the launcher stages the synthetic files (a tmpfs, unmounted before the bot runs)."""
_MS_RDONLY, _MS_NOSUID, _MS_NODEV, _MS_NOEXEC = 1, 2, 4, 8
_MS_REMOUNT, _MS_BIND, _MS_REC = 32, 4096, 16384
_MOUNT_ATTR_RDONLY, _MOUNT_ATTR_NOATIME, _MOUNT_ATTR__ATIME = 0x1, 0x10, 0x70
_AT_RECURSIVE, _AT_FDCWD = 0x8000, -100
_PR_SET_NO_NEW_PRIVS, _PR_SET_SECCOMP, _SECCOMP_MODE_FILTER = 38, 22, 2
_KEYCTL_JOIN_SESSION_KEYRING = 1


class _MountAttr(ctypes.Structure):
    _fields_ = [("attr_set", ctypes.c_uint64), ("attr_clr", ctypes.c_uint64),
                ("propagation", ctypes.c_uint64), ("userns_fd", ctypes.c_uint64)]


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_char_p)]


class _Kernel:
    """The few system calls the launcher makes, through the C library."""

    def __init__(self) -> None:
        self.libc = ctypes.CDLL(None, use_errno=True)
        self.libc.syscall.restype = ctypes.c_long
        self.arch = machine_arch()

    @staticmethod
    def check(result: int, what: str) -> None:
        if result < 0:
            code = ctypes.get_errno()
            raise OSError(code, f"{what}: {os.strerror(code)}")

    def mount(self, source: str, target: str, fstype: str | None, flags: int,
              data: str | None = None) -> None:
        self.check(self.libc.mount(source.encode(), target.encode(),
                                   fstype.encode() if fstype else None, ctypes.c_ulong(flags),
                                   data.encode() if data else None), f"mount {target}")

    def bind_readonly(self, source: str, target: str) -> None:
        self.mount(source, target, None, _MS_BIND)
        self.mount("none", target, None, _MS_REMOUNT | _MS_BIND | _MS_RDONLY | _MS_NOSUID
                   | _MS_NODEV | _MS_NOEXEC)

    def umount(self, target: str) -> None:
        self.check(self.libc.umount2(target.encode(), 0), f"umount {target}")

    def mount_setattr_noatime(self, path: str) -> None:
        """Every mount at and below ``path``: ``noatime`` (kernel 5.12+; before, left)."""
        attr = _MountAttr(_MOUNT_ATTR_NOATIME, _MOUNT_ATTR__ATIME, 0, 0)
        result = self.libc.syscall(ctypes.c_long(SYSCALLS["mount_setattr"][self.arch]),
                                   ctypes.c_int(_AT_FDCWD), path.encode(),
                                   ctypes.c_uint(_AT_RECURSIVE), ctypes.byref(attr),
                                   ctypes.c_size_t(ctypes.sizeof(attr)))
        if result < 0 and ctypes.get_errno() not in (errno.ENOSYS, errno.EINVAL):
            self.check(result, f"mount_setattr {path}")

    def join_new_session_keyring(self) -> None:
        self.check(self.libc.syscall(ctypes.c_long(SYSCALLS["keyctl"][self.arch]),
                                     ctypes.c_int(_KEYCTL_JOIN_SESSION_KEYRING), None),
                   "keyctl")

    def install_filter(self, program: bytes) -> None:
        self.check(self.libc.prctl(_PR_SET_NO_NEW_PRIVS, ctypes.c_ulong(1), ctypes.c_ulong(0),
                                   ctypes.c_ulong(0), ctypes.c_ulong(0)), "no_new_privs")
        fprog = _SockFprog(len(program) // 8, program)
        self.check(self.libc.prctl(_PR_SET_SECCOMP, ctypes.c_ulong(_SECCOMP_MODE_FILTER),
                                   ctypes.byref(fprog), ctypes.c_ulong(0), ctypes.c_ulong(0)),
                   "seccomp")


def mask_host(kernel: _Kernel, memory_mb: int) -> None:
    """In the calling (new) mount namespace: synthetic ``PROC_SYNTHETIC`` files, the other
    host-wide ``/proc`` entries masked, ``HIDDEN`` and ``DEV_HIDDEN`` hidden, every mount
    ``noatime``."""
    kernel.mount("arena-proc", STAGE, "tmpfs", _MS_NOSUID | _MS_NODEV | _MS_NOEXEC,
                 "mode=0755,size=1m")
    empty = f"{STAGE}/empty"
    os.mkdir(empty, 0o555)
    for name, text in synthetic_proc(memory_mb).items():
        path = f"{STAGE}/{name}"
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.chmod(path, 0o444)
        kernel.bind_readonly(path, f"/proc/{name}")
    for name, is_dir in proc_masked():
        target = f"/proc/{name}"
        if is_dir:
            kernel.bind_readonly(empty, target)
        else:
            kernel.mount("/dev/null", target, None, _MS_BIND)
    for target in HIDDEN + DEV_HIDDEN:
        if os.path.isdir(target):
            kernel.bind_readonly(empty, target)
        elif os.path.exists(target):
            kernel.mount("/dev/null", target, None, _MS_BIND)
    kernel.umount(STAGE)
    kernel.mount_setattr_noatime("/")


def main(argv: Sequence[str]) -> int:
    """``confine.py [--memory-mb N] -- command...``: confine this process (``mask_host`` when a
    memory size is given, a new session keyring, the filter), then exec the command. Exit
    status 126 with one line on stderr when a step fails: nothing runs unconfined."""
    args = list(argv)
    memory_mb = None
    if args[:1] == ["--memory-mb"] and len(args) > 1 and args[1].isdigit():
        memory_mb, args = int(args[1]), args[2:]
    if args[:1] != ["--"] or len(args) < 2:
        print("usage: confine.py [--memory-mb N] -- command...", file=sys.stderr)
        return 2
    command = args[1:]
    if memory_mb is not None and os.getpid() != 1:
        # the masks are mounts of the calling mount namespace: only the first process of a
        # bot's new namespaces (arena.sandbox.isolation) may make them, never a host's process
        print("arena: confine.py --memory-mb masks /proc, /sys and /dev in its own mount "
              "namespace: it runs only as the first process of a bot's new namespaces (the "
              "process sandbox starts it so), never on the host", file=sys.stderr)
        return 126
    try:
        program = filter_program(machine_arch())
        kernel = _Kernel()
        if memory_mb is not None:
            mask_host(kernel, memory_mb)
        kernel.join_new_session_keyring()
        kernel.install_filter(program)
    except (OSError, ValueError) as exc:
        print(f"arena: the bot was not started: confinement failed: {exc}", file=sys.stderr)
        return 126
    try:
        os.execvp(command[0], command)
    except OSError as exc:
        print(f"arena: cannot run {command[0]}: {exc.strerror}", file=sys.stderr)
        return 127
    return 0  # not reached


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
