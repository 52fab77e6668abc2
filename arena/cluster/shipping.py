"""What a worker host may lack to play a match, and how the head ships it: bot directories (as
compressed tar archives, unpacked into a content-addressed cache on the worker) and submitted
images (``docker save`` on the head, ``docker load`` on the worker, the image id verified).

Nothing is shipped unless a worker asks: a task first runs with what the host has, and answers
``Needs`` when a bot directory (or an image) is not there; the head then sends exactly that
(once per run, Dask keeps it on the workers that fetched it) and submits the match again. So the
embedded cluster, whose workers share the head's files and Docker engine, ships nothing.
"""

from __future__ import annotations

import contextlib
import io
import os
import shutil
import tarfile
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.bots.files import bot_files, open_bot_file
from arena.bots.identity import HASH_PREFIX, directory_hash
from arena.errors import SandboxError
from arena.model import BotSpec

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
    """What the head sends with a match a worker could not play at first (or nothing)."""

    bots: dict[str, bytes]
    """Compressed tar archives of bot directories by content hash."""
    images: dict[str, bytes]
    """``docker save`` archives by image id."""


# --- bot directories ------------------------------------------------------------------------
def pack_directory(directory: str | Path) -> bytes:
    """A gzip'd tar of the files of a bot directory that make its identity
    (:func:`arena.bots.files.bot_files`: regular files only, read without following a link;
    modes kept, owners and times not). Raises ``BotFileError`` for a directory holding a symlink,
    FIFO, socket or device, or over its caps."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz", compresslevel=6) as tar:
        for file in bot_files(directory):
            info = tarfile.TarInfo(file.rel)
            info.size = file.info.st_size
            info.mode = 0o755 if file.executable else 0o644
            with open(open_bot_file(file), "rb") as stream:
                tar.addfile(info, stream)
    return buffer.getvalue()


def cached_directory(cache: Path, digest: str) -> Path:
    """Where the worker cache keeps the bot directory with content hash ``digest``."""
    return cache / BOTS_SUBDIR / digest.removeprefix(HASH_PREFIX)


def unpack_directory(data: bytes, digest: str, cache: Path) -> Path:
    """Unpack a shipped bot directory into the cache (atomically: a half-written directory is
    never used) and check its content hash. Raises ``SandboxError`` when it does not match."""
    target = cached_directory(cache, digest)
    if target.is_dir() and directory_hash(target) == digest:
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    os.chmod(target.parent, 0o755)
    staging = Path(tempfile.mkdtemp(prefix=".unpack-", dir=target.parent))
    try:
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
            tar.extractall(staging, filter="data")
        for path in (staging, *staging.rglob("*")):
            if path.is_dir():
                path.chmod(0o755)
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
    import docker.errors

    try:
        client.images.get(image_id)
    except docker.errors.ImageNotFound:
        return False
    except Exception as exc:  # noqa: BLE001 — APIError, connection errors
        raise SandboxError(f"the Docker engine failed: {exc}") from exc
    return True


def save_image(client: Any, image_id: str) -> bytes:
    """``docker save`` of one image (by id) as bytes."""
    try:
        image = client.images.get(image_id)
        return b"".join(image.save(named=False))
    except Exception as exc:  # noqa: BLE001 — ImageNotFound, APIError, connection errors
        raise SandboxError(f"cannot save image {image_id[:19]}: {exc}") from exc


def load_image(client: Any, data: bytes, image_id: str) -> None:
    """``docker load`` a saved image and check that the engine now has it under the same id
    (a saved image keeps its id: its config is stored byte for byte)."""
    try:
        loaded = client.images.load(data)
    except Exception as exc:  # noqa: BLE001
        raise SandboxError(f"cannot load image {image_id[:19]}: {exc}") from exc
    ids = {image.id for image in loaded}
    if image_id not in ids or not image_present(client, image_id):
        raise SandboxError(f"loading image {image_id[:19]} gave {sorted(ids)} instead")
