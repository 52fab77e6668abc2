"""Where a ladder's matches run: the ``[cluster]`` section of a ladder file, as plain data (no
Dask import: the ladder's configuration reads it)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

WORKER_TTL_S = 60.0
"""A worker that has not been heard from for this long is given up (Dask's ``worker-ttl``): its
matches are played again elsewhere and a late result from it is ignored."""
ALLOWED_FAILURES = 2
"""How many worker deaths a match may be part of before it is given up (Dask's
``allowed-failures``): the third makes it void for the run (the next run plays it again)."""


@dataclass(frozen=True)
class TlsFiles:
    """A host's mutual-TLS identity: the ladder's CA and this host's certificate and key."""

    ca: Path
    cert: Path
    key: Path


@dataclass(frozen=True)
class ClusterSettings:
    """A ladder's cluster. Neither ``scheduler`` nor ``listen``: an embedded cluster of process
    workers on 127.0.0.1 (no service, shut down at the end)."""

    scheduler: str | None = None
    """A running scheduler to submit to (``tls://HOST:PORT``)."""
    listen: str | None = None
    """Host the scheduler in the ladder process, listening here (``tls://0.0.0.0:8786``)."""
    tls: TlsFiles | None = None
    """Required with ``scheduler`` or ``listen``: traffic between hosts is mutual TLS only."""
    worker_ttl_s: float = WORKER_TTL_S
    wait_s: float = 60.0
    """How long a run waits for the first worker of a hosted or remote scheduler."""

    @property
    def embedded(self) -> bool:
        """No scheduler is named or hosted: the run starts its own cluster."""
        return self.scheduler is None and self.listen is None
