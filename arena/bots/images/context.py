"""The build context the arena writes for a bot directory: exactly the files its identity hashes
(:func:`arena.bots.files.bot_files`), and the Dockerfile the arena wrote
(:func:`arena.bots.images.dockerfile.canonical_dockerfile`).

The tar is the arena's own, never ``docker build``'s walk of the directory: regular files read
without following a link, owner 0, mode 0755 or 0644 by the execute bit, time 0, each parent
directory 0755. Hidden files are not bot files, so they are not in the image either (an author's
``.dockerignore`` plays no part). The Dockerfile travels under a hidden name with a
``.dockerignore`` naming it and itself: the daemon reads both, then removes them from the context
before the first instruction, so ``COPY . /bot`` copies the bot's files and nothing else. The tar
is written to a file, never held in memory.
"""

from __future__ import annotations

import io
import tarfile
from collections.abc import Iterable
from typing import BinaryIO

from arena.bots.files import BotFile, add_to_tar, tar_entry

CONTEXT_DOCKERFILE = ".arena.Dockerfile"
"""The name under which the arena's Dockerfile travels in the build context."""
CONTEXT_IGNORE = ".dockerignore"
"""The context's ignore file: it names the two files the daemon removes after reading them."""


def _add_text(tar: tarfile.TarFile, name: str, text: str) -> None:
    data = text.encode("utf-8")
    tar.addfile(tar_entry(name, tarfile.REGTYPE, 0o644, len(data)), io.BytesIO(data))


def write_build_context(files: Iterable[BotFile], dockerfile: str, out: BinaryIO) -> None:
    """Write the build context of a bot directory to ``out`` (an uncompressed tar): its files
    and the arena's ``dockerfile`` under :data:`CONTEXT_DOCKERFILE`, with the ignore file that
    makes the daemon drop both before building."""
    with tarfile.open(fileobj=out, mode="w", format=tarfile.PAX_FORMAT) as tar:
        _add_text(tar, CONTEXT_DOCKERFILE, dockerfile)
        _add_text(tar, CONTEXT_IGNORE, f"{CONTEXT_DOCKERFILE}\n{CONTEXT_IGNORE}\n")
        add_to_tar(tar, files)
