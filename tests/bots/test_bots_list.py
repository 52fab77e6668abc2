"""`arena bots list` and `arena submit`'s refusals on the terminal: names, versions and refusal
texts are shown as the characters they are, never as rich markup (hole 5) and without escape
sequences (hole 4). Catalogue rows written before names were identifiers may hold anything."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.bots import catalogue
from arena.bots.home import HOME_ENV
from tests.support.catalogue import LEGACY_SCHEMA
from tests.support.terminal import console_width

pytestmark = pytest.mark.integration

HOSTILE_NAMES = ["[/]", "[link=http://127.0.0.1:1/]x[/link]", "[b][/b]victim", "ev\x1b]0;t\x07il"]


def _legacy_catalogue(home: Path, names: list[str]) -> None:
    """A catalogue as today's main wrote it, with rows it accepted (printable names) and one a
    bot.toml could never give (an escape), written directly."""
    home.mkdir()
    conn = sqlite3.connect(home / catalogue.DB_NAME)
    conn.execute(LEGACY_SCHEMA)
    conn.executemany("INSERT INTO bots VALUES (?, '1', 'lost-cities', 'sha256:i', 'sha256:d', 1.0)",
                     [(name,) for name in names])
    conn.commit()
    conn.close()


def test_bots_list_shows_markup_names_literally(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ATTACK (hole 5): a catalogued bot named `[/]` raised MarkupError and crashed `arena bots
    list`; `[b][/b]victim` displayed as `victim`."""
    from arena.cli.main import app

    _legacy_catalogue(tmp_path / "home", HOSTILE_NAMES)
    monkeypatch.setenv(HOME_ENV, str(tmp_path / "home"))
    # wide enough for every name in full, whatever width the CLI's console took on import
    console_width(monkeypatch, 200)
    out = CliRunner().invoke(app, ["bots", "list"], env={"COLUMNS": "200"})
    assert out.exit_code == 0, out.output
    for shown in ("[/]", "[link=http://127.0.0.1:1/]x[/link]", "[b][/b]victim", "ev]0;til"):
        assert shown in out.output
    assert "\x1b" not in out.output and "\x07" not in out.output


@pytest.mark.unit
def test_a_refused_name_is_one_line_exit_2(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`arena submit --name '[/]'` is refused before anything is built, in one line quoting the
    name literally."""
    from arena.cli.main import app

    monkeypatch.setenv(HOME_ENV, str(tmp_path / "home"))
    out = CliRunner().invoke(app, ["submit", str(tmp_path), "--name", "[/]\x1b[2J"],
                             env={"COLUMNS": "400"})
    assert out.exit_code == 2, out.output
    lines = out.output.strip().splitlines()
    assert len(lines) == 1 and "--name '[/][2J' holds characters" in lines[0]
    assert "\x1b" not in out.output
