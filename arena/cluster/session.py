"""Opening a ladder's cluster: embedded (a ``LocalCluster`` of process workers on 127.0.0.1),
hosted (a scheduler in the ladder process, listening with mutual TLS) or remote (a running
scheduler, mutual TLS), and the gate that refuses workers of another arena version.

Every worker announces ``{"version", "protocol"}`` under ``"arena"`` in its startup information;
the gate (a scheduler plugin, installed by the head) removes a worker that announces anything
else, or nothing, before it is given a match, and reports it once on ``REFUSED_TOPIC``.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

import dask
from distributed import Client, LocalCluster, Scheduler
from distributed.diagnostics.plugin import SchedulerPlugin

import arena
from arena.cluster import CLUSTER_PROTOCOL, EVENT_TOPIC, LOG_TOPIC, MATCH_RESOURCE, pool
from arena.cluster.executor import ClusterPlayer, ImageSource
from arena.cluster.guard import GUARD_OP, GUARD_VERSION, guard
from arena.cluster.progress import HostBoard, HostProgress
from arena.cluster.security import HEAD_ROLE, certificate_role, embedded_security, tls_security
from arena.cluster.settings import ALLOWED_FAILURES, ClusterSettings
from arena.errors import ClusterError

log = logging.getLogger(__name__)

REFUSED_TOPIC = "arena-refused"
"""The event topic on which the gate reports a refused worker."""
SCHEDULER_TOPIC = "all"
"""Dask's own topic of scheduler events (workers added and removed)."""
TOPICS = (EVENT_TOPIC, SCHEDULER_TOPIC, REFUSED_TOPIC, LOG_TOPIC)
"""The topics the head follows."""
INFO_KEY = "arena"
"""The key of a worker's startup information (and of the scheduler's metadata) that holds the
arena version and cluster protocol."""
NANNY_WAIT_S = 30.0
"""How long Dask's scheduler waits for the nanny of a silent worker to restart it before it
removes the worker anyway (Dask's own fixed wait); the gate bounds it by the worker TTL, so a
frozen host (its nanny frozen too) is given up within about twice the TTL."""


def arena_info(worker: Any = None) -> dict[str, Any]:
    """What a worker (or a head) announces: its arena version and cluster protocol."""
    return {"version": arena.__version__, "protocol": CLUSTER_PROTOCOL}


def dask_settings(worker_ttl_s: float) -> dict[str, Any]:
    """The Dask configuration of an arena cluster: worker TTL, allowed failures, no dashboard
    routes, and none of the monitoring an arena does not read: Dask's defaults (a stack
    profiler sampling every worker every 10 ms, a system monitor every 0.5 s, a memory
    monitor every 0.1 s, an event-loop tick every 20 ms) cost an idle embedded cluster of two
    workers 7.7-9.7% of a core, measured; without them 1.2%. The CPU is the matches'."""
    return {
        "distributed.scheduler.worker-ttl": f"{worker_ttl_s}s",
        "distributed.scheduler.allowed-failures": ALLOWED_FAILURES,
        "distributed.scheduler.http.routes": [],
        "distributed.worker.http.routes": [],
        "distributed.worker.daemon": False,
        "distributed.worker.profile.enabled": False,
        "distributed.worker.memory.monitor-interval": "1s",
        "distributed.admin.system-monitor.interval": "5s",
        "distributed.admin.system-monitor.disk": False,
        "distributed.admin.system-monitor.gil.enabled": False,
        "distributed.admin.tick.interval": "500ms",
        "distributed.admin.tick.limit": "30s",
    }


def quiet_dask(level: int) -> None:
    """Dask logs at INFO by default: only ``level`` and above unless ``-v`` asked for more."""
    if logging.getLogger().getEffectiveLevel() > logging.INFO:
        for name in ("distributed", "dask"):
            logging.getLogger(name).setLevel(level)


class VersionGate(SchedulerPlugin):  # type: ignore[misc]
    """A Dask scheduler plugin: only workers of the head's arena version and cluster protocol
    stay; it also applies the head's worker TTL and allowed failures to the scheduler, and keeps
    the scheduler from holding on to the match logs streamed on ``LOG_TOPIC``."""

    name = "arena-version-gate"

    def __init__(self, expected: dict[str, Any], worker_ttl_s: float) -> None:
        self.expected = expected
        self.worker_ttl_s = worker_ttl_s
        self._scheduler: Any = None

    async def start(self, scheduler: Any) -> None:
        """Publish the expected versions and check the workers already there."""
        self._scheduler = scheduler
        scheduler.worker_ttl = self.worker_ttl_s
        _bound_nanny_wait(scheduler, min(self.worker_ttl_s, NANNY_WAIT_S))
        scheduler.allowed_failures = ALLOWED_FAILURES
        scheduler.set_metadata(keys=[INFO_KEY], value=self.expected)
        for address in list(scheduler.workers):
            self.add_worker(scheduler, address)

    def add_worker(self, scheduler: Any, worker: str) -> None:
        """Refuse ``worker`` (paused at once, then removed) unless it runs the head's arena."""
        state = scheduler.workers.get(worker)
        if state is None:
            return
        found = (state.extra or {}).get(INFO_KEY)
        if found == self.expected:
            return
        reason = refusal(worker, found, self.expected)
        log.error("%s", reason)
        scheduler.log_event(REFUSED_TOPIC, {"worker": worker, "reason": reason})
        scheduler.handle_worker_status_change("paused", worker, stimulus_id="arena-refused")
        asyncio.get_running_loop().create_task(
            scheduler.remove_worker(worker, stimulus_id="arena-refused", close=True)
        )

    def log_event(self, topic: str, msg: Any) -> None:
        """After a live-log chunk went to the subscribers: drop it from the scheduler's event
        history (Dask keeps the last events of every topic; these hold hidden cards)."""
        if topic == LOG_TOPIC and self._scheduler is not None:
            broker = getattr(self._scheduler, "_broker", None)
            if broker is not None:
                broker.truncate(LOG_TOPIC)


def _bound_nanny_wait(scheduler: Any, wait_s: float) -> None:
    """Make the scheduler's worker-TTL check wait at most ``wait_s`` for the nanny of a silent
    worker (the check calls ``restart_workers`` without a timeout, so Dask's 30 s applied);
    a caller that gives a timeout keeps it."""
    restart = getattr(scheduler, "_arena_restart_workers", None) or scheduler.restart_workers
    scheduler._arena_restart_workers = restart

    @functools.wraps(restart)
    async def bounded(*args: Any, **kwargs: Any) -> Any:
        kwargs.setdefault("timeout", wait_s)
        return await restart(*args, **kwargs)

    scheduler.restart_workers = bounded


def refusal(worker: str, found: Any, expected: dict[str, Any]) -> str:
    """One line saying why a worker is refused."""
    if not isinstance(found, dict):
        what = "announces no arena version (start workers with `arena worker`)"
    else:
        what = (f"runs arena {found.get('version')} (cluster protocol {found.get('protocol')})")
    return (f"worker {worker} refused: it {what}; the head runs arena {expected['version']} "
            f"(cluster protocol {expected['protocol']})")


@dataclass
class ClusterSession:
    """An open cluster: the player the runner uses and what the live view shows."""

    client: Any
    player: ClusterPlayer
    board: HostBoard
    address: str
    refused: list[str] = field(default_factory=list)
    """One line per refused worker."""

    def hosts(self) -> tuple[HostProgress, ...]:
        """Per-worker progress now."""
        return self.board.snapshot()

    async def slots(self) -> int:
        """The match slots of the (running) workers connected now."""
        info = await self.client.scheduler.identity(n_workers=-1)
        return int(sum(w.get("resources", {}).get(MATCH_RESOURCE, 0)
                       for w in info.get("workers", {}).values() if w.get("status") == "running"))


@contextlib.asynccontextmanager
async def open_cluster(settings: ClusterSettings | None, *, workers: int,
                       on_change: Callable[[], None] | None = None,
                       images: ImageSource | None = None) -> AsyncIterator[ClusterSession]:
    """The cluster of a run (see the module doc); ``workers`` sizes an embedded one.
    ``on_change`` is called when per-worker progress changed. Raises ``ClusterError``."""
    settings = settings or ClusterSettings()
    quiet_dask(logging.ERROR)
    pool.install()  # the embedded cluster's scheduler and the client are not guarded
    with dask.config.set(dask_settings(settings.worker_ttl_s)):
        async with contextlib.AsyncExitStack() as stack:
            client, address = await _connect(stack, settings, workers)
            gate = VersionGate(arena_info(), settings.worker_ttl_s)
            try:
                await client.register_plugin(gate, name=VersionGate.name)
            except Exception as exc:  # noqa: BLE001 — a scheduler without the arena installed
                raise ClusterError(f"the scheduler at {address} cannot run the arena's version "
                                   f"check (is the arena installed there?): {exc}") from None
            session = ClusterSession(client, ClusterPlayer(client, images=images), HostBoard(),
                                     address)
            _subscribe(session, on_change)
            try:
                if not settings.embedded:
                    await _wait_for_workers(session, settings.wait_s)
                yield session
            finally:
                session.player.close()
                for topic in TOPICS:
                    session.client.unsubscribe_topic(topic)


async def _connect(stack: contextlib.AsyncExitStack, settings: ClusterSettings,
                   workers: int) -> tuple[Any, str]:
    if settings.embedded:
        try:
            cluster = await stack.enter_async_context(_embedded(workers))
        except (RuntimeError, OSError, TimeoutError) as exc:  # Dask's "... failed to start"
            # a ClusterError, so a program that runs ladders says so and tries again (the
            # competition server's ladder and final threads) instead of losing the thread
            raise ClusterError(f"the embedded cluster did not start: {exc}") from exc
        client = await stack.enter_async_context(Client(cluster, asynchronous=True))
        return client, str(cluster.scheduler_address)
    if settings.tls is None:
        raise ClusterError("a cluster of several hosts needs TLS files (ca, cert, key)")
    security = tls_security(settings.tls)
    if certificate_role(settings.tls.cert) != HEAD_ROLE:
        raise ClusterError(f"the certificate {settings.tls.cert} is not a head's: make the "
                           "head's certificate with `arena cluster certs DIR --head HOST`")
    address = settings.scheduler
    if settings.listen is not None:
        scheduler = await stack.enter_async_context(_hosted(settings.listen, security))
        address = str(scheduler.address)
    assert address is not None
    if not address.startswith("tls://"):
        raise ClusterError(f"the scheduler address must be tls://HOST:PORT, got {address!r}")
    try:
        client = await stack.enter_async_context(
            Client(address, security=security, asynchronous=True, timeout="20s"))
    except (OSError, TimeoutError) as exc:
        raise ClusterError(f"cannot reach the scheduler at {address}: {exc}") from None
    await _check_guarded(client, address)
    return client, address


async def _check_guarded(client: Any, address: str) -> None:
    """``ClusterError`` unless the scheduler runs the arena's guard (``arena.cluster.guard``)."""
    try:
        version = await getattr(client.scheduler, GUARD_OP)()
    except Exception:  # noqa: BLE001 — an old scheduler answers an unknown op with an error
        version = None
    if version != GUARD_VERSION:
        raise ClusterError(f"the scheduler at {address} is not guarded (a worker's certificate "
                           "could act as the head there): start it with `dask scheduler "
                           "--preload arena.cluster.preload ...`")


def _embedded(workers: int) -> Any:
    """An embedded cluster. Its workers' Dask logs are silenced below CRITICAL: what goes
    wrong in a match reaches the head as the task's error, and at shutdown a worker whose
    heartbeat meets the closing scheduler would otherwise print a traceback (twice in 22
    benchmark runs) under the run's summary.

    Its scheduler has no dashboard (its HTTP server listens on 127.0.0.1 with no routes): with
    one, every scheduler start tries to import Dask's dashboard module, which fails without
    bokeh, and two schedulers starting at once in one process's threads (`arena host` playing a
    final beside a season) could race on that failed import: the second one got the half-made
    module and the cluster failed to start ("module 'distributed.dashboard' has no attribute
    'scheduler'")."""
    return LocalCluster(
        n_workers=max(1, workers), threads_per_worker=1, processes=True, host="127.0.0.1",
        protocol="tls", security=embedded_security(), dashboard_address="127.0.0.1:0",
        scheduler_kwargs={"dashboard": False},
        worker_dashboard_address="127.0.0.1:0", resources={MATCH_RESOURCE: 1},
        silence_logs=logging.CRITICAL, asynchronous=True,
        startup_information={INFO_KEY: arena_info},
    )


def _hosted(listen: str, security: Any) -> Any:
    if not listen.startswith("tls://"):
        raise ClusterError(f"the listen address must be tls://HOST:PORT, got {listen!r}")
    host, _, port = listen.removeprefix("tls://").rpartition(":")
    if not host or not port.isdigit():
        raise ClusterError(f"the listen address must be tls://HOST:PORT, got {listen!r}")
    scheduler = Scheduler(host=host, port=int(port), protocol="tls", security=security,
                          dashboard=False, dashboard_address="127.0.0.1:0")
    guard(scheduler)  # before it listens
    return scheduler


def _subscribe(session: ClusterSession, on_change: Callable[[], None] | None) -> None:
    def changed() -> None:
        if on_change is not None:
            on_change()

    def on_match(event: tuple[float, Any]) -> None:
        session.board.handle(event)
        changed()

    def on_scheduler(event: tuple[float, Any]) -> None:
        message = event[1]
        if isinstance(message, dict) and message.get("action") == "remove-worker":
            session.board.forget(str(message.get("worker")))
            changed()

    def on_refused(event: tuple[float, Any]) -> None:
        message = event[1]
        reason = str(message.get("reason")) if isinstance(message, dict) else str(message)
        if reason not in session.refused:
            session.refused.append(reason)
            log.error("%s", reason)
            changed()

    handlers = (on_match, on_scheduler, on_refused, session.player.live.handle)
    for topic, handler in zip(TOPICS, handlers, strict=True):
        session.client.subscribe_topic(topic, handler)


async def _wait_for_workers(session: ClusterSession, wait_s: float) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + wait_s
    while await session.slots() < 1:
        if loop.time() > deadline:
            refused = "; ".join(session.refused)
            raise ClusterError(f"no worker joined the scheduler at {session.address} within "
                               f"{wait_s:.0f} s" + (f" ({refused})" if refused else ""))
        await asyncio.sleep(0.2)
