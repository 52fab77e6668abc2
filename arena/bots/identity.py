"""THE identity of a bot's code: what the ladder records in its bot rows and what the Docker
sandbox keys its build cache by.

A submitted bot is identified by its image id (recorded in the catalogue as its ``digest``: the
id covers the layers and the configuration, so the same layers with another CMD, ENTRYPOINT or
ENV are another bot; catalogue rows written before keep the layer digest they were recorded
with, so existing ladders and SPRT tests keep their keys). A bot directory
is identified by a content hash (:func:`directory_hash`): sha256 over the relative path and the
bytes of every file that counts, in path order. What counts:

* the files of :func:`arena.bots.files.bot_files`: every regular file, read by ``lstat`` (a
  symlink, FIFO, socket or device in the directory is refused), not hidden files or directories
  (``.git``, ``.venv``, ``.gitignore``, ``.dockerignore``), not ``__pycache__``: they differ
  between two checkouts of the same commit, or appear when a bot merely runs;
* not modes, owners, mtimes, or where the directory is: two checkouts of one commit have the
  same identity, and touching a file does not change it.

The same set is what a cluster ships and what a Docker build of the directory sees, so the
identity names exactly the code that runs.

So keep a bot's code out of hidden files: editing only those gives no new identity (the sandbox
would not rebuild the image, the ladder would not see a new version).

Hashing a big directory (``wheels/``, ``node_modules/``) reads megabytes, and the sandbox asks at
every match start, so the hash is memoized per directory under a stat fingerprint of the files
that count (relative paths, sizes, mtimes, ctimes, inodes): a lookup only walks the tree and
stats; the contents are read again only when the fingerprint changed. A file modified less than
:data:`RACY_NS` before the walk does not let the hash be memoized (an edit within the same
timestamp tick would keep its mtime).
"""

from __future__ import annotations

import hashlib
import threading
import time
from pathlib import Path

from arena.bots.files import BotFile, bot_files, open_bot_file
from arena.model import BotSpec

HASH_PREFIX = "dir:sha256:"
"""Prefix of a directory's identity (an image's is ``sha256:...``)."""
RACY_NS = 2_000_000_000
"""A directory with a file modified this recently (ns) is hashed but not memoized."""
_CHUNK = 1 << 20

Fingerprint = tuple[tuple[str, int, int, int, int], ...]
"""(relative path, size, mtime ns, ctime ns, inode) of every file that counts, in path order."""


def bot_identity(spec: BotSpec) -> str:
    """The code identity of a bot: the identity its spec carries (a submitted bot's, from the
    catalogue: its image id, or a legacy row's layer digest), else its image id, else the
    content hash of its directory (empty for a spec with none of them)."""
    if spec.digest:
        return spec.digest
    if spec.image:
        return spec.image
    if spec.directory:
        return directory_hash(Path(spec.directory))
    return ""


def directory_hash(directory: str | Path) -> str:
    """The content hash of a bot directory (``dir:sha256:...``; empty when it is not a
    directory), memoized for this process (see the module docstring). Raises
    :class:`~arena.bots.files.BotFileError` for a directory holding a symlink, FIFO, socket or
    device, or over its caps."""
    return _HASHES.hash(directory)


def _fingerprint(files: list[BotFile]) -> Fingerprint:
    return tuple(
        (f.rel, f.info.st_size, f.info.st_mtime_ns, f.info.st_ctime_ns, f.info.st_ino)
        for f in files
    )


def _content_hash(files: list[BotFile]) -> str:
    digest = hashlib.sha256()
    for file in files:
        digest.update(file.rel.encode() + b"\0")
        with open(open_bot_file(file), "rb") as stream:
            while chunk := stream.read(_CHUNK):
                digest.update(chunk)
        digest.update(b"\0")
    return HASH_PREFIX + digest.hexdigest()


class DirectoryHashes:
    """Content hashes of directories, memoized under their stat fingerprints (thread-safe)."""

    def __init__(self) -> None:
        self._memo: dict[str, tuple[Fingerprint, str]] = {}
        self._lock = threading.Lock()
        self.fresh = 0
        """How many times contents were read and hashed."""
        self.cached = 0
        """How many lookups the memo answered."""

    def hash(self, directory: str | Path) -> str:
        """The content hash of ``directory`` (empty when it is not a directory). Raises
        :class:`~arena.bots.files.BotFileError` for a directory the arena does not read."""
        root = Path(directory)
        if not root.is_dir():
            return ""
        key = str(root.resolve())
        started = time.time_ns()
        files = bot_files(root)
        fingerprint = _fingerprint(files)
        with self._lock:
            memo = self._memo.get(key)
            if memo is not None and memo[0] == fingerprint:
                self.cached += 1
                return memo[1]
        value = _content_hash(files)
        racy = any(started - f.info.st_mtime_ns < RACY_NS for f in files)
        with self._lock:
            self.fresh += 1
            if racy:
                self._memo.pop(key, None)
            else:
                self._memo[key] = (fingerprint, value)
        return value


_HASHES = DirectoryHashes()
