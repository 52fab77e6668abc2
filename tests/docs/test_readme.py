"""The README's commands run as written. Every shell block of the README whose commands are all
cheap (a match in the process sandbox, watching and verifying its log, a few ladder matches in
the process sandbox and that ladder's reports, the game list) is run by bash, in README order,
in a copy of the sample bots and ladder files, with the arena as `arena` on the PATH, exactly as
a newcomer pastes it. The expensive or Docker blocks (the two scripts, the quick start) are
checked by tests/docs/test_doc_commands.py: their commands and options exist."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.doc_blocks import README, ROOT, Block, Command, commands, shell_blocks

pytestmark = [pytest.mark.integration, pytest.mark.slow]

_CHEAP_ARENA = {("match",), ("watch",), ("replay",), ("games", "list"), ("bots", "list"),
                ("standings",), ("ladder", "report"), ("matches",),
                ("ladder", "crosstable"), ("ladder", "history"), ("ladder", "stats"),
                ("sprt", "llr"), ("keys", "new"), ("keys", "show")}
_CHEAP_PROGRAMS = {"ls", "head", "cat", "cp", "mkdir", "test"}
_MUST_RUN = {("match",), ("watch",), ("replay",), ("run-ladder",), ("standings",),
             ("ladder", "report"), ("games", "list")}
"""What the README must show a newcomer in blocks that this test runs."""
_MAX_LADDER_MATCHES = 12


def _option(args: tuple[str, ...], name: str) -> str | None:
    for index, word in enumerate(args):
        if word == name and index + 1 < len(args):
            return args[index + 1]
        if word.startswith(name + "="):
            return word.split("=", 1)[1]
    return None


def _verb(args: tuple[str, ...]) -> tuple[str, ...]:
    """The command path of arena ARGS: `("match",)`, `("standings",)`."""
    if len(args) >= 2 and args[0] in ("ladder", "games", "bots", "sprt", "keys", "images"):
        return args[:2]
    return args[:1]


def cheap(command: Command) -> bool:
    """Whether a command runs in seconds here, without Docker, a network or the machine's set-up."""
    args = command.arena_args()
    if args is None:
        program = re.sub(r"^[A-Za-z_]\w*=", "", command.words[0]).removeprefix("$(")
        return program in _CHEAP_PROGRAMS
    if "--help" in args:
        return True
    if any(re.fullmatch(r"[A-Z][A-Z_]+|.*[…<>].*", word) for word in args):
        return False  # a placeholder: BOT_A, matches/…jsonl, <match>
    verb = _verb(args)
    if verb == ("run-ladder",):
        matches = _option(args, "--matches")
        return (_option(args, "--sandbox") == "process" and matches is not None
                and int(matches) <= _MAX_LADDER_MATCHES)
    if verb == ("match",):
        return (_option(args, "--sandbox") in (None, "process")
                and not {"--referee", "--server"} & set(args))
    if verb == ("watch",):
        return not {"--follow", "-f", "--referee", "--server"} & set(args)
    return verb in _CHEAP_ARENA


def runnable(block: Block) -> bool:
    found = list(commands(block))
    return bool(found) and all(cheap(command) for command in found)


@pytest.fixture
def newcomer(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A working copy with the sample bots and ladder files (no state), a private arena home,
    and `arena` on the PATH: this interpreter's arena, as `source .venv/bin/activate` gives."""
    work = tmp_path / "arena"
    work.mkdir()
    ignore = shutil.ignore_patterns("state", "*-state", "certs", "node_modules", "__pycache__",
                                    "*.pyc")
    for name in ("sample_bots", "ladder"):
        shutil.copytree(ROOT / name, work / name, ignore=ignore, symlinks=True)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    shim = bin_dir / "arena"
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m arena "$@"\n')
    shim.chmod(0o755)
    env = dict(os.environ)
    env["PATH"] = f"{bin_dir}{os.pathsep}{env.get('PATH', '')}"
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH")) if p)
    env["ARENA_HOME"] = str(tmp_path / "home")
    env.pop("ARENA_SERVER", None)
    return work, env


def test_the_readmes_cheap_blocks_run_as_written(newcomer: tuple[Path, dict[str, str]]) -> None:
    work, env = newcomer
    ran: set[tuple[str, ...]] = set()
    for block in shell_blocks(README):
        if not runnable(block):
            continue
        proc = subprocess.run(["bash", "-euo", "pipefail", "-c", block.text], cwd=work, env=env,
                              capture_output=True, text=True, timeout=600)
        assert proc.returncode == 0, (
            f"README block at {block.where()} failed (exit {proc.returncode}):\n{block.text}\n"
            f"--- stdout (tail)\n{proc.stdout[-3000:]}\n--- stderr (tail)\n{proc.stderr[-3000:]}")
        for command in commands(block):
            args = command.arena_args()
            if args is not None:
                ran.add(_verb(args))
    assert _MUST_RUN <= ran, f"README blocks no longer run here: {sorted(_MUST_RUN - ran)}"
    assert list((work / "matches").glob("*.jsonl")), "the README's match wrote no log"
    assert (work / "replay.html").is_file()
    assert (work / "report" / "index.html").is_file()


def test_the_cheap_rule_keeps_expensive_commands_out() -> None:
    """The classification itself: what would need Docker, a server or minutes is not run."""
    def command(line: str) -> Command:
        return next(commands(Block(README, "bash", 1, line)))

    assert cheap(command("arena match sample_bots/lost-cities/greedy sample_bots/portas/random"))
    assert not cheap(command("arena match A B --sandbox docker"))
    assert not cheap(command("arena match BOT_A BOT_B --game haggis"))
    assert not cheap(command("arena run-ladder ladder/demo.toml"))
    assert not cheap(command("arena run-ladder ladder/demo.toml --matches 6"))
    assert cheap(command("arena run-ladder ladder/portas.toml --matches 6 --sandbox process"))
    assert not cheap(command("arena watch --follow matches/x.jsonl"))
    assert not cheap(command(".venv/bin/arena submit mybot --name mybot --version 1"))
    assert not cheap(command("bash scripts/demo.sh"))
    assert cheap(command("LOG=$(ls -t matches/*.jsonl | head -n 1)"))
