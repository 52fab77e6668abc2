"""What a contestant sends the competition server, received and opened under the trust
boundary's rules: an upload streamed to a private file and cut at its byte quota, a bot
directory's tar unpacked into regular files and directories only (within the bot directory
caps), a ``docker save`` stream loaded without its tags.

Every byte here is an adversary's:

* :func:`receive` never holds an upload whole: chunks go to a 0600 file in a 0700 directory as
  they arrive, hashed on the way, and the upload is cut (:class:`UploadTooLarge`, the partial
  file removed) the moment it passes its limit.
* :func:`unpack_bot` reads the tar as a stream and writes each member itself (never
  ``tarfile.extract``): only regular files and directories, no absolute path, no ``..``, no
  hidden name or ``__pycache__`` (what a bot directory does not count), no symlink, hard link,
  device, FIFO or sparse file; the caps of :mod:`arena.bots.files` (``ARENA_MAX_BOT_DIR_MB``,
  ``ARENA_MAX_BOT_DIR_FILES``) are enforced while extracting, so a tar bomb stops at the cap.
  Files are 0644 or 0755 (by the execute bit), directories 0755. A refusal leaves nothing.
* :func:`load_image` gives the engine a rewritten archive: ``manifest.json`` without
  ``RepoTags`` (and without ``LayerSources``, which could point at foreign URLs), no
  ``repositories``, ``index.json`` or ``oci-layout`` (which carry names too). So a tar naming
  ``arena/base:py311`` or ``arena-bot/victim:s3`` cannot move those tags. Exactly one image; its
  id is the manifest's config digest, checked on the engine; then the image policy of
  ``arena submit --image`` (:func:`arena.bots.images.policy.image_problem`).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import posixpath
import shutil
import tarfile
import tempfile
from collections.abc import Iterable, Iterator
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
from arena.bots.images.policy import image_problem
from arena.cluster.shipping import image_present
from arena.errors import ArenaError, ConfigError, SandboxError
from arena.model import plain_text

PRIVATE_DIR_MODE = 0o700
"""Uploads in flight and unpacked bot directories: only the server's user reads them."""
PRIVATE_FILE_MODE = 0o600
"""An upload's file."""
PAYLOAD = "payload"
"""The upload's file in its submission's directory (``<uploads>/<id>/``)."""
BOT_SUBDIR = "bot"
"""Where a directory submission is unpacked in its submission's directory."""
COPY_BYTES = 1 << 20
"""How much of a member or an archive is copied at a time."""
MANIFEST_MAX_BYTES = 1 << 20
"""The largest ``manifest.json`` a ``docker save`` stream may hold (one image's is < 2 KiB)."""
DROPPED_MEMBERS = ("repositories", "index.json", "oci-layout")
"""Members of an image archive that name tags (or an OCI index that may): never loaded."""


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


def _write_member(tar: tarfile.TarFile, member: tarfile.TarInfo, target: Path,
                  budget: _Budget) -> None:
    """Copy a regular member's bytes into the new file ``target`` (never through a link),
    counting them against the caps as they are written."""
    source = tar.extractfile(member)
    if source is None:
        raise ConfigError(f"the bot's tar cannot give the bytes of {plain_text(member.name)!r}")
    mode = 0o755 if member.mode & 0o111 else 0o644
    fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC,
                 mode)
    with open(fd, "wb") as out, source:
        os.fchmod(out.fileno(), mode)
        while block := source.read(COPY_BYTES):
            budget.add_bytes(len(block))
            out.write(block)


def _extract(tar: tarfile.TarFile, root: Path, caps: DirectoryCaps) -> None:
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


def unpack_bot(tar: Path, dest: Path) -> Path:
    """Unpack the tar of a bot directory (plain or compressed) into the new directory ``dest``
    (see the module doc for what is refused) and check it as every bot directory is
    (:func:`arena.bots.files.check_bot_directory`); returns ``dest``. Raises ``ConfigError``
    naming the refused member (``dest`` removed: nothing half-written is left)."""
    caps = DirectoryCaps.from_env()
    os.mkdir(dest, 0o755)
    os.chmod(dest, 0o755)
    try:
        with tarfile.open(tar, mode="r|*") as archive:
            _extract(archive, dest, caps)
        check_bot_directory(dest)
    except BaseException as exc:
        remove_tree(dest)
        if isinstance(exc, tarfile.TarError | EOFError):
            raise ConfigError(f"the bot's upload is not a readable tar ({exc}): send the "
                              "directory's files as a tar") from None
        raise
    return dest


# --- images ---------------------------------------------------------------------------------
def _image_member_problem(member: tarfile.TarInfo) -> str | None:
    """Why a member of a ``docker save`` stream is refused, or None: regular files,
    directories, and symlinks that stay inside the archive (``docker save`` links a repeated
    layer to its first copy)."""
    path = PurePosixPath(member.name)
    if path.is_absolute() or ".." in path.parts:
        return "a path outside the archive"
    if member.issym():
        target = posixpath.normpath(posixpath.join(str(path.parent), member.linkname))
        if member.linkname.startswith("/") or target == ".." or target.startswith("../"):
            return "a symlink out of the archive"
        return None
    if (member.isreg() and not member.issparse()) or member.isdir():
        return None
    return "not a regular file, directory or symlink"


def _clean_manifest(data: bytes) -> tuple[bytes, str]:
    """``manifest.json`` of one image without its tags (only ``Config`` and ``Layers`` kept),
    and the image id its config names; ``ConfigError`` for anything but one image."""
    try:
        manifest = json.loads(data)
    except ValueError:
        raise ConfigError("the image archive's manifest.json is not JSON: send the output of "
                          "`docker save` of one image") from None
    if not isinstance(manifest, list) or len(manifest) != 1 or not isinstance(manifest[0], dict):
        count = len(manifest) if isinstance(manifest, list) else "no"
        raise ConfigError(f"the image archive holds {count} images: send exactly one "
                          "(`docker save IMAGE`)")
    entry = manifest[0]
    config, layers = entry.get("Config"), entry.get("Layers")
    if not isinstance(config, str) or not isinstance(layers, list) or not all(
            isinstance(layer, str) for layer in layers):
        raise ConfigError("the image archive's manifest.json has no Config or Layers")
    digest = PurePosixPath(config).name.removesuffix(".json")
    if len(digest) != 64 or any(c not in "0123456789abcdef" for c in digest):
        raise ConfigError("the image archive's manifest.json names no config digest")
    clean = json.dumps([{"Config": config, "RepoTags": None, "Layers": layers}]).encode()
    return clean, f"sha256:{digest}"


def _rewrite_image_archive(source: Path, out: IO[bytes]) -> str:
    """Copy the ``docker save`` stream ``source`` into ``out`` without the members that name
    tags, ``manifest.json`` rewritten (:func:`_clean_manifest`); returns the image id."""
    image_id = ""
    with tarfile.open(source, mode="r|") as tar, tarfile.open(
            fileobj=out, mode="w|", format=tarfile.PAX_FORMAT) as copy:
        for member in tar:
            if member.name in DROPPED_MEMBERS:
                continue
            problem = _image_member_problem(member)
            if problem is not None:
                raise ConfigError(f"the image archive holds {plain_text(member.name)[:120]!r}: "
                                  f"{problem}")
            if member.name == "manifest.json":
                if image_id or member.size > MANIFEST_MAX_BYTES:
                    raise ConfigError("the image archive holds more than one manifest.json, or "
                                      "a huge one: send `docker save` of one image")
                stream = tar.extractfile(member)
                clean, image_id = _clean_manifest(stream.read() if stream else b"")
                member.size = len(clean)
                copy.addfile(member, _BytesReader(clean))
                continue
            copy.addfile(member, tar.extractfile(member) if member.isreg() else None)
    if not image_id:
        raise ConfigError("the image archive has no manifest.json: send the output of "
                          "`docker save` of one image (Docker 1.10 or later)")
    return image_id


class _BytesReader:
    """A file-like object over bytes (``tarfile.addfile`` reads its data through ``read``)."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.pos = 0

    def read(self, size: int = -1) -> bytes:
        end = len(self.data) if size < 0 else self.pos + size
        block = self.data[self.pos:end]
        self.pos += len(block)
        return block


@contextlib.contextmanager
def _rewritten(tar: Path) -> Iterator[tuple[IO[bytes], str]]:
    """The archive rewritten into a private temporary file beside ``tar``, and the image id."""
    with tempfile.TemporaryFile(prefix=".image-", dir=tar.parent) as out:
        try:
            image_id = _rewrite_image_archive(tar, out)
        except (tarfile.TarError, EOFError) as exc:
            raise ConfigError(f"the image upload is not a readable tar ({exc}): send the output "
                              "of `docker save` of one image") from None
        out.seek(0)
        yield out, image_id


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


def load_image(tar: Path, client: Any) -> str:
    """Load the ``docker save`` stream ``tar`` into the engine without its tags (see the module
    doc) and return the image's id, once it passes the image policy. ``ConfigError`` for an
    archive that is not one image, or an image the policy refuses (removed again unless the
    engine had it before); ``SandboxError`` when the engine fails."""
    with _rewritten(tar) as (archive, image_id):
        existed = image_present(client, image_id)
        _engine_load(client, archive)
    if not image_present(client, image_id):
        raise ConfigError(f"the image archive did not load image {image_id[:19]} (its "
                          "manifest.json names a config it does not hold?)")
    problem = image_problem(client.images.get(image_id).attrs)
    if problem is not None:
        if not existed:
            with contextlib.suppress(Exception):  # in use or tagged meanwhile: leave it
                client.images.remove(image_id)
        raise ConfigError(f"refused: {problem}")
    return image_id
