"""The Docker sandbox: each bot runs in its own hardened container.

One container per (match, seat), kept for all rounds of the match, removed at its end together
with its anonymous volumes (the janitor's removals too). The container has no network
(``network_mode="none"``: only ``lo``), a read-only root, a small ``noexec`` tmpfs at /tmp, no
capabilities, no-new-privileges, pids, memory (swap equal: no swap) and CPU limits, user 65534,
an init process, no health check, bounded logs, and the image referenced by id. It reads no
host-wide counter and leaves nothing behind (``arena.sandbox.hostview``): ``/sys`` and every
host-wide ``/proc`` file masked, ``meminfo``, ``stat``, ``loadavg`` and ``cpuinfo`` static, and
Docker's default seccomp profile less ``sysinfo``, keys, locks, ``io_uring`` and sockets but
``AF_UNIX``. The seat's socket directory is bind-mounted read-only at ``/arena``; the bot
finds its socket in ``ARENA_SOCKET``. Blocking Docker SDK calls run in threads.

``check`` refuses, before any match, a submitted image a bot may not have (``VOLUME``,
``EXPOSE``, a root ``USER``, over the size cap: :mod:`arena.bots.images.policy`) and a bot
directory whose Dockerfile says more than the arena builds (:mod:`arena.bots.images.dockerfile`).

A Docker or daemon failure that is not the bot's fault raises ``SandboxError`` (a void match);
a bot image that fails to build raises ``BotFault`` (``no_start``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import docker
import docker.errors
from docker.types import Ulimit

from arena.bots.identity import directory_hash
from arena.bots.images.build import build_bot_image, require_base_image
from arena.bots.images.dockerfile import check_dockerfile
from arena.bots.images.policy import image_problem
from arena.errors import BotFault, ConfigError, SandboxError
from arena.model import BotSpec, Termination, plain_text
from arena.sandbox import hostview
from arena.sandbox.api import GAME_ENV, LOG_TAIL_BYTES, SOCKET_ENV, SOCKET_NAME, ExitInfo, Limits
from arena.sandbox.cores import CoreLease, reserve_core
from arena.sandbox.meter import Meter, cgroup_cpu_problem, process_meter

log = logging.getLogger(__name__)

MOUNT_POINT = "/arena"
"""Where the seat's socket directory appears inside the container."""
BOT_USER = "65534:65534"
"""nobody:nogroup: the bot never runs as root."""
LABEL_MANAGED = "arena.managed"
LABEL_MATCH = "arena.match"
LABEL_SEAT = "arena.seat"
LABEL_OWNER = "arena.owner"
"""``host:pid`` of the referee process that started the container (for the janitor)."""
_CREATE_KEYS = ("detach", "environment", "user", "hostname", "healthcheck", "labels",
                "network_disabled")
"""``run_options`` keys that ``create_container`` takes itself; the rest are the host config's."""
REMOVE_DELAYS_S = (0.2, 0.5, 1.0)
"""Pauses between attempts to remove a container (a busy engine may refuse for a moment)."""
STOP_WAIT_S = 10.0
"""How long ``stop()`` waits for a killed container to be reported as exited."""

_janitor_ran = False
_janitor_lock = threading.Lock()


def retried(action: Callable[[], None], delays: Sequence[float]) -> None:
    """Run ``action``; on an exception wait each of ``delays`` in turn and try again. The last
    attempt's exception propagates."""
    for delay in delays:
        try:
            action()
            return
        except Exception as exc:  # noqa: BLE001 — tried again below
            log.warning("retrying in %.1f s after: %s", delay, exc)
            time.sleep(delay)
    action()


def _client(timeout: float = 60.0) -> Any:
    try:
        return docker.from_env(timeout=timeout)
    except Exception as exc:  # DockerException, requests errors
        raise SandboxError(f"no Docker engine answers: {exc}") from exc


def docker_available(timeout: float = 2.0) -> bool:
    """True when a Docker engine answers a ping within ``timeout`` seconds."""
    try:
        client = _client(timeout)
        try:
            return bool(client.ping())
        finally:
            client.close()
    except Exception:  # noqa: BLE001 — any failure means "not available"
        return False


def _owner() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def _owner_alive(owner: str) -> bool:
    host, _, pid = owner.rpartition(":")
    if host != socket.gethostname() or not pid.isdigit():
        return False
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return int(pid) != 0


def janitor(client: Any = None) -> int:
    """Remove labelled arena containers left by referees that are gone; return how many.

    Containers of a live referee process on this host are kept.
    """
    client = client or _client()
    removed = 0
    try:
        containers = client.containers.list(all=True, filters={"label": f"{LABEL_MANAGED}=1"})
    except Exception as exc:  # noqa: BLE001
        raise SandboxError(f"listing containers failed: {exc}") from exc
    for container in containers:
        owner = container.labels.get(LABEL_OWNER, "")
        if owner == _owner() or _owner_alive(owner):
            continue
        with contextlib.suppress(Exception):
            container.remove(force=True, v=True)
            removed += 1
    return removed


def _run_janitor_once(client: Any) -> None:
    global _janitor_ran
    with _janitor_lock:
        if _janitor_ran:
            return
        _janitor_ran = True
    try:
        count = janitor(client)
    except SandboxError as exc:
        log.warning("janitor failed: %s", exc)
        return
    if count:
        log.warning("janitor removed %d leftover arena container(s)", count)


SANDBOX_ERROR_KEY = "ArenaSandboxError"
"""Key under which the waiter thread records a Docker failure in the state it reports."""


def _exit_info(state: dict[str, Any], killed: bool) -> ExitInfo:
    code = int(state.get("ExitCode", -1))
    oom = bool(state.get("OOMKilled", False))
    error = str(state.get(SANDBOX_ERROR_KEY, ""))
    if 128 < code <= 128 + 64:
        return ExitInfo(None, code - 128, oom, killed, error)
    return ExitInfo(code, None, oom, killed, error)


class DockerBot:
    """A running bot container.

    A dedicated thread waits for the container to exit (so no worker of the event loop's
    executor is held for the whole match), then reads its state and the tail of its log.
    """

    def __init__(self, container: Any, loop: asyncio.AbstractEventLoop,
                 image: str | None = None, core: CoreLease | None = None,
                 meter: Meter | None = None) -> None:
        self.image = image
        """The id of the image the container runs."""
        self.core = core
        """The core the container is pinned to, held until it is stopped."""
        self.meter = meter
        """The container's cgroup counters (None: its cgroup could not be found, e.g. it had
        exited already)."""
        self._container = container
        self._loop = loop
        self._exited: asyncio.Future[dict[str, Any]] = loop.create_future()
        self._tail = ""
        self._killed = False
        self._stopped: ExitInfo | None = None
        self._waiter = threading.Thread(target=self._wait_thread, daemon=True)
        self._waiter.start()

    @property
    def container_id(self) -> str:
        """The container's id."""
        return str(self._container.id)

    def _wait_thread(self) -> None:
        state: dict[str, Any]
        try:
            self._container.wait(timeout=None)
            self._container.reload()
            state = dict(self._container.attrs.get("State", {}))
            self._tail = self._read_logs()
        except Exception as exc:  # noqa: BLE001 — removed under us, or the daemon failed
            state = {"ExitCode": -1, SANDBOX_ERROR_KEY: f"lost the container: {exc}"}
        with contextlib.suppress(RuntimeError):  # the loop may be closed already
            self._loop.call_soon_threadsafe(self._set_exited, state)

    def _set_exited(self, state: dict[str, Any]) -> None:
        if not self._exited.done():
            self._exited.set_result(state)

    def _read_logs(self) -> str:
        data = self._container.logs(stdout=True, stderr=True)
        return bytes(data[-LOG_TAIL_BYTES:]).decode("utf-8", "replace")

    async def wait(self) -> ExitInfo:
        """Return when the container has exited."""
        state = await asyncio.shield(self._exited)
        return _exit_info(state, self._killed)

    def poll(self) -> ExitInfo | None:
        """The exit info if the container has exited, else None."""
        if not self._exited.done():
            return None
        return _exit_info(self._exited.result(), self._killed)

    async def stop(self) -> ExitInfo:
        """Kill and remove the container (force); idempotent."""
        if self._stopped is not None:
            return self._stopped
        if self.meter is not None:
            self.meter.close()  # its last reading: the cgroup goes with the container
        if not self._exited.done():
            self._killed = True
            await asyncio.to_thread(self._kill)
        try:
            state = await asyncio.wait_for(asyncio.shield(self._exited), STOP_WAIT_S)
        except TimeoutError:
            state = {"ExitCode": -1}
        if not self._tail:
            self._tail = await asyncio.to_thread(self._logs_quietly)
        try:
            await asyncio.to_thread(self._remove)
        finally:
            if self.core is not None:
                self.core.release()
        self._stopped = _exit_info(state, self._killed)
        return self._stopped

    def _kill(self) -> None:
        try:
            self._container.kill()
        except docker.errors.NotFound:
            pass  # gone already
        except docker.errors.APIError as exc:  # 409: not running; else removal retries
            if exc.status_code != 409:
                log.warning("could not kill container %s: %s", self.container_id[:12], exc)

    def _logs_quietly(self) -> str:
        try:
            return self._read_logs()
        except Exception:  # noqa: BLE001
            return ""

    def _remove(self) -> None:
        """Remove the container (force: it is killed first), retried; ``SandboxError`` when it
        still stands after the last attempt (the janitor removes it at the next start)."""
        def remove() -> None:
            with contextlib.suppress(docker.errors.NotFound):
                self._container.remove(force=True, v=True)  # and its anonymous volumes

        try:
            retried(remove, REMOVE_DELAYS_S)
        except Exception as exc:  # noqa: BLE001 — every engine failure, reported
            raise SandboxError(
                f"could not remove container {self.container_id[:12]} after "
                f"{len(REMOVE_DELAYS_S) + 1} attempts ({exc}); the janitor removes it when an "
                "arena starts next"
            ) from exc

    def log_tail(self) -> str:
        """The last ``LOG_TAIL_BYTES`` of the container's output (read when it exited)."""
        return self._tail


class _MatchCore(CoreLease):
    """A seat's core lease that also tells its sandbox when it is given back."""

    def __init__(self, sandbox: DockerSandbox, match_id: str, lease: CoreLease) -> None:
        super().__init__(lease.core, lease.level, -1)
        self._sandbox = sandbox
        self._match_id = match_id
        self._lease: CoreLease | None = lease

    def release(self) -> None:
        """Give the core back (idempotent)."""
        if self._lease is not None:
            lease, self._lease = self._lease, None
            self._sandbox._release_core(self._match_id, lease)


class DockerSandbox:
    """Runs each bot in a fresh hardened container (see the module docstring)."""

    name = "docker"

    def __init__(
        self,
        limits: Limits | None = None,
        *,
        client: Any = None,
        run_janitor: bool = True,
    ) -> None:
        self.limits = limits or Limits()
        self._client = client
        self._run_janitor = run_janitor
        self._meter_problem: str | None = None
        self._meter_checked = False
        self._built: dict[str, str] = {}
        self._build_lock = threading.Lock()
        self._match_cores: dict[str, list[int]] = {}
        """The cores held by each running match's seats (so its seats get distinct ones)."""
        self._cores_lock = threading.Lock()
        self._proc_files = hostview.ProcFiles(self.limits.memory_mb)
        self._masked = hostview.masked_paths()
        hostview.warn_once()

    @property
    def client(self) -> Any:
        """The Docker SDK client (created on first use)."""
        if self._client is None:
            self._client = _client()
        return self._client

    def cpu_meter_problem(self) -> str | None:
        """None where each container's cgroup CPU counter can be read here (a cgroup hierarchy
        with a CPU counter is mounted, and the engine runs on this machine: its containers'
        processes are in this /proc); else one line saying why the CPU clock cannot be used."""
        if not self._meter_checked:
            self._meter_problem = (cgroup_cpu_problem() or _remote_engine_problem()
                                   or _engine_process_problem())
            self._meter_checked = True
        return self._meter_problem

    def check(self, bots: Iterable[BotSpec]) -> None:
        """Submitted bots need their pinned image, and it must be one a bot may have
        (:func:`~arena.bots.images.policy.image_problem`: a catalogue row written before that
        check); a bot directory's Dockerfile must say only what the arena builds
        (:func:`~arena.bots.images.dockerfile.check_dockerfile`); bot directories need the
        local base image of their flavor (``base`` in bot.toml). ``ConfigError`` before any
        match."""
        bots = list(bots)
        try:
            for bot in bots:
                if bot.image:
                    self._check_image(bot, bot.image)
                elif bot.directory:
                    check_dockerfile(Path(bot.directory))
            for flavor in sorted({bot.base for bot in bots if not bot.image}):
                require_base_image(flavor, self.client)
        except SandboxError as exc:  # no engine
            raise ConfigError(str(exc)) from None

    def _check_image(self, bot: BotSpec, image: str) -> None:
        attrs = self._attrs(image)
        who = plain_text(f"{bot.name}@{bot.version}")
        if attrs is None:
            raise ConfigError(
                f"the image of {who} ({image[:19]}) is no longer on this Docker engine: "
                "submit the bot again (`arena submit`)"
            )
        problem = image_problem(attrs)
        if problem is not None:
            raise ConfigError(f"refused to run {who} (image {image[:19]}): {problem}; "
                              "submit a fixed image under a new version")

    async def start(self, bot: BotSpec, socket_dir: Path, match_id: str, seat: int) -> DockerBot:
        """Start ``bot`` in a container that can reach only ``socket_dir``."""
        if self._run_janitor:
            await asyncio.to_thread(_run_janitor_once, self.client)
        image, command, mounts = await self._image_for(bot)
        mounts[str(socket_dir.resolve())] = {"bind": MOUNT_POINT, "mode": "ro"}
        lease = self._reserve_core(match_id)
        try:
            container = await asyncio.to_thread(
                self.create_container, image, command, mounts, match_id, seat, lease.core,
                {GAME_ENV: bot.game},
            )
        except Exception as exc:  # noqa: BLE001 — ImageNotFound, APIError, connection errors
            self._release_core(match_id, lease)
            raise SandboxError(f"cannot start a container for {bot.name}: {exc}") from exc
        meter = await asyncio.to_thread(container_meter, container)
        return DockerBot(container, asyncio.get_running_loop(), image,
                         _MatchCore(self, match_id, lease), meter)

    def create_container(self, image: str, command: list[str] | None,
                         mounts: dict[str, dict[str, str]], match_id: str, seat: int, core: int,
                         environment: dict[str, str] | None = None) -> Any:
        """Create and start one hardened container (``run_options``, plus what only the
        engine's API takes: the masked paths and the synthetic ``/proc`` files of
        ``arena.sandbox.hostview``); the started container (docker-py's model, not inspected:
        ``DockerBot`` and ``container_meter`` read what they need). Engine errors propagate; a
        container created but not started is removed."""
        options = self.run_options(match_id, seat, core)
        options["environment"].update(environment or {})
        create = {key: options.pop(key) for key in _CREATE_KEYS}
        binds = {**self._proc_files.binds(), **mounts}
        host_config = self.client.api.create_host_config(binds=binds, **options)
        host_config["MaskedPaths"] = self._masked
        made = self.client.api.create_container(
            image, command, volumes=[m["bind"] for m in binds.values()],
            host_config=host_config, **create)
        container_id = made["Id"]
        try:
            self.client.api.start(container_id)
        except Exception:
            with contextlib.suppress(Exception):
                self.client.api.remove_container(container_id, force=True, v=True)
            raise
        return self.client.containers.prepare_model({"Id": container_id})

    def _reserve_core(self, match_id: str) -> CoreLease:
        """A core for one seat of ``match_id``: host-wide the least shared one, not the core of
        the match's other seat (``arena.sandbox.cores``)."""
        with self._cores_lock:
            taken = self._match_cores.setdefault(match_id, [])
            try:
                lease = reserve_core(avoid=taken)
            except OSError as exc:
                raise SandboxError(f"no core for a container: {exc}") from exc
            taken.append(lease.core)
            return lease

    def _release_core(self, match_id: str, lease: CoreLease) -> None:
        with self._cores_lock:
            taken = self._match_cores.get(match_id, [])
            if lease.core in taken:
                taken.remove(lease.core)
            if not taken:
                self._match_cores.pop(match_id, None)
        lease.release()

    def run_options(self, match_id: str, seat: int, core: int) -> dict[str, Any]:
        """Every hardening flag and label, as keyword arguments of docker-py's
        ``containers.run``; ``create_container`` adds what that call cannot take (the masked
        paths, the synthetic ``/proc`` files). The seccomp profile is the arena's
        (``hostview.seccomp_profile``) where Docker's default one can be read here."""
        lim = self.limits
        fsize = lim.file_size_mb * 1024 * 1024
        profile = hostview.seccomp_profile()
        security = ["no-new-privileges", *([f"seccomp={profile}"] if profile else [])]
        return {
            "detach": True,
            "environment": {SOCKET_ENV: f"unix://{MOUNT_POINT}/{SOCKET_NAME}", "HOME": "/tmp"},
            "network_mode": "none",
            # and no network set-up at all: a new network namespace with only ``lo`` either
            # way, but without it the engine runs its libnetwork hook (a re-exec of dockerd)
            # at every start: measured, 0.35-0.6 s more a container start on this host and
            # ~40% more of the engine's CPU (tests/sandbox/test_docker_sandbox.py checks the
            # namespace)
            "network_disabled": True,
            "read_only": True,
            "tmpfs": {"/tmp": f"rw,noexec,nosuid,nodev,size={lim.tmpfs_mb}m"},
            "cap_drop": ["ALL"],
            "security_opt": security,
            "pids_limit": lim.pids,
            "mem_limit": f"{lim.memory_mb}m",
            "memswap_limit": f"{lim.memory_mb}m",
            "nano_cpus": int(lim.cpus * 1e9),
            # Pinned to one core: a CPU quota alone lets a container burst on every core for
            # part of each 100 ms period. Measured with the fork bomb (opponent p99 over 3
            # matches): 5.1-15.2 ms with the quota alone, 1.1-2.2 ms pinned. The core is the
            # seat's own on this host (``arena.sandbox.cores``), not every match's seat-n core.
            "cpuset_cpus": str(core),
            "user": BOT_USER,
            "init": True,
            "healthcheck": {"test": ["NONE"]},  # no HEALTHCHECK of the image runs
            "ipc_mode": "none",
            "hostname": "bot",
            "ulimits": _ulimits(lim.open_files, fsize),
            "log_config": {"type": "json-file", "config": {"max-size": "1m", "max-file": "1"}},
            "labels": {
                LABEL_MANAGED: "1",
                LABEL_MATCH: match_id,
                LABEL_SEAT: str(seat),
                LABEL_OWNER: _owner(),
            },
        }

    async def _image_for(self, bot: BotSpec) -> tuple[str, list[str] | None, dict[str, Any]]:
        """(image id, command or None for the image's CMD, extra mounts).

        A submitted bot runs its image (its own CMD unless the spec has a command); a directory
        with a Dockerfile is built on the local base image (once per sandbox); a directory
        without one runs on the base image, mounted read-only at /bot.
        """
        if bot.image:
            return bot.image, list(bot.command) or None, {}
        if not bot.directory:
            raise SandboxError(f"bot {bot.name} has neither an image nor a directory")
        directory = Path(bot.directory)
        if (directory / "Dockerfile").is_file():
            return await self._build(directory, bot.base), None, {}
        base = await asyncio.to_thread(self._base_id, bot.base)
        mount = {str(directory.resolve()): {"bind": "/bot", "mode": "ro"}}
        return base, ["sh", "-c", 'cd /bot && exec "$@"', "bot", *bot.command], mount

    def _base_id(self, flavor: str) -> str:
        try:
            return require_base_image(flavor, self.client).image_id
        except ConfigError as exc:
            raise SandboxError(str(exc)) from None

    async def _build(self, directory: Path, flavor: str) -> str:
        try:
            return await asyncio.to_thread(self._build_sync, directory, flavor)
        except ConfigError as exc:
            raise BotFault(Termination.NO_START, f"the bot image does not build: {exc}") from exc

    def _build_sync(self, directory: Path, flavor: str) -> str:
        base = self._base_id(flavor)
        # The bot's content identity (arena.bots.identity): an edited bot is built again, an
        # unchanged one is not (one sandbox serves many matches).
        key = f"{base}\n{directory_hash(directory)}"
        with self._build_lock:
            if key in self._built and not self._exists(self._built[key]):
                del self._built[key]  # pruned meanwhile (`arena images prune`): build it again
            if key not in self._built:
                built = build_bot_image(directory, base=base, client=self.client)
                self._built[key] = built.image_id
            return self._built[key]

    def built_image(self, directory: str | Path) -> str | None:
        """The image this sandbox last built for a bot directory (its current contents)."""
        suffix = f"\n{directory_hash(directory)}"
        with self._build_lock:
            found = [image for key, image in self._built.items() if key.endswith(suffix)]
        return found[-1] if found else None

    def _exists(self, image_id: str) -> bool:
        """Whether the engine has this image; raises ``SandboxError`` when the engine fails."""
        return self._attrs(image_id) is not None

    def _attrs(self, image_id: str) -> dict[str, Any] | None:
        """The image's ``docker image inspect`` attributes, None when the engine does not have
        it; raises ``SandboxError`` when the engine fails."""
        try:
            return dict(self.client.images.get(image_id).attrs)
        except docker.errors.ImageNotFound:
            return None
        except Exception as exc:  # noqa: BLE001 — APIError, connection errors
            raise SandboxError(f"the Docker engine failed: {exc}") from exc


def container_meter(container: Any) -> Meter | None:
    """The meter of a started container's cgroup, found from its init process (one inspect at
    start; the counters are then read from the cgroup files, never through the engine). None
    when the container is gone already or its cgroup cannot be read here."""
    try:
        container.reload()
        pid = int(container.attrs.get("State", {}).get("Pid") or 0)
    except Exception as exc:  # noqa: BLE001 — removed under us, or the engine failed
        log.warning("no CPU meter for container %s: %s", str(container.id)[:12], exc)
        return None
    return process_meter(pid) if pid > 0 else None


def _remote_engine_problem() -> str | None:
    host = os.environ.get("DOCKER_HOST", "")
    if host and not host.startswith("unix://"):
        return (f"the Docker engine at DOCKER_HOST={host} is not on this machine: its "
                'containers\' CPU counters cannot be read here; use clock = "wall"')
    return None


ENGINE_PROCESSES = ("dockerd", "containerd", "podman")
"""Process names of a container engine: one of them in this /proc means its containers'
processes (and so their cgroups) are visible here."""


def _engine_process_problem() -> str | None:
    for entry in Path("/proc").glob("[0-9]*/comm"):
        with contextlib.suppress(OSError):
            if entry.read_text(encoding="utf-8", errors="replace").strip() in ENGINE_PROCESSES:
                return None
    return ("the Docker engine's processes are not visible here (another machine, VM or PID "
            "namespace): its containers' CPU counters cannot be read; use clock = \"wall\"")


def _ulimits(open_files: int, file_size: int) -> list[Any]:
    return [
        Ulimit(name="nofile", soft=open_files, hard=open_files),
        Ulimit(name="core", soft=0, hard=0),
        Ulimit(name="fsize", soft=file_size, hard=file_size),
    ]
