"""The command line built for one command (``arena.cli.root.command_app``): the same commands,
options and help as the whole command line, and only its own module imported."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.main import get_command
from typer.testing import CliRunner

from arena.cli.main import app
from arena.cli.root import MODULES, OWNERS, command_app, named_command, new_app, register

CLI = Path(__file__).resolve().parents[2] / "arena" / "cli"


def _names(typer_app: Any) -> set[str]:
    root: Any = get_command(typer_app)
    return set(root.commands)


def _described(command: Any) -> dict[str, Any]:
    """A command's name, help, parameters and subcommands, recursively."""
    return {
        "name": command.name, "help": command.help, "hidden": command.hidden,
        "params": [(p.name, p.opts, p.secondary_opts, repr(p.default), p.required,
                    getattr(p, "help", None)) for p in command.params],
        "commands": {n: _described(c) for n, c in getattr(command, "commands", {}).items()},
    }


@pytest.mark.unit
def test_owners_name_what_each_module_registers() -> None:
    assert sorted(MODULES) == sorted(p.stem for p in CLI.glob("*_cmds.py"))
    registered: dict[str, str] = {}
    for module in MODULES:
        alone = new_app()
        register(alone, module)
        for name in _names(alone):
            assert name not in registered, f"{name} is registered by {registered.get(name)} too"
            registered[name] = module
    assert registered == OWNERS
    assert set(OWNERS) == _names(app)


@pytest.mark.unit
@pytest.mark.parametrize(("args", "name"), [
    (["match", "a", "b"], "match"), (["-v", "run-ladder", "x.toml"], "run-ladder"),
    (["--verbose", "-v", "host", "c.toml"], "host"), (["--version"], None), (["--help"], None),
    ([], None), (["bogus"], None), (["-x", "match"], None), (["lab", "evaluate"], "lab"),
])
def test_the_command_named_comes_after_the_root_s_flags(args: list[str], name: str | None
                                                        ) -> None:
    assert named_command(args) == name


@pytest.mark.unit
def test_each_command_alone_is_the_same_as_in_the_whole_command_line() -> None:
    """Its parameters, help and subcommands (click's description of it), for every command;
    one's rendered help too."""
    whole: Any = get_command(app)
    for name in sorted(OWNERS):
        alone_app = command_app([name])
        assert alone_app is not None
        alone: Any = get_command(alone_app)
        assert set(alone.commands) == set(OWNERS) & set(alone.commands) and name in alone.commands
        assert _described(alone.commands[name]) == _described(whole.commands[name]), name
    runner, env = CliRunner(), {"COLUMNS": "100"}
    mine = runner.invoke(command_app(["match"]), ["match", "--help"], env=env)
    assert mine.exit_code == 0 and mine.output == runner.invoke(
        app, ["match", "--help"], env=env).output


@pytest.mark.unit
def test_shell_completion_and_unknown_names_get_the_whole_command_line(
        monkeypatch: pytest.MonkeyPatch) -> None:
    assert command_app(["bogus"]) is None and command_app(["--help"]) is None
    monkeypatch.setenv("_ARENA_COMPLETE", "complete_bash")
    assert command_app(["match"]) is None


@pytest.mark.integration
def test_a_match_s_command_line_does_not_import_the_competition_server() -> None:
    """`arena match` imports neither SQLAlchemy nor the server (`arena host`'s): only its own
    module of the command line."""
    code = ("import sys\nsys.argv = ['arena', 'match', '--help']\nfrom arena.__main__ import main\n"
            "try:\n    main()\nexcept SystemExit as done:\n    assert done.code == 0, done.code\n"
            "print(sorted(m for m in sys.modules if m.startswith(('sqlalchemy', 'arena.host', "
            "'arena.cli.'))))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60, check=True)
    imported = done.stdout.strip().splitlines()[-1]
    assert "sqlalchemy" not in imported and "arena.host" not in imported, imported
    assert "arena.cli.match_cmds" in imported and "arena.cli.main" not in imported, imported
