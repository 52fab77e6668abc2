"""The guard of a cluster's servers: a worker host's certificate cannot act as the head.

Every Dask server (scheduler, worker, nanny) dispatches each incoming message's ``op`` through
its ``handlers``; some of them run code or drive the cluster (``register-client`` and
``connection_stream`` open a client's stream, whose ``update-graph`` submits tasks; ``run``,
``run_function``, ``feed``, plugins, ``scatter``, ``restart``...). One CA signs every host, so
without a guard the key of any worker host (which a bot on it might read) would connect to the
scheduler as a client, or to another worker or nanny, and run code there: on the head, whose
state holds the ladder database, the deal secret and the CA key.

``guard(server)`` installs, before the server handles its first message:

- an op allow-list by the peer's role (the subject OU of its certificate, see
  ``arena.cluster.security``): the head's role may do anything; any other certificate of the CA
  (a worker host's, or one made before roles existed) only what workers and nannies need of the
  scheduler (``WORKER_OPS``), of another worker (``get_data``) and of their own nanny. Anything
  else closes the connection, logged as a warning with the peer's address. The handlers dict is
  wrapped, so handlers added later (plugins) are covered too.
- on the scheduler's merged stream handlers: a client's op (``update-graph``...) on a worker's
  stream is dropped and logged.
- on every connection from a peer that is not the head: nothing it sends is unpickled. Dask
  unpickles a message's ``__Pickled__`` parts on read, before any handler runs (on the scheduler
  too), and a worker or nanny deserializes ``Serialized`` parts with whatever serializer the
  sender names; such a message closes the connection (only msgpack data is read).

The embedded cluster needs no guard: its one throw-away certificate is held by the head process
and the workers it starts.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Callable
from typing import Any

from arena.cluster.security import HEAD_ROLE, role_of

log = logging.getLogger(__name__)

GUARD_OP = "arena_guard"
"""The scheduler op a head calls to check that a remote scheduler is guarded."""
GUARD_VERSION = 1
"""What ``GUARD_OP`` answers."""
SCHEDULER_WORKER_OPS = frozenset({
    "register-worker", "register_nanny", "heartbeat_worker", "unregister", "who_has",
    "log_event", "get_metadata", "identity",
})
"""What a worker host's certificate may ask of the scheduler: join (and its worker stream),
heartbeats, leave, where a shipment is, events, the head's published versions."""
WORKER_WORKER_OPS = frozenset({"get_data", "identity"})
"""What another worker may ask of a worker: the data it holds (a shipment)."""
WORKER_STREAM_OPS = frozenset({
    "task-finished", "task-erred", "release-worker-data", "add-keys", "long-running",
    "reschedule", "keep-alive", "log-event", "worker-status-change", "request-refresh-who-has",
})
"""The ops of a worker's stream to the scheduler (any other op there is a client's)."""
NANNY_WORKER_OPS = frozenset({"close_gracefully", "identity"})
"""What a worker process may ask of its nanny (see ``Worker.close``)."""
SAFE_SERIALIZERS = frozenset({"msgpack"})
"""The serializers whose data is read from a peer that is not the head (msgpack runs no code)."""


class Refused(ValueError):
    """A message from a peer that is not the head holds something that would be unpickled."""


class _Untrusted(tuple[str, ...]):
    """The deserializers a guarded connection reads with: marks its reads for ``_loads``."""


UNTRUSTED = _Untrusted(SAFE_SERIALIZERS)


def peer_role(comm: Any) -> str:
    """The role of the certificate a connection's peer showed (``WORKER_ROLE`` unless it is
    the head's)."""
    cert = (getattr(comm, "extra_info", None) or {}).get("peercert") or {}
    units = [value for rdn in cert.get("subject", ()) for key, value in rdn
             if key == "organizationalUnitName"]
    return role_of(units)


def guard(server: Any) -> None:
    """Guard a Dask ``Scheduler``, ``Worker`` or ``Nanny`` (see the module doc); idempotent."""
    from distributed import Nanny, Scheduler, Worker

    if getattr(server, "_arena_guarded", False):
        return
    _install_loads()
    if isinstance(server, Scheduler):
        allowed, name = SCHEDULER_WORKER_OPS, "scheduler"
        _guard_streams(server)
        server.handlers[GUARD_OP] = _guard_version
    elif isinstance(server, Nanny):
        allowed, name = NANNY_WORKER_OPS, "nanny"
    elif isinstance(server, Worker):
        allowed, name = WORKER_WORKER_OPS, "worker"
    else:
        raise TypeError(f"cannot guard {type(server).__name__}")
    server.handlers = _GuardedHandlers(server.handlers, allowed, name)
    server._handle_comm = _distrusting(server._handle_comm)
    server._arena_guarded = True


def _guard_version() -> int:
    return GUARD_VERSION


class _GuardedHandlers(dict[str, Any]):
    """A server's handlers: an op outside ``allowed`` runs only for the head's role."""

    def __init__(self, handlers: dict[str, Any], allowed: frozenset[str], server: str) -> None:
        super().__init__(handlers)
        self.allowed = allowed
        self.server = server
        self._wrapped: dict[str, tuple[Any, Any]] = {}

    def __getitem__(self, op: str) -> Any:
        handler = super().__getitem__(op)
        if op in self.allowed:
            return handler
        cached = self._wrapped.get(op)
        if cached is None or cached[0] is not handler:
            cached = (handler, _head_only(self.server, op, handler))
            self._wrapped[op] = cached
        return cached[1]


def _head_only(server: str, op: str, handler: Callable[..., Any]) -> Callable[..., Any]:
    """``handler`` as a handler that takes the connection and runs only for the head."""
    from distributed.core import Status, _expects_comm
    from distributed.utils import has_keyword

    takes_comm = _expects_comm(handler)

    async def guarded(comm: Any, **msg: Any) -> Any:
        role = peer_role(comm)
        if role != HEAD_ROLE:
            log.warning("refused %r on the %s from %s (its certificate's role: %s; only the "
                        "head may)", op, server, comm.peer_address, role)
            comm.abort()
            return Status.dont_reply
        result = handler(comm, **msg) if takes_comm else handler(**msg)
        return await result if inspect.isawaitable(result) else result

    kind = inspect.Parameter.POSITIONAL_OR_KEYWORD
    params = [inspect.Parameter("comm", kind)]
    if has_keyword(handler, "serializers"):  # Dask passes serializers only to who takes them
        params.append(inspect.Parameter("serializers", inspect.Parameter.KEYWORD_ONLY,
                                        default=None))
    params.append(inspect.Parameter("msg", inspect.Parameter.VAR_KEYWORD))
    guarded.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
    guarded.__name__ = f"guarded_{op}"
    return guarded


def _guard_streams(scheduler: Any) -> None:
    """A client's ops on a worker's stream (the scheduler merges both kinds) are dropped."""
    for op, handler in list(scheduler.stream_handlers.items()):
        if op not in WORKER_STREAM_OPS:
            scheduler.stream_handlers[op] = _clients_only(op, handler)


def _clients_only(op: str, handler: Callable[..., Any]) -> Callable[..., Any]:
    async def clients_only(*args: Any, **kwargs: Any) -> Any:
        if "worker" in kwargs:
            log.warning("refused %r on the stream of worker %s (a client's op)", op,
                        kwargs["worker"])
            return None
        result = handler(*args, **kwargs)
        return await result if inspect.isawaitable(result) else result

    return clients_only


# --- reading what a peer that is not the head sends ---------------------------------------------
def _distrusting(handle_comm: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """``Server._handle_comm`` reading every connection of a peer that is not the head with the
    untrusted deserializers."""

    async def handle(comm: Any) -> None:
        if peer_role(comm) != HEAD_ROLE:
            _read_untrusted(comm)
        await handle_comm(comm)

    return handle


def _read_untrusted(comm: Any) -> None:
    from distributed.comm.core import CommClosedError

    read = comm.read

    async def checked(deserializers: Any = None) -> Any:
        try:
            return await read(deserializers=UNTRUSTED)
        except Refused as exc:
            log.warning("closed the connection of %s: %s", comm.peer_address, exc)
            comm.abort()
            raise CommClosedError(f"refused: {exc}") from None

    comm.read = checked


def _install_loads() -> None:
    """Route Dask's ``protocol.loads`` (what every comm's read calls) through ``_loads``."""
    import distributed.protocol as protocol

    if getattr(protocol.loads, "_arena", False):
        return
    original = protocol.loads

    def loads(frames: Any, deserialize: bool = True, deserializers: Any = None) -> Any:
        if isinstance(deserializers, _Untrusted):
            check_frames(frames)
            deserializers = tuple(deserializers)
        return original(frames, deserialize=deserialize, deserializers=deserializers)

    loads._arena = True  # type: ignore[attr-defined]
    protocol.loads = loads


def check_frames(frames: list[Any]) -> None:
    """``Refused`` when the message in ``frames`` holds anything read by unpickling: a
    ``__Pickled__`` part, or a ``Serialized`` one whose serializer is not msgpack."""
    from distributed.protocol.core import msgpack
    from distributed.protocol.utils import msgpack_opts

    def hook(obj: dict[Any, Any]) -> dict[Any, Any]:
        if "__Pickled__" in obj:
            raise Refused("a pickled object from a peer that is not the head")
        if "__Serialized__" in obj:
            offset = obj["__Serialized__"]
            if offset is True:
                data = obj.get("data")
                header = data[0] if isinstance(data, (tuple, list)) and data else None
            else:
                header = msgpack.loads(frames[int(offset)], use_list=False, **msgpack_opts)
            serializer = header.get("serializer") if isinstance(header, dict) else None
            if serializer not in SAFE_SERIALIZERS:
                raise Refused(f"data serialized with {serializer!r} from a peer that is not "
                              "the head")
        return obj

    try:
        msgpack.loads(frames[0], object_hook=hook, use_list=False, **msgpack_opts)
    except Refused:
        raise
    except Exception as exc:  # noqa: BLE001 — garbled: Dask's own read reports it
        log.debug("a message did not parse: %s", exc)
