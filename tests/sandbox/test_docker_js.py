"""A bot in another language in the hardened container sandbox: the JavaScript sample bot
(js-random, `base = "node"`) built on the local Node.js base image plays the Python random bot
(real engine)."""

from __future__ import annotations

import asyncio
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from arena.bots import load_bot_dir
from arena.bots.images import BaseImage
from arena.model import DecisionEvent, HeaderEvent, MatchSpec, Termination, TimeControl
from arena.record.log import read_events
from arena.referee.match import play_match
from tests.support.containers import arena_containers
from tests.support.js import prepare_js_bot
from tests.support.paths import RANDOM_BOT

pytestmark = pytest.mark.docker


@pytest.fixture(scope="module")
def js_bot() -> Path:
    return prepare_js_bot()


@pytest.mark.parametrize("js_seat", [0, 1])
def test_js_bot_plays_in_a_container(
    js_bot: Path,
    js_seat: int,
    node_base_image: BaseImage,
    docker_sandbox: Any,
    docker_client: Any,
    tmp_path: Path,
) -> None:
    js, python = load_bot_dir(js_bot), load_bot_dir(RANDOM_BOT)
    assert js.base == "node" and python.base == "python"
    docker_sandbox.check((js, python))
    bots = (js, python) if js_seat == 0 else (python, js)
    spec = MatchSpec("lost-cities", 21 + js_seat, bots, time_control=TimeControl(startup_ms=5000))
    result = asyncio.run(play_match(spec, sandbox=docker_sandbox, log_dir=tmp_path))
    assert result.termination is Termination.NORMAL, result.detail
    assert len(result.rounds) == 3 and result.bots[js_seat] == "js-random"
    events = list(read_events(Path(result.log or "")))
    decisions = Counter(e.seat for e in events if isinstance(e, DecisionEvent))
    assert decisions[js_seat] > 20 and decisions[1 - js_seat] > 20
    header = events[0]
    assert isinstance(header, HeaderEvent) and header.sandbox == "docker"
    # the header records the image each bot actually ran (built from its directory)
    assert header.bots[js_seat].image == docker_sandbox.inner.built_image(js_bot)
    assert header.bots[1 - js_seat].image == docker_sandbox.inner.built_image(RANDOM_BOT)
    # The JavaScript image is built on the Node.js base (its first layer), not the Python one.
    image_id = docker_sandbox.inner.built_image(js_bot)
    assert image_id is not None
    image = docker_client.images.get(image_id)
    assert image.attrs["RootFS"]["Layers"][0] == node_base_image.digest
    assert not arena_containers(docker_client) and not docker_sandbox.leftovers()


def test_missing_base_flavor_is_a_clear_error_before_any_match(
    js_bot: Path, docker_client: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without the node base, `arena match` says how to build it and plays nothing."""
    import arena.bots.images.build
    from arena.cli.main import app

    flavors = dict(arena.bots.images.build.FLAVORS)
    flavors["node"] = arena.bots.images.build.Flavor(
        "node", "arena/base:absent-for-test", ("nodejs",), python_runtime=False, command="node"
    )
    monkeypatch.setattr(arena.bots.images.build, "FLAVORS", flavors)
    logs = tmp_path / "logs"
    out = CliRunner().invoke(app, ["match", str(js_bot), str(RANDOM_BOT), "--sandbox", "docker",
                                   "--log-dir", str(logs)])
    assert out.exit_code == 2, out.output
    assert "arena images build-base --flavor node" in " ".join(out.output.split())
    assert not logs.exists() or not list(logs.iterdir())
