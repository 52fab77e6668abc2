"""Scale-out: every ladder match runs as one Dask task on a cluster of worker processes.

The ladder process (the *head*) submits each scheduled match as one task (key = the match id) to
a Dask scheduler; a worker process runs the whole match (the referee, both bots' sandboxes, the
log) with its own host's sandbox and sends back the result with the compressed match log and
seat logs; the head writes them into the ladder's state directory and records the result (it
stays the only writer of the store). With no cluster configured the head starts an embedded one
on 127.0.0.1 and shuts it down at the end.

Modules: ``task`` (what a worker runs), ``shipping`` (bot directories and images a worker lacks),
``executor`` (the head's player), ``session`` (embedded, hosted or remote schedulers; the version
check), ``security`` (mutual TLS: the CA and host certificates), ``worker`` (``arena worker``),
``progress`` (per-host progress from the workers' events), ``pool`` (a repair to Dask's connection
pool), ``live`` (match logs streamed to the
head while they grow, for ``arena watch --follow``), ``preload`` (for Dask's own
``dask worker --preload arena.cluster.preload``).
"""

from __future__ import annotations

CLUSTER_PROTOCOL = 3
"""Version of what head and workers exchange (the task payload, its outcome and the events). A
worker whose arena version or cluster protocol differs from the head's is refused."""
MATCH_RESOURCE = "match"
"""The Dask worker resource one match takes: a host's amount says how many it plays at once."""
EVENT_TOPIC = "arena-match"
"""The Dask event topic on which workers report matches starting and ending."""
LOG_TOPIC = "arena-log"
"""The Dask event topic on which workers stream the match logs of matches in play (``live``)."""
LIVE_LOG_CAP = 64 * 1024 * 1024
"""The most bytes of one match log streamed live (the head's live copy stops growing there; the
final log is written whole at the match end)."""
