"""arena.host.uploads: receiving an upload, unpacking a bot directory's tar, loading a
``docker save`` stream without its tags. Each refusal is an ATTACK a contestant can send."""

from __future__ import annotations

import bz2
import gzip
import hashlib
import io
import json
import lzma
import secrets
import stat
import tarfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from arena.bots.files import MAX_DIR_FILES_ENV, MAX_DIR_MB_ENV
from arena.bots.manifest import load_bot_dir
from arena.errors import ConfigError
from arena.host.uploads import UploadTooLarge, load_image, receive, unpack_bot
from tests.support.archives import long_name_bomb

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parents[2]
GREEDY = ROOT / "sample_bots" / "lost-cities" / "greedy"


# --- receive ------------------------------------------------------------------------------
def test_receive_writes_a_private_file_and_hashes_it(tmp_path: Path) -> None:
    chunks = [b"a" * 1000, b"b" * 24, b""]
    got = receive(iter(chunks), tmp_path / "up" / "1" / "payload.tar", limit=1024)
    assert got.size == 1024
    assert got.sha256 == hashlib.sha256(b"".join(chunks)).hexdigest()
    assert got.path.read_bytes() == b"".join(chunks)
    assert stat.S_IMODE(got.path.stat().st_mode) == 0o600
    assert stat.S_IMODE(got.path.parent.stat().st_mode) == 0o700


def test_an_endless_upload_is_cut_at_its_limit_and_nothing_is_kept(tmp_path: Path) -> None:
    """ATTACK: an upload that never ends (or is far over its quota) is cut the moment it
    passes the limit: no more chunks are read, nothing is buffered, the partial file is gone."""
    pulled = 0

    def endless() -> Iterator[bytes]:
        nonlocal pulled
        while True:
            pulled += 1
            yield b"x" * 65536

    dest = tmp_path / "up" / "payload.tar"
    with pytest.raises(UploadTooLarge, match="limit of 1 MiB"):
        receive(endless(), dest, limit=1 << 20)
    assert pulled == 17  # 16 chunks fit exactly, the 17th passes the limit
    assert not dest.exists()


def test_an_upload_whose_client_goes_away_leaves_nothing(tmp_path: Path) -> None:
    def broken() -> Iterator[bytes]:
        yield b"x" * 100
        raise ConnectionResetError("the client went away")

    dest = tmp_path / "payload.tar"
    with pytest.raises(ConnectionResetError):
        receive(broken(), dest, limit=1000)
    assert not dest.exists()


# --- unpack_bot ---------------------------------------------------------------------------
def _tar(members: list[tuple[tarfile.TarInfo, bytes | None]], compress: bool = False) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for info, data in members:
            if data is not None:
                info.size = len(data)
            tar.addfile(info, io.BytesIO(data) if data is not None else None)
    raw = buffer.getvalue()
    return gzip.compress(raw) if compress else raw


def _member(name: str, kind: bytes = tarfile.REGTYPE, mode: int = 0o644,
            link: str = "") -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type, info.mode, info.linkname = kind, mode, link
    return info


def _bot_members() -> list[tuple[tarfile.TarInfo, bytes | None]]:
    return [(_member(p.name, mode=0o755 if p.name == "bot.py" else 0o600), p.read_bytes())
            for p in sorted(GREEDY.iterdir()) if p.is_file()]


def _write(tmp_path: Path, data: bytes) -> Path:
    path = tmp_path / "payload.tar"
    path.write_bytes(data)
    return path


def test_a_bot_directory_is_unpacked_with_plain_modes(tmp_path: Path) -> None:
    members = [(_member("lib", tarfile.DIRTYPE, 0o700), None), *_bot_members(),
               (_member("lib/util.py", mode=0o4777), b"X = 1\n")]
    for compress in (False, True):
        dest = tmp_path / f"bot-{compress}"
        got = unpack_bot(_write(tmp_path, _tar(members, compress)), dest)
        assert got == dest
        spec = load_bot_dir(dest)
        assert (spec.name, spec.game) == ("greedy", "lost-cities")
        assert (dest / "bot.py").read_bytes() == (GREEDY / "bot.py").read_bytes()
        assert stat.S_IMODE((dest / "bot.py").stat().st_mode) == 0o755
        assert stat.S_IMODE((dest / "bot.toml").stat().st_mode) == 0o644
        assert stat.S_IMODE((dest / "lib" / "util.py").stat().st_mode) == 0o755  # no setuid
        assert stat.S_IMODE((dest / "lib").stat().st_mode) == 0o755


BAD_MEMBERS: dict[str, tuple[list[tuple[tarfile.TarInfo, bytes | None]], str]] = {
    "absolute": ([(_member("/etc/cron.d/evil"), b"x")], "absolute path"),
    "dotdot": ([(_member("lib/../../evil.py"), b"x")], "'..'"),
    "symlink": ([(_member("key.pem", tarfile.SYMTYPE, link="/etc/ssl/private/key.pem"), None)],
                "a symlink"),
    "hardlink": ([(_member("shadow", tarfile.LNKTYPE, link="/etc/shadow"), None)],
                 "a hard link"),
    "device": ([(_member("mem", tarfile.CHRTYPE), None)], "a character device"),
    "fifo": ([(_member("pipe", tarfile.FIFOTYPE), None)], "a FIFO"),
    "hidden": ([(_member(".git/hooks/post-checkout"), b"x")], "hidden"),
    "pycache": ([(_member("__pycache__/bot.cpython-311.pyc"), b"x")], "cache"),
    "control": ([(_member("bot\x1b[2J.py"), b"x")], "control characters"),
    "twice": ([(_member("bot.py"), b"a"), (_member("bot.py"), b"b")], "twice"),
    "below a file": ([(_member("lib"), b"a"), (_member("lib/x.py"), b"b")], "twice, or below"),
}


@pytest.mark.parametrize("case", sorted(BAD_MEMBERS))
def test_a_refused_member_is_named_and_nothing_is_left(tmp_path: Path, case: str) -> None:
    """ATTACK: each member a bot directory may not hold (a path out of it, a link to a
    secret, a device, a FIFO, a hidden or duplicated name) refuses the whole upload, naming the
    member, and nothing of it is left on the server."""
    extra, words = BAD_MEMBERS[case]
    dest = tmp_path / "bot"
    with pytest.raises(ConfigError, match="the bot's tar holds") as caught:
        unpack_bot(_write(tmp_path, _tar([*_bot_members(), *extra])), dest)
    assert words in str(caught.value)
    assert "\x1b" not in str(caught.value)
    assert not dest.exists()
    assert not (tmp_path / "evil.py").exists()


@pytest.mark.integration
def test_a_tar_bomb_stops_at_the_size_cap(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                          ) -> None:
    """ATTACK: a small gzip'd tar that inflates far past the bot directory cap is stopped at
    the cap while it is written (never inflated whole), and nothing is left."""
    monkeypatch.setenv(MAX_DIR_MB_ENV, "1")
    bomb = _tar([*_bot_members(), (_member("zeros.bin"), bytes(64 << 20))], compress=True)
    assert len(bomb) < 200_000
    dest = tmp_path / "bot"
    with pytest.raises(ConfigError, match=f"more than 1 MiB.*{MAX_DIR_MB_ENV}"):
        unpack_bot(_write(tmp_path, bomb), dest)
    assert not dest.exists()


def test_a_header_claiming_more_than_the_cap_is_refused_before_reading(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(MAX_DIR_MB_ENV, "1")
    info = _member("huge.bin")
    info.size = 8 << 30  # the header's claim; the tar ends long before
    buffer = io.BytesIO()
    tar = tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT)
    for member, data in _bot_members():
        member.size = len(data or b"")
        tar.addfile(member, io.BytesIO(data or b""))
    raw = buffer.getvalue() + info.tobuf(tarfile.PAX_FORMAT) + bytes(4096)
    dest = tmp_path / "bot"
    with pytest.raises(ConfigError, match="more than 1 MiB"):
        unpack_bot(_write(tmp_path, raw), dest)
    assert not dest.exists()


def test_too_many_files_stop_at_the_file_cap(tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """ATTACK: a tar of a million empty files stops at the file cap."""
    monkeypatch.setenv(MAX_DIR_FILES_ENV, "5")
    many = [(_member(f"f{i}.txt"), b"") for i in range(50)]
    dest = tmp_path / "bot"
    with pytest.raises(ConfigError, match=f"more than 5 files.*{MAX_DIR_FILES_ENV}"):
        unpack_bot(_write(tmp_path, _tar(many)), dest)
    assert not dest.exists()


def _header(name: str, kind: bytes, size: int, fmt: int = tarfile.GNU_FORMAT) -> bytes:
    """One raw header claiming ``size`` bytes (what follows is up to the caller)."""
    info = _member(name, kind)
    info.size = size
    return info.tobuf(fmt)


def _pax(records: dict[str, str], kind: bytes = tarfile.XHDTYPE) -> bytes:
    """A PAX header with ``records``, and its body."""
    body = b"".join(
        f"{len(f' {k}={v}') + len(str(len(f' {k}={v}') + 3)) + 1} {k}={v}\n".encode()
        for k, v in records.items())
    return _header("././@PaxHeader", kind, len(body)) + body + bytes(-len(body) % 512)


@pytest.mark.integration
def test_a_long_name_claiming_gigabytes_is_refused_before_it_is_read(tmp_path: Path) -> None:
    """ATTACK (issue 33, hole 3): 300 bytes of bzip2 whose first header is a GNU long name
    claiming 8 GiB, then 64 MiB of zeros. ``tarfile`` in stream mode read that body whole (774
    MiB of memory for 283 bytes); it is refused from its header, one line, nothing read."""
    bomb = long_name_bomb(8 << 30, 64 << 20)
    assert len(bomb) < 400
    dest = tmp_path / "bot"
    with pytest.raises(ConfigError) as caught:
        unpack_bot(_write(tmp_path, bomb), dest)
    assert str(caught.value) == ("the bot's upload holds a long name of 8.0 GiB (at most 4096 "
                                 "bytes): send a plain tar of the files")
    assert not dest.exists()


HEADER_ATTACKS = {
    "pax header of 4 GiB": (_header("././@PaxHeader", tarfile.XHDTYPE, 4 << 30),
                            "a PAX header of 4.0 GiB"),
    "global header of 2 MiB": (_header("pax_global_header", tarfile.XGLTYPE, 2 << 20),
                               "a PAX global header of 2 MiB"),
    "gnu sparse file": (_header("bot.py", tarfile.GNUTYPE_SPARSE, 0), "a sparse file"),
    "pax sparse file": (_pax({"GNU.sparse.major": "1", "GNU.sparse.minor": "0"})
                        + _header("bot.py", tarfile.REGTYPE, 0), "a sparse file"),
    "global path": (_pax({"path": "../../etc/cron.d/x"}, tarfile.XGLTYPE),
                    "a PAX global header setting 'path'"),
    "directory with bytes": (_header("lib", tarfile.DIRTYPE, 1 << 20),
                             "a directory, link, device or FIFO whose header claims bytes"),
    "damaged header": (b"\x01" * 512, "not a readable tar (a damaged header at byte 0"),
}


@pytest.mark.parametrize("case", sorted(HEADER_ATTACKS))
def test_an_unbounded_or_ambiguous_header_is_refused_with_one_line(tmp_path: Path,
                                                                   case: str) -> None:
    """ATTACK: a header claiming a huge body, a sparse file (it unpacks past its bytes), a
    global path, a directory claiming bytes (readers disagree on whether they follow)."""
    raw, words = HEADER_ATTACKS[case]
    dest = tmp_path / "bot"
    for pack in (bz2.compress, lambda data: data):
        with pytest.raises(ConfigError) as caught:
            unpack_bot(_write(tmp_path, pack(raw + bytes(4096))), dest)
        assert words in str(caught.value) and "\n" not in str(caught.value)
        assert not dest.exists()


def test_headers_alone_stop_at_what_the_caps_allow_unpacking(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """ATTACK: a stream of PAX global headers (no member, so no cap counts them) inflates no
    further than the bot directory's caps allow a whole tar to."""
    monkeypatch.setenv(MAX_DIR_MB_ENV, "1")
    monkeypatch.setenv(MAX_DIR_FILES_ENV, "5")
    one = _pax({"comment": "x" * 60_000}, tarfile.XGLTYPE)
    dest = tmp_path / "bot"
    with pytest.raises(ConfigError, match=f"unpacks to more than 1 MiB.*{MAX_DIR_MB_ENV}"):
        unpack_bot(_write(tmp_path, gzip.compress(one * 40)), dest)
    assert not dest.exists()


@pytest.mark.parametrize("pack", [bz2.compress, lzma.compress], ids=["bzip2", "xz"])
def test_a_bzip2_or_xz_tar_is_unpacked(tmp_path: Path, pack: Any) -> None:
    dest = unpack_bot(_write(tmp_path, pack(_tar(_bot_members()))), tmp_path / "bot")
    assert (dest / "bot.py").read_bytes() == (GREEDY / "bot.py").read_bytes()


def test_a_zstd_tar_is_refused_with_one_line(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="zstd-compressed: send it plain, or compressed"):
        unpack_bot(_write(tmp_path, b"\x28\xb5\x2f\xfd" + bytes(100)), tmp_path / "bot")


def test_not_a_tar_is_one_clear_refusal(tmp_path: Path) -> None:
    dest = tmp_path / "bot"
    with pytest.raises(ConfigError, match="not a readable tar"):
        unpack_bot(_write(tmp_path, b"PK\x03\x04 a zip file"), dest)
    assert not dest.exists()


def test_a_tar_without_bot_toml_is_unpacked_but_has_no_manifest(tmp_path: Path) -> None:
    dest = unpack_bot(_write(tmp_path, _tar([(_member("bot.py"), b"print(1)\n")])),
                      tmp_path / "bot")
    with pytest.raises(ConfigError, match="no bot.toml"):
        load_bot_dir(dest)


# --- load_image (real Docker) -------------------------------------------------------------
def _tiny_image(client: Any, *changes: str) -> str:
    """A new small untagged image (one layer of one file, imported: no base), by id."""
    layer = _tar([(_member("hello.txt"), secrets.token_hex(8).encode())])
    answer = client.api.import_image_from_data(layer, changes=['CMD ["/hello"]', *changes])
    image_id = str(json.loads(answer.strip().splitlines()[-1])["status"])
    assert image_id.startswith("sha256:") and client.images.get(image_id).tags == []
    return image_id


def _saved(client: Any, image_id: str, path: Path, *, tags: list[str] | None,
           repositories: dict[str, Any] | None = None, images: int = 1) -> Path:
    """``docker save`` of ``image_id`` into ``path``, its manifest's RepoTags set to ``tags``
    (the attack), optionally a ``repositories`` member, the manifest's entry ``images`` times."""
    raw = b"".join(client.images.get(image_id).save(named=False))
    out = io.BytesIO()
    with tarfile.open(fileobj=io.BytesIO(raw)) as src, tarfile.open(fileobj=out, mode="w") as dst:
        for member in src:
            data = src.extractfile(member).read() if member.isreg() else None  # type: ignore[union-attr]
            if member.name == "manifest.json":
                manifest = json.loads(data or b"")
                manifest[0]["RepoTags"] = tags
                data = json.dumps(manifest * images).encode()
            if member.name == "repositories":
                continue
            if data is not None:
                member.size = len(data)
            dst.addfile(member, io.BytesIO(data) if data is not None else None)
        if repositories is not None:
            body = json.dumps(repositories).encode()
            info = _member("repositories")
            info.size = len(body)
            dst.addfile(info, io.BytesIO(body))
    path.write_bytes(out.getvalue())
    return path


def _tag_id(client: Any, tag: str) -> str | None:
    import docker.errors

    try:
        return str(client.images.get(tag).id)
    except docker.errors.ImageNotFound:
        return None


@pytest.mark.docker
def test_an_image_tar_claiming_the_base_and_another_bots_tags_moves_no_tag(
        docker_client: Any, base_image: Any, tmp_path: Path) -> None:
    """ATTACK: a ``docker save`` stream whose manifest.json (and ``repositories``) name
    ``arena/base:py311`` and another contestant's ``arena-bot/victim:s3`` would, loaded as it
    is, move those tags onto the attacker's image (shown on a throwaway victim tag): every bot
    would then be built on it, or the victim's bot would run the attacker's code. Loaded by
    ``load_image``, no tag moves and the image comes back by id, untagged."""
    client = docker_client
    victim = f"arena-bot/victim-{secrets.token_hex(4)}:s3"
    victim_id = _tiny_image(client)
    client.images.get(victim_id).tag(*victim.split(":"))
    evil = _tiny_image(client)
    try:
        # The attack is real: a plain `docker load` moves the victim's tag.
        naive = _saved(client, evil, tmp_path / "naive.tar", tags=[victim])
        client.images.remove(evil)
        with naive.open("rb") as data:
            client.images.load(data)
        assert _tag_id(client, victim) == evil
        client.images.get(victim_id).tag(*victim.split(":"))  # the victim's tag back
        assert _tag_id(client, victim) == victim_id

        claims = ["arena/base:py311", victim]
        tar = _saved(client, evil, tmp_path / "evil.tar", tags=claims, repositories={
            "arena/base": {"py311": evil.removeprefix("sha256:")},
            victim.split(":")[0]: {"s3": evil.removeprefix("sha256:")}})
        client.images.remove(evil, force=True)
        assert load_image(tar, client) == evil
        # (other test sessions may rebuild the base meanwhile: the tag is never the attacker's)
        assert _tag_id(client, "arena/base:py311") not in (evil, None)
        assert _tag_id(client, victim) == victim_id
        assert client.images.get(evil).tags == []
    finally:
        for ref in (victim, victim_id, evil):
            try:
                client.images.remove(ref, force=True)
            except Exception:  # noqa: BLE001 — already gone
                pass


@pytest.mark.docker
def test_an_image_archive_must_hold_exactly_one_image(docker_client: Any,
                                                      tmp_path: Path) -> None:
    image = _tiny_image(docker_client)
    try:
        two = _saved(docker_client, image, tmp_path / "two.tar", tags=None, images=2)
        with pytest.raises(ConfigError, match="holds 2 images: send exactly one"):
            load_image(two, docker_client)
        bare = tmp_path / "bare.tar"
        bare.write_bytes(_tar([(_member("repositories"), b"{}")]))
        with pytest.raises(ConfigError, match="no manifest.json"):
            load_image(bare, docker_client)
    finally:
        docker_client.images.remove(image, force=True)


@pytest.mark.docker
def test_an_image_the_policy_refuses_is_removed_again(docker_client: Any,
                                                      tmp_path: Path) -> None:
    """An image running as root is refused as ``arena submit --image`` refuses it, and the
    engine does not keep it."""
    import docker.errors

    image = _tiny_image(docker_client, "USER root")
    tar = _saved(docker_client, image, tmp_path / "root.tar", tags=None)
    docker_client.images.remove(image, force=True)
    with pytest.raises(ConfigError, match="refused: the image's USER is 'root'"):
        load_image(tar, docker_client)
    with pytest.raises(docker.errors.ImageNotFound):
        docker_client.images.get(image)


@pytest.mark.docker
def test_loading_the_base_image_itself_is_refused_and_keeps_it(
        docker_client: Any, base_image: Any, tmp_path: Path) -> None:
    """ATTACK: an upload of the arena's own base image (or one carrying its label) is refused
    by the policy, and the base image the engine had is not removed by the refusal."""
    path = tmp_path / "base.tar"
    base = docker_client.images.get(base_image.image_id)
    with path.open("wb") as out:
        for chunk in base.save(named=True):
            out.write(chunk)
    with pytest.raises(ConfigError, match="arena's own label"):
        load_image(path, docker_client)
    assert docker_client.images.get(base.id).id == base.id  # not removed by the refusal
