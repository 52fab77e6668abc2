"""Shared test fixtures: repository paths and the sample bots."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SAMPLE_BOTS = ROOT / "sample_bots"
TEST_BOTS = Path(__file__).resolve().parent / "referee" / "bots"


@pytest.fixture
def log_dir(tmp_path: Path) -> Path:
    return tmp_path / "logs"
