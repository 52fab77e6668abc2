"""What a worker host may lack to play a match, and how the head ships it: bot directories (as
compressed tar archives, unpacked into a content-addressed cache on the worker) and submitted
images (``docker save`` on the head, ``docker load`` on the worker, the image id verified).

Nothing is shipped unless a worker asks: a task first runs with what the host has, and answers
``Needs`` when a bot directory (or an image) is not there; the head then sends exactly that and
submits the match again. So the embedded cluster, whose workers share the head's files and
Docker engine, ships nothing.

- A bot directory (at most ``ARENA_MAX_BOT_DIR_MB``) travels as a Dask ``Shipment`` (once per run,
  Dask keeps it on the workers that fetched it). Unpacking is bounded: only regular files and
  directories, their count and total size checked against the caps before anything is written.
- An image never sits whole in memory: the head's ``docker save`` streams into a temporary file
  (``save_image``, kept for the run), sent to the worker that asked in ``CHUNK_BYTES`` pieces
  (``receive_image_chunk``: appended to a file in its cache, refused past
  ``ARENA_MAX_IMAGE_MB``), then ``docker load``-ed from that file (``load_shipped_image``), its
  id checked, the file removed.

The worker cache is private (the root and ``bots/`` 0700): a bot sees its own directory (a
container's copy, or the separated process sandbox's bind mount), never the other bots'.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import os
import shutil
import tarfile
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.bots.files import DirectoryCaps, add_to_tar, bot_files
from arena.bots.identity import HASH_PREFIX, directory_hash
from arena.bots.images.policy import max_image_bytes
from arena.errors import ClusterError, SandboxError
from arena.model import BotSpec
from arena.sandbox import get_sandbox

BOTS_SUBDIR = "bots"
"""Where a worker's cache keeps unpacked bot directories (one per content hash)."""


@dataclass(frozen=True)
class Needs:
    """What a worker lacked to play a match: nothing was played."""

    bots: tuple[str, ...] = ()
    """Content hashes (``dir:sha256:…``) of bot directories the host does not have."""
    images: tuple[str, ...] = ()
    """Ids (``sha256:…``) of submitted images the host's Docker engine does not have."""

    def __bool__(self) -> bool:
        return bool(self.bots or self.images)


@dataclass(frozen=True)
class Shipment:
    """What the head sends with a match a worker could not play at first (or nothing): bot
    directories (images go to the worker's cache beforehand, see the module doc)."""

    bots: dict[str, bytes]
    """Compressed tar archives of bot directories by content hash."""


BOTS_MODE = 0o700
"""The worker cache's root and ``bots/``: private to the worker's user."""
IMAGES_SUBDIR = "images"
"""Where a worker's cache receives shipped image archives (removed once loaded)."""
CHUNK_BYTES = 4 << 20
"""The most bytes of an image archive in one message from the head to a worker (a message is
copied a few times on its way through the scheduler: 16 MiB chunks cost the head ~110 MiB of
peak memory, 4 MiB ones ~40 MiB)."""


# --- bot directories ------------------------------------------------------------------------
CACHE_ENV = "ARENA_CACHE"
"""Where a worker host keeps shipped bot directories and images (default ``~/.cache/arena``)."""


def worker_cache() -> Path:
    """This host's cache of shipped bot directories and images."""
    configured = os.environ.get(CACHE_ENV)
    return Path(configured) if configured else Path.home() / ".cache" / "arena"


def docker_client(sandbox: str) -> Any:
    """The Docker client of this host's ``sandbox`` (``ClusterError`` if it runs no images)."""
    # the Docker sandbox (~0.9 s to import) only for images: the CLI imports this module
    from arena.sandbox.docker import DockerSandbox

    box = get_sandbox(sandbox)
    if not isinstance(box, DockerSandbox):
        raise ClusterError(f"sandbox {sandbox!r} runs no images")
    return box.client


def pack_directory(directory: str | Path) -> bytes:
    """A gzip'd tar of the files of a bot directory that make its identity
    (:func:`arena.bots.files.bot_files`: regular files only, read without following a link;
    modes kept, owners and times not). Raises ``BotFileError`` for a directory holding a symlink,
    FIFO, socket or device, or over its caps."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz", compresslevel=6) as tar:
        add_to_tar(tar, bot_files(directory))
    return buffer.getvalue()


def cached_directory(cache: Path, digest: str) -> Path:
    """Where the worker cache keeps the bot directory with content hash ``digest``."""
    return cache / BOTS_SUBDIR / digest.removeprefix(HASH_PREFIX)


def private_cache(cache: Path, subdir: str) -> Path:
    """``cache/subdir``, made if needed, both private to this user (0700)."""
    target = cache / subdir
    target.mkdir(parents=True, exist_ok=True)
    for path in (cache, target):
        os.chmod(path, BOTS_MODE)
    return target


def unpack_directory(data: bytes, digest: str, cache: Path) -> Path:
    """Unpack a shipped bot directory into the cache (atomically: a half-written directory is
    never used) and check its content hash. Raises ``SandboxError`` when it does not match, or
    when the archive holds anything but regular files and directories or more than the
    directory caps allow (``ARENA_MAX_BOT_DIR_MB``, ``ARENA_MAX_BOT_DIR_FILES``)."""
    target = cached_directory(cache, digest)
    private_cache(cache, BOTS_SUBDIR)
    if target.is_dir() and directory_hash(target) == digest:
        return target
    staging = Path(tempfile.mkdtemp(prefix=".unpack-", dir=target.parent))
    try:
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
            tar.extractall(staging, members=_bounded_members(tar, DirectoryCaps.from_env()),
                           filter="data")
        for path in (staging, *staging.rglob("*")):
            if path.is_dir():
                path.chmod(0o755)  # the bot's own uid reads it (the cache's root is private)
        found = directory_hash(staging)
        if found != digest:
            raise SandboxError(f"a shipped bot directory hashes to {found}, not {digest}")
        with contextlib.suppress(OSError):  # another process of this host won the race
            staging.rename(target)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    if directory_hash(target) != digest:
        raise SandboxError(f"the cached bot directory {target} does not hash to {digest}")
    return target


def _bounded_members(tar: tarfile.TarFile, caps: DirectoryCaps) -> list[tarfile.TarInfo]:
    """The archive's members, read (and inflated) no further than the caps: ``SandboxError`` at
    the first member that is not a regular file or directory, or past the caps."""
    members: list[tarfile.TarInfo] = []
    total = 0
    for member in tar:
        if not (member.isreg() or member.isdir()):
            raise SandboxError(f"a shipped bot directory holds {member.name!r}, which is not a "
                               "regular file or directory")
        total += member.size
        members.append(member)
        if total > caps.max_bytes or len(members) > caps.max_files:
            raise SandboxError(f"a shipped bot directory holds more than {caps.max_files} "
                               f"files or {caps.max_bytes >> 20} MiB (ARENA_MAX_BOT_DIR_MB, "
                               "ARENA_MAX_BOT_DIR_FILES)")
    return members


def local_directory(bot: BotSpec, cache: Path) -> Path | None:
    """The directory of ``bot`` on this host: its own path when that holds the same code (the
    embedded cluster, a shared file system), else the cache's copy; None when the host has
    neither."""
    if not bot.directory:
        return None
    own = Path(bot.directory)
    if not bot.digest.startswith(HASH_PREFIX):
        return own if own.is_dir() else None
    if own.is_dir() and directory_hash(own) == bot.digest:
        return own
    cached = cached_directory(cache, bot.digest)
    if cached.is_dir() and directory_hash(cached) == bot.digest:
        return cached
    return None


# --- images ---------------------------------------------------------------------------------
def image_present(client: Any, image_id: str) -> bool:
    """Whether the Docker engine has the image; ``SandboxError`` when the engine fails."""
    # docker (~0.9 s to import) once an engine is used: the CLI, importing this, goes without
    import docker.errors

    try:
        client.images.get(image_id)
    except docker.errors.ImageNotFound:
        return False
    except Exception as exc:  # noqa: BLE001 — APIError, connection errors
        raise SandboxError(f"the Docker engine failed: {exc}") from exc
    return True


def save_image(client: Any, image_id: str, path: Path) -> int:
    """``docker save`` of one image (by id) streamed into ``path`` (a new private file), never
    whole in memory; returns its size. ``SandboxError`` when the engine fails or the archive
    grows past ``ARENA_MAX_IMAGE_MB``."""
    cap = max_image_bytes()
    size = 0
    try:
        image = client.images.get(image_id)
        with open(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "wb") as out:
            for chunk in image.save(named=False):
                size += len(chunk)
                if size > cap:
                    raise SandboxError(f"image {image_id[:19]} is over {cap >> 20} MiB "
                                       "(ARENA_MAX_IMAGE_MB)")
                out.write(chunk)
    except SandboxError:
        raise
    except Exception as exc:  # noqa: BLE001 — ImageNotFound, APIError, connection errors
        raise SandboxError(f"cannot save image {image_id[:19]}: {exc}") from exc
    return size


def load_image(client: Any, archive: Path, image_id: str) -> None:
    """``docker load`` a saved image from the file ``archive`` (streamed) and check that the
    engine now has it under the same id (a saved image keeps its id: its config is stored byte
    for byte)."""
    try:
        with archive.open("rb") as data:
            loaded = client.images.load(data)
    except Exception as exc:  # noqa: BLE001
        raise SandboxError(f"cannot load image {image_id[:19]}: {exc}") from exc
    ids = {image.id for image in loaded}
    if image_id not in ids or not image_present(client, image_id):
        raise SandboxError(f"loading image {image_id[:19]} gave {sorted(ids)} instead")


def image_archive(cache: Path, image_id: str) -> Path:
    """Where a worker's cache receives the archive of ``image_id``."""
    name = image_id.removeprefix("sha256:")
    if not name.isalnum():
        raise SandboxError(f"not an image id: {image_id[:80]!r}")
    return private_cache(cache, IMAGES_SUBDIR) / f"{name}.tar"


def receive_image_chunk(image_id: str, offset: int, data: bytes) -> bytes:
    """(On a worker, run by the head.) Write ``data`` at ``offset`` of the image's archive in
    this host's cache (offset 0 starts it anew). ``SandboxError`` past ``ARENA_MAX_IMAGE_MB`` or
    out of order. Returns nothing but bytes (what a guarded head reads from a worker)."""
    archive = image_archive(worker_cache(), image_id)
    cap = max_image_bytes()
    if offset + len(data) > cap:
        archive.unlink(missing_ok=True)
        raise SandboxError(f"a shipped image is over {cap >> 20} MiB (ARENA_MAX_IMAGE_MB)")
    flags = os.O_WRONLY | os.O_CREAT | (os.O_TRUNC if offset == 0 else 0)
    with open(os.open(archive, flags, 0o600), "ab") as out:
        if out.tell() != offset:
            raise SandboxError(f"a shipped image's chunk at {offset} does not follow "
                               f"{out.tell()}")
        out.write(data)
    return b""


async def load_shipped_image(image_id: str, size: int, sandbox: str) -> bytes:
    """(On a worker, run by the head.) ``docker load`` the received archive of ``image_id``
    (``size`` bytes) into this host's engine, check its id, remove the archive (in a thread:
    the worker keeps answering its scheduler meanwhile)."""
    await asyncio.to_thread(_load_shipped_image, image_id, size, sandbox)
    return b""


def _load_shipped_image(image_id: str, size: int, sandbox: str) -> None:
    archive = image_archive(worker_cache(), image_id)
    try:
        client = docker_client(sandbox)
        if image_present(client, image_id):
            return
        if archive.stat().st_size != size:
            raise SandboxError(f"the shipped image {image_id[:19]} is incomplete")
        load_image(client, archive, image_id)
    finally:
        archive.unlink(missing_ok=True)
