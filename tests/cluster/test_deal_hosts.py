"""The legs of a deal on a cluster of two hosts never share a kernel.

Two `arena worker` processes modelled as two hosts (``own_host``: each with its own boot id
and its own epoch state) serve a head in this process; four deals are played leg after leg, as
the ladder runner plays them (the second leg once the first has ended). The head places each
second leg on the other kernel: where any worker could take it, four deals would all split by
luck once in sixteen runs."""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path

import pytest

from arena.bots.manifest import load_bot_dir
from arena.cluster.security import CertFiles
from arena.cluster.session import open_cluster
from arena.cluster.settings import ClusterSettings
from arena.model import MatchSpec, Termination, TimeControl
from tests.support.cluster import LOOPBACK, free_port, own_host, pacers, start, worker_args

pytestmark = [pytest.mark.integration, pytest.mark.slow]


def test_the_second_leg_of_a_deal_goes_to_another_host(
        tmp_path: Path, certs: CertFiles, procs: list) -> None:  # type: ignore[type-arg]
    address = f"tls://{LOOPBACK}:{free_port()}"
    kernels = {name: str(uuid.uuid4()) for name in ("w1", "w2")}
    for name, boot in kernels.items():
        procs.append(start(worker_args(address, certs, name, tmp_path / f"cache-{name}"),
                           tmp_path / f"{name}.log", prefix=own_host(boot)))
    # quick pacers (1 ms a decision): where a leg runs is the point, not how long it lasts
    ann, bob = (load_bot_dir(p) for p in pacers(tmp_path / "bots", ["ann", "bob"], pace_s=0.001))
    control = TimeControl(startup_ms=20000)

    async def head() -> dict[str, str]:
        settings = ClusterSettings(listen=address, tls=certs.hosts["head"], wait_s=60)
        async with open_cluster(settings, workers=0) as session:
            player = session.player
            for deal in range(4):
                seed = 1000 + deal
                for leg, seats in enumerate(((ann, bob), (bob, ann))):
                    spec = MatchSpec("lost-cities", seed, seats, {"rounds": 1}, control,
                                     f"hosts-{deal}-l{leg}")
                    result = await player(spec, sandbox="process", log_dir=tmp_path / "logs")
                    assert result.termination is Termination.NORMAL, result.detail
            return dict(player.placements)

    placements = asyncio.run(head())
    assert set(placements.values()) <= {f"boot:{k}" for k in kernels.values()}
    for deal in range(4):
        first, second = placements[f"hosts-{deal}-l0"], placements[f"hosts-{deal}-l1"]
        assert first != second, f"both legs of deal {deal} ran on {first}"
