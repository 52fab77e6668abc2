"""Goofspiel in hardened containers (real Docker: the fixtures fail, never skip, under
ARENA_REQUIRE_DOCKER=1): the sample bots' images are built on the stock base image, which
carries the installed game package, and play a match and the example's ladder file."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from arena.bots.manifest import load_bot_dir
from arena.ladder.config import load_ladder
from arena.ladder.reports import load_matches, load_standings
from arena.ladder.runner import run_ladder_blocking
from arena.model import MatchSpec, Termination, TimeControl
from arena.record.replay import replay_log
from arena.referee.match import play_match
from tests.support.goofspiel import EXAMPLE, GREEDY, RANDOM, goofspiel

pytestmark = [pytest.mark.docker, pytest.mark.slow]


def test_the_sample_bots_play_a_match_in_containers(docker_sandbox: Any, docker_client: Any,
                                                    tmp_path: Path) -> None:
    goofspiel()
    spec = MatchSpec("goofspiel", 3, (load_bot_dir(GREEDY), load_bot_dir(RANDOM)),
                     {"rounds": 1}, TimeControl(2000, 0, 20_000))
    result = asyncio.run(play_match(spec, sandbox=docker_sandbox, log_dir=tmp_path / "logs"))
    assert result.termination is Termination.NORMAL, result.detail
    assert result.decisions == 26 and len(docker_sandbox.socket_dirs) == 2
    assert replay_log(Path(result.log or "")).finished
    assert not docker_sandbox.leftovers()


def test_the_example_ladder_plays_in_containers(base_image: Any, tmp_path: Path) -> None:
    """examples/goofspiel/ladder.toml as shipped (its entrants made absolute, one cycle of
    one-round matches to keep it short)."""
    goofspiel()
    shipped = (EXAMPLE / "ladder.toml").read_text()
    assert 'sandbox = "docker"' in shipped
    text = shipped.replace('"bots/', f'"{EXAMPLE}/bots/').replace("rounds = 3", "rounds = 1")
    copy = tmp_path / "goofspiel.toml"
    copy.write_text(text)
    cfg = load_ladder(copy)
    summary = run_ladder_blocking(cfg, cycles=1)
    assert summary.played == 2 and summary.remaining == 0 and not summary.interrupted
    found = load_matches(cfg)
    assert len(found) == 2
    for match in found:
        assert match.termination == "normal" and not match.void, match.detail
        assert match.log_path is not None and replay_log(Path(match.log_path)).finished
    standings = load_standings(cfg)
    assert {row.bot for row in standings.rows} == {"greedy", "random"}
