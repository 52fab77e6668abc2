"""The docs say what exists: every `arena` command line in the README and the docs names a
command and options the CLI has, every relative link and anchor leads somewhere, every path a
README command names is in the repository, and the README stays a newcomer's document.

The README's cheap commands are also run as written: tests/docs/test_readme.py."""

from __future__ import annotations

import re
import urllib.parse
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from arena.cli.main import app
from tests.support.doc_blocks import (
    README,
    ROOT,
    Command,
    anchors,
    commands,
    links,
    markdown_files,
    shell_blocks,
)

pytestmark = pytest.mark.unit

README_MAX_LINES = 300
TWO_COMMANDS = (
    "bash scripts/demo.sh     # set up, then run the demo ladder of the Lost Cities sample bots\n"
    "bash scripts/test.sh     # set up with test extras and a Docker engine, then run every test"
)


def arena_commands(path: Path) -> list[tuple[Command, tuple[str, ...]]]:
    found = []
    for block in shell_blocks(path):
        for command in commands(block):
            args = command.arena_args()
            if args is not None:
                found.append((command, args))
    return found


def test_the_readme_is_a_newcomers_document() -> None:
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= README_MAX_LINES, (
        f"README.md has {len(lines)} lines: keep it under {README_MAX_LINES}, the reference "
        "goes to docs/")


def test_the_two_commands_come_first() -> None:
    first = next(block for block in shell_blocks(README))
    assert first.text == TWO_COMMANDS
    for command in commands(first):
        assert (ROOT / command.words[1]).is_file(), command.words


@pytest.mark.integration
@pytest.mark.parametrize("path", markdown_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_arena_command_line_parses(path: Path) -> None:
    """`arena ARGS --help` exits 0: the command exists and so does every option it is given
    (click reads every option before the eager --help; arguments are not checked here)."""
    runner = CliRunner()
    failures = []
    for command, args in arena_commands(path):
        result = runner.invoke(app, [*args, "--help"])
        if result.exit_code != 0:
            last = (result.output.strip().splitlines() or ["(no output)"])[-2:]
            failures.append(f"{command.where()}: arena {' '.join(args)}: {' '.join(last)}")
    assert not failures, "\n".join(failures)


def test_the_readme_and_the_cli_reference_have_arena_commands() -> None:
    assert len(arena_commands(README)) >= 10
    assert len(arena_commands(ROOT / "docs" / "cli.md")) >= 30


def test_every_cli_command_is_in_the_cli_reference() -> None:
    """docs/cli.md names every command and subcommand the CLI has."""
    from typer.main import get_command

    text = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    missing = []

    def walk(command: Any, path: tuple[str, ...]) -> None:
        if hasattr(command, "commands"):  # a group (typer's own click)
            for name, sub in command.commands.items():
                if not sub.hidden:  # an old spelling, kept for a release
                    walk(sub, (*path, name))
            return
        if path[-1] == "run" and path[:-1] in (("sprt",), ("host",)):
            path = path[:-1]  # the group's default command: `arena sprt A B`, `arena host F`
        if path == ("ladder",) or not _names(text, path):
            missing.append("arena " + " ".join(path))

    walk(get_command(app), ())
    assert not missing, f"docs/cli.md does not name: {', '.join(missing)}"


def _names(text: str, path: tuple[str, ...]) -> bool:
    """`arena standings` or, in a group's row, `arena ladder ... / standings / ...`."""
    if f"arena {' '.join(path)}" in text:
        return True
    group, name = " ".join(path[:-1]), path[-1]
    return re.search(rf"arena {re.escape(group)} [\w /-]*\b{re.escape(name)}\b", text) is not None


def test_paths_in_readme_commands_exist() -> None:
    """A path a README command names under a repository directory is there (generated state,
    placeholders and what the commands themselves make excepted)."""
    tops = ("sample_bots/", "ladder/", "examples/", "scripts/", ".ci/", "docs/", "benchmarks/")
    made = ("ladder/state", "ladder/certs", "matches/", "mybot")
    missing = []
    for block in shell_blocks(README):
        for command in commands(block):
            for word in command.words:
                if (word.startswith(tops) and not word.startswith(made)
                        and not re.search(r"[…*$<>]", word) and not (ROOT / word).exists()):
                    missing.append(f"{command.where()}: {word}")
    assert not missing, "\n".join(missing)


@pytest.mark.parametrize("path", markdown_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_and_anchors_resolve(path: Path) -> None:
    broken = []
    for line, target in links(path):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target):
            continue  # https:, mailto:
        file_part, _, fragment = target.partition("#")
        dest = (path.parent / urllib.parse.unquote(file_part)).resolve() if file_part else path
        if not dest.exists():
            broken.append(f"{path.relative_to(ROOT)}:{line}: {target}: no such file")
        elif fragment and dest.suffix == ".md" and fragment not in anchors(dest):
            broken.append(f"{path.relative_to(ROOT)}:{line}: {target}: no such heading")
    assert not broken, "\n".join(broken)


def test_the_code_maps_name_every_room_and_module() -> None:
    """The README's code map names every room of arena/; docs/architecture.md's module map
    names every module (a new module without a line there fails here)."""
    readme = README.read_text(encoding="utf-8")
    rooms = sorted(p.name for p in (ROOT / "arena").iterdir()
                   if p.is_dir() and (p / "__init__.py").is_file() and p.name != "v1")
    assert [room for room in rooms if f"arena/{room}/" not in readme] == []
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    tree = text.split("## The rooms", 1)[1].split("\n## ", 1)[0]
    modules = sorted(p for p in (ROOT / "arena").rglob("*.py")
                     if "v1" not in p.parts and p.name != "__init__.py")
    missing = [str(p.relative_to(ROOT)) for p in modules
               if not re.search(rf"\b{re.escape(p.stem)}\b", tree)]
    assert missing == [], f"docs/architecture.md's module map does not name {missing}"


def test_the_readmes_python_compiles() -> None:
    from tests.support.doc_blocks import blocks

    sources = [block for block in blocks(README) if block.language == "python"]
    assert sources, "the README shows a bot in Python"
    for block in sources:
        compile(block.text, block.where(), "exec")
