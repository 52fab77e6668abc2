"""A compiled bot in the hardened container sandbox: the C++ sample bot (cpp-greedy), built
with `make` on the host and packed by its Dockerfile into an image FROM scratch (one static
binary, no runtime), plays the Python random bot in both seats; `arena submit` accepts it, and
refuses a copy whose bot.toml command is not what its image runs."""

from __future__ import annotations

import asyncio
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from arena.bots import catalogue, load_bot_dir
from arena.bots.home import HOME_ENV
from arena.bots.images import BaseImage
from arena.model import DecisionEvent, HeaderEvent, MatchSpec, Termination, TimeControl
from arena.record.log import read_events
from arena.referee.match import play_match
from tests.support.containers import arena_containers
from tests.support.cpp import prepare_cpp_bot
from tests.support.paths import RANDOM_BOT

pytestmark = pytest.mark.docker


@pytest.fixture(scope="module")
def cpp_bot() -> Path:
    return prepare_cpp_bot()


@pytest.mark.parametrize("cpp_seat", [0, 1])
def test_cpp_bot_plays_in_a_container(
    cpp_bot: Path,
    cpp_seat: int,
    base_image: BaseImage,
    docker_sandbox: Any,
    docker_client: Any,
    tmp_path: Path,
) -> None:
    cpp, python = load_bot_dir(cpp_bot), load_bot_dir(RANDOM_BOT)
    docker_sandbox.check((cpp, python))
    bots = (cpp, python) if cpp_seat == 0 else (python, cpp)
    spec = MatchSpec("lost-cities", 31 + cpp_seat, bots,
                     time_control=TimeControl(startup_ms=5000))
    result = asyncio.run(play_match(spec, sandbox=docker_sandbox, log_dir=tmp_path))
    assert result.termination is Termination.NORMAL, result.detail
    assert len(result.rounds) == 3 and result.bots[cpp_seat] == "cpp-greedy"
    assert result.winner == cpp_seat, result.totals
    events = list(read_events(Path(result.log or "")))
    decisions = Counter(e.seat for e in events if isinstance(e, DecisionEvent))
    assert decisions[cpp_seat] > 20 and decisions[1 - cpp_seat] > 20
    assert isinstance(events[0], HeaderEvent) and events[0].sandbox == "docker"
    # The image is the binary alone: not built on the Python base, bot.toml's command as CMD.
    image_id = docker_sandbox.inner.built_image(cpp_bot)
    assert image_id is not None
    attrs = docker_client.images.get(image_id).attrs
    assert base_image.digest not in attrs["RootFS"]["Layers"]
    assert attrs["Config"]["Cmd"] == list(cpp.command) == ["./cpp-greedy"]
    assert attrs["Config"]["User"] == "65534:65534" and attrs["Config"]["WorkingDir"] == "/bot"
    assert attrs["Size"] < 32 * 1024 * 1024
    assert not arena_containers(docker_client) and not docker_sandbox.leftovers()


def test_submit_accepts_cpp_greedy_and_refuses_a_command_mismatch(
    cpp_bot: Path, base_image: BaseImage, docker_client: Any, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from arena.cli.main import app

    monkeypatch.setenv(HOME_ENV, str(tmp_path / "home"))
    runner = CliRunner()
    ok = runner.invoke(app, ["submit", str(cpp_bot), "--name", "cpp-test", "--version", "1"])
    assert ok.exit_code == 0, ok.output
    spec = catalogue.lookup("cpp-test")
    assert spec is not None and spec.image and spec.game == "lost-cities"

    copy = tmp_path / "cpp-copy"
    shutil.copytree(cpp_bot, copy, ignore=shutil.ignore_patterns("gen", "*.o"))
    manifest = copy / "bot.toml"
    manifest.write_text(manifest.read_text(encoding="utf-8").replace(
        'command = ["./cpp-greedy"]', 'command = ["/bot/cpp-greedy"]'), encoding="utf-8")
    refused = runner.invoke(app, ["submit", str(copy), "--name", "cpp-mismatch"])
    assert refused.exit_code == 2, refused.output
    said = " ".join(refused.output.split())
    assert "refused" in said and "is not what its image runs" in said
    assert "['./cpp-greedy']" in said and catalogue.lookup("cpp-mismatch") is None
    docker_client.images.remove(spec.image, force=True)
