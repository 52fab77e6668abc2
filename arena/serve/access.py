"""Who may use `arena serve`'s admin endpoint: only the user who started it (or root).

The admin service starts matches of any bot on any server-side path and streams the omniscient
view (seed, both hands) of running matches, so another user of the host must neither use it nor
stand in for it (and feed a client fake results):

* **A Unix socket is protected by where it lives.** The server binds only in a directory that no
  other user could have written in (``path_problem``: owned by the server's user or root, not
  writable by group or others, and no ancestor others can write without the sticky bit), with
  umask 077, so the socket is never connectable by others, not even for an instant. The default
  (``--listen default``) is ``<arena home>/run/referee.sock``, in a 0700 directory the server
  makes. A client talks only to a socket in such a directory too, by its resolved path.
* **A loopback port needs a token.** The server makes a random one at start (or takes
  ``ARENA_REFEREE_TOKEN``), writes it to ``<arena home>/run/referee-<port>.token`` (0600, in the
  0700 directory) and removes it at exit; every admin call must carry it as gRPC metadata
  ``authorization: Bearer <token>`` (``TokenCheck``, a server interceptor, so no call is
  forgotten; health checks stay open). A client finds it in the same file, or in
  ``ARENA_REFEREE_TOKEN``.
"""

from __future__ import annotations

import contextlib
import hmac
import os
import re
import secrets
import socket
import stat
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import grpc

from arena.bots.home import arena_home
from arena.errors import ConfigError

DEFAULT_ADDRESS = "default"
"""The alias of ``default_address()`` that ``arena serve --listen``, ``arena match --referee`` and
``arena watch --referee`` accept."""
TOKEN_ENV = "ARENA_REFEREE_TOKEN"
"""Environment variable holding the loopback port's token, for setups where the client cannot
read the server's token file (then the server must be given the same value)."""
AUTHORIZATION = "authorization"
"""The gRPC metadata key that carries ``Bearer <token>``."""
HEALTH_PREFIX = "/grpc.health.v1.Health/"
"""Health checks answer without a token (they reveal nothing)."""
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "[::1]")
_TOKEN_SHAPE = re.compile(r"[!-~]{16,512}")
Metadata = tuple[tuple[str, str], ...]


def run_dir() -> Path:
    """The server's private directory: the default socket and the port tokens live in it."""
    return arena_home() / "run"


def default_address() -> str:
    """What ``default`` stands for: ``unix://<arena home>/run/referee.sock``."""
    return f"unix://{run_dir() / 'referee.sock'}"


def check_listen_address(address: str) -> str:
    """The admin address with the ``default`` alias resolved: only a Unix socket or a loopback
    port (the admin service is never on a network); ``ConfigError`` otherwise."""
    if address == DEFAULT_ADDRESS:
        return default_address()
    if address.startswith("unix://"):
        return address
    host, sep, port = address.rpartition(":")
    if not sep or host not in LOOPBACK_HOSTS or not port.isdigit():
        raise ConfigError(
            f"refusing to listen on {address!r}: use unix:///path/to/socket, 127.0.0.1:PORT "
            f"or {DEFAULT_ADDRESS} (the admin service is never exposed to a network)"
        )
    return address


def socket_of(address: str) -> Path | None:
    """The socket path of a ``unix://`` address, else None."""
    return Path(address.removeprefix("unix://")) if address.startswith("unix://") else None


def port_of(address: str) -> int:
    """The port of a loopback address."""
    return int(address.rpartition(":")[2])


def path_problem(directory: Path) -> str | None:
    """Why another user could have put a file in ``directory`` (resolved), or None: it and every
    ancestor must belong to this user or root; it must not be writable by group or others, and
    an ancestor only with the sticky bit (as /tmp), so nobody else can rename it away."""
    uid = os.geteuid()
    for index, path in enumerate([directory, *directory.parents]):
        try:
            info = os.lstat(path)
        except OSError as exc:
            return f"{path} cannot be read ({exc.strerror})"
        if not stat.S_ISDIR(info.st_mode):
            return f"{path} is not a directory"
        if info.st_uid not in (uid, 0):
            return f"{path} belongs to another user (uid {info.st_uid})"
        writable = info.st_mode & 0o022
        if writable and (index == 0 or not info.st_mode & stat.S_ISVTX):
            return f"{path} is writable by other users (mode {stat.S_IMODE(info.st_mode):o})"
    return None


def _real(path: Path) -> Path:
    """``path`` with every symbolic link resolved (what is checked is what is used)."""
    return Path(os.path.realpath(path))


def private_run_dir() -> Path:
    """``run_dir()``, made 0700 when missing; ``ConfigError`` when others could write in it."""
    directory = run_dir()
    with _umask(0o077):
        directory.mkdir(mode=0o700, parents=True, exist_ok=True)
    problem = path_problem(_real(directory))
    if problem is not None:
        raise ConfigError(f"refusing to use {directory} for the referee's socket and tokens: "
                          f"{problem} (make it yours alone: chmod 700 {directory})")
    return directory


def server_socket(address: str) -> Path:
    """Where a server may bind ``address`` (a ``unix://`` one): its directory made (the
    default's) or checked; ``ConfigError`` when another user could have written there, or when a
    referee already answers on it (binding would take its socket away)."""
    path = socket_of(address)
    assert path is not None, "a unix:// address"
    if address == default_address():
        private_run_dir()
    directory = _real(path.parent)
    if not directory.is_dir():
        raise ConfigError(f"cannot listen on {address}: the directory {path.parent} does not "
                          "exist (create it, mode 700, or use --listen default)")
    problem = path_problem(directory)
    if problem is not None:
        raise ConfigError(f"refusing to listen on {address}: {problem}; another user could take "
                          "or replace the socket there (use a directory only you can write to, "
                          "chmod 700, or --listen default)")
    resolved = directory / path.name
    if _answers(resolved):
        raise ConfigError(f"cannot listen on {address}: a referee already answers there (stop "
                          "it first, or choose another socket)")
    return resolved


def _answers(path: Path) -> bool:
    if not path.exists():
        return False
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
        probe.settimeout(2.0)
        try:
            probe.connect(str(path))
        except OSError:
            return False
    return True


@contextlib.contextmanager
def _umask(mask: int) -> Iterator[None]:
    old = os.umask(mask)
    try:
        yield
    finally:
        os.umask(old)


def bind_private(server: Any, address: str) -> int:
    """``server.add_insecure_port(address)`` with umask 077: a socket is created 0600-like and
    so never connectable by others. The bound port (0: it could not bind)."""
    with _umask(0o077):
        try:
            return int(server.add_insecure_port(address))
        except RuntimeError:
            return 0


def token_path(port: int) -> Path:
    """Where the server writes its token for ``port``."""
    return run_dir() / f"referee-{port}.token"


def _env_token() -> str | None:
    token = os.environ.get(TOKEN_ENV)
    if token is None:
        return None
    if not _TOKEN_SHAPE.fullmatch(token):
        raise ConfigError(f"{TOKEN_ENV} must be 16 to 512 printable ASCII characters, no spaces")
    return token


def new_token() -> str:
    """The token a server starts with: ``ARENA_REFEREE_TOKEN``, else a random one."""
    return _env_token() or secrets.token_urlsafe(32)


def publish_token(port: int, token: str) -> Path:
    """Write ``token`` for ``port`` where only this user can read it (atomically)."""
    path = private_run_dir() / token_path(port).name
    partial = path.with_name(f".{path.name}.{os.getpid()}")
    partial.unlink(missing_ok=True)  # left by a process of the same pid that died here
    fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    with os.fdopen(fd, "w") as out:
        out.write(token + "\n")
    os.replace(partial, path)
    return path


def withdraw_token(port: int, token: str) -> None:
    """Remove the token file of ``port`` if it is still this server's."""
    path = token_path(port)
    with contextlib.suppress(OSError):
        if path.read_text().strip() == token:
            path.unlink()


def client_credentials(address: str) -> tuple[str, Metadata]:
    """The gRPC target for ``address`` and the metadata every admin call carries; ``ConfigError``
    when the socket's directory is one another user could have planted it in, or when no token
    for a loopback port is found."""
    address = check_listen_address(address)
    path = socket_of(address)
    if path is not None:
        directory = _real(path.parent)
        problem = path_problem(directory) if directory.is_dir() else None
        if problem is not None:
            raise ConfigError(f"refusing to talk to a referee at {address}: {problem}, so "
                              "another user could have put the socket there (use a socket in a "
                              "directory only you or root can write to, e.g. --referee default)")
        return f"unix://{directory / path.name}", ()
    return address, ((AUTHORIZATION, f"Bearer {find_token(port_of(address))}"),)


def find_token(port: int) -> str:
    """The token for the referee on ``port``: ``ARENA_REFEREE_TOKEN``, else the server's file."""
    token = _env_token()
    if token is not None:
        return token
    try:
        return _read_private(token_path(port))
    except (OSError, ValueError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) else str(exc)
        raise ConfigError(f"no token for the referee on port {port} ({reason}): run this as the "
                          f"user who started `arena serve`, or set {TOKEN_ENV} to its token"
                          ) from None


def _read_private(path: Path) -> str:
    """The text of a file that only this user (or root) could have written; ``ValueError``
    saying why not."""
    problem = path_problem(_real(path.parent))
    if problem is None:
        try:
            info = os.lstat(path)
        except FileNotFoundError:
            problem = f"{path} does not exist"
        else:
            if not stat.S_ISREG(info.st_mode) or info.st_uid not in (os.geteuid(), 0):
                problem = f"{path} is not a file of yours"
    if problem is not None:
        raise ValueError(problem)
    token = path.read_text().strip()
    if not token:
        raise ValueError(f"{path} is empty")
    return token


Handler = Callable[[grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler]]


class TokenCheck(grpc.aio.ServerInterceptor):  # type: ignore[misc]  # grpc is untyped
    """Every call but a health check must carry ``authorization: Bearer <token>``; otherwise it
    ends UNAUTHENTICATED before reaching the service."""

    def __init__(self, token: str) -> None:
        self._expected = f"Bearer {token}".encode()
        self._refusal = grpc.unary_unary_rpc_method_handler(_unauthenticated)

    async def intercept_service(self, continuation: Handler,
                                details: grpc.HandlerCallDetails) -> grpc.RpcMethodHandler:
        """Pass a call on when it carries the token (or is a health check)."""
        if details.method.startswith(HEALTH_PREFIX) or self._carries_token(details):
            return await continuation(details)
        return self._refusal

    def _carries_token(self, details: grpc.HandlerCallDetails) -> bool:
        for key, value in details.invocation_metadata or ():
            if key == AUTHORIZATION:
                given = value.encode() if isinstance(value, str) else bytes(value)
                return hmac.compare_digest(given, self._expected)
        return False


async def _unauthenticated(request: Any, context: Any) -> None:
    await context.abort(grpc.StatusCode.UNAUTHENTICATED,
                        "this referee needs its token (authorization: Bearer <token>; "
                        f"`arena serve` wrote it to {run_dir()}/referee-<port>.token)")
