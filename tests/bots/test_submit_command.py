"""bot.toml's ``command`` and the image's ENTRYPOINT + CMD must be the same argv: the process
sandbox runs the first, containers the second. ``arena submit`` refuses a bot whose two differ
(checked with a real build in tests/sandbox/test_docker_cpp.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.bots.manifest import load_bot_dir
from arena.bots.submit import command_mismatch

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    ("command", "config"),
    [
        (("python3", "bot.py"), {"Cmd": ["python3", "bot.py"]}),
        (("./cpp-greedy",), {"Cmd": ["./cpp-greedy"], "Entrypoint": None}),
        (("node", "bot.js", "--fast"), {"Entrypoint": ["node"], "Cmd": ["bot.js", "--fast"]}),
    ],
)
def test_the_same_argv_passes(command: tuple[str, ...], config: dict[str, object]) -> None:
    assert command_mismatch(command, config) is None


@pytest.mark.parametrize(
    ("command", "config", "runs"),
    [
        (("python3", "bot.py"), {"Cmd": ["python3", "main.py"]}, "['python3', 'main.py']"),
        (("./cpp-greedy",), {"Cmd": ["/bin/sh", "-c", "./cpp-greedy"]}, "'/bin/sh', '-c'"),
        (("./cpp-greedy",), {}, "[]"),
        (("python3", "bot.py"), {"Entrypoint": ["python3"], "Cmd": ["bot.py", "-v"]}, "'-v'"),
    ],
)
def test_a_different_argv_is_named(command: tuple[str, ...], config: dict[str, object],
                                   runs: str) -> None:
    problem = command_mismatch(command, config)
    assert problem is not None and runs in problem and str(list(command)) in problem


def test_every_sample_bot_dockerfile_runs_its_bot_toml_command() -> None:
    """The last CMD of each sample Dockerfile (none has an ENTRYPOINT) is bot.toml's command."""
    import json

    checked = 0
    for dockerfile in sorted((ROOT / "sample_bots").glob("*/*/Dockerfile")):
        lines = dockerfile.read_text(encoding="utf-8").splitlines()
        assert not any(line.startswith("ENTRYPOINT") for line in lines), dockerfile
        cmd = [line for line in lines if line.startswith("CMD ")][-1]
        config = {"Cmd": json.loads(cmd.removeprefix("CMD "))}
        assert command_mismatch(load_bot_dir(dockerfile.parent).command, config) is None
        checked += 1
    assert checked >= 20
