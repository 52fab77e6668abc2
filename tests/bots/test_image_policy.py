"""What a bot's image may be (arena.bots.images.policy): no VOLUME, no EXPOSE, no root USER,
not over ARENA_MAX_IMAGE_MB. Pure: over `docker image inspect` attributes (the real engine:
tests/sandbox/test_docker_image_policy.py)."""

from __future__ import annotations

from typing import Any

import pytest

from arena.bots.images.policy import (
    DEFAULT_MAX_IMAGE_MB,
    MAX_IMAGE_MB_ENV,
    image_problem,
    max_image_bytes,
)
from arena.errors import ConfigError

pytestmark = pytest.mark.unit


def _attrs(size: int = 10 << 20, **config: Any) -> dict[str, Any]:
    return {"Size": size, "Config": {"Cmd": ["python3", "bot.py"], **config}}


def test_a_plain_image_passes() -> None:
    assert image_problem(_attrs()) is None
    assert image_problem(_attrs(User="65534:65534", Volumes=None, ExposedPorts={})) is None


@pytest.mark.parametrize(
    ("config", "says"),
    [
        ({"Volumes": {"/data": {}}}, "declares VOLUME /data"),
        ({"ExposedPorts": {"80/tcp": {}}}, "declares EXPOSE 80/tcp"),
        ({"User": "root"}, "USER is 'root'"),
        ({"User": "0"}, "USER is '0'"),
        ({"User": "0:0"}, "USER is '0:0'"),
        ({"Labels": {"arena.base.inputs": "0" * 64}}, "the arena's own label 'arena.base.inputs'"),
        ({"Labels": {"arena.managed": "1"}}, "the arena's own label 'arena.managed'"),
    ],
)
def test_what_would_escape_is_named(config: dict[str, Any], says: str) -> None:
    problem = image_problem(_attrs(**config))
    assert problem is not None and says in problem and "\n" not in problem


def test_the_size_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(MAX_IMAGE_MB_ENV, raising=False)
    assert max_image_bytes() == DEFAULT_MAX_IMAGE_MB << 20
    assert image_problem(_attrs(size=DEFAULT_MAX_IMAGE_MB << 20)) is None
    over = image_problem(_attrs(size=(DEFAULT_MAX_IMAGE_MB << 20) + 1))
    assert over is not None and f"cap of {DEFAULT_MAX_IMAGE_MB} MiB ({MAX_IMAGE_MB_ENV})" in over
    monkeypatch.setenv(MAX_IMAGE_MB_ENV, "5")
    assert image_problem(_attrs(size=6 << 20)) is not None
    assert image_problem(_attrs(size=6 << 20), max_bytes=8 << 20) is None
    monkeypatch.setenv(MAX_IMAGE_MB_ENV, "lots")
    with pytest.raises(ConfigError, match="ARENA_MAX_IMAGE_MB='lots': give a positive whole"):
        max_image_bytes()


def test_the_label_of_an_arena_built_bot_image_passes() -> None:
    from arena.bots.images.build import INPUTS_LABEL
    from arena.bots.images.policy import BOT_BUILD_LABEL

    assert BOT_BUILD_LABEL == INPUTS_LABEL
    assert image_problem(_attrs(Labels={INPUTS_LABEL: "", "org.example": "x"})) is None


def test_a_base_image_is_told_by_its_inputs_label_and_one_layer() -> None:
    """What a base tag must name to be used (arena.bots.images.build.base_problem): an image
    the arena imported. A bot image it built carries the label empty; a submitted image with
    the label is refused by the policy above."""
    from arena.bots.images.build import INPUTS_LABEL, base_problem

    def image(labels: dict[str, str], layers: int) -> dict[str, Any]:
        return {"Config": {"Labels": labels},
                "RootFS": {"Layers": [f"sha256:{n}" for n in range(layers)]}}

    assert base_problem(image({INPUTS_LABEL: "0" * 64}, 1)) is None
    assert "no hash" in (base_problem(image({INPUTS_LABEL: ""}, 1)) or "")
    assert "no hash" in (base_problem(image({}, 1)) or "")
    assert "2 layers" in (base_problem(image({INPUTS_LABEL: "0" * 64}, 2)) or "")
