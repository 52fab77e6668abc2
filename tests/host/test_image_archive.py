"""arena.host.image_archive: the archive the engine loads is the server's own, rebuilt from
what a ``docker save`` of one image holds. Each refusal is an ATTACK a contestant can send; no
engine is needed (tests/host/test_upload_attacks.py loads them into a real one)."""

from __future__ import annotations

import bz2
import gzip
import io
import json
import lzma
import tarfile
from pathlib import Path
from typing import Any

import pytest

from arena.errors import ConfigError
from arena.host.image_archive import Cap, normal_name, rebuild
from tests.support.archives import (
    Image,
    docker_save,
    layer,
    member,
    sha256,
    tar_bytes,
    zeros_layer,
)

pytestmark = pytest.mark.unit

HELLO = layer({"hello": b"hello\n"})
LIB = layer({"lib/util.py": b"X = 1\n" * 100})
BIG = 1 << 30


def _rebuild(tmp_path: Path, data: bytes, limit: int = BIG,
             configs: list[dict[str, Any]] | None = None) -> tuple[Any, dict[str, bytes]]:
    """Rebuild ``data``; (what rebuild returned, the new archive's members by name)."""
    upload = tmp_path / "upload.tar"
    upload.write_bytes(data)
    out = io.BytesIO()
    with upload.open("rb") as source:
        rebuilt = rebuild(source, len(data), out, Cap(limit, "over the cap"),
                          (configs if configs is not None else []).append)
    with tarfile.open(fileobj=io.BytesIO(out.getvalue())) as tar:
        members = {m.name: tar.extractfile(m).read() for m in tar}  # type: ignore[union-attr]
    return rebuilt, members


@pytest.mark.parametrize("oci", [False, True], ids=["docker-20.10", "oci"])
def test_the_new_archive_holds_the_config_the_layers_and_a_manifest_without_tags(
        tmp_path: Path, oci: bool) -> None:
    image = Image.of(HELLO, LIB, HELLO)  # a repeated layer: 20.10 links it to its first copy
    configs: list[dict[str, Any]] = []
    rebuilt, members = _rebuild(tmp_path, docker_save(image, oci=oci, tags=["arena/base:py311"]),
                                configs=configs)
    assert rebuilt.image_id == image.image_id
    assert configs == [json.loads(image.config)]  # the policy saw it before any layer
    hello, lib = f"{sha256(HELLO)}.tar", f"{sha256(LIB)}.tar"
    config = f"{image.image_id.removeprefix('sha256:')}.json"
    assert sorted(members) == sorted([config, hello, lib, "manifest.json"])
    assert json.loads(members["manifest.json"]) == [
        {"Config": config, "RepoTags": None, "Layers": [hello, lib, hello]}]
    assert members[hello] == HELLO and members[config] == image.config
    assert rebuilt.unpacked == 2 * len(HELLO) + len(LIB)  # each listed layer counted


SPELLINGS = ["./manifest.json", ".//manifest.json", "././manifest.json", "manifest.json/"]


@pytest.mark.parametrize("spelling", SPELLINGS)
def test_a_second_manifest_under_another_spelling_is_refused_naming_it(
        tmp_path: Path, spelling: str) -> None:
    """ATTACK: ``docker load`` normalises every path and the last copy of manifest.json wins,
    with its RepoTags: a second spelling of it is refused, named."""
    data = docker_save(Image.of(HELLO), manifests=(("manifest.json", None),
                                                   (spelling, ["arena/base:py311"])))
    with pytest.raises(ConfigError, match="holds 'manifest.json' twice") as caught:
        _rebuild(tmp_path, data)
    assert repr(spelling) in str(caught.value)


def test_a_lone_manifest_under_another_spelling_still_names_no_tag(tmp_path: Path) -> None:
    data = docker_save(Image.of(HELLO), manifests=(("./manifest.json", ["arena/base:py311"]),))
    _, members = _rebuild(tmp_path, data)
    assert json.loads(members["manifest.json"])[0]["RepoTags"] is None


def test_paths_are_normalised_as_the_engine_unpacks_them() -> None:
    assert normal_name("./a//b/./c/") == "a/b/c"
    assert normal_name(".") == "" and normal_name("a/../b") is None
    assert normal_name("/etc/passwd") is None


UNKNOWN = {
    "a stray file": ([(member("evil.sh"), b"#!/bin/sh\n")], "'evil.sh', which `docker save`"),
    "a path out": ([(member("../manifest.json"), b"[]")], "a path outside the archive"),
    "a hard link": ([(member("index.json", tarfile.LNKTYPE, link="manifest.json"), None)],
                    "which is not a file"),
    "a device": ([(member("oci-layout", tarfile.CHRTYPE), None)], "which is not a file"),
}


@pytest.mark.parametrize("case", sorted(UNKNOWN))
def test_a_member_docker_save_does_not_write_is_refused_naming_it(tmp_path: Path,
                                                                   case: str) -> None:
    extra, words = UNKNOWN[case]
    with pytest.raises(ConfigError, match="the image archive holds") as caught:
        _rebuild(tmp_path, docker_save(Image.of(HELLO), extra=extra))
    assert words in str(caught.value)


def test_a_layer_link_out_of_the_archive_is_refused(tmp_path: Path) -> None:
    image = Image.of(HELLO)
    link = f"{'a' * 64}/layer.tar"
    data = docker_save(image, extra=[(member(link, tarfile.SYMTYPE, link="/etc/shadow"), None)])
    manifest = [{"Config": f"{sha256(image.config)}.json", "RepoTags": None, "Layers": [link]}]
    with pytest.raises(ConfigError, match="which the archive does not hold as a file"):
        _rebuild(tmp_path, _with_manifest(data, manifest))


def _with_manifest(data: bytes, manifest: list[dict[str, Any]]) -> bytes:
    """``data`` with its manifest.json replaced."""
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        members = [(m, json.dumps(manifest).encode() if m.name == "manifest.json" else
                    tar.extractfile(m).read() if m.isreg() else None)  # type: ignore[union-attr]
                   for m in tar]
    return tar_bytes(members)


def test_a_config_or_blob_that_does_not_hash_to_its_name_is_refused(tmp_path: Path) -> None:
    image = Image.of(HELLO)
    forged = docker_save(image).replace(b'"Cmd": ["/hello"]', b'"Cmd": ["/evil!"]')
    with pytest.raises(ConfigError, match="does not hash to the digest its name gives"):
        _rebuild(tmp_path, forged)
    swapped = docker_save(image, oci=True).replace(b"hello\n", b"HELLO\n")
    with pytest.raises(ConfigError, match="does not hash to the digest its name gives"):
        _rebuild(tmp_path, swapped)


def test_a_layer_that_is_not_the_configs_is_refused(tmp_path: Path) -> None:
    image = Image.of(HELLO)
    image.layers = [LIB]  # the config still lists HELLO's diff id
    with pytest.raises(ConfigError, match="is not the layer the image's config lists"):
        _rebuild(tmp_path, docker_save(image))


@pytest.mark.parametrize("pack", [gzip.compress, bz2.compress, lzma.compress],
                         ids=["gzip", "bzip2", "xz"])
def test_a_compressed_layer_is_loaded_decompressed(tmp_path: Path, pack: Any) -> None:
    image = Image(layers=[pack(LIB)], diff_ids=[f"sha256:{sha256(LIB)}"])
    rebuilt, members = _rebuild(tmp_path, docker_save(image, oci=True))
    assert members[f"{sha256(LIB)}.tar"] == LIB and rebuilt.unpacked == len(LIB)


@pytest.mark.integration
def test_a_layer_unpacking_past_the_cap_is_refused_before_the_rest_is_read(
        tmp_path: Path) -> None:
    """ATTACK: a 65 KiB gzip'd layer of 64 MiB of zeros against a 16 MiB cap: refused once the
    cap is passed, not after decompressing the whole layer."""
    packed, diff_id, size = zeros_layer("zeros.bin", 64 << 20)
    assert len(packed) < 100_000 and size > 64 << 20
    data = docker_save(Image(layers=[packed], diff_ids=[diff_id]), oci=True)
    out = io.BytesIO()
    upload = tmp_path / "upload.tar"
    upload.write_bytes(data)
    with upload.open("rb") as source, pytest.raises(ConfigError, match="over the cap"):
        rebuild(source, len(data), out, Cap(16 << 20, "over the cap"), lambda _: None)
    assert len(out.getvalue()) < (16 << 20) + (2 << 20)


def test_the_config_is_checked_before_any_layer_is_read(tmp_path: Path) -> None:
    def refuse(config: dict[str, Any]) -> None:
        raise ConfigError(f"refused: labels {config['config']['Labels']}")

    data = docker_save(Image.of(b"not a tar at all", Labels={"arena.base.inputs": "x"}))
    upload = tmp_path / "upload.tar"
    upload.write_bytes(data)
    with upload.open("rb") as source, pytest.raises(ConfigError, match="refused: labels"):
        rebuild(source, len(data), io.BytesIO(), Cap(BIG, ""), refuse)


LAYER_ATTACKS = {
    "sparse": (tarfile.GNUTYPE_SPARSE, "a sparse file"),
    "volume header": (b"V", "of tar type b'V'"),
}


@pytest.mark.parametrize("case", sorted(LAYER_ATTACKS))
def test_a_layer_holding_what_unpacks_past_its_bytes_is_refused(tmp_path: Path,
                                                                case: str) -> None:
    """ATTACK: a sparse file claims more than its bytes (the engine would write the holes as
    zeros): refused, as is any member type a layer does not hold."""
    kind, words = LAYER_ATTACKS[case]
    info = member("big.bin", kind)
    info.size = 0
    bad = tar_bytes([(info, None)], fmt=tarfile.GNU_FORMAT)
    with pytest.raises(ConfigError, match=words):
        _rebuild(tmp_path, docker_save(Image.of(bad)))


def test_more_than_one_image_or_no_manifest_is_refused(tmp_path: Path) -> None:
    image = Image.of(HELLO)
    config = f"{sha256(image.config)}.json"
    two = [{"Config": config, "RepoTags": None, "Layers": []}] * 2
    with pytest.raises(ConfigError, match="holds 2 images"):
        _rebuild(tmp_path, _with_manifest(docker_save(image), two))
    with pytest.raises(ConfigError, match="no manifest.json"):
        _rebuild(tmp_path, tar_bytes([(member("repositories"), b"{}")]))
