"""Referee tests' fixtures: a private socket directory, a running `arena serve` (helpers:
tests/support/matches.py)."""

from __future__ import annotations

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


@pytest.fixture
def referee(tmp_path: Path) -> Iterator[str]:
    sock_dir = Path(tempfile.mkdtemp(prefix="r", dir="/tmp"))
    address = f"unix://{sock_dir}/admin.sock"
    proc = subprocess.Popen(
        [sys.executable, "-m", "arena", "serve", "--listen", address, "--sandbox",
         "process",
         "--log-dir", str(tmp_path / "logs")],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=dict(os.environ),
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
