"""``arena worker``: one command per worker host. It starts ``matches`` Dask worker processes
(each plays one match at a time: resources ``{"match": 1}``, one thread) under Dask nannies
(a worker process that dies is started again), joined to the head's scheduler with mutual TLS.

Before joining it asks the scheduler which arena version and cluster protocol the head runs (the
head's version gate publishes them) and refuses to start, with one clear error, when they differ
from its own; the gate refuses, on its side, any worker that gets past this.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import socket
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import dask
from distributed import Nanny
from distributed.core import rpc

from arena.cluster import MATCH_RESOURCE
from arena.cluster.executor import cpu_slots
from arena.cluster.guard import guard
from arena.cluster.security import tls_security
from arena.cluster.session import INFO_KEY, arena_info, dask_settings, quiet_dask
from arena.cluster.settings import WORKER_TTL_S, TlsFiles
from arena.cluster.shipping import CACHE_ENV
from arena.errors import ClusterError, VersionMismatchError

log = logging.getLogger(__name__)

PRELOAD = "arena.cluster.preload"
"""The module each worker process preloads: its version announcement and its guard."""
RETRY_S = 1.0
"""Pause between attempts to reach the scheduler."""


@dataclass(frozen=True)
class WorkerOptions:
    """How ``arena worker`` joins a cluster."""

    scheduler: str
    """The head's scheduler (``tls://HOST:PORT``)."""
    tls: TlsFiles
    matches: int = 0
    """Matches this host plays at once (0: floor((cores - 1) / 2), at least 1)."""
    host: str | None = None
    """The address the workers listen on (None: the host's address toward the scheduler)."""
    cache: Path | None = None
    """Where shipped bot directories are kept (default ``~/.cache/arena``)."""
    name: str | None = None
    """The workers' name prefix (default: the host name and this process's id)."""


async def head_info(scheduler: str, security: Any, timeout_s: float = 10.0) -> Any:
    """The arena version and protocol the head published on the scheduler (None: no head has
    connected yet). Raises ``ClusterError`` when the scheduler does not answer."""
    try:
        async with rpc(scheduler, connection_args=security.get_connection_args("worker"),
                       timeout=timeout_s) as remote:
            return await asyncio.wait_for(remote.get_metadata(keys=[INFO_KEY], default=None),
                                          timeout_s)
    except (OSError, TimeoutError) as exc:
        raise ClusterError(f"cannot reach the scheduler at {scheduler}: {exc}") from None


def check_head(found: Any) -> None:
    """``VersionMismatchError`` when the head's published versions differ from this host's."""
    mine = arena_info()
    if found is None or found == mine:
        return
    raise VersionMismatchError(
        f"refused: the head runs arena {found.get('version')} (cluster protocol "
        f"{found.get('protocol')}), this host arena {mine['version']} (cluster protocol "
        f"{mine['protocol']}): install the head's version here"
    )


async def serve(options: WorkerOptions, stop: asyncio.Event) -> str:
    """Run the workers until ``stop`` is set; returns why they stopped. When the scheduler goes
    away (the head's run ended, or it died) the workers wait for it and join again. Raises
    ``ClusterError`` for another arena version on the head or a bad address."""
    quiet_dask(logging.WARNING)
    if not options.scheduler.startswith("tls://"):
        raise ClusterError(f"the scheduler address must be tls://HOST:PORT, got "
                           f"{options.scheduler!r}")
    security = tls_security(options.tls)
    with dask.config.set(dask_settings(WORKER_TTL_S)):
        while not stop.is_set():
            if not await _wait_for_scheduler(options.scheduler, security, stop):
                break
            await _join(options, security, stop)
            if not stop.is_set():
                log.warning("the scheduler at %s closed the workers: waiting for it",
                            options.scheduler)
                await _sleep(stop, RETRY_S)
    return "stopped"


async def _sleep(stop: asyncio.Event, seconds: float) -> None:
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(stop.wait(), seconds)


async def _wait_for_scheduler(scheduler: str, security: Any, stop: asyncio.Event) -> bool:
    """Wait until the scheduler answers (False: stopped first); ``ClusterError`` when the head
    runs another arena version."""
    waiting_said = False
    while not stop.is_set():
        try:
            check_head(await head_info(scheduler, security))
            return True
        except VersionMismatchError:
            raise
        except ClusterError as exc:
            if not waiting_said:
                log.warning("waiting for the scheduler: %s", exc)
                waiting_said = True
        await _sleep(stop, RETRY_S)
    return False


async def _join(options: WorkerOptions, security: Any, stop: asyncio.Event) -> None:
    """Start the worker processes and wait until they end (or ``stop``)."""
    count = options.matches or cpu_slots()
    prefix = options.name or f"{socket.gethostname()}-{os.getpid()}"
    env = {CACHE_ENV: str(options.cache)} if options.cache else {}
    nannies = [
        Nanny(options.scheduler, nthreads=1, resources={MATCH_RESOURCE: 1},
              security=security, host=options.host, name=f"{prefix}-{index}",
              startup_information={INFO_KEY: arena_info}, env=env,
              preload=[PRELOAD], dashboard_address="127.0.0.1:0",
              silence_logs=logging.WARNING)
        for index in range(count)
    ]
    for nanny in nannies:  # before they listen; the worker processes guard themselves
        guard(nanny)
    try:
        await asyncio.gather(*nannies)
    except Exception as exc:  # noqa: BLE001 — the scheduler went away while they started
        log.warning("the workers could not join: %s", exc)
    finished: asyncio.Future[Any] = asyncio.ensure_future(
        asyncio.gather(*(n.finished() for n in nannies)))
    stopper: asyncio.Future[Any] = asyncio.ensure_future(stop.wait())
    try:
        await asyncio.wait({finished, stopper}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        stopper.cancel()
        await asyncio.gather(*(n.close(timeout=10) for n in nannies), return_exceptions=True)
        with contextlib.suppress(Exception):
            await finished


def run_worker(options: WorkerOptions) -> str:
    """``serve`` in a fresh event loop; SIGINT and SIGTERM stop the workers."""

    async def main() -> str:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
                loop.add_signal_handler(sig, stop.set)
        return await serve(options, stop)

    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    return asyncio.run(main())
