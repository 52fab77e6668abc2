"""`arena --help` by audience, and help texts the terminal wraps (not the source)."""

from __future__ import annotations

from typing import Any

import pytest
from rich.text import Text
from typer.main import get_command
from typer.testing import CliRunner

from arena.cli.main import PANELS, app

pytestmark = pytest.mark.unit


def _commands(command: Any, path: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    """Every command's path below ``command`` (a group has ``commands``), itself first."""
    found = [path]
    if hasattr(command, "commands"):
        for name, sub in command.commands.items():
            found += _commands(sub, (*path, name))
    return found


def test_every_top_level_command_is_in_exactly_one_panel() -> None:
    root: Any = get_command(app)
    listed = [name for names in PANELS.values() for name in names]
    assert sorted(listed) == sorted(root.commands), "PANELS lists each command once"
    for name, command in root.commands.items():
        panel = getattr(command, "rich_help_panel", None)
        assert panel is not None and name in PANELS[panel], name


def test_the_mission_s_verbs_come_first() -> None:
    out = CliRunner().invoke(app, ["--help"], env={"COLUMNS": "80"}).output
    first = next(iter(PANELS))
    assert out.index(first) < min(out.index(panel) for panel in list(PANELS)[1:])
    for verb in ("match", "watch", "replay", "submit", "run-ladder"):
        assert verb in PANELS[first]


def test_help_texts_keep_paragraphs_but_not_the_source_s_line_breaks() -> None:
    root: Any = get_command(app)
    paths = _commands(root)
    assert len(paths) > 40
    for path in paths:
        command = root
        for name in path:
            command = command.commands[name]
        for paragraph in (command.help or "").split("\n\n"):
            assert "\n" not in paragraph.strip("\n"), (path, paragraph[:80])


def test_no_help_text_loses_a_bracketed_word_to_rich_markup() -> None:
    """Help is rendered as rich markup, where ``[season]`` or ``name[@version]`` is a tag and
    vanishes ("before or without its time in ."): such brackets are written ``\\[``."""
    root: Any = get_command(app)
    for path in _commands(root):
        command = root
        for name in path:
            command = command.commands[name]
        texts = [command.help or ""] + [getattr(p, "help", None) or "" for p in command.params]
        for text in texts:
            assert Text.from_markup(text).plain == text.replace("\\[", "["), (path, text[:80])


def test_every_help_fits_80_columns() -> None:
    """Renders every command's help (under a second: the runner reuses the command line's click
    command, tests/support/cli_runner.py)."""
    runner = CliRunner()
    for path in _commands(get_command(app)):
        result = runner.invoke(app, [*path, "--help"], env={"COLUMNS": "80"})
        assert result.exit_code == 0, (path, result.output[-300:])
        wide = [line for line in result.output.splitlines() if len(line) > 80]
        assert not wide, (path, wide[:2])
