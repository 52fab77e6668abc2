"""The process sandbox: a bot runs as a local subprocess, in its own process group, under
resource limits. Where the arena runs as root on Linux, each bot is also separated from
everything else (its own user and namespaces: ``arena.sandbox.isolation``); as root where that
is not possible (util-linux missing), it refuses to run bots at all rather than run them as
root; as a normal user it is for development only and separates nothing. The Docker sandbox is
the one for untrusted bots.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import sys
from collections.abc import Iterable
from pathlib import Path

import arena
from arena.errors import BotFault, ConfigError, SandboxError
from arena.model import BotSpec, Termination
from arena.sandbox.api import GAME_ENV, LOG_TAIL_BYTES, SOCKET_ENV, SOCKET_NAME, ExitInfo, Limits
from arena.sandbox.isolation import (
    HELD_GO,
    BotUser,
    held,
    isolation_available,
    limited,
    reserve_user,
    separated,
    unseparated_reason,
)
from arena.sandbox.meter import Meter, ProcMeter, SeatCgroup, proc_cpu_problem

log = logging.getLogger(__name__)

_PYTHON_NAMES = ("python", "python3", "python3.11")


def root_refusal() -> str | None:
    """One line refusing to play bots here, or None: as root, bots run separated or not at all
    (unseparated, every bot would run as root with only resource limits)."""
    reason = unseparated_reason()
    if reason is None or os.geteuid() != 0:
        return None
    return (f"refusing to run bots as root unseparated ({reason}): install util-linux "
            "(unshare, setpriv, mount), or use --sandbox docker")


def separation_note() -> str:
    """What the process sandbox does and does not separate here, in plain words."""
    refusal = root_refusal()
    if refusal is not None:
        return refusal
    if isolation_available():
        return ("each bot runs as its own unprivileged user in its own PID, mount, network and "
                "IPC namespaces: it reaches only its seat's socket, sees no other process, has "
                "no network and a private /tmp, reads no host-wide counter, keeps no key, and "
                "everything it starts dies with the match; it can still read this machine's "
                "world-readable files and use CPU and memory up to its limits (the Docker "
                "sandbox is the one for untrusted bots)")
    return ("bots run as your own user, with your files and your network: it separates "
            "nothing, so play only bots you trust (the Docker sandbox is the one for "
            "untrusted bots; as root on Linux the process sandbox separates each bot)")


def bot_command(bot: BotSpec) -> list[str]:
    """The bot's command; a leading ``python``/``python3`` runs this interpreter (same venv)."""
    command = list(bot.command)
    if command and command[0] in _PYTHON_NAMES:
        command[0] = sys.executable
    return command


def bot_environment(socket_dir: Path, game: str) -> dict[str, str]:
    """A minimal environment: the socket target, PATH, and the arena package importable."""
    package_root = str(Path(arena.__file__).resolve().parent.parent)
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(socket_dir),
        "LANG": "C.UTF-8",
        "PYTHONUNBUFFERED": "1",
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONPATH": package_root,
        SOCKET_ENV: f"unix://{socket_dir / SOCKET_NAME}",
        GAME_ENV: game,
    }


class ProcessBot:
    """A bot subprocess; its output is drained continuously into a bounded tail. A separated
    bot's uid is given back when it is stopped (its processes are gone with its namespace), and
    its seat's cgroup removed."""

    image: str | None = None
    """A process runs no image."""

    def __init__(self, proc: asyncio.subprocess.Process, user: BotUser | None = None,
                 cgroup: SeatCgroup | None = None) -> None:
        self._proc = proc
        self._user = user
        self._cgroup = cgroup
        self.meter: Meter | None = None
        """The seat's CPU and memory meter: its own cgroup's, else its process tree's."""
        if cgroup is not None:
            cgroup.meter.memory_fallback = ProcMeter(proc.pid).peak_memory_bytes
            self.meter = cgroup.meter
        elif proc_cpu_problem() is None:
            self.meter = ProcMeter(proc.pid)
        self._tail = bytearray()
        self._killed = False
        self._drain = asyncio.ensure_future(self._read_output())

    async def _read_output(self) -> None:
        stream = self._proc.stdout
        if stream is None:
            return
        while chunk := await stream.read(65536):
            self._tail += chunk
            if len(self._tail) > 2 * LOG_TAIL_BYTES:
                del self._tail[: len(self._tail) - LOG_TAIL_BYTES]

    def _info(self, code: int) -> ExitInfo:
        memory = code != 0 and b"MemoryError" in bytes(self._tail[-4096:])
        if code < 0:
            return ExitInfo(None, -code, oom_killed=memory, killed_by_arena=self._killed)
        return ExitInfo(code, None, oom_killed=memory, killed_by_arena=self._killed)

    async def wait(self) -> ExitInfo:
        code = await self._proc.wait()
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(asyncio.shield(self._drain), 0.5)
        return self._info(code)

    def poll(self) -> ExitInfo | None:
        code = self._proc.returncode
        return None if code is None else self._info(code)

    async def stop(self) -> ExitInfo:
        if self._proc.returncode is None:
            self._killed = True
        # Kill the whole process group: a bot may have forked helpers (a separated bot's other
        # processes die with its PID namespace when its first process dies).
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self._proc.pid, signal.SIGKILL)
        info = await self.wait()
        self._drain.cancel()
        if self.meter is not None:
            self.meter.close()
        if self._cgroup is not None:
            cgroup, self._cgroup = self._cgroup, None
            if not await asyncio.to_thread(cgroup.remove):
                log.warning("could not remove the seat cgroup %s", cgroup.directories[0])
        if self._user is not None:
            self._user.release()
            self._user = None
        return info

    def log_tail(self) -> str:
        return bytes(self._tail[-LOG_TAIL_BYTES:]).decode("utf-8", "replace")


class ProcessSandbox:
    """Runs bots as local subprocesses: separated as root on Linux, refused as root elsewhere,
    development only (not a security boundary) as a normal user."""

    name = "process"

    def __init__(self, limits: Limits | None = None) -> None:
        self.limits = limits or Limits()

    def cpu_meter_problem(self) -> str | None:
        """None: each bot's CPU is counted (its own cgroup as root, else its process tree from
        /proc); else one line saying why the CPU clock cannot be used."""
        return proc_cpu_problem()

    def check(self, bots: Iterable[BotSpec]) -> None:
        """``ConfigError`` when bots may not run here at all (as root, unseparated) or when one
        of them is a submitted image (containers only); with no bots, the first check alone."""
        refusal = root_refusal()
        if refusal is not None:
            raise ConfigError(refusal)
        for bot in bots:
            if not bot.directory:
                raise ConfigError(
                    f"{bot.name} is a submitted container image: it runs only in the Docker "
                    "sandbox (--sandbox docker)"
                )

    async def start(self, bot: BotSpec, socket_dir: Path, match_id: str, seat: int) -> ProcessBot:
        if not bot.directory:
            raise SandboxError(f"bot {bot.name} has no directory: the process sandbox needs one")
        refusal = root_refusal()
        if refusal is not None:  # not the bot's doing: the match is void
            raise SandboxError(refusal)
        command = bot_command(bot)
        user: BotUser | None = None
        if isolation_available():
            try:
                user = reserve_user()
            except OSError as exc:
                raise SandboxError(f"no bot user for {bot.name}: {exc}") from exc
            argv = separated(command, self.limits, user, Path(bot.directory),
                             needed_paths(bot, socket_dir))
        else:
            argv = limited(command, self.limits)
        cgroup = await asyncio.to_thread(SeatCgroup.create)
        try:
            proc = await asyncio.create_subprocess_exec(
                *(held(argv) if cgroup is not None else argv),
                cwd=bot.directory,
                env=bot_environment(socket_dir, bot.game),
                stdin=asyncio.subprocess.PIPE if cgroup else asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.STDOUT,
                start_new_session=True,
            )
        except (FileNotFoundError, PermissionError) as exc:
            _undo(user, cgroup)
            raise BotFault(Termination.NO_START, f"cannot run the bot's command: {exc}") from exc
        except OSError as exc:
            _undo(user, cgroup)
            raise SandboxError(f"cannot start bot {bot.name}: {exc}") from exc
        if cgroup is not None:
            await _release_into(proc, cgroup, user, bot.name)
        return ProcessBot(proc, user, cgroup)


def _undo(user: BotUser | None, cgroup: SeatCgroup | None) -> None:
    if user is not None:
        user.release()
    if cgroup is not None:
        cgroup.remove()


async def _release_into(proc: asyncio.subprocess.Process, cgroup: SeatCgroup,
                        user: BotUser | None, name: str) -> None:
    """Move the held bot into its seat's cgroup, then let it run (``isolation.held``): its
    code and everything it starts run in the cgroup. ``SandboxError`` when it cannot move."""
    try:
        cgroup.enter(proc.pid)
    except OSError as exc:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
        await proc.wait()
        await asyncio.to_thread(_undo, user, cgroup)
        raise SandboxError(f"cannot move bot {name} into its seat's cgroup: {exc}") from exc
    assert proc.stdin is not None
    with contextlib.suppress(ConnectionError):  # gone already: its exit is what is seen
        proc.stdin.write(HELD_GO)
        await proc.stdin.drain()
    proc.stdin.close()


def needed_paths(bot: BotSpec, socket_dir: Path) -> list[Path]:
    """What a separated bot must see: its directory, its seat's socket directory, the Python
    installation and virtual environment, and the arena package (its runtime)."""
    package_root = Path(arena.__file__).resolve().parent.parent
    paths = {Path(bot.directory or ".").resolve(), socket_dir.resolve(), package_root,
             Path(sys.prefix).resolve(), Path(sys.base_prefix).resolve()}
    return sorted(paths)
