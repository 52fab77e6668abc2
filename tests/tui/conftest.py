"""Fixtures for the terminal apps: one real match log per installed game (the match loop with
in-process seats writes them; Goofspiel is the plugin in examples/)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.goofspiel import goofspiel
from tests.support.pages import play_logged

GAMES = ("lost-cities", "haggis", "portas", "goofspiel")
SEEDS = {"lost-cities": 7, "haggis": 3, "portas": 5, "goofspiel": 2}


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """One finished match log per game (Lost Cities: 3 rounds; Haggis: a game to 250)."""
    goofspiel()  # fails, naming the install command, when the plugin is missing
    log_dir = tmp_path_factory.mktemp("logs")
    return {game: play_logged(log_dir, game, SEEDS[game]) for game in GAMES}
