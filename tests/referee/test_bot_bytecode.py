"""Issue 25 point 4: a Python bot in the process sandbox compiled the arena's SDK, codecs and
generated messages at every start: it may not write bytecode (another user,
PYTHONDONTWRITEBYTECODE) and the referee never imports the SDK itself. The referee now writes
that bytecode once per process (``compile_bot_modules``). Reproduced on a fresh copy of the
package (no bytecode at all, as in a new checkout): a bot's imports in the sandbox's
environment load every arena module from bytecode."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import arena
from arena.referee.remote import BOT_PACKAGES, compile_bot_modules
from arena.sandbox.process import bot_environment

pytestmark = pytest.mark.integration

BOT_IMPORTS = ("import arena.sdk.client, arena.games.lost_cities.codec; "
               "arena.sdk.client._warm_up('lost-cities')")


def _compiled_from_source(root: Path, tmp_path: Path) -> list[str]:
    """The arena modules a bot's imports compile from source (``python -v`` says which)."""
    env = bot_environment(tmp_path, "lost-cities")
    env["PYTHONPATH"] = str(root.parent)
    done = subprocess.run([sys.executable, "-v", "-c", BOT_IMPORTS], env=env, cwd=tmp_path,
                          capture_output=True, text=True, check=True, timeout=120)
    return [line for line in done.stderr.splitlines()
            if line.startswith("# code object from") and str(root) in line
            and line.rstrip("'").endswith(".py")]


def test_a_bot_started_from_a_fresh_checkout_compiles_no_arena_module(tmp_path: Path) -> None:
    source = Path(arena.__file__).resolve().parent
    root = tmp_path / "checkout" / "arena"
    shutil.copytree(source, root, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    scratch = tmp_path / "home"
    scratch.mkdir()
    before = _compiled_from_source(root, scratch)
    assert any("/sdk/client.py" in line for line in before), before  # the hole, reproduced
    compile_bot_modules(root)
    assert _compiled_from_source(root, scratch) == []
    for sub in BOT_PACKAGES:
        assert list((root / sub / "__pycache__").glob("*.pyc")), sub
