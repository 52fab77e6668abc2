"""The process sandbox: a bot runs as a local subprocess with rlimits, in its own process group.

For development only: it is NOT a security boundary (the bot runs as your user, sees your files and
the network). Use the Docker sandbox for untrusted code.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
import sys
from collections.abc import Iterable
from pathlib import Path

import arena
from arena.errors import BotFault, ConfigError, SandboxError
from arena.model import BotSpec, Termination
from arena.sandbox.api import GAME_ENV, LOG_TAIL_BYTES, SOCKET_ENV, SOCKET_NAME, ExitInfo, Limits

_PYTHON_NAMES = ("python", "python3", "python3.11")


def limit_prefix(limits: Limits) -> list[str]:
    """``prlimit`` (util-linux) applies the rlimits to the bot's command before it runs.

    Not a ``preexec_fn``: Python code between fork and exec in a process that runs gRPC threads
    can deadlock or abort the child (gRPC's fork handlers); prlimit keeps the fork clean.
    """
    prlimit = shutil.which("prlimit")
    if prlimit is None:
        raise SandboxError("the process sandbox needs prlimit (Debian package util-linux)")
    mem = limits.memory_mb * 1024 * 1024
    fsize = limits.file_size_mb * 1024 * 1024
    return [
        prlimit,
        f"--data={mem}",
        f"--cpu={limits.cpu_seconds}:{limits.cpu_seconds + 5}",
        f"--nofile={limits.open_files}",
        f"--fsize={fsize}",
        "--core=0",
        "--",
    ]


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


def separation_note() -> str:
    """What the process sandbox does and does not separate, in plain words."""
    return ("bots run as your own user, with your files and your network: it separates "
            "nothing, so play only bots you trust (the Docker sandbox is the one for "
            "untrusted bots)")


class ProcessBot:
    """A bot subprocess; its output is drained continuously into a bounded tail."""

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self._proc = proc
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
        # Kill the whole process group: a bot may have forked helpers.
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self._proc.pid, signal.SIGKILL)
        info = await self.wait()
        self._drain.cancel()
        return info

    def log_tail(self) -> str:
        return bytes(self._tail[-LOG_TAIL_BYTES:]).decode("utf-8", "replace")


class ProcessSandbox:
    """Runs bots as local subprocesses (development only; not a security boundary)."""

    name = "process"

    def __init__(self, limits: Limits | None = None) -> None:
        self.limits = limits or Limits()

    def check(self, bots: Iterable[BotSpec]) -> None:
        for bot in bots:
            if not bot.directory:
                raise ConfigError(
                    f"{bot.name} is a submitted container image: it runs only in the Docker "
                    "sandbox (--sandbox docker)"
                )

    async def start(self, bot: BotSpec, socket_dir: Path, match_id: str, seat: int) -> ProcessBot:
        if not bot.directory:
            raise SandboxError(f"bot {bot.name} has no directory: the process sandbox needs one")
        try:
            proc = await asyncio.create_subprocess_exec(
                *limit_prefix(self.limits),
                *bot_command(bot),
                cwd=bot.directory,
                env=bot_environment(socket_dir, bot.game),
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.STDOUT,
                start_new_session=True,
            )
        except (FileNotFoundError, PermissionError) as exc:
            raise BotFault(Termination.NO_START, f"cannot run the bot's command: {exc}") from exc
        except OSError as exc:
            raise SandboxError(f"cannot start bot {bot.name}: {exc}") from exc
        return ProcessBot(proc)
