"""The lab's OpenSpiel example bot (examples/lab/openspiel-mcts) as bot directories of any game
and algorithm, for both sandboxes: bot.toml's ``command`` and the Dockerfile's ``CMD`` say the
same argv, and the directory is built on the ``lab`` base image (numpy and OpenSpiel are the
base's, the directory holds bot.py alone)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from tests.support.paths import ROOT

EXAMPLE = ROOT / "examples" / "lab" / "openspiel-mcts"
"""The example bot: OpenSpiel's MCTS or ISMCTS through arena.lab.adapter."""
GAMES = ("lost-cities", "haggis", "portas", "goofspiel")
"""The four games the lab's bots are played on (Goofspiel: the installed example plugin)."""
SMALL = {"lost-cities": {"rounds": 1}, "haggis": {"target": 50}, "portas": {"games": 1},
         "goofspiel": {"rounds": 1}}
"""Short matches of each game (tests/lab/conftest.py's)."""


def lab_bot(root: Path, game: str, algorithm: str, simulations: int) -> Path:
    """``root/<game>-<algorithm>``: the example bot playing ``game`` with ``algorithm``
    (``mcts`` or ``ismcts``) and ``simulations`` a decision, on the lab base image; readable by
    the process sandbox's bot user."""
    where = root / f"{game}-{algorithm}"
    where.mkdir(parents=True)
    shutil.copy(EXAMPLE / "bot.py", where / "bot.py")
    argv = ["python3", "bot.py", algorithm, str(simulations)]
    (where / "bot.toml").write_text(
        f'name = "os-{algorithm}"\ngame = "{game}"\nversion = "1"\n'
        f'command = {json.dumps(argv)}\nbase = "lab"\n', encoding="utf-8")
    dockerfile = (EXAMPLE / "Dockerfile").read_text(encoding="utf-8")
    (where / "Dockerfile").write_text(
        dockerfile.replace('CMD ["python3", "bot.py"]', f"CMD {json.dumps(argv)}"),
        encoding="utf-8")
    for path in (root, where, *where.iterdir()):
        path.chmod(0o755)
    return where
