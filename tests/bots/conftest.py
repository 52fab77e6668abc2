"""The Docker fixtures of the sandbox tests (a real engine, the local base image), and a real
smoke match for the submission workflow's tests."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import docker.errors
import pytest

from arena.bots.submit import smoke_opponent
from arena.model import BotSpec, MatchResult
from tests.support.containers import SmokeMatch


@pytest.fixture
def smoke(docker_client: Any, tmp_path: Path) -> tuple[SmokeMatch, list[BotSpec]]:
    """A real smoke match (one round) in the Docker sandbox; remembers the bots it played."""
    from arena.referee.match import play_match
    from arena.referee.service import line_up
    from arena.sandbox.docker import DockerSandbox

    sandbox = DockerSandbox(client=docker_client)
    played: list[BotSpec] = []

    def play(bot: BotSpec) -> MatchResult:
        played.append(bot)
        lineup = line_up([bot, smoke_opponent(bot.game)], sandbox=sandbox)
        spec = lineup.match(options={"rounds": 1})
        return asyncio.run(play_match(spec, sandbox=sandbox, log_dir=tmp_path / "logs"))

    return play, played


@pytest.fixture
def tags(docker_client: Any) -> Iterator[list[str]]:
    """Tags a test made; removed afterwards."""
    made: list[str] = []
    yield made
    for tag in made:
        with contextlib.suppress(docker.errors.APIError):
            docker_client.images.remove(tag)

