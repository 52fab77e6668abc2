"""The offline base image (deterministic, reused) and bot images built on it (real engine)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import secrets
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import docker.errors
import pytest

from arena.bots.images import (
    INPUTS_LABEL,
    BaseImage,
    build_base_image,
    build_bot_image,
    debian_mirror,
    find_base_image,
    inputs_key,
    pin_image,
    prepare_wheels,
    prune_images,
)
from arena.errors import ConfigError
from arena.model import MatchSpec, Termination

pytestmark = pytest.mark.docker
ROOT = Path(__file__).resolve().parents[2]


def _build_elsewhere(tmp_path: Path, tag: str, wheels: Path) -> dict[str, Any]:
    """Force a base build in a subprocess whose interpreter path differs from this one's (the
    same virtualenv reached through a symlink): the image must not depend on where the arena is
    installed (pip's console-script shebangs once leaked it into RECORD)."""
    alias = tmp_path / "the-same-venv-by-another-path"
    alias.symlink_to(Path(sys.prefix), target_is_directory=True)
    python = alias / "bin" / Path(sys.executable).name
    code = (
        "import json, sys; from pathlib import Path; "
        "from arena.bots.images import build_base_image; "
        "b = build_base_image(tag=sys.argv[1], force=True, wheels_dir=Path(sys.argv[2])); "
        "print(json.dumps({'id': b.image_id, 'digest': b.digest, 'reused': b.reused, "
        "'python': sys.executable}))"
    )
    proc = subprocess.run(
        [str(python), "-c", code, tag, str(wheels)], capture_output=True, text=True, timeout=600
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    result: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    assert result["python"] != sys.executable
    return result


@pytest.mark.serial  # force-builds base images with the real base's inputs
def test_base_image_is_deterministic_and_reused(
    base_image: BaseImage, docker_client: Any, tmp_path: Path
) -> None:
    """Two builds from the same inputs, by two processes through two interpreter paths, give
    the same layer digest; a third, unforced, reuses an image with those inputs.

    The first of the two is the run's own base when it carries these inputs (a fresh machine,
    as in CI: built minutes before by another process); a forced build here otherwise, or when
    their digests differ, since the run's base may come from an older debootstrap (the same
    recipe and inputs, older packages): then the two forced builds must agree."""
    wheels = prepare_wheels(tmp_path / "wheels")  # fixed inputs, whatever the tree does meanwhile
    key = inputs_key(debian_mirror(), sorted(wheels.glob("*.whl")))
    tag = "arena/base-test:determinism"
    built: list[str] = []
    try:
        elsewhere = _build_elsewhere(tmp_path, tag, wheels)
        built.append(elsewhere["id"])
        assert not elsewhere["reused"]
        labels = docker_client.images.get(base_image.image_id).labels or {}
        if labels.get(INPUTS_LABEL) != key or base_image.digest != elsewhere["digest"]:
            here = build_base_image(tag=tag, force=True, client=docker_client, wheels_dir=wheels)
            built.append(here.image_id)
            assert not here.reused
            assert here.digest == elsewhere["digest"]
        reused = build_base_image(tag=tag, client=docker_client, wheels_dir=wheels)
        assert reused.reused
        assert (docker_client.images.get(reused.image_id).labels or {})[INPUTS_LABEL] == key
        assert docker_client.images.get(tag).id == reused.image_id
    finally:
        with contextlib.suppress(docker.errors.ImageNotFound):
            docker_client.images.remove(tag)  # untag only: the image may be the real base too
        keep = docker_client.images.get(base_image.tag).id
        for image_id in set(built) - {keep}:
            with contextlib.suppress(docker.errors.APIError):
                docker_client.images.remove(image_id, force=True)


def test_base_image_runs_the_bot_runtime(base_image: BaseImage, docker_client: Any) -> None:
    out = docker_client.containers.run(
        base_image.image_id,
        ["python3", "-c", "import grpc, arena.v1.bot_pb2, arena.sdk; print(grpc.__version__)"],
        network_mode="none",
        read_only=True,
        user="65534:65534",
        remove=True,
    )
    import grpc

    assert out.decode().strip() == grpc.__version__


def test_bot_start_compiles_nothing(base_image: BaseImage, docker_client: Any) -> None:
    """Every module a bot's start imports comes from valid bytecode in the image: the root is
    read-only, so stale bytecode would be compiled again at every start of every bot."""
    out = docker_client.containers.run(
        base_image.image_id,
        ["python3", "-v", "-c", "import arena.sdk.client, arena.games.lost_cities.codec"],
        network_mode="none", read_only=True, user="65534:65534", remove=True, stderr=True,
    ).decode()
    imported = [line for line in out.splitlines() if line.startswith("# code object from")]
    from_source = [line for line in imported if not line.rstrip("'").endswith(".pyc")]
    assert len(imported) > 100
    assert from_source == []
    assert "bytecode is stale" not in out

def test_bot_image_builds_on_the_local_base(base_image: BaseImage, docker_client: Any) -> None:
    built = build_bot_image(ROOT / "sample_bots" / "lost-cities" / "random", client=docker_client)
    image = docker_client.images.get(built.image_id)
    assert image.attrs["Config"]["User"] == "65534:65534"
    assert image.attrs["RootFS"]["Layers"][0] == base_image.digest
    assert pin_image(built.image_id, client=docker_client) == built


@pytest.mark.serial  # moves the base tag to an impostor
def test_a_base_tag_naming_an_image_the_arena_did_not_build_is_refused(
        base_image: BaseImage, docker_client: Any) -> None:
    """ATTACK: a tag is a name anything can be given. The image a base tag names is used only
    if it is a base the arena built (the hash of its inputs, one imported layer), and then by
    id; a bot image built on the base (two layers, the label empty) or an image without the
    label is refused, saying how to mend it (shown on a throwaway tag of the base's name)."""
    tag = f"arena/base:test-{secrets.token_hex(4)}"
    repository, version = tag.split(":")
    bot = build_bot_image(ROOT / "sample_bots" / "lost-cities" / "random", client=docker_client)
    bare = docker_client.images.get(json.loads(docker_client.api.import_image_from_data(
        b"\0" * 1024).strip().splitlines()[-1])["status"])
    try:
        for impostor in (bot.image_id, bare.id):
            docker_client.images.get(impostor).tag(repository, version)
            with pytest.raises(ConfigError, match=f"tagged {tag} .* is not a base image the "
                                                  "arena built: it carries no hash of a base "
                                                  "image's inputs.*build-base"):
                find_base_image(tag, docker_client)
        docker_client.images.get(base_image.image_id).tag(repository, version)
        found = find_base_image(tag, docker_client)
        assert found is not None and found.image_id == base_image.image_id
    finally:
        for ref in (tag, bare.id):
            with contextlib.suppress(docker.errors.APIError):
                docker_client.images.remove(ref, force=True)


def test_sandbox_builds_a_bot_directory_once_per_content(
    base_image: BaseImage, docker_client: Any, tmp_path: Path
) -> None:
    """The Docker sandbox keys its builds by the bot's content identity: touched files or a
    second checkout reuse the image; an edit builds a new one at the next match."""
    import os

    from arena.sandbox.docker import DockerSandbox
    from tests.support.containers import play

    sandbox = DockerSandbox(client=docker_client, run_janitor=False)
    bot = tmp_path / "bot"
    shutil.copytree(ROOT / "sample_bots" / "lost-cities" / "random", bot)
    (bot / "marker.txt").write_text("content one\n")  # an image of its own
    built: list[str] = []
    try:
        assert str(play(sandbox, bot, tmp_path / "logs").termination) == "normal"
        first = sandbox.built_image(bot)
        assert first is not None
        built.append(first)
        for path in bot.iterdir():
            os.utime(path)
        checkout = tmp_path / "elsewhere" / "bot"
        shutil.copytree(bot, checkout, copy_function=shutil.copyfile)
        assert sandbox.built_image(bot) == first and sandbox.built_image(checkout) == first

        (bot / "marker.txt").write_text("content two\n")
        assert sandbox.built_image(bot) is None
        assert str(play(sandbox, bot, tmp_path / "logs").termination) == "normal"
        second = sandbox.built_image(bot)
        assert second is not None and second != first
        built.append(second)
    finally:
        for image_id in built:
            with contextlib.suppress(docker.errors.APIError):
                docker_client.images.remove(image_id, force=True)


def test_mirror_comes_from_apt_sources(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ARENA_DEBIAN_MIRROR", raising=False)
    (tmp_path / "sources.list").write_text(
        "# comment\ndeb [arch=amd64] http://one.invalid/ubuntu jammy main\n", encoding="utf-8"
    )
    parts = tmp_path / "sources.list.d"
    parts.mkdir()
    (parts / "debian.sources").write_text(
        "Types: deb-src\nURIs: http://src.invalid/debian\nSuites: bookworm\n\n"
        "Types: deb\n# a comment\nURIs: http://two.invalid/debian\nSuites: bookworm "
        "bookworm-updates\nComponents: main\n",
        encoding="utf-8",
    )
    (parts / "other.list.disabled").write_text("deb http://three.invalid/d bookworm main\n")
    sources = (tmp_path / "sources.list", parts)
    assert debian_mirror("bookworm", sources) == "http://two.invalid/debian"
    assert debian_mirror("jammy", sources) == "http://one.invalid/ubuntu"
    monkeypatch.setenv("ARENA_DEBIAN_MIRROR", "http://four.invalid/debian")
    assert debian_mirror("bookworm", sources) == "http://four.invalid/debian"


@pytest.mark.serial  # prunes every arena build no one pinned
def test_prune_removes_only_unneeded_arena_builds(
    base_image: BaseImage, docker_client: Any, tmp_path: Path
) -> None:
    def bot_dir(name: str) -> Path:
        directory = tmp_path / name
        shutil.copytree(ROOT / "sample_bots" / "lost-cities" / "random", directory)
        (directory / "marker.txt").write_text(name)  # distinct content: distinct images
        return directory

    pinned = build_bot_image(bot_dir("pinned"), client=docker_client).image_id
    tagged = build_bot_image(bot_dir("tagged"), client=docker_client).image_id
    docker_client.images.get(tagged).tag("user/mine", "1")
    loose = build_bot_image(bot_dir("loose"), client=docker_client).image_id
    # The user's own build on the base image (not through the arena) is never a candidate.
    own, _ = docker_client.images.build(
        path=str(bot_dir("own")), buildargs={"BASE_IMAGE": base_image.image_id},
        network_mode="none", rm=True,
    )
    try:
        dry = {c.image_id: c for c in prune_images({pinned}, dry_run=True, client=docker_client)}
        assert own.id not in dry and base_image.image_id not in dry
        assert dry[pinned].reason == "a submitted bot"
        assert dry[tagged].reason == "tagged user/mine:1"
        assert dry[loose].reason == "" and not dry[loose].removed
        docker_client.images.get(loose)  # a dry run removes nothing

        done = {c.image_id: c for c in prune_images({pinned}, client=docker_client)}
        assert done[loose].removed and not done[pinned].removed and not done[tagged].removed
        with pytest.raises(docker.errors.ImageNotFound):
            docker_client.images.get(loose)
        for kept in (pinned, tagged, own.id, base_image.image_id):
            docker_client.images.get(kept)
    finally:
        for image_id in (pinned, tagged, loose, own.id):
            with contextlib.suppress(docker.errors.ImageNotFound):
                docker_client.images.remove(image_id, force=True)


@pytest.fixture(scope="module")
def slim_like_python(
    base_image: BaseImage, docker_client: Any, tmp_path_factory: Any
) -> Iterator[str]:
    """A stand-in for the public ``python:3.11-slim`` (no container registry here): Debian's
    python3 with pip and without the arena runtime or an EXTERNALLY-MANAGED marker, as in the
    real one."""
    from arena.bots.images import build, mirror, rootfs

    work = tmp_path_factory.mktemp("slim")
    tree = rootfs.debootstrap(mirror.debian_mirror(), rootfs.PACKAGES, lambda _: None)
    stage = work / "stage"
    subprocess.run(["cp", "-a", f"{tree}/.", str(stage)], check=True)
    (stage / "usr/lib/python3.11/EXTERNALLY-MANAGED").unlink(missing_ok=True)
    pip = [sys.executable, "-m", "pip"]
    subprocess.run([*pip, "download", "-q", "--no-deps", "-d", str(work), "pip"], check=True)
    site = stage / rootfs.SITE_PACKAGES
    subprocess.run([*pip, "install", "-q", "--no-deps", "--no-index", "--target", str(site),
                    *map(str, work.glob("pip-*.whl"))], check=True)
    tar = work / "rootfs.tar"
    rootfs.deterministic_tar(stage, tar)
    image = build.import_rootfs(
        docker_client, tar, "arena-test/python-slim:3.11", "test", "python3"
    )
    yield image.id
    with contextlib.suppress(docker.errors.APIError):  # ImageNotFound is an APIError too
        docker_client.images.remove(image.id, force=True)


AUTHOR_DOCKERFILE = """\
ARG BASE_IMAGE
FROM ${BASE_IMAGE}
WORKDIR /bot
COPY . /bot
RUN python3 -m pip install --no-cache-dir --no-index --no-deps /bot/wheels/*.whl
USER 65534:65534
CMD ["python3", "bot.py"]
"""
"""An author's own Dockerfile for a plain Python image: it installs the runtime's wheels."""


def test_public_python_image_path_with_wheels(
    slim_like_python: str, docker_client: Any, docker_sandbox: Any, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A bot image on a plain Python image: `arena images wheels` puts the runtime next to the
    bot, the author's own `docker build` installs it offline (the arena refuses the RUN that
    does it), and the image plays in the sandbox as a submitted image does."""
    from typer.testing import CliRunner

    from arena.bots import load_bot_dir
    from arena.bots.images import DockerfileError
    from arena.cli.main import app
    from arena.referee.match import play_match

    bot = tmp_path / "mybot"
    shutil.copytree(ROOT / "sample_bots" / "lost-cities" / "random", bot)
    (bot / "Dockerfile").write_text(AUTHOR_DOCKERFILE, encoding="utf-8")
    # the arena wheel's build requirements are installed here: pip builds it without first
    # installing them again into an isolated environment (the same wheel; the isolated build
    # is the base image's, and test_base_image_is_deterministic's). pip reads this variable
    # backwards: a false value turns isolation off.
    monkeypatch.setenv("PIP_NO_BUILD_ISOLATION", "0")
    out = CliRunner().invoke(app, ["images", "wheels", str(bot / "wheels")])
    assert out.exit_code == 0, out.output
    assert {w.name.split("-")[0] for w in (bot / "wheels").glob("*.whl")} >= {
        "arena", "grpcio", "protobuf"
    }
    with pytest.raises(docker.errors.ContainerError):  # the plain image has no arena runtime
        docker_client.containers.run(slim_like_python, ["python3", "-c", "import arena"],
                                     network_mode="none", remove=True)
    with pytest.raises(DockerfileError, match="line 5: RUN: not allowed"):
        build_bot_image(bot, base=slim_like_python, client=docker_client)
    built, _ = docker_client.images.build(  # the author's own build, on their machine
        path=str(bot), buildargs={"BASE_IMAGE": slim_like_python}, network_mode="none", rm=True
    )
    try:
        layers = docker_client.images.get(built.id).attrs["RootFS"]["Layers"]
        base_layer = docker_client.images.get(slim_like_python).attrs["RootFS"]["Layers"][0]
        assert len(layers) > 1 and layers[0] == base_layer
        spec = replace(load_bot_dir(ROOT / "sample_bots/lost-cities/random"), image=built.id,
                       directory=None)
        greedy = load_bot_dir(ROOT / "sample_bots/lost-cities/greedy")
        match = MatchSpec("lost-cities", 5, (spec, greedy), options={"rounds": 1})
        result = asyncio.run(play_match(match, sandbox=docker_sandbox, log_dir=tmp_path / "logs"))
        assert result.termination is Termination.NORMAL, result.detail
        assert result.decisions > 20
    finally:
        docker_client.images.remove(built.id, force=True)
