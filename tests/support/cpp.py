"""Building the C++ sample bot (sample_bots/lost-cities/cpp-greedy) for a test: `make` in its
directory, which generates the arena.v1 code from the repository's proto/ and links the static
binary (incremental: a second call does nothing). One build at a time: the test processes of a
run (pytest-xdist) take a lock on the directory, so the first builds and the others find it
built."""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CPP_BOT = ROOT / "sample_bots" / "lost-cities" / "cpp-greedy"
BINARY = CPP_BOT / "cpp-greedy"
TOOLS = ("make", "g++", "pkg-config", "protoc", "grpc_cpp_plugin")
"""Debian: make, g++, pkg-config, protobuf-compiler, protobuf-compiler-grpc (and libgrpc++-dev,
checked through pkg-config); scripts/setup.sh --test installs them."""
MAKE_TIMEOUT_S = 600


def _missing(reason: str) -> None:
    """Skip on a developer machine without the C++ tool chain; CI must have it, so fail there."""
    if os.environ.get("CI"):
        pytest.fail(f"{reason} (CI is set: the C++ bot test must run; see scripts/setup.sh)")
    pytest.skip(reason)


def prepare_cpp_bot() -> Path:
    """The bot directory with ./cpp-greedy built from the current proto/ and bot.cpp."""
    absent = [tool for tool in TOOLS if shutil.which(tool) is None]
    if absent:
        _missing(f"building the C++ sample bot needs {', '.join(absent)}")
    has_grpc = subprocess.run(["pkg-config", "--exists", "grpc++", "protobuf"], check=False)
    if has_grpc.returncode != 0:
        _missing("building the C++ sample bot needs libgrpc++-dev (pkg-config grpc++)")
    directory = os.open(CPP_BOT, os.O_RDONLY)
    try:
        fcntl.flock(directory, fcntl.LOCK_EX)  # released when closed
        done = subprocess.run(["make", "-j2"], cwd=CPP_BOT, capture_output=True, text=True,
                              timeout=MAKE_TIMEOUT_S, check=False)
    finally:
        os.close(directory)
    if done.returncode != 0:
        pytest.fail(f"make failed in {CPP_BOT}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    assert os.access(BINARY, os.X_OK)
    return CPP_BOT
