"""A contestant's side of a competition server (``arena host``): the profiles that say where the
server is, which CA its certificate must be signed by and which token to send; the TLS channel
built from one; the calls of ``arena.v1.CompetitionService`` with every failure turned into one
line that says what to do; and the payload of a remote submission.

Profiles live in one TOML file (``$ARENA_CLIENT_CONFIG``, by default
``~/.config/arena/client.toml``), one ``[servers.NAME]`` table each: ``address`` (host:port),
``ca`` (the PEM text of the CA itself, so the pin survives the file it came from moving) and
``token``. The file is written atomically and private (0600, its directory 0700 when made here);
one that others could read is refused, with the ``chmod`` that fixes it. For CI the environment
overrides a profile field by field, or stands in for one entirely: ``ARENA_SERVER`` (host:port),
``ARENA_SERVER_CA`` (a PEM file's path) and ``ARENA_TOKEN``.

The channel trusts the pinned CA only (never the system's roots) and carries the token as
``authorization: Bearer <token>`` on every call (call credentials: gRPC sends them over TLS
only). The payload of a bot directory is a tar of exactly the files the arena reads and hashes
(``arena.bots.files.bot_files``, packed by ``add_to_tar``), of an image a ``docker save`` stream;
either is written to a private temporary file first (never held whole in memory) so that its
size and SHA-256 are known before the first byte is sent.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import stat
import tarfile
import tempfile
import tomllib
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import grpc

from arena.bots.files import add_to_tar, bot_files
from arena.bots.manifest import load_bot_dir
from arena.errors import ArenaError, ConfigError
from arena.model import plain_text
from arena.record.signing import is_statement
from arena.v1 import competition_pb2 as pb
from arena.v1 import competition_pb2_grpc as pb_grpc

CONFIG_ENV = "ARENA_CLIENT_CONFIG"
"""Environment variable: the profile file (default ``~/.config/arena/client.toml``)."""
SERVER_ENV = "ARENA_SERVER"
"""Environment variable: the server's ``host:port`` (overrides a profile's address)."""
CA_ENV = "ARENA_SERVER_CA"
"""Environment variable: a PEM file holding the CA to pin (overrides a profile's CA)."""
TOKEN_ENV = "ARENA_TOKEN"
"""Environment variable: the contestant's token (overrides a profile's token)."""
ENV_PROFILE = "env"
"""The name a profile made from the environment alone goes by."""
CHUNK_BYTES = 1 << 20
"""The size of each uploaded chunk (the API's limit)."""
UNARY_TIMEOUT_S = 30.0
"""How long a call with one answer may take."""
STAGES = {value: name for name, value in pb.SubmissionStage.items()}
"""A ``SubmissionStage`` value to its name (``RECEIVING`` ... ``CANCELLED``)."""
SUCCESSES = frozenset({"ENTERED", "RATED"})
"""The stages a submission succeeded in."""

_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}")
_TOKEN = re.compile(r"[A-Za-z0-9_-]{1,512}")
_ADDRESS = re.compile(r"(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):([0-9]{1,5})")
_FILE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,199}")
_PEM_CERT = re.compile(r"-----BEGIN CERTIFICATE-----[A-Za-z0-9+/=\s]+-----END CERTIFICATE-----\s*")
T = TypeVar("T")


class ServerError(ArenaError):
    """A call the server refused or could not be made (one line saying what to do)."""

    def __init__(self, message: str, code: str = "") -> None:
        super().__init__(message)
        self.code = code
        """The gRPC status code's name ("UNAUTHENTICATED", ...), "" when no call was made."""


@dataclass(frozen=True)
class Profile:
    """Where a competition server is and how to talk to it."""

    name: str
    """The profile's name (``--server NAME``), ``env`` for one made from the environment."""
    address: str
    """The server's ``host:port``."""
    ca: str
    """The PEM text of the CA the server's certificate must be signed by."""
    token: str
    """The contestant's token."""


# --- profiles --------------------------------------------------------------------------------
def config_path() -> Path:
    """The profile file: ``$ARENA_CLIENT_CONFIG``, else ``~/.config/arena/client.toml``."""
    configured = os.environ.get(CONFIG_ENV, "").strip()
    return Path(configured).expanduser() if configured else (
        Path.home() / ".config" / "arena" / "client.toml")


def check_name(name: str) -> str:
    """``name`` if it can name a profile (letters, digits, ``_``, ``-``), else ``ConfigError``."""
    if not _NAME.fullmatch(name):
        raise ConfigError(f"a server profile's name is letters, digits, '_' or '-' (at most 64), "
                          f"not {plain_text(repr(name))}")
    return name


def check_address(address: str) -> str:
    """``address`` if it is ``host:port`` (``[v6]:port`` for an IPv6 address), else
    ``ConfigError``."""
    found = _ADDRESS.fullmatch(address.strip())
    if not found or not 0 < int(found.group(1)) < 65536:
        raise ConfigError(f"the server address is HOST:PORT (e.g. arena.example.org:7443), "
                          f"not {plain_text(repr(address))}")
    return address.strip()


def check_token(token: str) -> str:
    """``token`` without surrounding blanks if it looks like a token, else ``ConfigError``."""
    token = token.strip()
    if not _TOKEN.fullmatch(token):
        raise ConfigError("that is not an arena token (letters, digits, '_' and '-', as "
                          "`arena contestants add` printed it): ask the operator for yours")
    return token


def check_ca(text: str, where: str) -> str:
    """``text`` if it is PEM certificates only, else ``ConfigError`` naming ``where``."""
    if not _PEM_CERT.fullmatch(text.strip() + "\n"):
        raise ConfigError(f"{where} is not a PEM certificate (-----BEGIN CERTIFICATE-----): "
                          "give the competition's CA file the operator published")
    return text.strip() + "\n"


def read_ca(path: Path) -> str:
    """The PEM text of the CA file ``path`` (``ConfigError`` if unreadable or not PEM)."""
    try:
        text = path.read_text(encoding="ascii")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read the CA file {path}: "
                          f"{getattr(exc, 'strerror', None) or exc}") from None
    return check_ca(text, f"the CA file {path}")


def _check_private(path: Path, info: os.stat_result) -> None:
    if info.st_mode & 0o077:
        raise ConfigError(f"{path} holds tokens and others can read or change it (mode "
                          f"{stat.S_IMODE(info.st_mode):o}): run `chmod 600 {path}`")
    if hasattr(os, "getuid") and info.st_uid != os.getuid():
        raise ConfigError(f"{path} holds tokens and belongs to another user: remove it and "
                          "`arena login` again")


def read_profiles(path: Path | None = None) -> dict[str, Profile]:
    """Every profile of the profile file (none when it does not exist). ``ConfigError`` for a
    file others can read, malformed TOML, or a profile missing a key or holding a bad one."""
    path = path or config_path()
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise ConfigError(f"cannot read {path}: {exc.strerror or exc}") from None
    with open(fd, "rb") as handle:
        _check_private(path, os.fstat(handle.fileno()))
        try:
            data = tomllib.load(handle)
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise ConfigError(f"{path} is not valid TOML ({exc}): fix it or remove it and "
                              "`arena login` again") from None
    servers = data.get("servers", {})
    if not isinstance(servers, dict):
        raise ConfigError(f"{path}: [servers] must be a table of [servers.NAME] tables")
    return {name: _profile(path, name, table) for name, table in servers.items()}


def _profile(path: Path, name: str, table: Any) -> Profile:
    where = f"{path}: [servers.{plain_text(name)}]"
    if not isinstance(table, dict):
        raise ConfigError(f"{where} must be a table")
    values = {}
    for key in ("address", "ca", "token"):
        value = table.get(key)
        if not isinstance(value, str):
            raise ConfigError(f"{where} {key}: missing or not a string (`arena login` again)")
        values[key] = value
    unknown = sorted(set(table) - set(values))
    if unknown:
        raise ConfigError(f"{where} {plain_text(unknown[0])}: unknown key (address, ca and "
                          "token are known)")
    try:
        return Profile(check_name(name), check_address(values["address"]),
                       check_ca(values["ca"], f"{where} ca"), check_token(values["token"]))
    except ConfigError as exc:
        raise ConfigError(f"{where}: {exc}") from None


def _toml_string(value: str) -> str:
    out = ['"']
    for char in value:
        if char in '"\\':
            out.append("\\" + char)
        elif char == "\n":
            out.append("\\n")
        elif ord(char) < 0x20 or ord(char) == 0x7F:
            out.append(f"\\u{ord(char):04x}")
        else:
            out.append(char)
    out.append('"')
    return "".join(out)


def render_profiles(profiles: Iterable[Profile]) -> str:
    """The profile file's text for ``profiles``."""
    lines = ["# arena client profiles (`arena login`): tokens, keep this file private.\n"]
    for profile in profiles:
        lines.append(f"\n[servers.{check_name(profile.name)}]\n")
        for key in ("address", "ca", "token"):
            lines.append(f"{key} = {_toml_string(getattr(profile, key))}\n")
    return "".join(lines)


def _private_dir(directory: Path) -> None:
    missing = [p for p in (directory, *directory.parents) if not p.exists()]
    for made in reversed(missing):
        made.mkdir(mode=0o700)
        os.chmod(made, 0o700)


def save_profile(profile: Profile, path: Path | None = None) -> Path:
    """Add ``profile`` to the profile file (replacing one of the same name), written whole to a
    private temporary file beside it and renamed over it; returns the file's path."""
    path = path or config_path()
    profiles = read_profiles(path)
    profiles[profile.name] = profile
    text = render_profiles(profiles[name] for name in sorted(profiles))
    _private_dir(path.parent)
    fd, temp = tempfile.mkstemp(dir=path.parent, prefix=".client-", suffix=".toml")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            os.fchmod(handle.fileno(), 0o600)
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise
    return path


def profile(server: str | None, environ: Mapping[str, str] | None = None,
            path: Path | None = None) -> Profile:
    """The profile ``server`` names, with any of ``ARENA_SERVER``, ``ARENA_SERVER_CA`` and
    ``ARENA_TOKEN`` overriding its fields; without ``server`` (or for a name no profile has) the
    environment alone, which must then give all three. ``ConfigError`` says what is missing."""
    environ = os.environ if environ is None else environ
    saved = read_profiles(path).get(check_name(server)) if server else None
    address = environ.get(SERVER_ENV, "").strip()
    ca_file = environ.get(CA_ENV, "").strip()
    token = environ.get(TOKEN_ENV, "").strip()
    if saved is None:
        if server and not address:
            raise ConfigError(f"no server profile {server!r} in {path or config_path()}: "
                              f"`arena login {server} --address HOST:PORT --ca CA.pem` first")
        if not address:
            raise ConfigError(f"name a server (--server NAME, see `arena login`) or set "
                              f"{SERVER_ENV}, {CA_ENV} and {TOKEN_ENV}")
        missing = [n for n, v in ((CA_ENV, ca_file), (TOKEN_ENV, token)) if not v]
        if missing:
            raise ConfigError(f"{SERVER_ENV} is set but {' and '.join(missing)} not: a server "
                              "from the environment needs its CA file and a token too")
        saved = Profile(server or ENV_PROFILE, "", "", "")
    return Profile(saved.name,
                   check_address(address) if address else saved.address,
                   read_ca(Path(ca_file)) if ca_file else saved.ca,
                   check_token(token) if token else saved.token)


# --- the channel -----------------------------------------------------------------------------
def _one_line(text: str) -> str:
    return " ".join(plain_text(text).split())


def explain(address: str, exc: grpc.RpcError) -> ServerError:
    """One line for a failed call to the server at ``address``: what happened, what to do."""
    code = exc.code() if hasattr(exc, "code") else None
    name = code.name if isinstance(code, grpc.StatusCode) else ""
    raw = (exc.details() if hasattr(exc, "details") else str(exc)) or ""
    details = _one_line(raw)
    if code == grpc.StatusCode.UNAUTHENTICATED:
        message = (f"the server at {address} refused the token: `arena login` again or ask the "
                   "operator")
    elif code == grpc.StatusCode.PERMISSION_DENIED:
        message = (f"not yours to see: {details or 'permission denied'} (the competition's "
                   "visibility setting decides what you may see; a match or submission that "
                   "does not exist answers the same)")
    elif code == grpc.StatusCode.RESOURCE_EXHAUSTED:
        message = f"refused by a limit of the competition: {details or 'resource exhausted'}"
    elif code == grpc.StatusCode.UNAVAILABLE:
        message = _unavailable(address, raw, details)
    elif code == grpc.StatusCode.DEADLINE_EXCEEDED:
        message = f"the server at {address} did not answer in time: try again later"
    elif code in (grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.FAILED_PRECONDITION,
                  grpc.StatusCode.NOT_FOUND, grpc.StatusCode.ALREADY_EXISTS):
        message = f"the server refused: {details}"
    elif code == grpc.StatusCode.UNIMPLEMENTED:
        message = (f"the server at {address} does not offer this call: is it a competition "
                   "server (`arena host`) of this arena version?")
    else:
        message = f"the call to {address} failed ({name or 'no status'}): {details}"
    return ServerError(message, name)


def _unavailable(address: str, raw: str, details: str) -> str:
    if "CERTIFICATE_VERIFY_FAILED" in raw:
        return (f"the server's certificate at {address} is not signed by the CA you pinned: "
                "ask the operator for the competition's CA and `arena login` again")
    if "Hostname Verification" in raw or "peer name" in raw.lower():
        host = address.rsplit(":", 1)[0]
        return (f"the server's certificate does not name {host}: use the host name the "
                "operator published (`arena login` again with it)")
    if "WRONG_VERSION_NUMBER" in raw or "handshake" in raw.lower():
        return (f"no TLS handshake with {address}: is that the competition server's port? "
                f"({details})")
    return (f"cannot reach {address}: is the server running and the address right? "
            f"({details})")


class Connection:
    """A TLS channel to one competition server and its calls; each failure raises
    :class:`ServerError`. Use it as a context manager (the channel is closed on exit)."""

    def __init__(self, target: Profile) -> None:
        self.profile = target
        """The profile the connection was made from."""
        credentials = grpc.composite_channel_credentials(
            grpc.ssl_channel_credentials(root_certificates=target.ca.encode("ascii")),
            grpc.access_token_call_credentials(target.token))
        self.channel = grpc.secure_channel(target.address, credentials)
        """The gRPC channel."""
        self.stub = pb_grpc.CompetitionServiceStub(self.channel)
        """The service's stub."""

    def __enter__(self) -> Connection:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the channel (ends any stream still open)."""
        self.channel.close()

    def _unary(self, method: Callable[..., T], request: Any) -> T:
        try:
            return method(request, timeout=UNARY_TIMEOUT_S)
        except grpc.RpcError as exc:
            raise explain(self.profile.address, exc) from None

    def _stream(self, responses: Iterable[T]) -> Iterator[T]:
        try:
            yield from responses
        except grpc.RpcError as exc:
            raise explain(self.profile.address, exc) from None

    def who_am_i(self) -> Any:
        """The token's contestant, the competition's games, quotas and visibility."""
        return self._unary(self.stub.WhoAmI, pb.WhoAmIRequest())

    def standings(self, game: str = "") -> Any:
        """Each game's standings (``game``: only that one)."""
        return self._unary(self.stub.Standings, pb.StandingsRequest(game=game))

    def matches(self, *, game: str = "", bot: str = "", mine: bool = False, limit: int = 0,
                before: str = "", kind: str = "") -> Any:
        """A page of recorded matches, newest first (``reply.next``: the next page's cursor);
        ``kind``: "" (the ladder's), "rerun" or "scrimmage"."""
        return self._unary(self.stub.ListMatches, pb.MatchesRequest(
            game=game, bot=bot, mine=mine, limit=limit, before=before, kind=kind))

    def challenge(self, bot: str, rival: str, game: str = "") -> Any:
        """Ask for a scrimmage of ``bot`` (NAME or NAME@VERSION) against ``rival``."""
        return self._unary(self.stub.Challenge, pb.ChallengeRequest(game=game, bot=bot,
                                                                    rival=rival))

    def submissions(self, limit: int = 0) -> Any:
        """The token's own submissions, newest first."""
        return self._unary(self.stub.ListSubmissions, pb.SubmissionsRequest(limit=limit))

    def follow(self, submission_id: int, follow: bool = True) -> Iterator[Any]:
        """A submission's stages (as they happen with ``follow``) until its end."""
        return self._stream(self.stub.FollowSubmission(pb.FollowSubmissionRequest(
            submission_id=submission_id, follow=follow)))

    def submit(self, payload: Payload, *, game: str = "", name: str = "",
               sent: Callable[[int], None] | None = None) -> Iterator[Any]:
        """Upload ``payload`` as the bot ``name`` of ``game`` (default: the payload's own, from
        its bot.toml) and yield the submission's stages as the server reports them; ``sent`` is
        called with the bytes sent so far after each chunk."""
        start = pb.SubmitStart(game=game or payload.game, name=name or payload.name,
                               kind=payload.kind, size=payload.size, sha256=payload.sha256)
        return self._stream(self.stub.Submit(_requests(start, payload.path, sent)))

    def watch(self, match_id: str, seat: int = -1, follow: bool = False, *,
              records: bool = False) -> Iterator[Any]:
        """A match's frames from ``seat`` (-1: the whole board) as the server allows them;
        ``records``: each frame's record without its board (``WatchFrame.record``)."""
        return self._stream(self.stub.WatchMatch(pb.WatchRequest(
            match_id=match_id, seat=seat, follow=follow, records=records)))

    def log(self, match_id: str) -> Iterator[Any]:
        """A finished match's log (or the caller's seat's view of it), in chunks."""
        return self._stream(self.stub.GetLog(pb.LogRequest(match_id=match_id)))

    def select(self, versions: Iterable[str]) -> Any:
        """Select the caller's versions for the final (``NAME@VERSION``); the selection now."""
        return self._unary(self.stub.Select, pb.SelectRequest(versions=list(versions)))

    def bot_output(self, match_id: str) -> Any:
        """The seat and last output of the caller's own bot in a match."""
        return self._unary(self.stub.GetBotOutput, pb.BotOutputRequest(match_id=match_id))


def connect(target: Profile) -> Connection:
    """A connection to the server of ``target`` (no call is made yet)."""
    return Connection(target)


def _requests(start: Any, path: Path, sent: Callable[[int], None] | None) -> Iterator[Any]:
    yield pb.SubmitRequest(start=start)
    total = 0
    with path.open("rb") as handle:
        while chunk := handle.read(CHUNK_BYTES):
            yield pb.SubmitRequest(chunk=chunk)
            total += len(chunk)
            if sent is not None:
                sent(total)


def season_words(season: Any) -> str:
    """A ``Season`` message in words: the phase, since when, and the next phase with the time
    left (``frozen since 2027-03-01 12:00:00 UTC; final in 6 d 23 h (at ...)``)."""
    from arena.host.season import Phase, Status  # the words are the server's own

    if not season.phase:  # a server from before seasons
        return "open (the server says nothing of a season)"
    try:
        phase = Phase(season.phase)
        after = Phase(season.next) if season.next else None
    except ValueError:
        return plain_text(season.phase)
    return Status(phase, season.since, after, season.next_at or None,
                  season.seconds_left if season.next_at else None, season.seasonal).words()


# --- payloads --------------------------------------------------------------------------------
@dataclass(frozen=True)
class Payload:
    """What a submission uploads, in a private temporary file."""

    path: Path
    """The temporary file (removed when the ``payload`` context ends)."""
    kind: str
    """``directory`` (a tar of the bot's files) or ``image`` (a ``docker save`` stream)."""
    size: int
    """Its size in bytes."""
    sha256: str
    """Its SHA-256, hex."""
    name: str = ""
    """The bot's name its bot.toml gives ("" for an image)."""
    game: str = ""
    """The game its bot.toml names ("" for an image)."""


class _Hashing:
    """A binary file that counts and hashes what is written to it."""

    def __init__(self, handle: Any) -> None:
        self.handle = handle
        self.digest = hashlib.sha256()
        self.size = 0

    def write(self, data: bytes) -> int:
        self.digest.update(data)
        self.size += len(data)
        return int(self.handle.write(data))


@contextlib.contextmanager
def _payload_file(kind: str) -> Iterator[tuple[Path, _Hashing]]:
    fd, name = tempfile.mkstemp(prefix=f"arena-{kind}-", suffix=".tar")
    path = Path(name)
    try:
        with os.fdopen(fd, "wb") as handle:
            yield path, _Hashing(handle)
    except BaseException:
        path.unlink(missing_ok=True)
        raise


@contextlib.contextmanager
def payload(source: str | Path, kind: str, docker: Any = None) -> Iterator[Payload]:
    """The payload of a bot directory (``kind`` "directory") or a local image's tag or id
    (``kind`` "image", read from the engine of the Docker client ``docker``, made when None),
    in a temporary file removed on exit. A directory's bot.toml is read (its name and game go
    with the upload); one that is malformed, or a directory holding anything the arena does not
    read (a symlink, FIFO, device) or beyond its caps, raises ``ConfigError`` before anything is
    written; so does a missing image."""
    if kind == "directory":
        made = _pack_directory(Path(source))
    elif kind == "image":
        made = _save_image(str(source), docker)
    else:
        raise ConfigError(f"a payload is a directory or an image, not {kind!r}")
    try:
        yield made
    finally:
        made.path.unlink(missing_ok=True)


def _pack_directory(directory: Path) -> Payload:
    if not directory.is_dir():
        raise ConfigError(f"{directory} is not a directory: give a bot directory (with its "
                          "bot.toml), or --image TAG")
    if not (directory / "bot.toml").is_file():
        raise ConfigError(f"{directory} has no bot.toml: a bot directory names its game, name "
                          "and entry point there")
    spec = load_bot_dir(directory)
    files = bot_files(directory)
    with _payload_file("directory") as (path, out):
        with tarfile.open(fileobj=out, mode="w|", format=tarfile.PAX_FORMAT) as tar:  # type: ignore[call-overload]
            add_to_tar(tar, files)
    return Payload(path, "directory", out.size, out.digest.hexdigest(), spec.name, spec.game)


def _save_image(tag: str, docker: Any) -> Payload:
    # Docker (~0.9 s to import) only for an image: `arena submit DIR` starts without it
    from docker.errors import DockerException, ImageNotFound

    from arena.bots.images.build import docker_client

    if docker is None:
        docker = docker_client(timeout=600)

    try:
        image = docker.images.get(tag)
    except ImageNotFound:
        raise ConfigError(f"no local image {plain_text(tag)} (see `docker images`)") from None
    except DockerException as exc:
        raise ConfigError(f"cannot read the image {plain_text(tag)}: {exc}") from None
    named = tag if tag in (image.tags or []) else False
    with _payload_file("image") as (path, out):
        try:
            for chunk in image.save(named=named):
                out.write(chunk)
        except DockerException as exc:
            raise ConfigError(f"docker save {plain_text(tag)} failed: {exc}") from None
    return Payload(path, "image", out.size, out.digest.hexdigest())


# --- downloads -------------------------------------------------------------------------------
@dataclass(frozen=True)
class Download:
    """A log written by :func:`download_log`."""

    path: Path
    """Where it was written."""
    kind: str
    """``log`` (the match log) or ``seat-view`` (the caller's seat's view of it)."""
    size: int
    """Its size in bytes."""
    signed: bool = False
    """It ends with the referee's signed statement (check it: `arena verify FILE --key
    PUB`)."""


TAIL = 64 * 1024
"""The last bytes of a download kept to see whether it ends with a statement."""


def download_log(connection: Connection, match_id: str, out: Path | None) -> Download:
    """Write a match's log as the server allows the caller to ``out`` (default:
    ``MATCH_ID.jsonl``, or ``MATCH_ID.seat-view.jsonl`` for a seat's view, in the current
    directory). Written to a temporary file beside it first and renamed at the end: a refused
    or broken download leaves nothing."""
    if out is None and not _FILE_NAME.fullmatch(match_id):
        raise ConfigError(f"{plain_text(repr(match_id))} is no file name: give -o FILE")
    directory = (out.parent if out is not None else Path.cwd()).resolve()
    if not directory.is_dir():
        raise ConfigError(f"cannot write into {directory}: no such directory")
    fd, temp = tempfile.mkstemp(dir=directory, prefix=".arena-log-", suffix=".part")
    kind, size, tail = "log", 0, b""
    try:
        with os.fdopen(fd, "wb") as handle:
            for chunk in connection.log(match_id):
                kind = chunk.kind or kind
                handle.write(chunk.data)
                size += len(chunk.data)
                tail = (tail + chunk.data)[-TAIL:]
        suffix = ".jsonl" if kind == "log" else ".seat-view.jsonl"
        target = out if out is not None else directory / f"{match_id}{suffix}"
        os.replace(temp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise
    return Download(target, kind, size, is_statement(tail))
