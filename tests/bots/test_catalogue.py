"""The catalogue of submitted bots (SQLite under $ARENA_HOME), including adopting a catalogue
left under its former name, ``registry.sqlite3``."""

from __future__ import annotations

import re
import shutil
import sqlite3
import threading
from pathlib import Path

import pytest

from arena.bots import catalogue, resolve_bot
from arena.bots.home import HOME_ENV, arena_home
from arena.errors import ConfigError
from arena.model import BotSpec
from tests.support.catalogue import LEGACY_SCHEMA

pytestmark = pytest.mark.unit


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


@pytest.mark.parametrize("name", ["", "a@b", "a/b", " a", "vic tim", "[/]", "x" * 65])
def test_catalogue_refuses_unusable_names(name: str, tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="the catalogue: bot name .* a bot name is"):
        catalogue.add(name, "1", "lost-cities", "sha256:aa", "sha256:d1", home=tmp_path)
    with pytest.raises(ConfigError, match="the catalogue: bot version .* a bot version is"):
        catalogue.add("ok", "1@2", "lost-cities", "sha256:aa", "sha256:d1", home=tmp_path)
    assert catalogue.list_bots(home=tmp_path) == []


def test_a_submission_cannot_replace_another_bot(tmp_path: Path) -> None:
    """ATTACK (hole 3): `INSERT OR REPLACE` let a bot.toml saying `name = "victim"` take over
    victim@1's row (and so its ladder entry and rating). An existing (name, version) is replaced
    only when asked; a name another bot holds ignoring case is refused, asked or not."""
    victim = catalogue.add("victim", "1", "lost-cities", "sha256:v", "sha256:v", home=tmp_path)
    for name, says in (("victim", "is already in the catalogue"),
                       ("Victim", "is taken by the catalogued bot 'victim'"),
                       ("VICTIM", "is taken by the catalogued bot 'victim'")):
        with pytest.raises(ConfigError, match=re.escape(says)) as refused:
            catalogue.add(name, "1", "lost-cities", "sha256:evil", "sha256:evil", home=tmp_path)
        assert str(refused.value).startswith("refused: ") and "\n" not in str(refused.value)
        with pytest.raises(ConfigError, match=re.escape(says)):
            catalogue.check_new(name, "1", home=tmp_path)
    with pytest.raises(ConfigError, match="is taken by"):  # --replace is for one's own entry
        catalogue.add("Victim", "1", "lost-cities", "sha256:e", "sha256:e", replace=True,
                      home=tmp_path)
    assert catalogue.list_bots(home=tmp_path) == [victim]

    with catalogue.adding("victim", "1", "lost-cities", "sha256:w", "sha256:w", replace=True,
                          home=tmp_path) as addition:
        assert addition.replaced == victim
    assert catalogue.lookup("victim", "1", home=tmp_path) == addition.bot.spec()
    catalogue.add("victim", "2", "lost-cities", "sha256:x", "sha256:x", home=tmp_path)
    assert [b.version for b in catalogue.list_bots(home=tmp_path)] == ["2", "1"]


def test_nothing_is_written_when_the_block_fails(tmp_path: Path) -> None:
    """`arena submit` moves the image's tag inside the write transaction: a failure there
    leaves the catalogue as it was."""
    with pytest.raises(RuntimeError), catalogue.adding(
            "b", "1", "lost-cities", "sha256:b", "sha256:b", home=tmp_path):
        raise RuntimeError("the engine failed")
    assert catalogue.list_bots(home=tmp_path) == []


@pytest.mark.integration
def test_a_racing_submission_of_the_same_bot_is_refused(tmp_path: Path) -> None:
    """The check and the write are one transaction (BEGIN IMMEDIATE): a second submission that
    arrives while the first is being written waits, then sees it and is refused."""
    outcome: list[BaseException | None] = []

    def second() -> None:
        try:
            catalogue.add("racer", "1", "lost-cities", "sha256:2", "sha256:2", home=tmp_path)
            outcome.append(None)
        except ConfigError as exc:
            outcome.append(exc)

    with catalogue.adding("racer", "1", "lost-cities", "sha256:1", "sha256:1", home=tmp_path):
        thread = threading.Thread(target=second)
        thread.start()
        thread.join(0.5)
    thread.join(30)
    assert len(outcome) == 1 and isinstance(outcome[0], ConfigError)
    assert "already in the catalogue" in str(outcome[0])
    assert [b.image for b in catalogue.list_bots(home=tmp_path)] == ["sha256:1"]


def test_a_legacy_catalogue_still_lists_and_resolves(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """MIGRATION: a catalogue written by the arena before names were identifiers (its schema,
    names with a space or markup, a layer digest as identity) opens, lists and resolves as
    before; a new name that would share a legacy name's tag is refused."""
    conn = sqlite3.connect(tmp_path / catalogue.DB_NAME)
    conn.execute(LEGACY_SCHEMA)
    conn.executemany("INSERT INTO bots VALUES (?, ?, 'lost-cities', ?, ?, ?)", [
        ("vic tim", "1 0", "sha256:i1", "sha256:layer1", 1.0),
        ("[/]", "1", "sha256:i2", "sha256:layer2", 2.0),
    ])
    conn.commit()
    conn.close()
    monkeypatch.setenv(HOME_ENV, str(tmp_path))
    assert [(b.name, b.version, b.digest) for b in catalogue.list_bots()] == [
        ("[/]", "1", "sha256:layer2"), ("vic tim", "1 0", "sha256:layer1")]
    spec = resolve_bot("vic tim@1 0")
    assert (spec.image, spec.digest) == ("sha256:i1", "sha256:layer1")  # identity as recorded
    assert resolve_bot("[/]").image == "sha256:i2"
    with pytest.raises(ConfigError, match="is taken by the catalogued bot 'vic tim'"):
        catalogue.add("vic-tim", "1", "lost-cities", "sha256:n", "sha256:n")
    with pytest.raises(ConfigError, match="is taken by the catalogued bot"):
        catalogue.add("bot", "1", "lost-cities", "sha256:n", "sha256:n")  # `[/]` was tagged bot


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
