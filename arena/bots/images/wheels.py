"""The bot runtime as wheels: the cp311 wheels of grpcio and protobuf (the versions installed
here) and a wheel of the arena package itself, built from the source tree. The Python base image
installs them; ``arena images wheels`` puts them next to a bot built on a plain Python image."""

from __future__ import annotations

import hashlib
import importlib.metadata
import shutil
import sys
import tempfile
import zipfile
from pathlib import Path

from arena.bots.images.tools import run_tool
from arena.errors import ConfigError

_WHEEL_PLATFORMS = ("manylinux_2_28_x86_64", "manylinux_2_17_x86_64", "manylinux2014_x86_64")


def source_root() -> Path:
    """The arena source tree this module was loaded from (holds setup.py and proto/)."""
    root = Path(__file__).resolve().parents[3]
    if not (root / "setup.py").is_file() or not (root / "proto").is_dir():
        raise ConfigError(
            f"{root} is not an arena source tree (no setup.py/proto): build the base image from "
            "a checkout of the arena"
        )
    return root


def runtime_requirements() -> tuple[str, ...]:
    """The pinned bot runtime: the grpcio and protobuf versions installed here."""
    return tuple(f"{dist}=={importlib.metadata.version(dist)}" for dist in ("grpcio", "protobuf"))


def _download_wheels(dest: Path) -> None:
    cmd = [sys.executable, "-m", "pip", "download", "--quiet", "--only-binary=:all:"]
    cmd += ["--python-version", "3.11", "--implementation", "cp", "--abi", "cp311"]
    for platform in _WHEEL_PLATFORMS:
        cmd += ["--platform", platform]
    run_tool([*cmd, "-d", str(dest), *runtime_requirements()], "downloading grpcio/protobuf wheels")


def _arena_wheel(dest: Path, work: Path) -> None:
    """``pip wheel --no-deps`` of a clean copy of the source tree (leaves the tree untouched)."""
    root = source_root()
    copy = work / "src"
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info", "build", "dist")
    shutil.copytree(root / "arena", copy / "arena", ignore=ignore)
    shutil.copytree(root / "proto", copy / "proto", ignore=ignore)
    for name in ("setup.py", "pyproject.toml", "arena_protogen.py", "README.md"):
        if (root / name).is_file():
            shutil.copy2(root / name, copy / name)
    run_tool(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", str(dest), str(copy)],
        "building the arena wheel",
    )


def prepare_wheels(dest: Path) -> Path:
    """Download the grpcio/protobuf wheels and build the arena wheel into ``dest``."""
    dest.mkdir(parents=True, exist_ok=True)
    _download_wheels(dest)
    with tempfile.TemporaryDirectory(prefix="arena-wheel-") as tmp:
        _arena_wheel(dest, Path(tmp))
    return dest


def wheel_hash(path: Path) -> str:
    """Hash of a wheel's member names and contents (not its zip timestamps)."""
    digest = hashlib.sha256()
    with zipfile.ZipFile(path) as wheel:
        for name in sorted(wheel.namelist()):
            digest.update(name.encode() + b"\0" + hashlib.sha256(wheel.read(name)).digest())
    return digest.hexdigest()
