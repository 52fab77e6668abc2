"""Where things are: the repository, the sample bots, the referee tests' bots."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SAMPLE_BOTS = ROOT / "sample_bots"
TEST_BOTS = ROOT / "tests" / "referee" / "bots"
RANDOM_BOT = SAMPLE_BOTS / "lost-cities" / "random"
HOSTILE = SAMPLE_BOTS / "hostile"


def sample_bot(game_id: str, name: str) -> Path:
    """A built-in game's sample bot (sample_bots/<game>/<name>), or an example game package's
    (examples/<game>/bots/<name>)."""
    builtin = SAMPLE_BOTS / game_id / name
    return builtin if builtin.is_dir() else ROOT / "examples" / game_id / "bots" / name
