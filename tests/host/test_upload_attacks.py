"""The upload door of a real `arena host` (TLS on 127.0.0.1, real Docker), attacked through
its API (issue 33): an image upload naming tags, a tiny tar whose header claims gigabytes, an
image whose layers unpack far past the quota."""

from __future__ import annotations

import contextlib
import datetime
import hashlib
import secrets
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from arena.bots.images import BASE_TAG, INPUTS_LABEL, BaseImage, base_problem
from arena.cluster.shipping import image_present
from arena.host.client import _requests, payload
from arena.v1 import competition_pb2 as pb
from tests.support.archives import Image, docker_save, layer, long_name_bomb, zeros_layer
from tests.support.competition import RunningServer, make_server
from tests.support.containers import require_docker

pytestmark = [pytest.mark.docker, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
GREEDY = ROOT / "sample_bots" / "lost-cities" / "greedy"
STAGE = pb.SubmissionStage.Name
IMAGE_QUOTA_MB = 16
PEAK_GROWTH_MAX = 64 << 20
"""How much the server's peak memory may grow while it refuses the long-name bomb (before
the fix: 256 MiB of zeros in it cost more than 512 MiB)."""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    """A competition whose image quota is 16 MiB."""
    require_docker()
    running = make_server(tmp_path_factory.mktemp("upload-door"), per_day=50,
                          max_image_upload_mb=IMAGE_QUOTA_MB)
    running.start()
    yield running
    running.end()


def _upload(stub: Any, path: Path, kind: str, name: str, until: str = "") -> list[Any]:
    """Upload the file ``path`` as a ``kind`` submission named ``name``; its events until the
    end (or the stage ``until``)."""
    data = path.read_bytes()
    start = pb.SubmitStart(name=name, kind=kind, size=len(data),
                           sha256=hashlib.sha256(data).hexdigest())
    events = []
    call = stub.Submit(_requests(start, path, None), timeout=600)
    for event in call:
        events.append(event)
        if event.final or STAGE(event.stage) == until:
            call.cancel()
            break
    return events


def _stages(events: list[Any]) -> list[str]:
    return [STAGE(e.stage) for e in events]


def _peak_memory(pid: int) -> int:
    """The process's peak resident memory (VmHWM), bytes."""
    status = Path(f"/proc/{pid}/status").read_text()
    line = next(x for x in status.splitlines() if x.startswith("VmHWM:"))
    return int(line.split()[1]) * 1024


def _tag_id(client: Any, tag: str) -> str | None:
    import docker.errors

    try:
        return str(client.images.get(tag).id)
    except docker.errors.ImageNotFound:
        return None


# --- hole 3: a header claiming gigabytes --------------------------------------------------
def test_a_tiny_tar_claiming_a_huge_long_name_costs_the_server_no_memory(
        server: RunningServer, tmp_path: Path) -> None:
    """ATTACK: about 300 bytes of bzip2, a bot directory's tar whose first header is a GNU long
    name claiming 8 GiB, then 256 MiB of zeros. ``tarfile`` read the long name whole (the
    server held every zero, twice); now it is refused from its header, in one line, and the
    server's peak memory barely moves."""
    bomb = tmp_path / "bomb.tar.bz2"
    bomb.write_bytes(long_name_bomb(8 << 30, 256 << 20))
    assert bomb.stat().st_size < 400
    assert server.proc is not None
    before = _peak_memory(server.proc.pid)
    events = _upload(server.stub("bob"), bomb, "directory", "bob-bomb")
    grown = _peak_memory(server.proc.pid) - before
    assert grown < PEAK_GROWTH_MAX, f"the server's peak memory grew by {grown >> 20} MiB"
    assert _stages(events) == ["RECEIVING", "UPLOADED", "REFUSED"], events
    assert events[-1].message == ("the bot's upload holds a long name of 8.0 GiB (at most 4096 "
                                  "bytes): send a plain tar of the files")


# --- hole 4: the image quota counts unpacked bytes ----------------------------------------
def test_an_image_unpacking_past_the_quota_never_reaches_the_engine(
        server: RunningServer, docker_client: Any, tmp_path: Path) -> None:
    """ATTACK: a 65 KiB upload whose one gzip'd layer unpacks to 64 MiB, against a 16 MiB
    image quota: the quota counted the compressed bytes and ``docker load`` unpacked it all.
    Now it is refused while the layer is read, before the engine sees a byte: the engine
    reports no load, and has no such image."""
    packed, diff_id, size = zeros_layer("zeros.bin", 64 << 20)
    image = Image(layers=[packed], diff_ids=[diff_id], config_extra={"Cmd": ["/nothing"]})
    upload = tmp_path / "zeros.tar"
    upload.write_bytes(docker_save(image, oci=True))
    assert upload.stat().st_size < 100_000 and size > 4 * (IMAGE_QUOTA_MB << 20)
    since = datetime.datetime.now() - datetime.timedelta(seconds=2)
    try:
        events = _upload(server.stub("bob"), upload, "image", "bob-zeros", until="BUILT")
        assert _stages(events) == ["RECEIVING", "UPLOADED", "REFUSED"], events
        assert events[-1].message == (
            f"the image unpacks to more than {IMAGE_QUOTA_MB} MiB, the competition's quota "
            "(max_image_upload_mb counts the unpacked layers): leave out what the bot does "
            "not need")
        until = datetime.datetime.now() + datetime.timedelta(seconds=1)
        loads = docker_client.events(since=since, until=until, decode=True,
                                     filters={"type": "image", "event": "load"})
        assert image.image_id not in {event.get("id") for event in loads}
        assert not image_present(docker_client, image.image_id)
    finally:
        if image_present(docker_client, image.image_id):
            docker_client.images.remove(image.image_id, force=True)


# --- hole 1: an image upload naming tags --------------------------------------------------
class _Victims:
    """The base image's tag and a rival's bot tag, their ids, and the attacker's image."""

    def __init__(self, client: Any, base: BaseImage) -> None:
        self.client = client
        self.base_id = base.image_id
        rival = Image.of(layer({"rival": secrets.token_bytes(16)}))
        self.rival_tag = f"arena-bot/rival-{secrets.token_hex(4)}:s1"
        self._load(rival)
        client.images.get(rival.image_id).tag(*self.rival_tag.split(":"))
        self.rival_id = rival.image_id
        self.evil = Image.of(layer({"evil": secrets.token_bytes(16)}))

    def _load(self, image: Image) -> None:
        self.client.images.load(docker_save(image))

    def attack(self, tmp_path: Path, spelling: str) -> Path:
        """The attacker's upload: a clean manifest.json, then another spelling of it naming
        the base's and the rival's tags."""
        path = tmp_path / "evil.tar"
        path.write_bytes(docker_save(self.evil, manifests=(
            ("manifest.json", None), (spelling, [BASE_TAG, self.rival_tag]))))
        return path

    def intact(self) -> bool:
        """The rival's tag names its image; the base's, a base the arena built (other test
        sessions on this engine may build theirs meanwhile: never the attacker's image)."""
        base = self.client.images.get(BASE_TAG)
        return (base.id != self.evil.image_id and base_problem(base.attrs) is None
                and _tag_id(self.client, self.rival_tag) == self.rival_id)

    def genuine_layers(self) -> set[str]:
        """The layers of the base images the arena built on this engine."""
        bases = self.client.images.list(filters={"label": INPUTS_LABEL})
        return {b.attrs["RootFS"]["Layers"][0] for b in bases if base_problem(b.attrs) is None}

    def clean_up(self) -> None:
        if _tag_id(self.client, BASE_TAG) == self.evil.image_id:  # a failed test leaves none
            self.client.images.get(self.base_id).tag(*BASE_TAG.split(":"))
        for ref in (self.rival_tag, self.rival_id, self.evil.image_id):
            try:
                self.client.images.remove(ref, force=True)
            except Exception:  # noqa: BLE001 — gone already
                pass


@pytest.fixture
def victims(docker_client: Any, base_image: BaseImage) -> Iterator[_Victims]:
    made = _Victims(docker_client, base_image)
    yield made
    made.clean_up()


@pytest.mark.parametrize("spelling", ["./manifest.json", ".//manifest.json",
                                      "manifest.json/"])
def test_an_image_upload_moves_no_tag_and_leaves_nothing(
        server: RunningServer, victims: _Victims, tmp_path: Path, spelling: str) -> None:
    """ATTACK: a second manifest.json, spelled so the server's rewrite passed it untouched,
    naming ``arena/base:py311`` and a rival's ``arena-bot/<rival>:s1``: ``docker load`` took
    its tags (the last copy wins), even for an upload then refused. Now it is refused, naming
    the member, before the engine sees it: both tags name what they named (the base's, a base
    the arena built), and the attacker's image is not on the engine, tagged or not."""
    events = _upload(server.stub("bob"), victims.attack(tmp_path, spelling), "image",
                     "bob-evil", until="BUILT")
    assert _stages(events) == ["RECEIVING", "UPLOADED", "REFUSED"], events
    assert events[-1].message.startswith("the image archive holds 'manifest.json' twice")
    assert victims.intact()
    assert not image_present(victims.client, victims.evil.image_id)


def test_a_later_bot_directory_is_built_on_the_genuine_base(
        server: RunningServer, victims: _Victims, tmp_path: Path) -> None:
    """After the attack, a bot directory submitted is built on a base the arena built: its
    image's first layer is such a base's one layer (not the attacker's)."""
    _upload(server.stub("bob"), victims.attack(tmp_path, "./manifest.json"), "image",
            "bob-evil", until="BUILT")
    with payload(GREEDY, "directory") as made:
        events = _upload(server.stub("alice"), made.path, "directory", "alice-greedy",
                         until="ENTERED")
    assert _stages(events)[-1] == "ENTERED", [(STAGE(e.stage), e.message) for e in events]
    tag = f"arena-bot/alice-greedy:{events[-1].version}"
    deadline = time.monotonic() + 30
    while _tag_id(victims.client, tag) is None and time.monotonic() < deadline:
        time.sleep(0.2)
    built = victims.client.images.get(tag)
    assert built.attrs["RootFS"]["Layers"][0] in victims.genuine_layers()
    assert victims.intact()
    with contextlib.suppress(Exception):  # the ladder may be playing it: the server stops soon
        victims.client.images.remove(built.id, force=True)
