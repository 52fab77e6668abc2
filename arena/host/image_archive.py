"""An uploaded ``docker save`` stream, rebuilt by the server before the engine sees any of it.

``docker load`` does what the archive says: it applies the ``RepoTags`` of ``manifest.json``
(of the last copy: ``./manifest.json`` and ``manifest.json`` are one file to it), the names in
``repositories`` and ``index.json``, and unpacks layers compressed any way it knows. Rewriting
the one member spelled ``manifest.json`` let a second spelling through, and with it any tag on
the engine. So the engine never gets the upload. :func:`rebuild` walks it member by member
(:mod:`arena.host.tarstream`: every header bounded), each path normalised (``./x``, ``x/`` and
``a//b`` are ``x`` and ``a/b``; a name seen twice is refused), and accepts only what one image's
``docker save`` holds (Docker 20.10's layout, ``<id>/layer.tar`` and ``<config digest>.json``,
and the OCI layout of newer engines, ``blobs/sha256/<digest>``); anything else is refused,
named. It then writes an archive of its own:

* the config, whose SHA-256 must be the digest its name gives (that digest is the image id);
  the image policy (:func:`arena.bots.images.policy.image_problem`) is applied to it before any
  layer is read;
* each layer the manifest lists, decompressed (gzip, bzip2, xz) and walked as a tar (no sparse
  file, bounded headers), its SHA-256 checked against the config's ``diff_ids`` (and a
  ``blobs/sha256/<digest>`` blob against its name), its unpacked bytes counted against the
  image's cap while they are read: an image over the cap is refused before the engine sees a
  byte of it;
* a ``manifest.json`` the server wrote, naming the config and the layers and no tag.

The upload's other members (``repositories``, ``index.json``, ``oci-layout``, the legacy
``VERSION`` and ``json`` files, unlisted blobs) are left out unread.
"""

from __future__ import annotations

import hashlib
import json
import posixpath
import re
import tarfile
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, BinaryIO

from arena.errors import ConfigError
from arena.host.tarstream import (
    BLOCK,
    PIECE_BYTES,
    Counted,
    Inflated,
    TarStream,
    Window,
    shown,
)

WHAT = "the image archive"
"""How refusals name the upload."""
MEMBERS_MAX = 4096
"""The most members an image archive may hold (one image of 128 layers holds about 520)."""
LAYERS_MAX = 128
"""The most layers an image may have (the engine's overlay2 stacks no more)."""
JSON_MAX = 1 << 20
"""The largest ``manifest.json`` and config (one image's are a few KiB)."""
LAYER_TYPES = frozenset((tarfile.REGTYPE, tarfile.AREGTYPE, tarfile.CONTTYPE, tarfile.LNKTYPE,
                         tarfile.SYMTYPE, tarfile.CHRTYPE, tarfile.BLKTYPE, tarfile.DIRTYPE,
                         tarfile.FIFOTYPE))
"""What a layer may hold: files, directories, links, devices, FIFOs."""
_HEX = "[0-9a-f]{64}"
_SHAPES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(rf"{_HEX}|blobs|blobs/sha256"), "directory"),
    (re.compile(rf"{_HEX}/(?:VERSION|json)|repositories|index\.json|oci-layout"), "left out"),
    (re.compile(rf"{_HEX}/layer\.tar|{_HEX}\.tar"), "layer"),
    (re.compile(rf"{_HEX}\.json"), "config"),
    (re.compile(rf"blobs/sha256/{_HEX}"), "blob"),
    (re.compile(r"manifest\.json"), "manifest"),
)
"""The members of one image's ``docker save`` (normalised names) and what each is."""
_DIGEST = re.compile(rf"(?:blobs/sha256/|)({_HEX})(?:\.json|\.tar|)")
_DIFF_ID = re.compile(rf"sha256:{_HEX}")


@dataclass(frozen=True)
class Rebuilt:
    """What :func:`rebuild` wrote."""

    image_id: str
    """``sha256:<config digest>``: the id the engine gives the image."""
    config: dict[str, Any]
    """The image's config (its JSON)."""
    unpacked: int
    """The bytes its layers unpack to (each listed layer counted)."""


@dataclass
class Cap:
    """The most bytes an image's layers may unpack to, and the refusal past it."""

    limit: int
    """In bytes."""
    refusal: str
    """The one line refusing an image over it."""
    used: int = 0


def normal_name(name: str) -> str | None:
    """A member's path as the engine unpacks it (``./x``, ``x/``, ``a//b`` and ``a/./b`` are
    ``x``, ``a/b``), or None for an absolute path or one with ``..``."""
    parts = [part for part in name.split("/") if part not in ("", ".")]
    return None if name.startswith("/") or ".." in parts else "/".join(parts)


def rebuild(upload: BinaryIO, size: int, out: BinaryIO, cap: Cap,
            check_config: Callable[[dict[str, Any]], None]) -> Rebuilt:
    """Read the ``docker save`` stream ``upload`` (a file of ``size`` bytes) and write to
    ``out`` the archive the engine may load (see the module doc). ``check_config`` is given
    the image's config before any layer is read (it raises to refuse). ``ConfigError`` naming
    the member or the rule for anything else than one image's ``docker save``."""
    members, manifest = _walk(upload, size)
    config_path, layer_paths = _manifest(manifest)
    config_name, config_member = _resolve(members, config_path, ("config", "blob"))
    data = _read(upload, config_member)
    image_id, config, diff_ids = _config(config_name, data, len(layer_paths))
    check_config(config)
    archive = _Archive(out)
    archive.add(f"{image_id.removeprefix('sha256:')}.json", data)
    written: dict[str, str] = {}  # member name -> its layer's name in the new archive
    listed = [_resolve(members, path, ("layer", "blob")) for path in layer_paths]
    for (name, member), diff_id in zip(listed, diff_ids, strict=True):
        if name not in written:
            written[name] = _layer(upload, name, member, diff_id, cap, archive)
        elif written[name] != f"{diff_id.removeprefix('sha256:')}.tar":
            raise ConfigError(f"{WHAT} lists {shown(name)} for two different layers")
        else:
            cap.used += archive.sizes[written[name]]
            if cap.used > cap.limit:
                raise ConfigError(cap.refusal)
    archive.finish(f"{image_id.removeprefix('sha256:')}.json",
                   [written[name] for name, _ in listed])
    return Rebuilt(image_id, config, cap.used)


# --- the upload's members -------------------------------------------------------------------
def _walk(upload: BinaryIO, size: int) -> tuple[dict[str, tarfile.TarInfo], bytes]:
    """The upload's members by normalised name (each checked against the shapes of a
    ``docker save``) and its ``manifest.json``."""
    stream = TarStream(upload, WHAT, seekable=True)
    members: dict[str, tarfile.TarInfo] = {}
    manifest: bytes | None = None
    for member in stream:
        name = normal_name(member.name)
        if name is None:
            raise ConfigError(f"{WHAT} holds {shown(member.name)}, a path outside the archive")
        if not name:
            continue  # the archive's own root directory
        if name in members:
            raise ConfigError(f"{WHAT} holds {shown(name)} twice (also as "
                              f"{shown(member.name)}): send the output of `docker save IMAGE`")
        if len(members) >= MEMBERS_MAX:
            raise ConfigError(f"{WHAT} holds more than {MEMBERS_MAX} members: send the output "
                              "of `docker save IMAGE` of one image")
        kind = _kind(name, member)
        if member.offset_data + member.size > size:
            raise ConfigError(f"{WHAT} ends inside {shown(member.name)}: send the whole archive")
        members[name] = member
        if kind == "manifest":
            if member.size > JSON_MAX:
                raise ConfigError(f"{WHAT} holds a manifest.json of {member.size} bytes (at "
                                  f"most {JSON_MAX}): send `docker save` of one image")
            manifest = b"".join(iter(lambda: stream.read(PIECE_BYTES), b""))
    if manifest is None:
        raise ConfigError(f"{WHAT} has no manifest.json: send the output of `docker save` of "
                          "one image (Docker 1.10 or later)")
    return members, manifest


def _kind(name: str, member: tarfile.TarInfo) -> str:
    """What a member is in a ``docker save``; ``ConfigError`` for anything else."""
    kind = next((kind for pattern, kind in _SHAPES if pattern.fullmatch(name)), None)
    if kind is None:
        raise ConfigError(f"{WHAT} holds {shown(member.name)}, which `docker save` of one image "
                          "does not write: send the output of `docker save IMAGE`")
    if kind == "directory":
        fits = member.isdir()
    elif member.issym():
        fits = name.endswith("/layer.tar")  # Docker 20.10 links a repeated layer to its first
    else:
        fits = member.isreg()
    if not fits:
        what = "a directory" if kind == "directory" else "a file"
        raise ConfigError(f"{WHAT} holds {shown(member.name)}, which is not {what} as in "
                          "`docker save`")
    return kind


def _resolve(members: dict[str, tarfile.TarInfo], path: object,
             kinds: tuple[str, ...]) -> tuple[str, tarfile.TarInfo]:
    """The member the manifest's ``path`` names (a layer's link followed once): its normalised
    name and header; ``ConfigError`` when it is missing or not of ``kinds``."""
    name = normal_name(path) if isinstance(path, str) else None
    member = members.get(name) if name else None
    if name and member is not None and member.issym():
        name = normal_name(posixpath.normpath(posixpath.join(posixpath.dirname(name),
                                                             member.linkname)))
        member = members.get(name) if name else None
    if not name or member is None or not member.isreg() or _kind(name, member) not in kinds:
        raise ConfigError(f"{WHAT}'s manifest.json names {shown(str(path))}, which the archive "
                          "does not hold as a file: send the output of `docker save IMAGE`")
    return name, member


def _read(upload: BinaryIO, member: tarfile.TarInfo) -> bytes:
    if member.size > JSON_MAX:
        raise ConfigError(f"{WHAT} holds a config of {member.size} bytes (at most {JSON_MAX})")
    upload.seek(member.offset_data)
    return upload.read(member.size)


# --- manifest and config --------------------------------------------------------------------
def _manifest(data: bytes) -> tuple[object, list[object]]:
    """The config path and layer paths of the manifest's one image."""
    try:
        manifest = json.loads(data)
    except ValueError:
        raise ConfigError(f"{WHAT}'s manifest.json is not JSON: send the output of "
                          "`docker save` of one image") from None
    if not isinstance(manifest, list) or len(manifest) != 1 or not isinstance(manifest[0], dict):
        count = len(manifest) if isinstance(manifest, list) else "no"
        raise ConfigError(f"{WHAT} holds {count} images: send exactly one "
                          "(`docker save IMAGE`)")
    layers = manifest[0].get("Layers")
    if not isinstance(layers, list):
        raise ConfigError(f"{WHAT}'s manifest.json has no Layers")
    if len(layers) > LAYERS_MAX:
        raise ConfigError(f"the image has {len(layers)} layers (at most {LAYERS_MAX}): "
                          "build it with fewer")
    return manifest[0].get("Config"), layers


def _config(name: str, data: bytes, layers: int) -> tuple[str, dict[str, Any], list[str]]:
    """The image id, the config and its layers' diff ids; ``ConfigError`` when the config is not
    the one its name gives, or does not list ``layers`` layers."""
    digest = hashlib.sha256(data).hexdigest()
    named = _DIGEST.fullmatch(name)
    if named is None or named.group(1) != digest:
        raise ConfigError(f"{WHAT}'s config {shown(name)} does not hash to the digest its name "
                          "gives: send the output of `docker save IMAGE`")
    try:
        config = json.loads(data)
    except ValueError:
        config = None
    rootfs = config.get("rootfs") if isinstance(config, dict) else None
    diff_ids = rootfs.get("diff_ids") if isinstance(rootfs, dict) else None
    if not isinstance(config, dict) or not isinstance(diff_ids, list) or not all(
            isinstance(d, str) and _DIFF_ID.fullmatch(d) for d in diff_ids):
        raise ConfigError(f"{WHAT}'s config {shown(name)} is not an image config")
    if len(diff_ids) != layers:
        raise ConfigError(f"{WHAT} lists {layers} layers, its config {len(diff_ids)}")
    return f"sha256:{digest}", config, diff_ids


# --- the new archive ------------------------------------------------------------------------
class _Archive:
    """The tar the engine loads, written here: the config, layers, then ``manifest.json``."""

    def __init__(self, out: BinaryIO) -> None:
        self.out = out
        self.sizes: dict[str, int] = {}

    @staticmethod
    def header(name: str, size: int) -> bytes:
        info = tarfile.TarInfo(name)
        info.size, info.mode, info.mtime = size, 0o644, 0
        block = info.tobuf(tarfile.GNU_FORMAT, "utf-8", "strict")
        assert len(block) == BLOCK  # short names; a size past 8 GiB is stored in base-256
        return block

    def add(self, name: str, data: bytes) -> None:
        self.out.write(self.header(name, len(data)) + data + bytes(-len(data) % BLOCK))
        self.sizes[name] = len(data)

    def start(self) -> int:
        """Room for a member's header, written by :meth:`end` once its size is known."""
        start = self.out.tell()
        self.out.write(bytes(BLOCK))
        return start

    def write(self, data: bytes) -> None:
        self.out.write(data)

    def end(self, start: int, name: str) -> None:
        """Close the member begun at ``start`` as ``name`` (dropped if one is called so)."""
        size = self.out.tell() - start - BLOCK
        if name in self.sizes:
            self.out.seek(start)
            self.out.truncate()
            return
        self.out.write(bytes(-size % BLOCK))
        end = self.out.tell()
        self.out.seek(start)
        self.out.write(self.header(name, size))
        self.out.seek(end)
        self.sizes[name] = size

    def finish(self, config: str, layers: list[str]) -> None:
        manifest = [{"Config": config, "RepoTags": None, "Layers": layers}]
        self.add("manifest.json", json.dumps(manifest).encode())
        self.out.write(bytes(2 * BLOCK))


class _Copying:
    """Reads through ``inner`` and writes what it read into the new archive."""

    def __init__(self, inner: Counted, archive: _Archive) -> None:
        self.inner = inner
        self.archive = archive

    def read(self, n: int) -> bytes:
        data = self.inner.read(n)
        self.archive.write(data)
        return data


def _layer(upload: BinaryIO, name: str, member: tarfile.TarInfo, diff_id: str, cap: Cap,
           archive: _Archive) -> str:
    """Copy a layer into the new archive, decompressed and walked as a tar, its unpacked bytes
    counted against ``cap``; the layer's name in the new archive. ``ConfigError`` when it is
    not a tar, holds what a layer may not, passes the cap, or is not the layer ``diff_id``
    names."""
    what = f"layer {shown(name)} of {WHAT}"
    upload.seek(member.offset_data)
    raw = Counted(Window(upload, member.size), digest=True)
    plain = Counted(Inflated(raw, what), limit=cap.limit - cap.used, refusal=cap.refusal,
                    digest=True)
    start = archive.start()
    copying = _Copying(plain, archive)
    for entry in TarStream(copying, what):
        if entry.type not in LAYER_TYPES:
            raise ConfigError(f"{what} holds {shown(entry.name)} of tar type {entry.type!r}: "
                              "a layer holds files, directories, links, devices and FIFOs")
    while copying.read(PIECE_BYTES):  # what follows the tar's end: still the layer's bytes
        pass
    while raw.read(PIECE_BYTES):  # zeros after a compressed stream
        pass
    named = _DIGEST.fullmatch(name)
    if name.startswith("blobs/") and named is not None and named.group(1) != raw.hexdigest():
        raise ConfigError(f"{what} does not hash to the digest its name gives")
    if f"sha256:{plain.hexdigest()}" != diff_id:
        raise ConfigError(f"{what} is not the layer the image's config lists ({diff_id[:19]}): "
                          "send the output of `docker save IMAGE`")
    cap.used += plain.count
    written = f"{diff_id.removeprefix('sha256:')}.tar"
    archive.end(start, written)
    return written
