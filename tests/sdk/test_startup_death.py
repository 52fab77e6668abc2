"""Issue 25 point 8: a bot that dies starting says what its sandbox hides.

The report: a bot adapted from a public AI imported the AI's code from a sibling directory
under /tmp through a shim, the process sandbox hides /tmp, and the result said only
``RecursionError: maximum recursion depth exceeded`` (the shim, not finding the sibling, imported
itself). Now the detail of a bot that dies before its Hello, or before its first answer, also
names what the sandbox hides and the docs' section "Only your bot directory". A bot that dies
later (it played) gets no such note: its crash is its own."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from arena.bots import load_bot_dir
from arena.model import MatchResult, MatchSpec, Termination, TimeControl
from arena.referee.match import play_match
from tests.support.paths import SAMPLE_BOTS, TEST_BOTS

pytestmark = pytest.mark.integration

RANDOM_BOT = SAMPLE_BOTS / "lost-cities" / "random"
SECTION = '"Only your bot directory" in docs/bots.md'

UPSTREAM = '''"""The public AI, unchanged."""


def choose(decision):
    return decision.legal_texts[0]
'''

SHIM = '''"""Shim: the AI is ../upstream/ai.py; load it in place of this module."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "upstream"))
del sys.modules[__name__]
from ai import *  # noqa: F401,F403
'''

ADAPTED = '''from arena.sdk import run

import ai

if __name__ == "__main__":
    run(ai.choose, name="adapted")
'''

LOADS_AT_START = '''import os

from arena.sdk import run

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "upstream", "ai.py")


class Bot:
    def match_start(self, info):
        with open(DATA) as weights:  # after its Hello: the sibling is not there
            self.weights = weights.read()

    def decide(self, decision):
        return decision.legal_texts[0]


if __name__ == "__main__":
    run(Bot(), name="loader")
'''


def _adapted(root: Path, bot_source: str = ADAPTED) -> Path:
    """A bot directory beside the AI's own (``root/upstream``), as its author had them."""
    (root / "upstream").mkdir()
    (root / "upstream" / "ai.py").write_text(UPSTREAM)
    bot = root / "adapted"
    bot.mkdir()
    (bot / "ai.py").write_text(SHIM)
    (bot / "bot.py").write_text(bot_source)
    (bot / "bot.toml").write_text('name = "adapted"\ngame = "lost-cities"\n')
    for path in (root, root / "upstream", bot, *bot.iterdir(), *(root / "upstream").iterdir()):
        path.chmod(0o755)
    return bot


def _play(bot: Path, log_dir: Path, sandbox: Any = "process") -> MatchResult:
    spec = MatchSpec("lost-cities", 1, (load_bot_dir(bot), load_bot_dir(RANDOM_BOT)),
                     {"rounds": 1}, TimeControl(2000, 0, 20_000))
    return asyncio.run(play_match(spec, sandbox=sandbox, log_dir=log_dir))


def _separated() -> None:
    from arena.sandbox.isolation import isolation_available

    if not isolation_available():
        pytest.skip("the process sandbox hides /tmp only when it separates bots (root, Linux)")


def test_the_shim_works_where_it_sees_its_sibling(tmp_path: Path) -> None:
    """The bot is fine on its author's machine: the AI is found next to it."""
    bot = _adapted(tmp_path)
    found = subprocess.run([sys.executable, "-c", "import ai; print(ai.choose.__module__)"],
                           cwd=bot, capture_output=True, text=True, check=True)
    assert found.stdout.strip() == "ai"


def test_a_bot_dying_before_its_hello_hears_what_the_sandbox_hides(tmp_path: Path) -> None:
    _separated()
    result = _play(_adapted(tmp_path), tmp_path / "logs")
    assert result.termination is Termination.NO_START and result.faulty_seat == 0
    assert "RecursionError" in result.detail, result.detail
    assert "the process sandbox hides /tmp" in result.detail, result.detail
    assert result.detail.endswith(f": see {SECTION}"), result.detail


def test_a_bot_dying_right_after_its_hello_hears_it_too(tmp_path: Path) -> None:
    _separated()
    result = _play(_adapted(tmp_path, LOADS_AT_START), tmp_path / "logs")
    assert result.termination is Termination.CRASH and result.faulty_seat == 0
    assert "FileNotFoundError" in result.detail, result.detail
    assert result.detail.endswith(f": see {SECTION}"), result.detail


def test_a_bot_that_played_before_crashing_gets_no_note(tmp_path: Path) -> None:
    result = _play(TEST_BOTS / "crash", tmp_path / "logs")
    assert result.termination is Termination.CRASH and result.decisions > 2
    assert "crashing on purpose" in result.detail and SECTION not in result.detail


@pytest.mark.docker
def test_in_a_container_too(tmp_path: Path, base_image: Any) -> None:
    """A bot directory without a Dockerfile runs on the base image, mounted at /bot: its
    sibling is not in the container."""
    result = _play(_adapted(tmp_path), tmp_path / "logs", sandbox="docker")
    assert result.termination is Termination.NO_START and result.faulty_seat == 0
    assert "RecursionError" in result.detail, result.detail
    assert "a container holds only the bot's image" in result.detail, result.detail
    assert result.detail.endswith(f": see {SECTION}"), result.detail
