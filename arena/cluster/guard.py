"""The guard of a cluster's processes: a worker host's certificate cannot act as the head, and
nothing a worker sends is unpickled.

Every Dask server (scheduler, worker, nanny) dispatches each incoming message's ``op`` through
its ``handlers``; some of them run code or drive the cluster (``register-client`` and
``connection_stream`` open a client's stream, whose ``update-graph`` submits tasks; ``run``,
``run_function``, ``feed``, plugins, ``scatter``, ``restart``...). One CA signs every host, so
without a guard the key of any worker host (which a bot on it might read) would connect to the
scheduler as a client, or to another worker or nanny, and run code there: on the head, whose
state holds the ladder database, the deal secret and the CA key. And Dask moves Python objects
as pickles: a message's ``__Pickled__`` parts are unpickled as they are read (on the scheduler
too), ``Serialized`` parts with whatever serializer their sender names, a task's result type
and error are unpickled by the client.

``guard(server)`` installs, before the server handles its first message:

- an op allow-list by the peer's role (the subject OU of its certificate, see
  ``arena.cluster.security``): the head's role may do anything; any other certificate of the CA
  (a worker host's, or one made before roles existed) only what workers and nannies need of the
  scheduler (``SCHEDULER_WORKER_OPS``), of another worker (``get_data``) and of their own nanny.
  Anything else closes the connection, logged as a warning with the peer's address. The handlers
  dict is wrapped, so handlers added later (plugins) are covered too.
- on the scheduler's merged stream handlers: a client's op (``update-graph``...) on a worker's
  stream is dropped and logged; what a worker's ``task-finished`` and ``task-erred`` carry for
  the client to unpickle (the result's type, the error) is replaced by plain text, and so are the
  errors workers answer to ``broadcast`` (``Client.run``).
- in the whole process, on every connection of the guarded cluster (a peer certificate of its
  CA) whose peer is not the head, incoming and outgoing (the scheduler fetching a result, a
  worker fetching a shipment from another worker): only msgpack data and ``bytes`` are read
  (``check_frames``), never a compressed frame (Dask would inflate it without a bound; the
  process never agrees to compress); anything else closes the connection. So what workers
  hand on is bytes in the arena's own formats (``arena.cluster.task``: the outcome, the
  shipment), and the head decodes it without unpickling anything.

The embedded cluster needs no guard: its one throw-away certificate is held by the head process
and the workers it starts.
"""

from __future__ import annotations

import inspect
import logging
import pickle
from collections.abc import Callable
from pathlib import Path
from typing import Any

import dask
import distributed.protocol as protocol
from cryptography import x509
from cryptography.x509.oid import NameOID
from distributed import Nanny, Scheduler, Worker
from distributed.comm.core import CommClosedError
from distributed.comm.tcp import TLS
from distributed.core import Status, _expects_comm
from distributed.protocol.core import msgpack
from distributed.protocol.utils import msgpack_opts
from distributed.utils import has_keyword

from arena.cluster import pool
from arena.cluster.security import HEAD_ROLE, role_of
from arena.errors import ConfigError
from arena.model import plain_text

log = logging.getLogger(__name__)

GUARD_OP = "arena_guard"
"""The scheduler op a head calls to check that a remote scheduler is guarded."""
GUARD_VERSION = 2
"""What ``GUARD_OP`` answers."""
SCHEDULER_WORKER_OPS = frozenset({
    "register-worker", "register_nanny", "heartbeat_worker", "unregister", "who_has",
    "log_event", "get_metadata", "identity",
})
"""What a worker host's certificate may ask of the scheduler: join (and its worker stream),
heartbeats, leave, where a shipment is, events, the head's published versions."""
WORKER_WORKER_OPS = frozenset({"get_data", "identity"})
"""What another worker may ask of a worker: the data it holds (a shipment)."""
NANNY_WORKER_OPS = frozenset({"close_gracefully", "identity"})
"""What a worker process may ask of its nanny (see ``Worker.close``)."""
WORKER_STREAM_OPS = frozenset({
    "task-finished", "task-erred", "release-worker-data", "add-keys", "long-running",
    "reschedule", "keep-alive", "log-event", "worker-status-change", "request-refresh-who-has",
})
"""The ops of a worker's stream to the scheduler (any other op there is a client's)."""
SAFE_TYPES = frozenset(pickle.dumps(bytes, protocol=p)
                       for p in range(2, pickle.HIGHEST_PROTOCOL + 1))
"""The pickled types a ``dask``-serialized part from a peer that is not the head may name:
``bytes`` only (its frames are the bytes themselves)."""
ERROR_TEXT_CHARS = 500
"""The most characters of a worker's error text passed on to the client."""

_GUARDED_CAS: set[str] = set()
"""The names of the CAs of the guarded servers in this process: a connection whose peer's
certificate they issued, and which is not the head's, is read with ``check_frames`` (other
connections, e.g. an embedded cluster's, are not this guard's)."""


class Refused(ValueError):
    """A message from a peer that is not the head holds something that would be unpickled."""


class _Untrusted(tuple[str, ...]):
    """The deserializers a connection to a peer that is not the head reads with: marks its
    reads for the checked ``protocol.loads``."""


UNTRUSTED = _Untrusted(("msgpack", "dask"))


def peer_role(comm: Any) -> str:
    """The role of the certificate a connection's peer showed (``WORKER_ROLE`` unless it is
    the head's)."""
    cert = (getattr(comm, "extra_info", None) or {}).get("peercert") or {}
    units = [value for rdn in cert.get("subject", ()) for key, value in rdn
             if key == "organizationalUnitName"]
    return role_of(units)


def guard(server: Any) -> None:
    """Guard a Dask ``Scheduler``, ``Worker`` or ``Nanny`` and this process's connections (see
    the module doc); idempotent. Also repairs Dask's connection pool (``arena.cluster.pool``)."""
    pool.install()
    if getattr(server, "_arena_guarded", False):
        return
    ca = _ca_name(server.security)
    if isinstance(server, Scheduler):
        allowed, name = SCHEDULER_WORKER_OPS, "scheduler"
        _guard_streams(server)
        server.handlers[GUARD_OP] = _guard_version
        server.handlers["broadcast"] = _plain_errors(server.handlers["broadcast"])
    elif isinstance(server, Nanny):
        allowed, name = NANNY_WORKER_OPS, "nanny"
    elif isinstance(server, Worker):
        allowed, name = WORKER_WORKER_OPS, "worker"
    else:
        raise TypeError(f"cannot guard {type(server).__name__}")
    _install_reads()
    _GUARDED_CAS.add(ca)
    server.handlers = _GuardedHandlers(server.handlers, allowed, name)
    server._arena_guarded = True


def _guard_version() -> int:
    return GUARD_VERSION


def _ca_name(security: Any) -> str:
    """The common name of the CA a server's ``Security`` trusts; ``ConfigError`` without one
    (a guarded cluster is mutual TLS only)."""
    ca = getattr(security, "tls_ca_file", None)
    if not ca:
        raise ConfigError("a cluster's servers need mutual TLS (--tls-ca-file, --tls-cert, "
                          "--tls-key)")
    pem = ca.encode() if ca.startswith("-----BEGIN") else Path(ca).read_bytes()
    names = x509.load_pem_x509_certificate(pem).subject.get_attributes_for_oid(
        NameOID.COMMON_NAME)
    return str(names[0].value) if names else ""


def _issuer(comm: Any) -> str | None:
    """The common name of the CA that issued a connection's peer's certificate."""
    cert = (getattr(comm, "extra_info", None) or {}).get("peercert") or {}
    names = [value for rdn in cert.get("issuer", ()) for key, value in rdn
             if key == "commonName"]
    return names[0] if names else None


# --- ops by role ---------------------------------------------------------------------------------
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


# --- the scheduler's streams and what it passes on -------------------------------------------
def _guard_streams(scheduler: Any) -> None:
    """A client's ops on a worker's stream are dropped; what a worker's task messages carry for
    the client to unpickle becomes plain text."""
    handlers = scheduler.stream_handlers
    for op, handler in list(handlers.items()):
        if op not in WORKER_STREAM_OPS:
            handlers[op] = _clients_only(op, handler)
    handlers["task-finished"] = _without_type(handlers["task-finished"])
    handlers["task-erred"] = _plain_task_error(handlers["task-erred"])


def _clients_only(op: str, handler: Callable[..., Any]) -> Callable[..., Any]:
    async def clients_only(*args: Any, **kwargs: Any) -> Any:
        if "worker" in kwargs:
            log.warning("refused %r on the stream of worker %s (a client's op)", op,
                        kwargs["worker"])
            return None
        result = handler(*args, **kwargs)
        return await result if inspect.isawaitable(result) else result

    return clients_only


def _without_type(handler: Callable[..., Any]) -> Callable[..., Any]:
    """``task-finished`` without the result's pickled type (the client would unpickle it)."""

    def task_finished(*args: Any, **kwargs: Any) -> Any:
        kwargs["type"] = None
        return handler(*args, **kwargs)

    return task_finished


def _plain_task_error(handler: Callable[..., Any]) -> Callable[..., Any]:
    """``task-erred`` with the error as text (the client turns a string into an ``Exception``
    without unpickling anything)."""

    def task_erred(*args: Any, **kwargs: Any) -> Any:
        kwargs["exception"] = _error_text(kwargs.get("exception_text"))
        kwargs["traceback"] = None
        return handler(*args, **kwargs)

    return task_erred


def _plain_errors(handler: Callable[..., Any]) -> Callable[..., Any]:
    """``broadcast`` (``Client.run``) whose workers' errors reach the client as text."""

    async def broadcast(*args: Any, **kwargs: Any) -> Any:
        replies = await handler(*args, **kwargs)
        if isinstance(replies, dict):
            for address, reply in replies.items():
                if isinstance(reply, dict) and reply.get("status") == "error":
                    replies[address] = {"status": "error", "traceback": None,
                                        "exception": _error_text(reply.get("exception_text"))}
        return replies

    return broadcast


def _error_text(text: Any) -> str:
    return "a worker failed: " + plain_text(str(text or "no detail"))[:ERROR_TEXT_CHARS]


# --- reading what a peer that is not the head sends ---------------------------------------------
def _install_reads() -> None:
    """In this process: every TLS connection of a guarded cluster whose peer is not the head
    reads with ``UNTRUSTED``, checked by ``check_frames`` before Dask decodes it; a refused
    message closes the connection (logged)."""
    if getattr(protocol.loads, "_arena", False):
        return
    # This process never agrees to compress (a connection compresses only when both ends name
    # the same compression), so a peer that is not the head has no reason to send a compressed
    # frame, and check_frames refuses one: Dask would inflate it without bound.
    dask.config.set({"distributed.comm.compression": False})
    original_loads = protocol.loads
    original_read = TLS.read

    def loads(frames: Any, deserialize: bool = True, deserializers: Any = None) -> Any:
        if isinstance(deserializers, _Untrusted):
            check_frames(frames)
            deserializers = tuple(deserializers)
        return original_loads(frames, deserialize=deserialize, deserializers=deserializers)

    async def read(self: Any, deserializers: Any = None) -> Any:
        if _issuer(self) not in _GUARDED_CAS or peer_role(self) == HEAD_ROLE:
            return await original_read(self, deserializers)
        try:
            return await original_read(self, deserializers=UNTRUSTED)
        except Refused as exc:
            log.warning("closed the connection with %s: %s", self.peer_address, exc)
            self.abort()
            raise CommClosedError(f"refused: {exc}") from None

    loads._arena = True  # type: ignore[attr-defined]
    protocol.loads = loads
    TLS.read = read


def check_frames(frames: list[Any]) -> None:
    """``Refused`` when the message in ``frames`` holds anything read by unpickling (a
    ``__Pickled__`` part, or a ``Serialized`` one that is neither msgpack nor ``bytes``) or
    anything compressed (Dask inflates a frame without a bound)."""
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
            if not _safe_header(header):
                raise Refused("serialized data other than msgpack or bytes from a peer that "
                              "is not the head")
        return obj

    try:
        msgpack.loads(frames[0], object_hook=hook, use_list=False, **msgpack_opts)
    except Refused:
        raise
    except Exception as exc:  # noqa: BLE001 — garbled: Dask's own read reports it
        log.debug("a message did not parse: %s", exc)


def _safe_header(header: Any) -> bool:
    if not isinstance(header, dict):
        return False
    if any(header.get("compression") or ()):  # a zlib bomb inflates unbounded as it is read
        return False
    serializer = header.get("serializer")
    if serializer == "msgpack":
        return True
    return serializer == "dask" and header.get("type-serialized") in SAFE_TYPES
