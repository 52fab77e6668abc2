"""Attack (issue 33, hole 2): the two legs of a duplicate encounter as a channel between one
bot's two seats, in the Docker sandbox (real engine, real matches).

The twin (``bots/twin``) plays leg 0 from seat 0 and, at the same time, leg 1 of the same deal
from seat 1: the sender moves host-wide state in wall-clock slots (12 MiB in its ``/tmp``: the
host's ``Shmem``; 400 threads: the host's thread count in ``/proc/loadavg``; a lock on its own
``bot.py``, which both containers mount), the receiver reads it (``/proc/meminfo``,
``sysinfo(2)``, ``/proc/loadavg``, ``flock``) and decodes 4 bits of the hand it is playing
against. With the containers of before (no masked ``/proc``, Docker's default seccomp profile)
it decodes them; in the arena's it decodes nothing.

The host's epochs (``arena.sandbox.epochs``) keep the legs of one deal apart in time, not the
instances of a bot in other matches meanwhile (a relay): the legs are played here outside them,
so what is tested is the sandbox alone."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from arena.bots.images import BaseImage
from arena.sandbox import hostview
from arena.sandbox.api import Limits
from arena.sandbox.docker import DockerSandbox
from tests.support.twins import play_legs, twin_copy, work_dir

pytestmark = [pytest.mark.docker, pytest.mark.slow]

CHANNELS = "shmem,sysinfo,loadavg,flock"
LIMITS = Limits(pids=512)
"""Room for the sender's 400 threads (the default 64 pids would keep that signal small)."""


class PreFixSandbox(DockerSandbox):
    """The containers of before: every hardening flag of ``run_options`` but no masked paths,
    no synthetic ``/proc`` files and Docker's default seccomp profile, started as they were
    (docker-py's ``containers.run``)."""

    def create_container(self, image: str, command: list[str] | None,
                         mounts: dict[str, dict[str, str]], match_id: str, seat: int, core: int,
                         environment: dict[str, str] | None = None) -> Any:
        options = self.run_options(match_id, seat, core)
        options["environment"].update(environment or {})
        options["security_opt"] = ["no-new-privileges"]
        return self.client.containers.run(image, command, volumes=mounts, **options)


@pytest.fixture
def work() -> Iterator[Path]:
    path = work_dir()
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture(scope="module")
def strict_profile() -> None:
    """The arena's seccomp profile needs Docker's default one on this host; CI installs it
    (``.ci/docker-setup.sh``), so there its absence is a failure."""
    note = hostview.seccomp_note()
    if note is None:
        return
    if os.environ.get("ARENA_REQUIRE_DOCKER") == "1":
        pytest.fail(note, pytrace=False)
    pytest.skip(note)


@pytest.mark.serial  # measures the host (caches, memory, timing): no neighbours
def test_without_the_masks_the_twin_decodes_its_opponents_hand(
    base_image: BaseImage, docker_client: Any, work: Path
) -> None:
    sandbox = PreFixSandbox(LIMITS, client=docker_client, run_janitor=False)
    sent, heard = play_legs(twin_copy(work, CHANNELS), sandbox, work / "logs")
    for channel in CHANNELS.split(","):
        assert heard.get(channel) == f"decoded {sent}", (channel, heard)


def test_in_the_arenas_containers_the_twin_decodes_nothing(
    base_image: BaseImage, docker_client: Any, work: Path, strict_profile: None
) -> None:
    sandbox = DockerSandbox(LIMITS, client=docker_client, run_janitor=False)
    sent, heard = play_legs(twin_copy(work, CHANNELS), sandbox, work / "logs")
    assert set(heard) >= set(CHANNELS.split(",")), heard
    assert not any(value.startswith("decoded") for value in heard.values()), heard
    assert heard["sysinfo"] == "blocked EPERM" and heard["flock"] == "blocked EPERM"
    assert heard["shmem"] == "none" and heard["loadavg"] == "none"  # static files
