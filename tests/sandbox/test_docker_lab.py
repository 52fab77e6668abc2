"""OpenSpiel bots in containers: the lab's example bot (OpenSpiel's MCTS, and its ISMCTS), its
directory holding bot.py alone, is built on the lab base image (``base = "lab"``: numpy and
OpenSpiel are the base's) and plays a whole match of each of the four games against itself
through arena.lab.adapter, with small budgets (the twenty-match run per game and sandbox is
``benchmarks/lab_bots.py``'s, docs/lab.md)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from arena.bots import load_bot_dir
from arena.bots.images import BaseImage
from arena.model import MatchSpec, Termination, TimeControl
from arena.referee.match import play_match
from tests.support.containers import RecordingSandbox, arena_containers
from tests.support.goofspiel import goofspiel
from tests.support.lab import GAMES, SMALL, lab_bot

pytestmark = [pytest.mark.docker, pytest.mark.slow]

SIMULATIONS = 4
"""A decision's simulations: enough to search, few enough to keep the four matches short."""
TIME = TimeControl(move_time_ms=5000, startup_ms=60_000)
"""Margins for a loaded host: the bots' answers take milliseconds, their start about a second."""


def test_openspiel_bots_play_every_game_in_containers_on_the_lab_base(
    lab_base_image: BaseImage, docker_client: Any, tmp_path: Path
) -> None:
    goofspiel()
    sandbox = RecordingSandbox(docker_client)
    specs = []
    for index, game in enumerate(GAMES):
        pair = [load_bot_dir(lab_bot(tmp_path / "bots", game, algorithm, SIMULATIONS))
                for algorithm in ("mcts", "ismcts")]
        assert {bot.base for bot in pair} == {"lab"}
        bots = (pair[0], pair[1]) if index % 2 == 0 else (pair[1], pair[0])
        specs.append(MatchSpec(game, 40 + index, bots, SMALL[game], TIME,
                               match_id=f"lab-docker-{game}"))
    sandbox.check(tuple(bot for spec in specs for bot in spec.bots))

    async def all_of() -> list[Any]:
        slots = asyncio.Semaphore(2)

        async def one(spec: MatchSpec) -> Any:
            async with slots:
                return await play_match(spec, sandbox=sandbox, log_dir=tmp_path / "logs")

        return await asyncio.gather(*(one(spec) for spec in specs))

    results = asyncio.run(all_of())
    for spec, result in zip(specs, results, strict=True):
        assert result.termination is Termination.NORMAL, (spec.match_id, result.detail)
        assert sorted(result.bots) == ["os-ismcts", "os-mcts"]
    for spec in specs:
        for bot in spec.bots:
            image_id = sandbox.inner.built_image(Path(bot.directory or ""))
            assert image_id is not None
            image = docker_client.images.get(image_id)
            # built on the lab base (its one layer first), and only bot.py, bot.toml and the
            # Dockerfile on top of it: the directory vendors nothing
            assert image.attrs["RootFS"]["Layers"][0] == lab_base_image.digest
            assert image.attrs["Size"] - docker_client.images.get(
                lab_base_image.image_id).attrs["Size"] < 100_000
    assert not arena_containers(docker_client) and not sandbox.leftovers()
