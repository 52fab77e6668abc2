"""typer's test runner with the whole `arena` command line built once.

``typer.testing.CliRunner.invoke(app, ...)`` turns the app it is given into its click command
at every invoke: 60 ms of CPU for the whole `arena` command line, and the suite invokes it
hundreds of times (262 invocations in tests/cli and tests/ladder alone spent 15 s on it). The
whole command line (``arena.cli.main.app``, complete once imported) is turned once and the same
command reused, as click reuses a command (every `--help` is byte-identical either way); any
other app (one a test makes) is turned at every invoke, as before. ``tests/conftest.py``
installs it for the whole run."""

from __future__ import annotations

import sys
from typing import Any

import typer
import typer.testing
from typer.main import get_command

_WHOLE: list[tuple[typer.Typer, Any]] = []
"""The whole command line and its click command."""


def command_of(app: typer.Typer) -> Any:
    """The click command of ``app`` (the whole command line's: made once)."""
    main = sys.modules.get("arena.cli.main")
    if main is None or app is not main.app:
        return get_command(app)
    if not _WHOLE or _WHOLE[0][0] is not app:
        _WHOLE[:] = [(app, get_command(app))]
    return _WHOLE[0][1]


def install() -> None:
    """Make typer's runner use :func:`command_of`."""
    typer.testing._get_command = command_of  # type: ignore[attr-defined]
