"""What a contestant sends the competition server, received and opened under the trust
boundary's rules: an upload streamed to a private file and cut at its byte quota, a bot
directory's tar unpacked into regular files and directories only (within the bot directory
caps), a ``docker save`` stream rebuilt by the server and loaded without any tag.

Every byte here is an adversary's:

* :func:`receive` never holds an upload whole: chunks go to a 0600 file in a 0700 directory as
  they arrive, hashed on the way, and the upload is cut (:class:`UploadTooLarge`, the partial
  file removed) the moment it passes its limit.
* :func:`unpack_bot` reads the tar (plain, gzip, bzip2 or xz) one bounded header at a time
  (:mod:`arena.host.tarstream`: a long name or PAX header claiming more than a few KiB or 1 MiB
  is refused before it is read, and so is all that unpacks past the caps) and writes each
  member itself (never ``tarfile.extract``): only regular files and directories, no absolute
  path, no ``..``, no hidden name or ``__pycache__`` (what a bot directory does not count), no
  symlink, hard link, device, FIFO or sparse file; the caps of :mod:`arena.bots.files`
  (``ARENA_MAX_BOT_DIR_MB``, ``ARENA_MAX_BOT_DIR_FILES``) are enforced while extracting, so a
  tar bomb stops at the cap. Files are 0644 or 0755 (by the execute bit), directories 0755. A
  refusal leaves nothing.
* :func:`load_image` gives the engine an archive the server wrote
  (:mod:`arena.host.image_archive`): the upload's config and layers, verified against their
  digests, each layer decompressed and counted against the image's cap (the competition's
  quota, ``ARENA_MAX_IMAGE_MB``) before the engine sees a byte, and a ``manifest.json`` naming
  no tag. So no upload moves ``arena/base:py311`` or ``arena-bot/victim:s3``, and an image too
  big unpacked is refused before it is loaded. The image policy of ``arena submit --image``
  (:func:`arena.bots.images.policy.image_problem`) is applied to its config before the layers
  are read and to the loaded image again.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import tarfile
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import IO, Any

from arena.bots.files import (
    MAX_DIR_FILES_ENV,
    MAX_DIR_MB_ENV,
    DirectoryCaps,
    check_bot_directory,
    counts,
)
from arena.bots.images.policy import MAX_IMAGE_MB_ENV, image_problem, max_image_bytes
from arena.cluster.shipping import image_present
from arena.errors import ArenaError, ConfigError, SandboxError
from arena.host.image_archive import Cap, rebuild
from arena.host.tarstream import BLOCK, PIECE_BYTES, Counted, Inflated, TarStream
from arena.model import plain_text

PRIVATE_DIR_MODE = 0o700
"""Uploads in flight and unpacked bot directories: only the server's user reads them."""
PRIVATE_FILE_MODE = 0o600
"""An upload's file."""
PAYLOAD = "payload"
"""The upload's file in its submission's directory (``<uploads>/<id>/``)."""
BOT_SUBDIR = "bot"
"""Where a directory submission is unpacked in its submission's directory."""
MEMBER_OVERHEAD = 3 * BLOCK
"""What a bot directory's tar spends on a member besides its bytes (a header, a PAX header
and padding), counted in the most it may unpack to."""


class UploadTooLarge(ArenaError):
    """An upload passed its byte limit: it was cut there, and nothing of it is kept."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"the upload passed its limit of {_size(limit)}: it was cut there "
                         "(the competition's quota; leave out what the bot does not need)")
        self.limit = limit


@dataclass(frozen=True)
class Received:
    """An upload written whole to its file."""

    path: Path
    """The private file holding it."""
    size: int
    """Its size in bytes, as counted here."""
    sha256: str
    """Its SHA-256, hex."""


def _size(n: int) -> str:
    return f"{n / (1 << 20):g} MiB" if n >= 1 << 20 else f"{n} bytes"


def private_dir(path: Path) -> Path:
    """``path`` made (with its parents) and set to 0700."""
    path.mkdir(mode=PRIVATE_DIR_MODE, parents=True, exist_ok=True)
    os.chmod(path, PRIVATE_DIR_MODE)
    return path


def remove_tree(path: Path) -> None:
    """Remove a file or a directory tree, if it is there (a link is removed, not followed)."""
    if path.is_symlink() or path.is_file():
        path.unlink(missing_ok=True)
    elif path.exists():
        shutil.rmtree(path, ignore_errors=True)


# --- receiving ------------------------------------------------------------------------------
def receive(chunks: Iterable[bytes], dest: Path, limit: int) -> Received:
    """Write ``chunks`` to the new file ``dest`` (0600; its directory made 0700), hashing as it
    goes. Raises :class:`UploadTooLarge` the moment more than ``limit`` bytes came, and passes
    on whatever the iteration raises (a client gone half-way); either way ``dest`` is removed.
    ``FileExistsError`` when ``dest`` exists."""
    private_dir(dest.parent)
    digest = hashlib.sha256()
    size = 0
    fd = os.open(dest, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC,
                 PRIVATE_FILE_MODE)
    try:
        with open(fd, "wb") as out:
            os.fchmod(out.fileno(), PRIVATE_FILE_MODE)
            for chunk in chunks:
                size += len(chunk)
                if size > limit:
                    raise UploadTooLarge(limit)
                digest.update(chunk)
                out.write(chunk)
    except BaseException:
        dest.unlink(missing_ok=True)
        raise
    return Received(dest, size, digest.hexdigest())


# --- bot directories ------------------------------------------------------------------------
class _Budget:
    """The bot directory caps, counted while a tar is unpacked."""

    def __init__(self, caps: DirectoryCaps) -> None:
        self.caps = caps
        self.bytes = 0
        self.files = 0
        self.dirs = 0

    def add_file(self, size: int) -> None:
        """Count one more file, whose header claims ``size`` bytes (refused at once when they
        would not fit: nothing of it is read)."""
        self.files += 1
        if self.files > self.caps.max_files:
            raise ConfigError(f"the bot directory holds more than {self.caps.max_files} files "
                              f"(the cap, {MAX_DIR_FILES_ENV}): leave out what the bot does "
                              "not need")
        if self.bytes + size > self.caps.max_bytes:
            self.add_bytes(size)

    def add_dir(self) -> None:
        """Count one more directory."""
        self.dirs += 1
        if self.dirs > self.caps.max_files:
            raise ConfigError(f"the bot directory holds more than {self.caps.max_files} "
                              f"directories (the cap, {MAX_DIR_FILES_ENV})")

    def add_bytes(self, size: int) -> None:
        """Count bytes written."""
        self.bytes += size
        if self.bytes > self.caps.max_bytes:
            raise ConfigError(f"the bot directory holds more than {self.caps.max_bytes >> 20} "
                              f"MiB of files (the cap, {MAX_DIR_MB_ENV}): leave out what the "
                              "bot does not need")


def _member_kind(member: tarfile.TarInfo) -> str | None:
    """Why a member is not a regular file or directory, or None."""
    if member.type in (tarfile.REGTYPE, tarfile.AREGTYPE) and not member.issparse():
        return None
    if member.isdir():
        return None
    kinds = ((member.issym, "a symlink"), (member.islnk, "a hard link"),
             (member.ischr, "a character device"), (member.isblk, "a block device"),
             (member.isfifo, "a FIFO"), (member.issparse, "a sparse file"))
    return next((what for test, what in kinds if test()), "not a regular file or directory")


def _member_parts(member: tarfile.TarInfo) -> tuple[str, ...]:
    """The member's path by component; ``ConfigError`` naming it for an absolute path, ``..``,
    a hidden name or ``__pycache__``, or a name with control characters."""
    name = member.name
    shown = repr(plain_text(name)[:120])
    if not name.isprintable() or "\\" in name:
        raise ConfigError(f"the bot's tar holds {shown}: a name with control characters or a "
                          "backslash (rename the file)")
    path = PurePosixPath(name)
    if path.is_absolute():
        raise ConfigError(f"the bot's tar holds {shown}, an absolute path: a bot directory's "
                          "files are relative to it")
    parts = tuple(part for part in path.parts if part != ".")
    if ".." in parts:
        raise ConfigError(f"the bot's tar holds {shown}, a path with '..': a bot directory's "
                          "files stay inside it")
    hidden = next((part for part in parts if not counts(part)), None)
    if hidden is not None:
        raise ConfigError(f"the bot's tar holds {shown}: {hidden!r} is hidden or a cache, "
                          "which a bot directory does not count (leave it out)")
    return parts


def _make_dirs(root: Path, parts: tuple[str, ...], made: set[tuple[str, ...]],
               budget: _Budget) -> None:
    """Make the directories ``parts`` (and their parents) under ``root``, 0755, each once."""
    for depth in range(1, len(parts) + 1):
        sub = parts[:depth]
        if sub in made:
            continue
        budget.add_dir()
        os.mkdir(root.joinpath(*sub), 0o755)
        os.chmod(root.joinpath(*sub), 0o755)
        made.add(sub)


def _write_member(tar: TarStream, member: tarfile.TarInfo, target: Path,
                  budget: _Budget) -> None:
    """Copy a regular member's bytes into the new file ``target`` (never through a link),
    counting them against the caps as they are written."""
    mode = 0o755 if member.mode & 0o111 else 0o644
    fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC,
                 mode)
    with open(fd, "wb") as out:
        os.fchmod(out.fileno(), mode)
        while block := tar.read(PIECE_BYTES):
            budget.add_bytes(len(block))
            out.write(block)


def _extract(tar: TarStream, root: Path, caps: DirectoryCaps) -> None:
    budget = _Budget(caps)
    made: set[tuple[str, ...]] = {()}
    for member in tar:
        parts = _member_parts(member)
        shown = repr(plain_text(member.name)[:120])
        kind = _member_kind(member)
        if kind is not None:
            raise ConfigError(f"the bot's tar holds {shown}, {kind}: a bot directory holds only "
                              "regular files and directories")
        if not member.isdir():
            if not parts:
                raise ConfigError(f"the bot's tar holds {shown}, a file without a name")
            budget.add_file(member.size)
        try:
            _make_dirs(root, parts if member.isdir() else parts[:-1], made, budget)
            if not member.isdir():
                _write_member(tar, member, root.joinpath(*parts), budget)
        except FileExistsError:
            raise ConfigError(f"the bot's tar holds {shown} twice, or below a file") from None
        except OSError as exc:
            raise ConfigError(f"the bot's tar holds {shown}, which cannot be unpacked: "
                              f"{exc.strerror or exc} (a name too long, or nested too deep?)"
                              ) from None


def unpacked_limit(caps: DirectoryCaps) -> int:
    """The most bytes a bot directory's tar may unpack to: its files' cap and, for each member
    the file cap allows (files and as many directories), a header, a PAX header and padding."""
    return caps.max_bytes + 2 * caps.max_files * MEMBER_OVERHEAD + 2 * BLOCK


def unpack_bot(tar: Path, dest: Path) -> Path:
    """Unpack the tar of a bot directory (plain, gzip, bzip2 or xz) into the new directory
    ``dest`` (see the module doc for what is refused) and check it as every bot directory is
    (:func:`arena.bots.files.check_bot_directory`); returns ``dest``. Raises ``ConfigError``
    naming the refused member or bound (``dest`` removed: nothing half-written is left)."""
    caps = DirectoryCaps.from_env()
    limit = unpacked_limit(caps)
    os.mkdir(dest, 0o755)
    os.chmod(dest, 0o755)
    try:
        with tar.open("rb") as raw:
            plain = Counted(Inflated(raw, "the bot's upload"), limit=limit, refusal=(
                f"the bot's tar unpacks to more than {limit >> 20} MiB (its files' cap, "
                f"{MAX_DIR_MB_ENV}, and their headers): leave out what the bot does not need"))
            _extract(TarStream(plain, "the bot's upload"), dest, caps)
        check_bot_directory(dest)
    except BaseException:
        remove_tree(dest)
        raise
    return dest


# --- images ---------------------------------------------------------------------------------
def image_cap(quota: int | None = None) -> Cap:
    """How much an uploaded image's layers may unpack to: the competition's quota
    (``max_image_upload_mb``) when given, and the image policy's cap (``ARENA_MAX_IMAGE_MB``),
    whichever is smaller."""
    policy = max_image_bytes()
    if quota is not None and quota <= policy:
        return Cap(quota, f"the image unpacks to more than {_size(quota)}, the competition's "
                          "quota (max_image_upload_mb counts the unpacked layers): leave out "
                          "what the bot does not need")
    return Cap(policy, f"the image unpacks to more than {_size(policy)} ({MAX_IMAGE_MB_ENV}): "
                       "leave out what the bot does not need")


def _check_config(config: dict[str, Any]) -> None:
    """The image policy on a config, before any layer is read (the size is the cap's)."""
    problem = image_problem({"Config": config.get("config") or {}, "Size": 0})
    if problem is not None:
        raise ConfigError(f"refused: {problem}")


def _engine_load(client: Any, archive: IO[bytes]) -> None:
    """``POST /images/load`` of the archive, streamed from its file (never whole in memory);
    ``ConfigError`` when the daemon refuses the archive, ``SandboxError`` when it fails."""
    try:
        for event in client.api.load_image(archive):
            if isinstance(event, dict) and event.get("error"):
                raise ConfigError("the engine refused the image archive: "
                                  + " ".join(plain_text(str(event["error"])).split()))
    except ConfigError:
        raise
    except Exception as exc:  # noqa: BLE001 — APIError, connection errors
        status = getattr(getattr(exc, "response", None), "status_code", None) or 500
        message = " ".join(plain_text(str(getattr(exc, "explanation", None) or exc)).split())
        if status < 500:
            raise ConfigError(f"the engine refused the image archive: {message}") from None
        raise SandboxError(f"docker load failed: {message}") from exc


def load_image(tar: Path, client: Any, quota: int | None = None) -> str:
    """Load the ``docker save`` stream ``tar`` into the engine as an archive the server rebuilt
    (see the module doc) and return the image's id, once it passes the image policy. ``quota``
    is the competition's ``max_image_upload_mb`` in bytes (see :func:`image_cap`).
    ``ConfigError`` for an archive that is not one image, an image over its cap, or one the
    policy refuses (removed again unless the engine had it before); ``SandboxError`` when the
    engine fails."""
    with tar.open("rb") as upload, tempfile.TemporaryFile(prefix=".image-",
                                                          dir=tar.parent) as archive:
        rebuilt = rebuild(upload, tar.stat().st_size, archive, image_cap(quota),
                          _check_config)
        archive.seek(0)
        image_id = rebuilt.image_id
        existed = image_present(client, image_id)
        _engine_load(client, archive)
    if not image_present(client, image_id):
        raise ConfigError(f"the image archive did not load image {image_id[:19]}")
    problem = image_problem(client.images.get(image_id).attrs)
    if problem is not None:
        if not existed:
            with contextlib.suppress(Exception):  # in use or tagged meanwhile: leave it
                client.images.remove(image_id)
        raise ConfigError(f"refused: {problem}")
    return image_id
