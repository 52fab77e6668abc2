"""What every command shares: the consoles, domain errors → messages and exit codes, options.

An error's message may quote what a bot or its author controls (a name, a path, a line of its
files, its output): it is printed as plain text (``notice``), never as markup."""

from __future__ import annotations

import enum
import functools
import inspect
import json
import sys
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

import typer
from rich.console import Console

from arena.errors import (
    ArenaError,
    ClusterError,
    ConfigError,
    GameError,
    LogFormatError,
    ReplayMismatchError,
    SandboxError,
    SignatureError,
    UnknownGameError,
)
from arena.render.text import notice as notice  # re-exported: the commands' one-line notices
from arena.sandbox import get_sandbox

console = Console()
err_console = Console(stderr=True)

F = TypeVar("F", bound=Callable[..., Any])

# One table: domain error → exit code (0 ok, 1 a check failed, 2 bad input, 3 environment).
EXIT_CODES: tuple[tuple[type[ArenaError], int], ...] = (
    (ReplayMismatchError, 1),
    (SignatureError, 1),
    (ConfigError, 2),
    (UnknownGameError, 2),
    (GameError, 2),
    (LogFormatError, 2),
    (SandboxError, 3),
    (ClusterError, 3),
    (ArenaError, 2),
)


class OutputFormat(enum.StrEnum):
    human = "human"
    json = "json"


def handle_errors(func: F) -> F:
    """Turn domain errors into one red line on stderr and the exit code from EXIT_CODES."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except ArenaError as exc:
            code = next(c for kind, c in EXIT_CODES if isinstance(exc, kind))
            err_console.print(notice("error", "bold red", exc))
            raise typer.Exit(code) from None
        except KeyboardInterrupt:
            err_console.print("[yellow]interrupted[/]")
            raise typer.Exit(130) from None

    return wrapper  # type: ignore[return-value]


def deprecated(command: F, old: str, new: str) -> F:
    """``command`` under its old spelling ``old``: it runs as before, after one line on stderr
    saying that it is now spelled ``new`` and that the old spelling goes in the next release."""

    @functools.wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        err_console.print(notice("deprecated", "yellow", f"`{old}` is now `{new}`; the old "
                                 "spelling goes in the next release"))
        return command(*args, **kwargs)

    return wrapper  # type: ignore[return-value]


def announce_sandbox(requested: str) -> str:
    """The sandbox a command will use for ``requested`` ("auto" decided now), with a warning on
    stderr when that is the process sandbox."""
    # start-up: `arena` imports it for this command only (the process sandbox)
    from arena.sandbox.process import separation_note

    chosen = get_sandbox(requested).name
    if chosen == "process":
        why = "no Docker engine answers" if requested == "auto" else "as asked"
        err_console.print(notice("warning", "bold yellow", f"playing in the process sandbox "
                                 f"({why}): {separation_note()}"))
    return chosen


def print_json(data: Any) -> None:
    """``--format json`` of a command that prints one thing: one JSON object on one line."""
    sys.stdout.write(json.dumps(data) + "\n")


def print_json_lines(items: Iterable[Any]) -> None:
    """``--format json`` of a command that prints several things (matches, submissions, bots,
    versions, games): one JSON object per line (JSON Lines, NDJSON), written as each is ready,
    so a run can be appended to a file, streamed and read line by line."""
    for item in items:
        sys.stdout.write(json.dumps(item) + "\n")


def parse_options(pairs: list[str] | None) -> dict[str, str]:
    """``["rounds=1", "starter_rule=cumulative"]`` → a dict; ConfigError on a malformed pair."""
    options: dict[str, str] = {}
    for pair in pairs or []:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise ConfigError(f"--option expects KEY=VALUE, got {pair!r}")
        options[key.strip()] = value.strip()
    return options


def help_of(command: Callable[..., Any]) -> str:
    """A command's docstring as its help: paragraphs kept, each one line (the terminal wraps
    it, instead of keeping the source's line breaks)."""
    doc = inspect.getdoc(command) or ""
    return "\n\n".join(" ".join(paragraph.split()) for paragraph in doc.split("\n\n"))
