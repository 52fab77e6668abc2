"""`arena images build-base` from an ordinary install: with no source tree around, the arena
wheel of the base image is packed from the installed distribution (built here the way users
get it: `pip wheel`, then `pip install` of that wheel into a directory of its own)."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from arena.bots.images.wheels import source_wheel

pytestmark = [pytest.mark.integration, pytest.mark.slow]

PACK = """
import sys, tempfile
from pathlib import Path
import arena
from arena.bots.images import wheels
assert not wheels.is_source_tree(Path(wheels.__file__).resolve().parents[3])
with tempfile.TemporaryDirectory() as work:
    wheels._arena_wheel(Path(sys.argv[1]), Path(work))
print(arena.__file__)
"""


def _pip(*args: str) -> None:
    subprocess.run([sys.executable, "-m", "pip", "--disable-pip-version-check", "-q", *args],
                   check=True)


def test_the_arena_wheel_is_packed_from_an_installed_package(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the build requirements (setuptools, grpcio-tools) are installed here: pip builds the
    # wheel without first installing them again into an isolated environment (same wheel;
    # pip reads PIP_NO_BUILD_ISOLATION backwards: a false value turns isolation off)
    monkeypatch.setenv("PIP_NO_BUILD_ISOLATION", "0")
    built = tmp_path / "built"
    source_wheel(built, tmp_path / "work")
    [original] = built.glob("arena-*.whl")
    site = tmp_path / "site"
    _pip("install", "--no-deps", "--no-index", "--target", str(site), str(original))

    packed_dir = tmp_path / "packed"
    run = subprocess.run([sys.executable, "-c", PACK, str(packed_dir)], cwd=tmp_path,
                         env={"PYTHONPATH": str(site), "PATH": "/usr/bin:/bin"},
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == str(site / "arena" / "__init__.py")  # the installed copy
    [packed] = packed_dir.glob("arena-*.whl")

    def members(wheel: Path) -> dict[str, bytes]:
        with zipfile.ZipFile(wheel) as archive:
            return {n: archive.read(n) for n in archive.namelist() if not n.endswith("RECORD")}

    mine, theirs = members(packed), members(original)
    assert mine == theirs  # the same package files and metadata, byte for byte
    assert any(n.startswith("arena/v1/") and n.endswith("_pb2.py") for n in mine)

    again = tmp_path / "again"
    _pip("install", "--no-deps", "--no-index", "--target", str(again), str(packed))
    check = subprocess.run(
        [sys.executable, "-c", "import arena.sdk, arena.v1.bot_pb2, arena; print(arena.__file__)"],
        cwd=tmp_path, env={"PYTHONPATH": str(again), "PATH": "/usr/bin:/bin"},
        capture_output=True, text=True)
    assert check.returncode == 0, check.stderr
    assert check.stdout.strip() == str(again / "arena" / "__init__.py")
