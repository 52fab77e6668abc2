"""Fixtures for the Docker sandbox tests: a real engine, no mocks.

Without an engine these tests skip, unless ``ARENA_REQUIRE_DOCKER=1`` (set by ``.ci/run``): then
they fail, so CI can never pass by silently skipping the sandbox.
"""

from __future__ import annotations

import os
import statistics
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from arena.bots.images import BaseImage

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
    from arena.bots.images import docker_client as make_client

    client = make_client(timeout=600)
    yield client
    client.close()


def _base_image(client: Any, flavor: str) -> BaseImage:
    from arena.bots.images import build_base_image

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
    """The arena containers this test process started (running or not). Scoped by the owner
    label, so tests running at the same time on one engine do not see each other's."""
    from arena.sandbox.docker import LABEL_OWNER, _owner

    labels = ["arena.managed=1", f"{LABEL_OWNER}={_owner()}"]
    return list(client.containers.list(all=True, filters={"label": labels}))


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
OPPONENT_MEDIAN_MS = 5.0
"""The opponent's median decision time while the attacker's children attack. Unattacked it is
about 0.5 ms in containers; an attack that escaped its container's CPU limit (say 62 spinning
processes on 2 cores) puts it at tens of ms. 10x headroom over the normal figure, so load on the
machine does not fail the check while a real escape still does."""
OPPONENT_MIN_SAMPLES = 40
"""Decisions the opponent makes after the attack started (a 3-round match gives about 100)."""
ATTACK_DECISION = 3
"""Every hostile bot attacks on its third decision."""
ATTACK_MOVE_TIME_MS = {"memory_bomb": 10_000, "output_flood": 10_000}
"""Per-decision limits that differ from 1000 ms, for attacks made inside a decision whose point
is not speed: the memory bomb needs about 1 s to fill its 512 MiB under load and must be killed
by the kernel (``memory``), never by the clock; writing 50 MiB through Docker's log driver took
over 1 s on a loaded machine, and what is checked is that only a bounded tail is kept."""


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


@pytest.fixture(scope="module")
def docker_sandbox(base_image: BaseImage, docker_client: Any) -> RecordingSandbox:
    """One Docker sandbox for a test module (it builds each bot directory's image once)."""
    return RecordingSandbox(docker_client)


def play(sandbox: Any, bot_dir: Path, log_dir: Path, *, seed: int = 1, rounds: int = 1,
         move_time_ms: int = 1000) -> Any:
    """One short (1-round) Lost Cities match: ``bot_dir`` in seat 0 against the random bot."""
    import asyncio

    from arena.bots import load_bot_dir
    from arena.model import MatchSpec, TimeControl
    from arena.referee.match import play_match

    spec = MatchSpec(
        "lost-cities",
        seed,
        (load_bot_dir(bot_dir), load_bot_dir(RANDOM_BOT)),
        options={"rounds": rounds},
        time_control=TimeControl(move_time_ms=move_time_ms, startup_ms=2500),
    )
    return asyncio.run(play_match(spec, sandbox=sandbox, log_dir=log_dir))


def times_after_attack(result: Any) -> list[float]:
    """The referee-measured decision times (ms) of seat 1 (the opponent) after seat 0's
    attack started, from the match log."""
    from arena.record.log import read_events

    assert result.log, "the match has a log"
    from arena.model import DecisionEvent

    events = [e for e in read_events(Path(result.log)) if isinstance(e, DecisionEvent)]
    attack_at = [e.n for e in events if e.seat == 0][ATTACK_DECISION - 1]
    return [e.ms for e in events if e.seat == 1 and e.n > attack_at]


def seat_log(result: Any, seat: int) -> str:
    """The bot log tail the referee stored with the match."""
    assert result.log
    path = Path(result.log).with_name(f"{result.match_id}.seat{seat}.log")
    return path.read_text(encoding="utf-8") if path.exists() else ""


def check_hostile_run(
    sandbox: RecordingSandbox, client: Any, attack: str, log_dir: Path, termination: str
) -> tuple[Any, str]:
    """Play the attack, then check: its outcome, the opponent's speed, that the referee goes
    on, and that nothing is left behind. Returns the result and the attacker's log tail.

    An attack the container absorbs (``normal``) is played over 3 rounds, so the opponent's
    speed during the attack is measured on enough decisions; a forfeit ends the match at the
    attack, so there is nothing of the opponent to measure then."""
    absorbed = termination == "normal"
    result = play(sandbox, HOSTILE / attack, log_dir, rounds=3 if absorbed else 1,
                  move_time_ms=ATTACK_MOVE_TIME_MS.get(attack, 1000))
    assert str(result.termination) == termination, result.detail
    if not absorbed:
        assert result.faulty_seat == 0 and result.winner == 1
    else:
        times = sorted(times_after_attack(result))
        assert len(times) >= OPPONENT_MIN_SAMPLES, len(times)
        assert statistics.median(times) < OPPONENT_MEDIAN_MS, times[len(times) // 2:][-5:]
    assert not arena_containers(client)
    assert not sandbox.leftovers()
    after = play(sandbox, RANDOM_BOT, log_dir, seed=2)  # the referee keeps going
    assert str(after.termination) == "normal" and after.decisions > 20
    assert not arena_containers(client)
    assert not sandbox.leftovers()
    return result, seat_log(result, 0)
