"""Ladder tests: a fixed deal secret, so the fake player's seed-driven results are repeatable;
the store's backends (SQLite always, PostgreSQL from $ARENA_TEST_POSTGRES_URL: the
``postgres_url`` fixture of tests/conftest.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.ladder import runner


@pytest.fixture(autouse=True)
def fixed_deal_secret(monkeypatch: pytest.MonkeyPatch) -> None:
    """New ladders get the same (instead of a random) secret; the file logic stays real."""
    monkeypatch.setattr(runner.secrets, "token_hex", lambda nbytes=16: "ab" * nbytes)


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.integration)])
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """The store's URL on each backend: a SQLite file, then a fresh PostgreSQL schema."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'state' / 'ladder.db'}"
    return str(request.getfixturevalue("postgres_url"))
