"""Dask's connection pool with the arena's repair (``arena.cluster.pool``): a connection attempt
cancelled by ``remove`` and then by ``close`` ends quietly. Without the repair the second cancel
raises ``RuntimeError: Cannot change state of expiring Timeout`` out of ``close`` (CI saw it
from ``Scheduler.close`` at the end of ``test_guard.py``)."""

from __future__ import annotations

import asyncio

import pytest
from distributed.comm.core import CommClosedError
from distributed.core import ConnectionPool

from arena.cluster import pool
from tests.support.cluster import LOOPBACK

pytestmark = pytest.mark.integration


async def _remove_then_close(pauses: int) -> BaseException | None:
    """A pool connecting to a server that accepts and never answers Dask's handshake; the
    address removed, ``pauses`` loop turns, then the pool closed. What the attempt ended with."""
    held: list[asyncio.StreamWriter] = []

    async def hold(_reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        held.append(writer)

    server = await asyncio.start_server(hold, LOOPBACK, 0)
    address = f"tcp://{LOOPBACK}:{server.sockets[0].getsockname()[1]}"
    connections = await ConnectionPool(limit=4, timeout=30)
    attempt = asyncio.create_task(connections.connect(address))
    for _ in range(200):  # until the attempt is registered and waits for the handshake
        await asyncio.sleep(0.01)
        if held and address in connections._connecting:
            break
    assert held and address in connections._connecting, "the attempt never reached the server"
    connections.remove(address)
    for _ in range(pauses):
        await asyncio.sleep(0)
    await asyncio.wait_for(connections.close(), 10)
    outcome = (await asyncio.gather(attempt, return_exceptions=True))[0]
    server.close()
    for writer in held:
        writer.close()
    return outcome if isinstance(outcome, BaseException) else None


@pytest.mark.parametrize("pauses", [0, 1, 2, 5])
def test_an_attempt_cancelled_by_remove_and_then_close_ends_quietly(pauses: int) -> None:
    pool.install()
    outcome = asyncio.run(_remove_then_close(pauses))
    assert isinstance(outcome, CommClosedError) and str(outcome) == "Address removed.", \
        repr(outcome)


def test_install_is_idempotent() -> None:
    pool.install()
    remove, close = ConnectionPool.remove, ConnectionPool.close
    pool.install()
    assert (ConnectionPool.remove, ConnectionPool.close) == (remove, close)
