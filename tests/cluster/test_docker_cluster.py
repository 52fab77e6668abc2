"""Container matches on the cluster (real Docker engine): each running match's seats are pinned
to distinct cores and no core carries more than its even share (read from the running
containers' cpusets; on a machine with 2 cores two matches must share, the allocator's
disjointness with enough cores is tested across processes in tests/sandbox/test_cores.py); a
submitted image a worker lacks is shipped from the head with `docker save` / `docker load` and
keeps its id."""

from __future__ import annotations

import asyncio
import secrets
import shutil
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from arena.bots.images import BaseImage, build_bot_image
from arena.cluster.session import open_cluster
from arena.cluster.shipping import image_present, load_image, save_image
from arena.ladder.config import load_ladder
from arena.ladder.reports import load_matches
from arena.ladder.runner import run_ladder
from arena.model import BotSpec, MatchSpec, TimeControl
from arena.sandbox.cores import host_cores
from tests.support.cluster import PACER, ladder_file, pacers

pytestmark = [pytest.mark.docker, pytest.mark.slow]


@pytest.fixture(scope="module")
def client(docker_client: Any) -> Any:
    return docker_client


@pytest.fixture(scope="module")
def base(base_image: BaseImage) -> BaseImage:
    return base_image


def _cpusets(client: Any, prefix: str) -> dict[tuple[str, str], str]:
    """(match, seat) → cpuset of the running containers of matches whose id starts so."""
    found = {}
    for container in client.containers.list(filters={"label": "arena.managed=1"}):
        labels = container.labels
        if labels.get("arena.match", "").startswith(prefix):
            cpuset = container.attrs["HostConfig"]["CpusetCpus"]
            found[(labels["arena.match"], labels["arena.seat"])] = cpuset
    return found


def test_container_seats_get_distinct_evenly_shared_cores(
        tmp_path: Path, client: Any, base: BaseImage) -> None:
    name = f"cores{secrets.token_hex(3)}"
    bots = pacers(tmp_path / "bots", ["ann", "bob"])  # two matches, at once
    cfg = load_ladder(ladder_file(tmp_path / "l.toml", name, bots, sandbox="docker",
                                  concurrency=2))
    samples: list[dict[tuple[str, str], str]] = []
    done = threading.Event()

    def sample() -> None:
        import docker.errors

        while not done.is_set():
            try:
                samples.append(_cpusets(client, name))
            except docker.errors.NotFound:  # a container went away while it was listed
                pass
            time.sleep(0.05)

    sampler = threading.Thread(target=sample)
    sampler.start()
    try:
        summary = asyncio.run(run_ladder(cfg))
    finally:
        done.set()
        sampler.join()
    assert summary.played == 2 and summary.void == 0
    assert all(str(m.termination) == "normal" for m in load_matches(cfg))
    cores = {str(c) for c in host_cores()}
    seen_pairs = 0
    for snapshot in samples:
        assert set(snapshot.values()) <= cores
        by_match: dict[str, list[str]] = {}
        for (match, _), cpuset in snapshot.items():
            by_match.setdefault(match, []).append(cpuset)
        for pair in by_match.values():
            assert len(set(pair)) == len(pair), f"two seats of a match share a core: {snapshot}"
            seen_pairs += len(pair) == 2
        # at most 2 matches x 2 seats run at once: no core carries more than its even share
        load = Counter(snapshot.values())
        assert max(load.values(), default=0) <= -(-4 // len(cores)), snapshot
    assert seen_pairs, "no match was seen with both containers running"


def test_a_missing_image_is_shipped_from_the_head_and_keeps_its_id(
        tmp_path: Path, client: Any, base: BaseImage) -> None:
    unique = tmp_path / "shipped"
    shutil.copytree(PACER, unique, ignore=shutil.ignore_patterns("__pycache__"))
    (unique / "nonce.txt").write_text(secrets.token_hex(8))  # an image no one else has
    image_id = build_bot_image(unique, base=base.image_id, client=client).image_id
    saved = tmp_path / "saved.tar"
    save_image(client, image_id, saved)
    client.images.remove(image_id, force=True)
    assert not image_present(client, image_id)
    asked: list[str] = []

    def from_head(wanted: str, path: Path) -> None:
        asked.append(wanted)
        shutil.copy(saved, path)

    bot = BotSpec(name="shipped", game="lost-cities", image=image_id, version="1",
                  digest=image_id)
    spec = MatchSpec("lost-cities", 3, (bot, bot), options={"rounds": 1},
                     time_control=TimeControl(2000, 0, 20_000), match_id="ship-image-l0")

    async def play() -> Any:
        async with open_cluster(None, workers=1, images=from_head) as session:
            return await session.player(spec, sandbox="docker", log_dir=tmp_path / "logs")

    try:
        result = asyncio.run(play())
        assert asked == [image_id]
        assert str(result.termination) == "normal", result.detail
        assert image_present(client, image_id)  # loaded under the same id
        load_image(client, saved, image_id)  # loading again checks the id again
    finally:
        client.images.remove(image_id, force=True)
