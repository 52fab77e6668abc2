"""How the process sandbox runs a bot: the command line that applies the limits and, where the
arena runs as root on Linux, separates the bot from everything else on the machine.

Three cases, decided per machine (``unseparated_reason``):

* **Separated** (root, Linux, util-linux's ``unshare``/``setpriv``/``mount``): each bot runs as
  its own unprivileged user (a uid no other running bot has, host-wide), as init of its own PID,
  mount, network and IPC namespaces. It sees no other process, has no network (only a loopback
  that is down), gets a private 16 MiB ``/tmp``, and of this machine's directories that are not
  world-traversable (e.g. ``/root``) sees only what it needs to run (its directory, its seat's
  socket directory, the Python installation and the arena package); ``/run`` (the Docker socket,
  other referees' sockets) is hidden. It reads no host-wide counter and leaves nothing behind
  (``arena.sandbox.confine``, run as root in its namespaces before it drops to its user): ``/sys``
  and every host-wide ``/proc`` file masked, ``meminfo``, ``stat``, ``loadavg`` and ``cpuinfo``
  static, its own empty session keyring, no access times, and a seccomp filter (no
  ``sysinfo``, keys, locks, namespaces, ``io_uring``, sockets but ``AF_UNIX``). When the bot
  exits or is killed, or the referee dies, every process it started dies with its PID
  namespace.
* **Development** (a normal user, or macOS): the bot runs as you; only the resource limits
  apply. It separates nothing.
* **Refused**: root where separation is not possible (util-linux missing, not Linux): running
  every bot as root with only ulimits is never done (``arena.sandbox.process``).

Either way the limits are set by the POSIX shell's ``ulimit`` right before ``exec``: no
``preexec_fn`` (Python between fork and exec in a process running gRPC threads can abort the
child) and no Linux-only tool, at the cost of one ``sh`` exec (~1 ms).
"""

from __future__ import annotations

import fcntl
import os
import shlex
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path

from arena.sandbox import confine
from arena.sandbox.api import Limits

UID_BASE = 2_000_000_000
"""Bot uids are UID_BASE + n: far above any login or container-mapped range."""
UID_SLOTS = 4096
"""How many bots may run at once on one host (all referees together)."""
LOCK_DIR = Path("/run/arena-bot-uids")
"""One lock file per uid in use, held (flock) by the referee that runs the bot."""
HIDDEN_ALWAYS = ("/tmp", "/var/tmp", "/dev/shm", "/run")
"""Directories a separated bot never sees the host's contents of (only what it needs inside)."""
TOOLS = ("unshare", "setpriv", "mount")
CONFINE = Path(confine.__file__).resolve()
"""The launcher a separated bot starts through (run by this interpreter, ``-I -S``)."""


STAGE = Path("/mnt")
"""Where the mount script stages the paths it brings back (a tmpfs over it, in the bot's own
mount namespace only)."""


def unseparated_reason() -> str | None:
    """Why the process sandbox cannot separate bots on this host, in plain words; None where it
    can (root on Linux, util-linux's ``TOOLS`` on PATH, ``STAGE`` present). What a caller that
    must never run untrusted code unseparated (a cluster worker, a referee running as root)
    asks."""
    if not sys.platform.startswith("linux"):
        return "bots are separated only on Linux"
    if os.geteuid() != 0:
        return "bots are separated only when the arena runs as root"
    missing = [tool for tool in TOOLS if not shutil.which(tool)]
    if missing:
        return f"{', '.join(missing)} not found on PATH"
    if not STAGE.is_dir():
        return f"{STAGE} is missing (separation stages its mounts there)"
    return None


def isolation_available() -> bool:
    """True where the process sandbox can separate bots: root on Linux with util-linux."""
    return unseparated_reason() is None


def limit_script(limits: Limits) -> str:
    """A POSIX shell snippet that sets the rlimits, then ``exec``s its arguments."""
    kib = limits.memory_mb * 1024
    blocks = limits.file_size_mb * 2048  # ulimit -f counts 512-byte blocks
    return (f"ulimit -c 0 && ulimit -d {kib} && ulimit -t {limits.cpu_seconds + 5} && "
            f"ulimit -n {limits.open_files} && ulimit -f {blocks} && exec \"$@\"")


HELD_GO = b"go\n"
"""What the referee writes to a held command's stdin to let it run (``held``)."""


def held(argv: Sequence[str]) -> list[str]:
    """``argv`` held back until the referee writes ``HELD_GO`` to its stdin (the referee moves
    it into the seat's cgroup meanwhile, so the bot's code and every process it starts run
    there); it runs with stdin from /dev/null. Without the go (the referee died), it exits 125
    and runs nothing."""
    script = 'IFS= read -r go && [ "$go" = go ] && exec "$@" </dev/null; exit 125'
    return ["/bin/sh", "-c", script, "arena-held", *argv]


def limited(command: Sequence[str], limits: Limits) -> list[str]:
    """``command`` run under the limits (development level)."""
    return ["/bin/sh", "-c", limit_script(limits), "arena-limits", *command]


class BotUser:
    """A uid reserved for one bot, host-wide, until ``release``."""

    def __init__(self, uid: int, lock: int) -> None:
        self.uid = uid
        self._lock = lock

    def release(self) -> None:
        """Give the uid back (its processes are gone with their PID namespace)."""
        if self._lock >= 0:
            os.close(self._lock)
            self._lock = -1


def reserve_user(start: int | None = None) -> BotUser:
    """A free bot uid, held with an exclusive lock (released by the kernel if the referee dies).
    Raises ``OSError`` when every slot is taken."""
    LOCK_DIR.mkdir(mode=0o700, parents=True, exist_ok=True)
    first = os.getpid() % UID_SLOTS if start is None else start
    for step in range(UID_SLOTS):
        uid = UID_BASE + (first + step) % UID_SLOTS
        fd = os.open(LOCK_DIR / str(uid), os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            continue
        return BotUser(uid, fd)
    raise OSError(f"all {UID_SLOTS} bot uids are in use")


def _world_traversable(path: Path) -> bool:
    try:
        return bool(path.stat().st_mode & 0o001)
    except OSError:
        return False


def _under(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


def hidden_roots(needed: Sequence[Path]) -> list[Path]:
    """The directories whose host contents a separated bot does not see, outermost first:
    ``HIDDEN_ALWAYS`` and, on the way down to each needed path, every directory that is not
    world-traversable and that the bot would otherwise see as it is on the host: the first one
    below ``/``, and the first one below each needed path it passes (a needed path brings its
    host tree back, so a closed directory inside it, e.g. a worker's 0700 cache inside the
    arena's checkout, would otherwise bar the bot from its own directory below it)."""
    wanted = {Path(p) for p in needed}
    always = {Path(p) for p in HIDDEN_ALWAYS}
    roots = {p for p in always if p.is_dir()}
    for path in wanted:
        real = True  # the bot sees this level as it is on the host
        for ancestor in reversed(path.parents):
            if ancestor == Path("/"):
                continue
            if ancestor in wanted:
                real = True
            elif ancestor in always:
                real = False
            elif real and not _world_traversable(ancestor):
                roots.add(ancestor)
                real = False
    return sorted((r for r in roots if r not in wanted), key=lambda r: (len(r.parts), r))


def mount_script(needed: Sequence[Path], tmp_mb: int) -> str:
    """Shell commands (run as root inside the bot's new mount namespace) that hide every
    ``hidden_roots`` directory under a tmpfs and bring back, at the same paths, only the needed
    paths below it. Staging happens on a tmpfs over ``/mnt``, unmounted at the end."""
    lines = ["set -e", f"mount -t tmpfs -o mode=0700 arena-stage {STAGE}"]
    staged = 0
    roots = hidden_roots(needed)
    for root in roots:  # outermost first: an inner root is inside a path an outer one restored
        inner = [r for r in roots if r != root and _under(r, root)]
        keep = sorted(p for p in needed
                      if _under(p, root) and not any(_under(p, r) for r in inner))
        for index, path in enumerate(keep):
            lines.append(f"mkdir {STAGE}/{staged + index}")
            lines.append(f"mount --bind {shlex.quote(str(path))} {STAGE}/{staged + index}")
        options = (f"mode=1777,size={tmp_mb}m" if str(root) in ("/tmp", "/var/tmp", "/dev/shm")
                   else "mode=0755,size=1m")
        hide = shlex.quote(str(root))
        lines.append(f"mount -t tmpfs -o {options},nosuid,nodev arena-hide {hide}")
        for index, path in enumerate(keep):
            target = shlex.quote(str(path))
            lines.append(f"mkdir -p {target}")
            lines.append(f"mount --move {STAGE}/{staged + index} {target}")
        staged += len(keep)
    lines.append(f"umount {STAGE}")
    return "\n".join(lines)


def confined(command: Sequence[str], limits: Limits) -> list[str]:
    """``command`` run by the launcher of ``arena.sandbox.confine`` (as root, inside the bot's
    namespaces): host-wide ``/proc`` files masked or made static, ``/sys`` hidden, a new
    session keyring, the seccomp filter; then ``command`` (which drops to the bot's user)."""
    return [sys.executable, "-I", "-S", str(CONFINE), "--memory-mb", str(limits.memory_mb),
            "--", *command]


def separated(command: Sequence[str], limits: Limits, user: BotUser, workdir: Path,
              needed: Sequence[Path]) -> list[str]:
    """``command`` run in ``workdir`` as ``user`` in its own namespaces, with only ``needed`` of
    the hidden directories visible, confined (``confined``), under the limits (see the module
    doc)."""
    uid = str(user.uid)
    drop = ["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups", "--no-new-privs",
            "--inh-caps=-all", "--bounding-set=-all", "--pdeathsig=KILL", "--"]
    inner = " ".join(shlex.quote(part)
                     for part in confined([*drop, *limited(command, limits)], limits))
    setup = (f"{mount_script(needed, limits.tmpfs_mb)}\ncd {shlex.quote(str(workdir))}\n"
             f"exec {inner}")
    return [
        # if the referee dies, unshare dies (and with it, through --kill-child, the bot's pid 1)
        "setpriv", "--pdeathsig=KILL", "--",
        "unshare", "--pid", "--fork", "--kill-child", "--mount-proc", "--net", "--ipc",
        "--uts", "--",
        "/bin/sh", "-c", setup,
    ]
