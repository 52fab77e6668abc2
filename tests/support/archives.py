"""Hand-made archives for the upload tests: tars with the headers an attacker chooses, and
``docker save`` streams of one image made here from its layers (no engine needed to make them,
and a real engine loads them)."""

from __future__ import annotations

import bz2
import gzip
import hashlib
import io
import json
import tarfile
from dataclasses import dataclass, field

Members = list[tuple[tarfile.TarInfo, bytes | None]]


def member(name: str, kind: bytes = tarfile.REGTYPE, mode: int = 0o644,
           link: str = "") -> tarfile.TarInfo:
    """A tar header (its size is set from the bytes given to :func:`tar_bytes`)."""
    info = tarfile.TarInfo(name)
    info.type, info.mode, info.linkname = kind, mode, link
    return info


def tar_bytes(members: Members, fmt: int = tarfile.PAX_FORMAT) -> bytes:
    """A tar of ``members`` (bytes None: no data, a directory or link)."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=fmt) as tar:
        for info, data in members:
            if data is not None:
                info.size = len(data)
            tar.addfile(info, io.BytesIO(data) if data is not None else None)
    return buffer.getvalue()


def layer(files: dict[str, bytes]) -> bytes:
    """A plain layer tar holding ``files``."""
    return tar_bytes([(member(name), data) for name, data in files.items()])


def zeros_layer(name: str, size: int) -> tuple[bytes, str, int]:
    """A gzip'd layer of one file of ``size`` zero bytes, made a MiB at a time: (the gzip
    bytes, the plain tar's diff id, the plain tar's size)."""
    header = member(name)
    header.size = size
    digest = hashlib.sha256()
    out = io.BytesIO()
    total = 0
    with gzip.GzipFile(fileobj=out, mode="wb", compresslevel=9, mtime=0) as packed:
        def put(data: bytes) -> None:
            nonlocal total
            digest.update(data)
            packed.write(data)
            total += len(data)

        put(header.tobuf(tarfile.PAX_FORMAT))
        left = size
        while left:
            step = min(left, 1 << 20)
            put(bytes(step))
            left -= step
        put(bytes(-size % tarfile.BLOCKSIZE + 2 * tarfile.BLOCKSIZE))
    return out.getvalue(), f"sha256:{digest.hexdigest()}", total


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def long_name_bomb(claimed: int, zeros: int) -> bytes:
    """ATTACK: a bzip2 tar whose first header is a GNU long name claiming ``claimed`` bytes,
    followed by ``zeros`` zero bytes (a few hundred bytes compressed)."""
    header = member("././@LongLink", tarfile.GNUTYPE_LONGNAME)
    header.size = claimed
    packer = bz2.BZ2Compressor(9)
    parts = [packer.compress(header.tobuf(tarfile.GNU_FORMAT))]
    chunk = bytes(1 << 20)
    for _ in range(zeros >> 20):
        parts.append(packer.compress(chunk))
    parts.append(packer.flush())
    return b"".join(parts)


@dataclass
class Image:
    """One image: its config and layers as the archive stores them."""

    layers: list[bytes]
    """Each layer as stored (plain or compressed)."""
    diff_ids: list[str]
    """Each layer's plain tar digest."""
    config_extra: dict[str, object] = field(default_factory=dict)
    """Keys of the config's ``config`` (``Labels``, ``User``, ``Cmd``...)."""

    @classmethod
    def of(cls, *plain_layers: bytes, **config: object) -> Image:
        return cls(list(plain_layers), [f"sha256:{sha256(x)}" for x in plain_layers],
                   dict(config))

    @property
    def config(self) -> bytes:
        body = {"architecture": "amd64", "os": "linux",
                "config": {"Cmd": ["/hello"], **self.config_extra},
                "rootfs": {"type": "layers", "diff_ids": self.diff_ids},
                "history": [{"created_by": "hand-made"} for _ in self.layers]}
        return json.dumps(body).encode()

    @property
    def image_id(self) -> str:
        return f"sha256:{sha256(self.config)}"


def docker_save(image: Image, *, tags: list[str] | None = None, oci: bool = False,
                manifests: tuple[tuple[str, list[str] | None], ...] | None = None,
                extra: Members | None = None) -> bytes:
    """``docker save`` of ``image``: Docker 20.10's layout (``<dir>/layer.tar``, a repeated
    layer a symlink to its first copy) or, with ``oci``, the OCI layout of newer engines.
    ``manifests`` gives each copy of manifest.json, its spelling and its tags (the attack;
    default: one, ``manifest.json`` naming ``tags``); ``extra`` adds members at the end."""
    config = image.config
    members: Members = []
    paths: list[str] = []
    first: dict[str, str] = {}
    if oci:
        members += [(member("blobs", tarfile.DIRTYPE, 0o755), None),
                    (member("blobs/sha256", tarfile.DIRTYPE, 0o755), None)]
        config_path = f"blobs/sha256/{sha256(config)}"
        members.append((member(config_path), config))
        for data in image.layers:
            path = f"blobs/sha256/{sha256(data)}"
            if path not in paths:
                members.append((member(path), data))
            paths.append(path)
        members += [(member("oci-layout"), b'{"imageLayoutVersion": "1.0.0"}'),
                    (member("index.json"), b'{"schemaVersion": 2, "manifests": []}')]
    else:
        config_path = f"{sha256(config)}.json"
        for number, data in enumerate(image.layers):
            directory = sha256(f"{number}:{sha256(data)}".encode())
            members += [(member(directory, tarfile.DIRTYPE, 0o755), None),
                        (member(f"{directory}/VERSION"), b"1.0"),
                        (member(f"{directory}/json"), b"{}")]
            digest = sha256(data)
            if digest in first:
                members.append((member(f"{directory}/layer.tar", tarfile.SYMTYPE,
                                       link=f"../{first[digest]}/layer.tar"), None))
            else:
                members.append((member(f"{directory}/layer.tar"), data))
                first.setdefault(digest, directory)
            paths.append(f"{directory}/layer.tar")
        members.append((member(config_path), config))
    for name, its_tags in manifests or (("manifest.json", tags),):
        body = [{"Config": config_path, "RepoTags": its_tags, "Layers": paths}]
        members.append((member(name), json.dumps(body).encode()))
    members.append((member("repositories"), b"{}"))
    return tar_bytes(members + (extra or []))
