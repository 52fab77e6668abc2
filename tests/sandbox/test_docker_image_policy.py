"""Images that cannot escape (hole 7, real engine): an image declaring ``VOLUME`` got a fresh
writable host directory per container (past the read-only root) that was never removed. It is
refused at submit, a catalogue row pointing at one is refused before any match, and a container
the sandbox started from one anyway leaves no volume behind."""

from __future__ import annotations

import asyncio
import dataclasses
import re
import shutil
from pathlib import Path
from typing import Any

import docker.errors
import pytest
from typer.testing import CliRunner

from arena.bots import catalogue, load_bot_dir
from arena.bots.home import HOME_ENV
from arena.bots.images import BaseImage, build_bot_image
from arena.bots.submit import submit_bot
from arena.errors import ConfigError
from arena.model import BotSpec, MatchResult, Termination
from arena.sandbox.docker import DockerBot, DockerSandbox
from tests.support.containers import config_variant

pytestmark = pytest.mark.docker
ROOT = Path(__file__).resolve().parents[2]
RANDOM = ROOT / "sample_bots" / "lost-cities" / "random"
GREEDY = ROOT / "sample_bots" / "lost-cities" / "greedy"


class VolumeWatch(DockerSandbox):
    """The Docker sandbox, noting the volumes mounted in each container it starts."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.volumes: list[str] = []

    async def start(self, bot: BotSpec, socket_dir: Path, match_id: str, seat: int) -> DockerBot:
        """Start as the sandbox does, then read the container's mounts."""
        started = await super().start(bot, socket_dir, match_id, seat)
        mounts = self.client.containers.get(started.container_id).attrs["Mounts"]
        self.volumes += [m["Name"] for m in mounts if m["Type"] == "volume"]
        return started


def _never(bot: BotSpec) -> MatchResult:
    raise AssertionError(f"a refused image plays no smoke match ({bot.name})")


@pytest.fixture
def volume_image(base_image: BaseImage, docker_client: Any) -> Any:
    """The random sample bot's image with ``VOLUME /data`` added (removed afterwards)."""
    random = build_bot_image(RANDOM, client=docker_client)
    image = config_variant(docker_client, random.image_id, "VOLUME /data")
    yield image
    docker_client.images.remove(image, force=True)


def test_an_image_declaring_a_volume_is_refused_at_submit(
    volume_image: str, docker_client: Any, tmp_path: Path
) -> None:
    """ATTACK: `arena submit` of an image with `VOLUME /data`: refused in one line, nothing
    catalogued, no tag."""
    home = tmp_path / "home"
    with pytest.raises(ConfigError) as refused:
        submit_bot(volume_image, smoke_match=_never, game="lost-cities", name="vol",
                   version="1", client=docker_client, home=home)
    said = str(refused.value)
    assert said.startswith(f"refused: {volume_image}: the image declares VOLUME /data")
    assert "\n" not in said
    assert catalogue.list_bots(home=home) == []
    assert "arena-bot/vol:1" not in docker_client.images.get(volume_image).tags


def test_a_catalogued_image_with_a_volume_is_refused_before_any_match(
    volume_image: str, docker_client: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ATTACK: a catalogue row written before the check (as today's main wrote it) pointing at
    such an image: the sandbox's check refuses it, and `arena match` exits 2 with nothing
    played."""
    from arena.cli.main import app

    monkeypatch.setenv(HOME_ENV, str(tmp_path / "home"))
    catalogue.add("vol", "1", "lost-cities", volume_image, volume_image)
    spec = catalogue.lookup("vol")
    assert spec is not None
    with pytest.raises(ConfigError, match=r"refused to run vol@1 \(image sha256:.*\): the image "
                                          r"declares VOLUME /data"):
        DockerSandbox(client=docker_client).check([spec])
    logs = tmp_path / "logs"
    out = CliRunner().invoke(app, ["match", "vol", str(GREEDY), "--sandbox", "docker",
                                   "--log-dir", str(logs)])
    assert out.exit_code == 2, out.output
    assert "declares VOLUME /data" in " ".join(out.output.split())
    assert not logs.exists()


def test_a_container_leaves_no_volume_behind(
    volume_image: str, docker_client: Any, tmp_path: Path
) -> None:
    """ATTACK: played anyway (the check bypassed), each container got an anonymous volume at
    /data that removing the container left on the host, one per match, filling the disk over a
    ladder. The sandbox removes containers with their volumes."""
    from arena.referee.match import play_match
    from arena.referee.service import line_up

    sandbox = VolumeWatch(client=docker_client)
    spec = BotSpec("vol", "lost-cities", image=volume_image, version="1", digest=volume_image)
    lineup = line_up([spec, dataclasses.replace(spec, name="vol2")], sandbox=sandbox,
                     check=False)
    result = asyncio.run(play_match(lineup.match(options={"rounds": 1}), sandbox=sandbox,
                                    log_dir=tmp_path / "logs"))
    assert result.termination is Termination.NORMAL, result.detail
    assert len(sandbox.volumes) == 2  # one per seat, while the match ran
    for name in sandbox.volumes:
        with pytest.raises(docker.errors.NotFound):
            docker_client.volumes.get(name)


def test_the_janitor_removes_leftover_volumes_too(
    volume_image: str, docker_client: Any
) -> None:
    """A container of a dead referee is removed by the janitor with its volume."""
    import socket

    from arena.sandbox.docker import LABEL_MANAGED, LABEL_OWNER, janitor

    dead_owner = f"{socket.gethostname()}:{2**22 + 54321}"
    container = docker_client.containers.create(
        volume_image, ["true"], network_mode="none",
        labels={LABEL_MANAGED: "1", LABEL_OWNER: dead_owner},
    )
    volumes = [m["Name"] for m in container.attrs["Mounts"] if m["Type"] == "volume"]
    assert volumes
    janitor(docker_client)  # (another test process's janitor may have been quicker: the same)
    with pytest.raises(docker.errors.NotFound):
        docker_client.containers.get(container.id)
    for name in volumes:
        with pytest.raises(docker.errors.NotFound):
            docker_client.volumes.get(name)


def test_a_refused_dockerfile_is_refused_before_any_match(
    base_image: BaseImage, docker_client: Any, tmp_path: Path
) -> None:
    """A bot directory whose Dockerfile says what the arena does not build (here `RUN`) is one
    ConfigError from the sandbox's check, naming the line: `arena match` exits 2 with nothing
    played, instead of a match the bot forfeits (no_start) at its build."""
    from arena.cli.main import app

    bot = tmp_path / "runner"
    shutil.copytree(RANDOM, bot, ignore=shutil.ignore_patterns("__pycache__"))
    dockerfile = bot / "Dockerfile"
    text = dockerfile.read_text(encoding="utf-8") + "RUN head -c 200G /dev/zero > /fill\n"
    dockerfile.write_text(text, encoding="utf-8")
    line = f"{dockerfile} line {text.count(chr(10))}: RUN"
    with pytest.raises(ConfigError, match=re.escape(line)):
        DockerSandbox(client=docker_client).check([load_bot_dir(bot)])
    logs = tmp_path / "logs"
    out = CliRunner().invoke(app, ["match", str(bot), str(RANDOM), "--sandbox", "docker",
                                   "--log-dir", str(logs)])
    assert out.exit_code == 2, out.output
    assert "line" in out.output and "RUN" in out.output and not logs.exists()


def test_an_image_over_the_size_cap_is_refused_at_submit(
    base_image: BaseImage, docker_client: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Hole 8's cap on a submitted image (ARENA_MAX_IMAGE_MB, default 1024): the random bot's
    image (about 140 MiB with its base) under a cap of 1 MiB is refused before its smoke
    match."""
    image = build_bot_image(RANDOM, client=docker_client).image_id
    monkeypatch.setenv("ARENA_MAX_IMAGE_MB", "1")
    home = tmp_path / "home"
    with pytest.raises(ConfigError, match=r"MiB, over the cap of 1 MiB \(ARENA_MAX_IMAGE_MB\)"):
        submit_bot(image, smoke_match=_never, game="lost-cities", name="big", version="1",
                   client=docker_client, home=home)
    assert catalogue.list_bots(home=home) == []
