"""THE files of a bot directory: the one set that its identity hashes
(:mod:`arena.bots.identity`), that a cluster ships to a worker (:mod:`arena.cluster.shipping`)
and that a Docker build of it sees (:mod:`arena.bots.images.build`).

Read by ``lstat``, never through a link. What counts:

* every regular file under the directory;
* not hidden files or directories (a name starting with ``.``: ``.git``, ``.venv``, editor and
  tool caches, ``.gitignore``, ``.dockerignore``), not ``__pycache__``: they differ between two
  checkouts of the same commit, or appear when a bot merely runs; nothing below them is read.

A symlink, FIFO, socket or device anywhere else in the directory is refused
(:class:`BotFileError`, naming its path): a link would make the identity, the archive a worker
unpacks and the image hold the bytes of whatever it points to on the head (a deal secret, a TLS
key, ``/proc/self/environ``), and a FIFO or device would block or never end a read. The
directory's size and file count are capped (:class:`DirectoryCaps`, from the environment or
the documented defaults) so that no bot makes the head hash, pack or ship without end.
"""

from __future__ import annotations

import os
import stat
import tarfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from arena.errors import ConfigError

MAX_DIR_MB_ENV = "ARENA_MAX_BOT_DIR_MB"
"""Environment variable: the largest bot directory accepted, in MiB (the files that count)."""
MAX_DIR_FILES_ENV = "ARENA_MAX_BOT_DIR_FILES"
"""Environment variable: the most files a bot directory may hold (the files that count)."""
DEFAULT_MAX_DIR_MB = 256
"""The default cap on a bot directory's size."""
DEFAULT_MAX_DIR_FILES = 20_000
"""The default cap on a bot directory's file count."""


class BotFileError(ConfigError):
    """A bot directory holds something the arena does not read (a symlink, FIFO, socket or
    device), or more than the caps allow."""


@dataclass(frozen=True)
class DirectoryCaps:
    """How much a bot directory may hold."""

    max_bytes: int = DEFAULT_MAX_DIR_MB << 20
    max_files: int = DEFAULT_MAX_DIR_FILES

    @classmethod
    def from_env(cls) -> DirectoryCaps:
        """The caps set by ``ARENA_MAX_BOT_DIR_MB`` and ``ARENA_MAX_BOT_DIR_FILES`` (the
        defaults where unset); ``ConfigError`` for a value that is not a positive integer."""
        return cls(_positive(MAX_DIR_MB_ENV, DEFAULT_MAX_DIR_MB) << 20,
                   _positive(MAX_DIR_FILES_ENV, DEFAULT_MAX_DIR_FILES))


def _positive(name: str, default: int) -> int:
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    if not raw.isdigit() or int(raw) <= 0:
        raise ConfigError(f"{name}={raw!r}: give a positive whole number")
    return int(raw)


@dataclass(frozen=True)
class BotFile:
    """One file of a bot directory, as ``lstat`` saw it."""

    parts: tuple[str, ...]
    """Its path below the directory, by component."""
    path: str
    """Its path on this host."""
    info: os.stat_result

    @property
    def rel(self) -> str:
        """Its path below the directory, ``/``-separated."""
        return "/".join(self.parts)

    @property
    def executable(self) -> bool:
        """Whether any execute bit is set (kept when it is packed or built)."""
        return bool(self.info.st_mode & 0o111)


def counts(name: str) -> bool:
    """Whether a file or directory of this name is one of a bot's files (not hidden, not
    ``__pycache__``)."""
    return not name.startswith(".") and name != "__pycache__"


_KINDS = ((stat.S_ISLNK, "a symlink"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket"),
          (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"))


def _kind(mode: int) -> str:
    return next((what for test, what in _KINDS if test(mode)), "not a regular file")


def bot_files(directory: str | Path, caps: DirectoryCaps | None = None) -> list[BotFile]:
    """The files that count under ``directory``, in path order (by component). Raises
    :class:`BotFileError` naming the first symlink, FIFO, socket or device met, or saying
    which cap the directory exceeds."""
    caps = caps or DirectoryCaps.from_env()
    root = Path(directory)
    found: list[BotFile] = []
    total = 0
    pending: list[tuple[tuple[str, ...], str]] = [((), str(root))]
    while pending:
        parts, current = pending.pop()
        with os.scandir(current) as entries:
            for entry in entries:
                if not counts(entry.name):
                    continue
                rel = (*parts, entry.name)
                info = entry.stat(follow_symlinks=False)
                if stat.S_ISDIR(info.st_mode):
                    pending.append((rel, entry.path))
                    continue
                if not stat.S_ISREG(info.st_mode):
                    raise BotFileError(
                        f"{entry.path} is {_kind(info.st_mode)}: a bot directory holds only "
                        "regular files and directories (copy the file itself in, or move it to "
                        "a hidden name the arena does not read)")
                found.append(BotFile(rel, entry.path, info))
                total += info.st_size
                if len(found) > caps.max_files:
                    raise BotFileError(
                        f"{root} holds more than {caps.max_files} files (the cap, "
                        f"{MAX_DIR_FILES_ENV}): leave out what the bot does not need")
                if total > caps.max_bytes:
                    raise BotFileError(
                        f"{root} holds more than {caps.max_bytes >> 20} MiB of files (the cap, "
                        f"{MAX_DIR_MB_ENV}): leave out what the bot does not need")
    found.sort(key=lambda f: f.parts)
    return found


def check_bot_directory(directory: str | Path) -> None:
    """Raise :class:`BotFileError` unless every file of ``directory`` is one the arena reads
    and the directory is within its caps (see the module doc)."""
    bot_files(directory)


def open_bot_file(file: BotFile) -> int:
    """A read-only descriptor of ``file``, opened without following a link and checked to be
    the very regular file that was scanned (a file swapped for a link or another file since
    raises :class:`BotFileError`)."""
    try:
        fd = os.open(file.path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as exc:
        raise BotFileError(f"cannot read {file.path}: {exc.strerror or exc}") from None
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode) or (info.st_dev, info.st_ino) != (file.info.st_dev,
                                                                        file.info.st_ino):
        os.close(fd)
        raise BotFileError(f"{file.path} changed while it was read: try again")
    return fd


def tar_entry(name: str, kind: bytes, mode: int, size: int = 0) -> tarfile.TarInfo:
    """A tar member header as the arena writes them: owner 0, no names, time 0."""
    info = tarfile.TarInfo(name)
    info.type, info.mode, info.size = kind, mode, size
    info.uid = info.gid = 0
    info.uname = info.gname = ""
    info.mtime = 0
    return info


def add_to_tar(tar: tarfile.TarFile, files: Iterable[BotFile]) -> None:
    """Add a bot directory's files (in path order, as :func:`bot_files` gives them) to ``tar``:
    each parent directory first (0755), files 0755 or 0644 by the execute bit, owners and times
    zero, contents read without following a link. What a Docker build context and a cluster's
    shipment of the directory hold."""
    made: set[tuple[str, ...]] = set()
    for file in files:
        for depth in range(1, len(file.parts)):
            parent = file.parts[:depth]
            if parent not in made:
                made.add(parent)
                tar.addfile(tar_entry("/".join(parent), tarfile.DIRTYPE, 0o755))
        mode = 0o755 if file.executable else 0o644
        info = tar_entry(file.rel, tarfile.REGTYPE, mode, file.info.st_size)
        with open(open_bot_file(file), "rb") as stream:
            tar.addfile(info, stream)
