"""The sandbox protocol: how the referee starts, watches and stops one bot.

A sandbox starts the bot so that it can reach exactly one Unix socket: the one of its seat, in
``socket_dir`` (the referee creates the directory and the socket). The bot learns the gRPC target
from the environment variable ``ARENA_SOCKET`` (``unix:///path/to/bot.sock``) and the game id
from ``ARENA_GAME``; nothing else (no secrets, no seed) is passed.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from arena.model import BotSpec

if TYPE_CHECKING:
    from arena.sandbox.meter import Meter

SOCKET_NAME = "bot.sock"
"""The socket file inside a seat's socket directory."""
SOCKET_ENV = "ARENA_SOCKET"
"""The environment variable that carries the gRPC target to the bot."""
GAME_ENV = "ARENA_GAME"
"""The environment variable naming the game (so a bot can load it before the match starts)."""
LOG_TAIL_BYTES = 64 * 1024
"""How much of a bot's stdout/stderr is kept with the match."""


@dataclass(frozen=True)
class ExitInfo:
    """How a bot's process or container ended."""

    exit_code: int | None
    """Exit status, or None when killed by a signal."""
    signal: int | None = None
    oom_killed: bool = False
    """The kernel killed it for exceeding its memory limit."""
    killed_by_arena: bool = False
    """The sandbox stopped it (match over, or a fault)."""
    sandbox_error: str = ""
    """Set when the sandbox itself failed (e.g. the Docker daemon went away): then the exit says
    nothing about the bot, and the referee voids the match instead of blaming the bot."""

    def describe(self) -> str:
        if self.oom_killed:
            return "killed for exceeding its memory limit"
        if self.signal is not None:
            return f"killed by signal {self.signal}"
        return f"exited with status {self.exit_code}"


@dataclass(frozen=True)
class Limits:
    """Resource limits for one bot (both sandboxes apply what they can)."""

    memory_mb: int = 512
    cpus: float = 1.0
    cpu_seconds: int = 600
    """Total CPU time (process sandbox, RLIMIT_CPU)."""
    open_files: int = 256
    file_size_mb: int = 16
    pids: int = 64
    tmpfs_mb: int = 16


class RunningBot(Protocol):
    """A started bot."""

    image: str | None
    """The id of the container image it runs (None: not in a container)."""
    meter: Meter | None
    """The CPU and memory counters of the bot's whole sandbox (``arena.sandbox.meter``); None:
    no counter for this bot."""

    async def wait(self) -> ExitInfo:
        """Return when the bot has exited (for any reason)."""
        ...

    def poll(self) -> ExitInfo | None:
        """The exit info if the bot has exited, else None; never blocks."""
        ...

    async def stop(self) -> ExitInfo:
        """Kill the bot (if still running), reap or remove it; idempotent."""
        ...

    def log_tail(self) -> str:
        """The last ``LOG_TAIL_BYTES`` of the bot's output (stdout and stderr)."""
        ...


class Sandbox(Protocol):
    name: str
    """"process" or "docker"."""

    async def start(self, bot: BotSpec, socket_dir: Path, match_id: str, seat: int) -> RunningBot:
        """Start the bot; raise ``SandboxError`` when that fails for reasons not the bot's own."""
        ...

    def cpu_meter_problem(self) -> str | None:
        """None when this sandbox counts its bots' CPU here (the CPU clock can be used); else
        one line saying why not and what to do."""
        ...

    def check(self, bots: Iterable[BotSpec]) -> None:
        """Before any match: raise ``ConfigError``, saying what to do, when one of these bots
        cannot run in this sandbox at all (rather than voiding every match)."""
        ...
