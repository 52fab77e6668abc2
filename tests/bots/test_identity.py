"""THE bot identity: content-based (paths and bytes of the files that count), the same for two
checkouts of one commit, memoized under a stat fingerprint and refreshed when a file changes."""

from __future__ import annotations

import os
import py_compile
import shutil
import time
from pathlib import Path

import pytest

from arena.bots.files import (
    MAX_DIR_FILES_ENV,
    MAX_DIR_MB_ENV,
    BotFileError,
    check_bot_directory,
)
from arena.bots.identity import DirectoryHashes, bot_identity, directory_hash
from arena.errors import ConfigError
from arena.model import BotSpec

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parents[2]
SAMPLE_BOTS = sorted(p.parent for p in (ROOT / "sample_bots").glob("*/*/bot.toml"))
HOUR_NS = 3600 * 10**9


def _age(directory: Path, ns_ago: int = HOUR_NS) -> None:
    """Set every file's mtime into the past (older than the memo's racy window)."""
    then = time.time_ns() - ns_ago
    for path in directory.rglob("*"):
        if path.is_file() and not path.is_symlink():
            os.utime(path, ns=(then, then))


def _bot(root: Path) -> Path:
    (root / "lib").mkdir(parents=True)
    (root / "bot.py").write_text("print(1)\n")
    (root / "bot.toml").write_text('name = "b"\ngame = "lost-cities"\n')
    (root / "lib" / "util.py").write_text("X = 1\n")
    _age(root)
    return root


def test_identity_of_a_known_directory_is_unchanged(tmp_path: Path) -> None:
    """The hash the ladder has recorded in its bot rows all along: sha256 over each counted
    file's relative path, NUL, bytes, NUL, in path order (by components). Another algorithm
    would give every directory bot of an existing ladder a new identity."""
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "b").write_bytes(b"1")
    (tmp_path / "a-c").write_bytes(b"2")  # "a-c" < "a/b" as strings; by components a/b first
    (tmp_path / ".hidden").write_bytes(b"3")
    assert directory_hash(tmp_path) == (
        "dir:sha256:dbbd061e03264a1aecead847ac80dc40c3307688751d50241422422bc25ed394"
    )


@pytest.mark.parametrize("bot", SAMPLE_BOTS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_two_checkouts_of_a_sample_bot_have_one_identity(bot: Path, tmp_path: Path) -> None:
    """Elsewhere, with other mtimes and modes, after running (bytecode) and with tool caches
    and editor files: the same identity."""
    original = directory_hash(bot)
    assert original.startswith("dir:sha256:")
    plain = tmp_path / "one" / bot.name
    shutil.copytree(bot, plain, copy_function=shutil.copyfile)  # new mtimes, default modes
    used = tmp_path / "two" / "elsewhere"
    shutil.copytree(bot, used, symlinks=True)
    for script in used.glob("*.py"):
        py_compile.compile(str(script), doraise=True)  # __pycache__/*.pyc
        script.chmod(0o700)
    (used / ".pytest_cache").mkdir()
    (used / ".pytest_cache" / "README.md").write_text("cache\n")
    (used / ".bot.py.swp").write_bytes(b"\0editor")
    _age(used, ns_ago=7 * HOUR_NS)
    assert directory_hash(plain) == original
    assert directory_hash(used) == original


def test_content_counts_mtime_does_not(tmp_path: Path) -> None:
    bot = _bot(tmp_path / "bot")
    first = directory_hash(bot)
    os.utime(bot / "bot.py")  # touch
    assert directory_hash(bot) == first
    (bot / ".env").write_text("A=1\n")  # hidden: does not count
    (bot / "__pycache__").mkdir()
    (bot / "__pycache__" / "bot.cpython-311.pyc").write_bytes(b"junk")
    assert directory_hash(bot) == first
    (bot / "bot.py").write_text("print(2)\n")
    changed = directory_hash(bot)
    assert changed != first
    (bot / "lib" / "util.py").rename(bot / "lib" / "other.py")  # same bytes, another path
    assert directory_hash(bot) not in (first, changed)
    (bot / "lib" / "other.py").rename(bot / "lib" / "util.py")
    assert directory_hash(bot) == changed
    (bot / "empty").touch()
    assert directory_hash(bot) != changed


@pytest.mark.parametrize("where", ["notes.txt", "lib/notes.txt", "lib"])
def test_a_symlink_anywhere_is_refused_naming_its_path(tmp_path: Path, where: str) -> None:
    """The attack: ``notes.txt -> <ladder state>/deal-secret`` hashed (and shipped) with the
    target's bytes. Now the directory is refused, naming the link; hidden names stay unread."""
    secret = tmp_path / "deal-secret"
    secret.write_text("the ladder's secret\n")
    bot = _bot(tmp_path / "bot")
    (bot / ".venv").mkdir()
    (bot / ".venv" / "python").symlink_to("/usr/bin/python3")  # hidden: never read
    first = directory_hash(bot)
    if where == "lib":
        shutil.rmtree(bot / "lib")
    (bot / where).symlink_to(secret if where != "lib" else tmp_path)
    with pytest.raises(BotFileError, match=rf"{bot / where} is a symlink"):
        directory_hash(bot)
    with pytest.raises(BotFileError, match="is a symlink"):
        check_bot_directory(bot)
    (bot / where).unlink()
    if where != "lib":
        assert directory_hash(bot) == first


def test_a_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    bot = _bot(tmp_path / "bot")
    os.mkfifo(bot / "pipe")
    with pytest.raises(BotFileError, match=rf"{bot / 'pipe'} is a FIFO"):
        directory_hash(bot)


def test_the_caps_bound_what_a_directory_may_hold(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    bot = _bot(tmp_path / "bot")
    (bot / "blob.bin").write_bytes(b"x" * (2 << 20))
    monkeypatch.setenv(MAX_DIR_MB_ENV, "1")
    with pytest.raises(BotFileError, match=r"more than 1 MiB .*ARENA_MAX_BOT_DIR_MB"):
        check_bot_directory(bot)
    monkeypatch.setenv(MAX_DIR_MB_ENV, "3")
    check_bot_directory(bot)
    monkeypatch.setenv(MAX_DIR_FILES_ENV, "2")
    with pytest.raises(BotFileError, match="more than 2 files"):
        check_bot_directory(bot)
    monkeypatch.setenv(MAX_DIR_FILES_ENV, "zero")
    with pytest.raises(ConfigError, match="ARENA_MAX_BOT_DIR_FILES='zero'"):
        check_bot_directory(bot)


def test_the_memo_reads_contents_only_after_a_change(tmp_path: Path) -> None:
    bot = _bot(tmp_path / "bot")
    hashes = DirectoryHashes()
    first = hashes.hash(bot)
    assert hashes.hash(bot) == first and hashes.hash(str(bot)) == first
    assert (hashes.fresh, hashes.cached) == (1, 2)

    old = (bot / "bot.py").stat().st_mtime_ns
    os.utime(bot / "bot.py", ns=(old - HOUR_NS, old - HOUR_NS))  # another mtime, same bytes
    assert hashes.hash(bot) == first
    assert hashes.hash(bot) == first
    assert (hashes.fresh, hashes.cached) == (2, 3)

    # Same size, and the old mtime put back: the ctime and the memo still see the edit.
    mtime = (bot / "bot.py").stat().st_mtime_ns
    (bot / "bot.py").write_text("print(3)\n")
    os.utime(bot / "bot.py", ns=(mtime, mtime))
    edited = hashes.hash(bot)
    assert edited != first and hashes.fresh == 3
    assert hashes.hash(bot) == edited and hashes.fresh == 3

    (bot / "lib" / "new.py").write_text("Y = 2\n")  # just written: hashed, not memoized
    added = hashes.hash(bot)
    assert hashes.hash(bot) == added != edited
    assert hashes.fresh == 5
    _age(bot)
    assert hashes.hash(bot) == added and hashes.hash(bot) == added
    assert hashes.fresh == 6


def test_bot_identity_prefers_the_image(tmp_path: Path) -> None:
    bot = _bot(tmp_path / "bot")
    spec = BotSpec("b", "lost-cities", directory=str(bot))
    assert bot_identity(spec) == directory_hash(bot)
    with_image = BotSpec("b", "lost-cities", directory=str(bot), image="sha256:img")
    assert bot_identity(with_image) == "sha256:img"
    pinned = BotSpec("b", "lost-cities", image="sha256:img", digest="sha256:layer")
    assert bot_identity(pinned) == "sha256:layer"
    assert bot_identity(BotSpec("b", "lost-cities")) == ""
    assert directory_hash(tmp_path / "missing") == ""
    assert directory_hash(bot / "bot.py") == ""
