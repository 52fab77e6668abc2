"""Which Debian mirror the base image is bootstrapped from: this machine's apt sources (one-line
``.list`` or deb822 ``.sources`` files), unless ``$ARENA_DEBIAN_MIRROR`` says otherwise."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from pathlib import Path

from arena.bots.images.rootfs import SUITE
from arena.errors import ConfigError

MIRROR_ENV = "ARENA_DEBIAN_MIRROR"
"""Overrides the Debian mirror read from the apt sources."""
APT_SOURCES = (Path("/etc/apt/sources.list"), Path("/etc/apt/sources.list.d"))
"""Where the apt sources are read from (files, or directories of them)."""


def debian_mirror(suite: str = SUITE, sources: Iterable[Path] = APT_SOURCES) -> str:
    """The first apt source URI serving ``suite`` (one-line or deb822 format).

    ``$ARENA_DEBIAN_MIRROR`` wins when set. Raises ``ConfigError`` when none is found.
    """
    override = os.environ.get(MIRROR_ENV)
    if override:
        return override
    for path in _source_files(sources):
        text = path.read_text(encoding="utf-8", errors="replace")
        parse = _deb822_mirrors if path.suffix == ".sources" else _one_line_mirrors
        for uri, suites in parse(text):
            if suite in suites and uri.startswith(("http://", "https://", "file:/")):
                return uri
    raise ConfigError(
        f"no Debian mirror for {suite!r} in the apt sources; set {MIRROR_ENV} to a Debian mirror"
    )


def _source_files(sources: Iterable[Path]) -> list[Path]:
    files: list[Path] = []
    for source in sources:
        if source.is_dir():
            files += sorted(p for p in source.iterdir() if p.suffix in (".list", ".sources"))
        elif source.is_file():
            files.append(source)
    return files


def _one_line_mirrors(text: str) -> list[tuple[str, tuple[str, ...]]]:
    found: list[tuple[str, tuple[str, ...]]] = []
    for line in text.splitlines():
        words = re.sub(r"\[[^\]]*\]", " ", line.split("#", 1)[0]).split()
        if len(words) >= 3 and words[0] == "deb":
            found.append((words[1], (words[2],)))
    return found


def _deb822_mirrors(text: str) -> list[tuple[str, tuple[str, ...]]]:
    found = []
    for stanza in re.split(r"\n\s*\n", text):
        fields: dict[str, str] = {}
        for line in stanza.splitlines():
            if line.startswith("#") or ":" not in line:
                continue
            key, _, value = line.partition(":")
            fields[key.strip().lower()] = value.strip()
        if "deb" not in fields.get("types", "").split():
            continue
        if fields.get("enabled", "yes").lower() == "no":
            continue
        suites = tuple(fields.get("suites", "").split())
        found += [(uri, suites) for uri in fields.get("uris", "").split()]
    return found
