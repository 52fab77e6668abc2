"""Docker for the tests: a real engine or a clear skip (a failure under ARENA_REQUIRE_DOCKER=1,
as in CI), the base images built once per run whatever the number of pytest-xdist workers, the
containers a test process started, bot directories and a short match in a sandbox."""

from __future__ import annotations

import asyncio
import fcntl
import io
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import docker.errors
import pytest

from arena.bots.images import BaseImage
from arena.model import BotSpec, MatchResult
from tests.support.paths import RANDOM_BOT

REQUIRE_ENV = "ARENA_REQUIRE_DOCKER"
PREBUILT_ENV = "ARENA_TEST_BASE_IMAGES"
"""A directory of base images built for this run before pytest started (``scripts/test.sh``,
``python -m tests.support.containers DIR FLAVOR...``): ``base-image-FLAVOR.json`` each."""

SmokeMatch = Callable[[BotSpec], MatchResult]


def require_docker() -> None:
    """Skip the calling test without an engine (fail instead under ARENA_REQUIRE_DOCKER=1)."""
    from arena.sandbox.docker import docker_available

    if docker_available(timeout=5.0):
        return
    message = "no Docker engine answers (run .ci/docker-setup.sh)"
    if os.environ.get(REQUIRE_ENV) == "1":
        pytest.fail(f"{message}, and {REQUIRE_ENV}=1", pytrace=False)
    pytest.skip(message)


def base_image_for(client: Any, flavor: str, shared: Path | None = None) -> BaseImage:
    """The local base image of ``flavor``, built (or found) once per test run: the first pytest
    process to get here builds it under a lock in ``shared`` (a directory every xdist worker of
    the run sees); the others wait, then take its result. ``shared`` None: build (or reuse) here."""
    from arena.bots.images import build_base_image

    if os.geteuid() != 0:
        if os.environ.get(REQUIRE_ENV) == "1":
            pytest.fail("building the base image needs root", pytrace=False)
        pytest.skip("building the base image needs root")
    prebuilt = _recorded(Path(os.environ.get(PREBUILT_ENV) or "/nonexistent"), flavor, client)
    if prebuilt is not None:  # even a reuse costs a minute: the inputs' wheels are made again
        return prebuilt
    if shared is None:
        return build_base_image(flavor_name=flavor, client=client)
    done = shared / f"base-image-{flavor}.json"
    with (shared / f"base-image-{flavor}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if done.exists():
            image = BaseImage(**json.loads(done.read_text()))
            try:
                client.images.get(image.image_id)  # still there
                return image
            except docker.errors.ImageNotFound:
                pass
        image = build_base_image(flavor_name=flavor, client=client)
        done.write_text(json.dumps(image.__dict__))
        return image


def _recorded(directory: Path, flavor: str, client: Any) -> BaseImage | None:
    """The base image of ``flavor`` recorded in ``directory``, if the engine still has it."""
    try:
        image = BaseImage(**json.loads((directory / f"base-image-{flavor}.json").read_text()))
        client.images.get(image.image_id)
    except (OSError, ValueError, TypeError, docker.errors.ImageNotFound):
        return None
    return image


def prebuild(directory: Path, flavors: list[str]) -> int:
    """Build (or reuse) each flavor's base image and record it in ``directory`` for the tests
    of this run (``PREBUILT_ENV``); a flavor that fails is left to the tests, named here."""
    from arena.bots.images import build_base_image
    from arena.bots.images.build import docker_client

    directory.mkdir(parents=True, exist_ok=True)
    client = docker_client(timeout=600)
    failed = 0
    for flavor in flavors:
        try:
            image = build_base_image(flavor_name=flavor, client=client)
        except Exception as exc:  # noqa: BLE001 — the tests build it again and say why
            print(f"test.sh: the {flavor} base image did not build here: {exc}")
            failed += 1
            continue
        (directory / f"base-image-{flavor}.json").write_text(json.dumps(image.__dict__))
        print(f"base image {flavor}: {image.image_id[:19]}{' (reused)' if image.reused else ''}")
    return 1 if failed else 0


if __name__ == "__main__":
    import sys

    raise SystemExit(prebuild(Path(sys.argv[1]), sys.argv[2:]))


def arena_containers(client: Any) -> list[Any]:
    """The arena containers this test process started (running or not). Scoped by the owner
    label, so tests running at the same time on one engine (other xdist workers, other runs) do
    not see each other's."""
    from arena.sandbox.docker import LABEL_OWNER, _owner

    labels = ["arena.managed=1", f"{LABEL_OWNER}={_owner()}"]
    return list(client.containers.list(all=True, sparse=True, filters={"label": labels}))


def make_bot_dir(root: Path, source: str, name: str = "probe") -> Path:
    """A bot directory without a Dockerfile (runs on the base image, mounted at /bot)."""
    directory = root / name
    directory.mkdir(parents=True)
    (directory / "bot.py").write_text(source, encoding="utf-8")
    (directory / "bot.toml").write_text(
        f'name = "{name}"\ngame = "lost-cities"\nversion = "1"\ncommand = ["python3", "bot.py"]\n',
        encoding="utf-8",
    )
    for path in (root, directory, directory / "bot.py", directory / "bot.toml"):
        path.chmod(0o755)
    return directory


class RecordingSandbox:
    """A Docker sandbox that remembers the socket directories the referee handed it."""

    name = "docker"

    def __init__(self, client: Any) -> None:
        from arena.sandbox.docker import DockerSandbox

        self.inner = DockerSandbox(client=client)
        self.socket_dirs: list[Path] = []

    def check(self, bots: Any) -> None:
        self.inner.check(bots)

    def cpu_meter_problem(self) -> str | None:
        return self.inner.cpu_meter_problem()

    async def start(self, bot: Any, socket_dir: Path, match_id: str, seat: int) -> Any:
        self.socket_dirs.append(socket_dir)
        return await self.inner.start(bot, socket_dir, match_id, seat)

    def leftovers(self) -> list[Path]:
        """Socket directories (or their per-match parents) that still exist."""
        paths = {p for d in self.socket_dirs for p in (d, d.parent)}
        return sorted(p for p in paths if p.exists())


STARTUP_MS = 6000
"""The bots' start-up limit in ``play``: a bot that never connects forfeits after it (the
hostile ``never_connect``); 2,500 ms let both bots of a plain match fail to start on a machine
loaded past 10 on 2 cores (a container and its Python took longer to say Hello)."""


def play(sandbox: Any, bot_dir: Path, log_dir: Path, *, seed: int = 1, rounds: int = 1,
         move_time_ms: int = 1000) -> Any:
    """One short (1-round) Lost Cities match: ``bot_dir`` in seat 0 against the random bot."""
    from arena.bots import load_bot_dir
    from arena.model import MatchSpec, TimeControl
    from arena.referee.match import play_match

    spec = MatchSpec(
        "lost-cities",
        seed,
        (load_bot_dir(bot_dir), load_bot_dir(RANDOM_BOT)),
        options={"rounds": rounds},
        time_control=TimeControl(move_time_ms=move_time_ms, startup_ms=STARTUP_MS),
    )
    return asyncio.run(play_match(spec, sandbox=sandbox, log_dir=log_dir))


def config_variant(client: Any, image: str, line: str) -> str:
    """The id of an image on the same layers as ``image`` with one more configuration line
    (``ENV``, ``CMD``, ``VOLUME``...: no layer), as an author could make and submit it."""
    dockerfile = f"FROM {image}\n{line}\n".encode()
    built, _ = client.images.build(fileobj=io.BytesIO(dockerfile), network_mode="none",
                                   pull=False, rm=True, forcerm=True)
    return str(built.id)
