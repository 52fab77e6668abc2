"""One repair to Dask's connection pool: a connection attempt is cancelled once, never twice.

On Python 3.11+ ``distributed.core.ConnectionPool.connect`` registers, for each attempt, a
callback that cancels it (it moves the attempt's ``asyncio.timeout`` to the past). Both
``remove(addr)`` (the scheduler forgetting a worker) and ``close()`` call every callback still
registered, and an attempt stays registered until its task has run its ``finally``. So a worker
removed just before the scheduler closes, with a connection to it under way, has its callback
called twice; the second call finds the timeout already expiring and raises ``RuntimeError:
Cannot change state of expiring Timeout`` out of ``Scheduler.close``, which then never stops
listening. CI saw it at the end of ``tests/cluster/test_guard.py`` (the guard removes a worker
that answered with a pickle, the head's scheduler closes a moment later); the head of any
ladder that drops a worker and stops could meet it.

``install()`` (idempotent; the guard and ``open_cluster`` call it) makes both calls forget each
callback once called: the attempt's own ``finally`` still unregisters it and removes the
address, so ``close()`` still waits for every attempt to end.
"""

from __future__ import annotations

from typing import Any

from distributed.core import ConnectionPool

_INSTALLED = "_arena_cancels_once"


def install() -> None:
    """Make ``ConnectionPool.remove`` and ``close`` call each cancel callback at most once."""
    if getattr(ConnectionPool, _INSTALLED, False):
        return
    remove, close = ConnectionPool.remove, ConnectionPool.close

    def remove_once(self: ConnectionPool, addr: str, *, reason: str = "Address removed.") -> None:
        remove(self, addr, reason=reason)
        called = self._connecting.get(addr)
        if called:
            called.clear()

    async def close_once(self: ConnectionPool) -> None:
        for callbacks in list(self._connecting.values()):
            for callback in list(callbacks):
                callback("ConnectionPool closing.")
            callbacks.clear()
        await close(self)

    pool: Any = ConnectionPool
    pool.remove, pool.close = remove_once, close_once
    setattr(ConnectionPool, _INSTALLED, True)
