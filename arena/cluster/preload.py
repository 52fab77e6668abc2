"""For hosts that start Dask's own processes instead of `arena worker` (and for a scheduler
that is not hosted in the ladder process):

    dask worker tls://HEAD:8786 --preload arena.cluster.preload \\
        --preload-nanny arena.cluster.preload --nthreads 1 --resources match=1 --nworkers N \\
        --tls-ca-file ca.pem --tls-cert HOST.pem --tls-key HOST-key.pem
    dask scheduler --preload arena.cluster.preload --tls-ca-file ca.pem \\
        --tls-cert HEAD.pem --tls-key HEAD-key.pem

The preload guards each of them (``arena.cluster.guard``: a worker host's certificate cannot
act as the head), makes a worker announce this host's arena version and cluster protocol, as
`arena worker` does, and makes it a worker host's: it plays bots only in containers or in the
separated process sandbox (``arena.cluster.task.unseparated``). Without it the head's version
gate refuses the worker, and the head refuses a scheduler that is not guarded.
"""

from __future__ import annotations

from typing import Any

from distributed import Worker

from arena.cluster.guard import guard
from arena.cluster.session import INFO_KEY, arena_info
from arena.cluster.task import serve_as_worker_host


def dask_setup(server: Any) -> None:
    """Dask calls this in each scheduler, nanny and worker before it handles a message (and a
    worker before it registers with the scheduler)."""
    if isinstance(server, Worker):
        server.startup_information[INFO_KEY] = arena_info
        serve_as_worker_host()
    guard(server)
