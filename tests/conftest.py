"""Shared test fixtures: repository paths and the sample bots."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def sample_bot(game_id: str, name: str) -> Path:
    """A built-in game's sample bot (sample_bots/<game>/<name>), or an example game package's
    (examples/<game>/bots/<name>)."""
    builtin = ROOT / "sample_bots" / game_id / name
    return builtin if builtin.is_dir() else ROOT / "examples" / game_id / "bots" / name
SAMPLE_BOTS = ROOT / "sample_bots"
TEST_BOTS = Path(__file__).resolve().parent / "referee" / "bots"


@pytest.fixture
def log_dir(tmp_path: Path) -> Path:
    return tmp_path / "logs"
