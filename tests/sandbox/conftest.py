"""Fixtures for the Docker sandbox tests: a real engine, no mocks.

Without an engine these tests skip, unless ``ARENA_REQUIRE_DOCKER=1`` (set by ``.ci/run``): then
they fail, so CI can never pass by silently skipping the sandbox.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from arena.images import BaseImage

REQUIRE_ENV = "ARENA_REQUIRE_DOCKER"


def require_docker() -> None:
    """Skip the calling test without an engine (fail instead under ARENA_REQUIRE_DOCKER=1)."""
    from arena.sandbox.docker import docker_available

    if docker_available(timeout=5.0):
        return
    message = "no Docker engine answers (run .ci/docker-setup.sh)"
    if os.environ.get(REQUIRE_ENV) == "1":
        pytest.fail(f"{message}, and {REQUIRE_ENV}=1", pytrace=False)
    pytest.skip(message)


@pytest.fixture(scope="session")
def docker_client() -> Iterator[Any]:
    """A Docker SDK client for a live engine."""
    require_docker()
    from arena.images import docker_client as make_client

    client = make_client(timeout=600)
    yield client
    client.close()


def _base_image(client: Any, flavor: str) -> BaseImage:
    from arena.images import build_base_image

    if os.geteuid() != 0:
        if os.environ.get(REQUIRE_ENV) == "1":
            pytest.fail("building the base image needs root", pytrace=False)
        pytest.skip("building the base image needs root")
    return build_base_image(flavor_name=flavor, client=client)


@pytest.fixture(scope="session")
def base_image(docker_client: Any) -> BaseImage:
    """The local bot base image (built once; reused when its inputs have not changed)."""
    return _base_image(docker_client, "python")


@pytest.fixture(scope="session")
def node_base_image(docker_client: Any) -> BaseImage:
    """The local Node.js base image (for bots with ``base = "node"``)."""
    return _base_image(docker_client, "node")


def arena_containers(client: Any) -> list[Any]:
    """Every container carrying the arena label (running or not)."""
    return list(client.containers.list(all=True, filters={"label": "arena.managed=1"}))


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


HOSTILE = Path(__file__).resolve().parents[2] / "sample_bots" / "hostile"
RANDOM_BOT = Path(__file__).resolve().parents[2] / "sample_bots" / "lost-cities" / "random"
OPPONENT_P99_MS = 5.0


class RecordingSandbox:
    """A Docker sandbox that remembers the socket directories the referee handed it."""

    name = "docker"

    def __init__(self, client: Any) -> None:
        from arena.sandbox.docker import DockerSandbox

        self.inner = DockerSandbox(client=client)
        self.socket_dirs: list[Path] = []

    def check(self, bots: Any) -> None:
        self.inner.check(bots)

    async def start(self, bot: Any, socket_dir: Path, match_id: str, seat: int) -> Any:
        self.socket_dirs.append(socket_dir)
        return await self.inner.start(bot, socket_dir, match_id, seat)

    def leftovers(self) -> list[Path]:
        """Socket directories (or their per-match parents) that still exist."""
        paths = {p for d in self.socket_dirs for p in (d, d.parent)}
        return sorted(p for p in paths if p.exists())


@pytest.fixture(scope="module")
def docker_sandbox(base_image: BaseImage, docker_client: Any) -> RecordingSandbox:
    """One Docker sandbox for a test module (it builds each bot directory's image once)."""
    return RecordingSandbox(docker_client)


def play(sandbox: Any, bot_dir: Path, log_dir: Path, *, seed: int = 1) -> Any:
    """One short (1-round) Lost Cities match: ``bot_dir`` in seat 0 against the random bot."""
    import asyncio

    from arena.bots import load_bot_dir
    from arena.model import MatchSpec, TimeControl
    from arena.referee.match import play_match

    spec = MatchSpec(
        "lost-cities",
        seed,
        (load_bot_dir(bot_dir), load_bot_dir(RANDOM_BOT)),
        options={"rounds": 1},
        time_control=TimeControl(move_time_ms=1000, startup_ms=2500),
    )
    return asyncio.run(play_match(spec, sandbox=sandbox, log_dir=log_dir))


def decision_times(result: Any, seat: int) -> list[float]:
    """The referee-measured decision times (ms) of ``seat`` from the match log."""
    from arena.referee.log import read_events

    assert result.log, "the match has a log"
    events = read_events(Path(result.log))
    return [e["ms"] for e in events if e["type"] == "decision" and e["seat"] == seat]


def p99(values: list[float]) -> float:
    """The 99th percentile (nearest rank) of ``values``."""
    ordered = sorted(values)
    return ordered[max(0, -(-99 * len(ordered) // 100) - 1)]


def seat_log(result: Any, seat: int) -> str:
    """The bot log tail the referee stored with the match."""
    assert result.log
    path = Path(result.log).with_name(f"{result.match_id}.seat{seat}.log")
    return path.read_text(encoding="utf-8") if path.exists() else ""


def check_hostile_run(
    sandbox: RecordingSandbox, client: Any, attack: str, log_dir: Path, termination: str
) -> tuple[Any, str]:
    """Play the attack, then check: its outcome, the opponent's speed, that the referee goes
    on, and that nothing is left behind. Returns the result and the attacker's log tail."""
    result = play(sandbox, HOSTILE / attack, log_dir)
    assert str(result.termination) == termination, result.detail
    if termination != "normal":
        assert result.faulty_seat == 0 and result.winner == 1
    times = decision_times(result, 1)[1:]  # the first decision of a fresh bot is a cold start
    if times:
        assert p99(times) < OPPONENT_P99_MS, sorted(times)[-5:]
    assert not arena_containers(client)
    assert not sandbox.leftovers()
    after = play(sandbox, RANDOM_BOT, log_dir, seed=2)  # the referee keeps going
    assert str(after.termination) == "normal" and after.decisions > 20
    assert not arena_containers(client)
    assert not sandbox.leftovers()
    return result, seat_log(result, 0)
