"""The catalogue of submitted bots (SQLite under $ARENA_HOME), including adopting a catalogue
left under its former name, ``registry.sqlite3``."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from arena.bots import catalogue, resolve_bot
from arena.bots.home import HOME_ENV, arena_home
from arena.errors import ConfigError
from arena.model import BotSpec

LEGACY_SCHEMA = """
CREATE TABLE bots (
    name TEXT NOT NULL, version TEXT NOT NULL, game TEXT NOT NULL, image TEXT NOT NULL,
    digest TEXT NOT NULL, created REAL NOT NULL, PRIMARY KEY (name, version)
)
"""


def test_catalogue_keeps_versions(tmp_path: Path) -> None:
    catalogue.add("b", "1", "lost-cities", "sha256:aa", "sha256:d1", home=tmp_path)
    catalogue.add("b", "2", "lost-cities", "sha256:bb", "sha256:d2", home=tmp_path)
    assert catalogue.lookup("b", "1", home=tmp_path) == BotSpec(
        "b", "lost-cities", image="sha256:aa", version="1", digest="sha256:d1"
    )
    latest = catalogue.lookup("b", home=tmp_path)
    assert latest is not None and latest.version == "2"
    assert catalogue.lookup("c", home=tmp_path) is None
    assert [(b.name, b.version) for b in catalogue.list_bots(home=tmp_path)] == [
        ("b", "2"),
        ("b", "1"),
    ]
    assert (tmp_path / catalogue.DB_NAME).is_file()
    assert catalogue.DB_NAME == "catalogue.sqlite3"
    assert not (tmp_path / catalogue.LEGACY_DB_NAME).exists()


@pytest.mark.parametrize("name", ["", "a@b", "a/b", " a"])
def test_catalogue_refuses_unusable_names(name: str, tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="bad bot name"):
        catalogue.add(name, "1", "lost-cities", "sha256:aa", "sha256:d1", home=tmp_path)
    with pytest.raises(ConfigError, match="bad bot version"):
        catalogue.add("ok", "1@2", "lost-cities", "sha256:aa", "sha256:d1", home=tmp_path)
    assert catalogue.list_bots(home=tmp_path) == []


def _legacy_with_uncheckpointed_wal(home: Path) -> None:
    """A ``registry.sqlite3`` as an older arena left it when killed: its last row only in the
    write-ahead log (``-wal``), next to the database."""
    work = home.parent / "writer"
    work.mkdir()
    conn = sqlite3.connect(work / "registry.sqlite3")
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA wal_autocheckpoint=0")
    conn.execute(LEGACY_SCHEMA)
    conn.execute("INSERT INTO bots VALUES ('old', '1', 'lost-cities', 'sha256:o1', 'd', 1.0)")
    conn.commit()
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.execute("INSERT INTO bots VALUES ('old', '2', 'haggis', 'sha256:o2', 'e', 2.0)")
    conn.commit()
    home.mkdir()
    for name in ("registry.sqlite3", "registry.sqlite3-wal"):  # copied while still open
        shutil.copyfile(work / name, home / name)
    conn.close()
    wal = home / "registry.sqlite3-wal"
    assert wal.stat().st_size > 0


def test_an_old_registry_file_is_adopted_with_its_wal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    _legacy_with_uncheckpointed_wal(home)
    monkeypatch.setenv(HOME_ENV, str(home))
    assert arena_home() == home
    spec = resolve_bot("old")  # first open: adopted, the row in the WAL included
    assert spec.version == "2" and spec.image == "sha256:o2" and spec.game == "haggis"
    assert [b.version for b in catalogue.list_bots()] == ["2", "1"]
    assert (home / "catalogue.sqlite3").is_file()
    assert not list(home.glob("registry.sqlite3*"))
    catalogue.add("new", "1", "lost-cities", "sha256:n", "sha256:n")
    assert [b.name for b in catalogue.list_bots(home=home)] == ["new", "old", "old"]


def test_an_existing_catalogue_wins_over_an_old_registry_file(tmp_path: Path) -> None:
    catalogue.add("current", "1", "lost-cities", "sha256:c", "sha256:c", home=tmp_path)
    legacy = sqlite3.connect(tmp_path / "registry.sqlite3")
    legacy.execute(LEGACY_SCHEMA)
    legacy.execute("INSERT INTO bots VALUES ('stale', '1', 'lost-cities', 'sha256:s', 's', 1.0)")
    legacy.commit()
    legacy.close()
    assert [b.name for b in catalogue.list_bots(home=tmp_path)] == ["current"]
    assert (tmp_path / "registry.sqlite3").is_file()  # left alone


def test_submitted_bots_resolve_by_name_and_version(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(HOME_ENV, str(tmp_path))
    catalogue.add("sub", "1", "lost-cities", "sha256:s1", "sha256:l1")
    catalogue.add("sub", "2", "lost-cities", "sha256:s2", "sha256:l2")
    assert resolve_bot("sub").image == "sha256:s2"
    assert resolve_bot("sub@1").image == "sha256:s1"
    with pytest.raises(ConfigError, match="no bot 'sub@3'"):
        resolve_bot("sub@3")
