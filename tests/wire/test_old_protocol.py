"""A bot built against an earlier arena.v1 still plays every built-in game.

``old_protocol/`` holds the .proto files as they were before the plugin envelope (and later
fields) were added: a bot whose generated code comes from them (here Python, generated in the
test) receives today's messages, finds its game's typed observation where it always was, answers
by text and plays whole matches through the real referee in the process sandbox.
"""

from __future__ import annotations

import asyncio
import shutil
import tempfile
from pathlib import Path

import pytest

from arena.bots.manifest import load_bot_dir
from arena.games.builtin import BUILTIN_ORDER
from arena.model import MatchSpec, Termination, TimeControl
from arena.referee.match import play_match

pytestmark = pytest.mark.integration


def _bot_dir(old_bot: Path, game: str, where: Path) -> Path:
    directory = where / f"old-{game}"
    shutil.copytree(old_bot, directory)
    (directory / "bot.toml").write_text(
        f'name = "old-{game}"\ngame = "{game}"\nversion = "1"\ncommand = ["python3", "bot.py"]\n'
    )
    return directory


@pytest.mark.parametrize("game", BUILTIN_ORDER)
def test_a_bot_on_the_old_generated_code_plays_every_builtin_game(
    old_bot: Path, readable_root: Path, game: str, tmp_path: Path
) -> None:
    bot = load_bot_dir(_bot_dir(old_bot, game, readable_root))
    sockets = Path(tempfile.mkdtemp(prefix="t", dir="/tmp"))
    try:
        spec = MatchSpec(game, 5, (bot, bot), {}, TimeControl(2000, 0, 20_000))
        result = asyncio.run(play_match(spec, sandbox="process", log_dir=tmp_path / "logs",
                                        socket_root=sockets))
    finally:
        shutil.rmtree(sockets, ignore_errors=True)
    assert result.termination is Termination.NORMAL, result.detail
    assert result.decisions > 10
