"""Helpers for referee tests: run real matches over gRPC between subprocess bots."""

from __future__ import annotations

import asyncio
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.bots import load_bot_dir
from arena.model import MatchResult, MatchSpec, TimeControl
from arena.referee.match import play_match

ROOT = Path(__file__).resolve().parents[2]
RANDOM_BOT = ROOT / "sample_bots" / "lost-cities" / "random"
TEST_BOTS = Path(__file__).resolve().parent / "bots"


@pytest.fixture
def socket_root() -> Iterator[Path]:
    root = Path(tempfile.mkdtemp(prefix="t", dir="/tmp"))
    yield root
    shutil.rmtree(root, ignore_errors=True)


def run_match(
    bot_a: Path, bot_b: Path, log_dir: Path, socket_root: Path, *, seed: int = 1,
    move_time_ms: int = 1000, startup_ms: int = 10_000, options: dict[str, object] | None = None,
) -> MatchResult:
    spec = MatchSpec(
        "lost-cities", seed, (load_bot_dir(bot_a), load_bot_dir(bot_b)), dict(options or {}),
        TimeControl(move_time_ms, 0, startup_ms),
    )
    return asyncio.run(
        play_match(spec, sandbox="process", log_dir=log_dir, socket_root=socket_root)
    )
