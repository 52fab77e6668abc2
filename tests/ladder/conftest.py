"""Ladder tests: a fixed deal secret, so the fake player's seed-driven results are repeatable."""

from __future__ import annotations

import pytest

from arena.ladder import runner


@pytest.fixture(autouse=True)
def fixed_deal_secret(monkeypatch: pytest.MonkeyPatch) -> None:
    """New ladders get the same (instead of a random) secret; the file logic stays real."""
    monkeypatch.setattr(runner.secrets, "token_hex", lambda nbytes=16: "ab" * nbytes)
