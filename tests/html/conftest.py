"""Fixtures for the HTML pages: real match logs (the match loop with in-process seats writes
them) and a headless Chromium.

Without Chromium the browser tests skip, unless ``ARENA_REQUIRE_CHROMIUM=1`` (set by
``.ci/run``): then they fail, so CI can never pass by silently skipping the browser.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.browser import Browser, require_chromium
from tests.support.pages import play_logged


@pytest.fixture(scope="session")
def logs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """One finished match log per game (Lost Cities: 3 rounds; Haggis: a game to 250)."""
    log_dir = tmp_path_factory.mktemp("logs")
    return {game: play_logged(log_dir, game, seed)
            for game, seed in (("lost-cities", 7), ("haggis", 3), ("portas", 5))}


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """One headless Chromium for a test module (its network goes nowhere)."""
    require_chromium()
    instance = Browser()
    try:
        yield instance
    finally:
        instance.close()
