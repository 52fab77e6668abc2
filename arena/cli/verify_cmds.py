"""`arena verify DIR --key PUB`: check a published ladder (`arena ladder publish`) offline;
`arena verify FILE --key PUB`: check a match log or seat view a contestant downloaded (`arena
logs`, a competition's public page) offline.

The command parses its arguments, makes one call into ``arena.site.publish`` (a directory) or
``arena.host.views`` (a file) and prints what was verified, or every difference found (one line
each, exit 1). A directory that is no publication at all, a file that cannot be read, or a key
file that cannot be read, is one line and exit 2.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated

import typer
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeRemainingColumn,
)

from arena.cli.common import console, err_console, handle_errors, help_of, notice
from arena.errors import ConfigError, ReplayMismatchError, SignatureError
from arena.record.signing import TrustedKeys, load_trusted
from arena.render.verify import render_checked, render_verification
from arena.site.publish import Progress as ProgressCallback
from arena.site.publish import verify_publication

SHOWN_FROM = 50
"""A verification of at least this many logs shows its progress (on stderr)."""


def register(app: typer.Typer) -> None:
    """Add `verify` to the root app."""
    app.command("verify", help=help_of(verify))(verify)


@handle_errors
def verify(
    directory: Annotated[Path, typer.Argument(
        help="The published directory (`arena ladder publish --out DIR`), or a file: a match "
             "log or seat view downloaded from a competition (`arena logs`, its public "
             "page).")],
    keys: Annotated[list[Path] | None, typer.Option(
        "--key", help="A public key you trust (a .pub file, or a directory of them): the "
                      "referee's, from a source you trust, not only the copy in DIR. "
                      "Repeatable (rotated keys).")] = None,
) -> None:
    """Check a published ladder, or a downloaded match log or seat view, offline.

    manifest.sig must be a trusted key's signature of manifest.json. Every match the manifest
    lists must have its log in DIR/logs/ with the listed SHA-256, signed by a trusted key,
    naming the listed match and ladder slot (ladder, encounter, cycle, leg), replaying under
    the rules (the seed's reveal against its commitment, every deal, action, clock and score)
    to the listed result; DIR/logs/ must hold nothing else. Then the standings are recomputed
    from the logs alone (Bradley-Terry, as the ladder rates) and compared with the manifest's.

    A file (`arena logs`, a competition's public page) must end with the referee's statement
    signed by a trusted key, of the SHA-256 of every byte before it: the match, its bots, rules
    and seed commitment, the result, and for a seat view that view. A whole log is also
    replayed under the rules. A match log with its signature record (a publication's
    logs/) is checked as `arena replay --key` checks it.

    Prints what was verified, or every difference found, one line each (exit 1).
    """
    if not keys:
        raise ConfigError("pass the referee's public key with --key PUB (get it from a source "
                          "you trust: the referee.pub inside the directory proves nothing)")
    trusted = load_trusted(keys)
    if not directory.is_dir():
        verify_file(directory, trusted)
        return
    with verification_progress() as progress:
        report = verify_publication(directory, trusted, progress=progress)
    console.print(render_verification(report), soft_wrap=True)  # a line a finding
    if not report.ok:
        raise typer.Exit(1)


def verify_file(path: Path, trusted: TrustedKeys) -> None:
    """`arena verify FILE`: one line, what was verified, or why not (exit 1)."""
    # start-up: `arena` imports it for this command only
    from arena.host.views import verify_download

    try:
        checked = verify_download(path, trusted)
    except (SignatureError, ReplayMismatchError) as exc:
        console.print(notice("NOT verified", "bold red", f"{path}: {exc}"), soft_wrap=True)
        raise typer.Exit(1) from None
    console.print(render_checked(path, checked), soft_wrap=True)


@contextlib.contextmanager
def verification_progress() -> Iterator[ProgressCallback]:
    """A progress callback that shows a bar on stderr once a verification is long enough."""
    bar = Progress(TextColumn("verifying logs"), BarColumn(), MofNCompleteColumn(),
                   TimeRemainingColumn(), console=err_console, transient=True)
    task: list[TaskID] = []

    def advance(done: int, total: int) -> None:
        if total < SHOWN_FROM:
            return
        if not task:
            bar.start()
            task.append(bar.add_task("verify", total=total))
        bar.update(task[0], completed=done)

    try:
        yield advance
    finally:
        if task:
            bar.stop()
