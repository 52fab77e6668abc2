"""Referee tests' fixtures: a private socket directory, a running `arena serve` (helpers:
tests/support/matches.py)."""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.matches import wait_serving
from tests.support.paths import ROOT


@pytest.fixture
def socket_root() -> Iterator[Path]:
    root = Path(tempfile.mkdtemp(prefix="t", dir="/tmp"))
    yield root
    shutil.rmtree(root, ignore_errors=True)


@contextlib.contextmanager
def serving(root: Path) -> Iterator[str]:
    """A running `arena serve` (process sandbox, logs in ``root/logs``, its output in
    ``root/serve.log``): its address, stopped after."""
    sock_dir = Path(tempfile.mkdtemp(prefix="r", dir="/tmp"))
    address = f"unix://{sock_dir}/admin.sock"
    with (root / "serve.log").open("wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "arena", "serve", "--listen", address, "--sandbox",
             "process", "--log-dir", str(root / "logs")],
            cwd=ROOT, stdout=out, stderr=subprocess.STDOUT, env=dict(os.environ),
        )
    try:
        wait_serving(address)
        yield address
    finally:
        proc.terminate()
        proc.wait(10)
        for leftover in sock_dir.iterdir():
            leftover.unlink()
        sock_dir.rmdir()


@pytest.fixture(scope="module")
def referee(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """One `arena serve` for the module's tests (a referee serves match after match)."""
    with serving(tmp_path_factory.mktemp("referee")) as address:
        yield address


@pytest.fixture
def fresh_referee(tmp_path: Path) -> Iterator[str]:
    """An `arena serve` of the test's own (one that has played nothing yet)."""
    with serving(tmp_path) as address:
        yield address
