"""For hosts that start Dask's own worker instead of `arena worker`:

    dask worker tls://HEAD:8786 --preload arena.cluster.preload --nthreads 1 \\
        --resources match=1 --nworkers N --tls-ca-file ca.pem --tls-cert HOST.pem \\
        --tls-key HOST-key.pem

The preload makes the worker announce this host's arena version and cluster protocol, as
`arena worker` does; without it the head's version gate refuses the worker.
"""

from __future__ import annotations

from typing import Any

from arena.cluster.session import INFO_KEY, arena_info


def dask_setup(worker: Any) -> None:
    """Dask calls this in each worker before it registers with the scheduler."""
    worker.startup_information[INFO_KEY] = arena_info
