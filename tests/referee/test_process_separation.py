"""The process sandbox as root: each bot is its own unprivileged user in its own namespaces.

``snoop`` (sample_bots/hostile) tries what a contestant would: the other seat's socket, every
listed Unix socket, the Docker socket, the referee's admin socket, match logs, the ladder's deal
secret and store, a TCP port on 127.0.0.1, and a setsid'ed grandchild that outlives the match.
Here the targets are real files and sockets the arena made, in a world-traversable directory
(not under /tmp, which a separated bot never sees anyway)."""

from __future__ import annotations

import asyncio
import os
import shutil
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.bots import load_bot_dir
from arena.ladder.config import parse_ladder
from arena.ladder.runner import ladder_secret, signing_of
from arena.ladder.store import LadderStore
from arena.model import MatchSpec, Termination, TimeControl
from arena.record.log import MatchLogWriter
from arena.record.signing import ensure_signer
from arena.referee.match import play_match
from arena.sandbox.isolation import UID_BASE, isolation_available
from tests.support.matches import wait_serving
from tests.support.paths import RANDOM_BOT, ROOT

pytestmark = pytest.mark.integration

SNOOP = ROOT / "sample_bots" / "hostile" / "snoop"


@pytest.fixture(autouse=True)
def _root_only() -> None:
    if isolation_available():
        return
    message = "the process sandbox separates bots only as root on Linux"
    if os.environ.get("ARENA_REQUIRE_DOCKER") == "1":  # CI runs as root: never skip there
        pytest.fail(message, pytrace=False)
    pytest.skip(message)


@pytest.fixture
def work() -> Iterator[Path]:
    """A directory outside /tmp, as a ladder's state in a checkout would be."""
    path = ROOT / f".separation-{uuid.uuid4().hex[:8]}"
    path.mkdir(mode=0o755)
    yield path
    shutil.rmtree(path, ignore_errors=True)


def _snoop_copy(work: Path, targets: list[str], name: str = "snoop") -> Path:
    bot = work / name
    shutil.copytree(SNOOP, bot)
    (bot / "targets.txt").write_text("\n".join(targets) + "\n")
    for path in [bot, *bot.iterdir()]:
        path.chmod(0o755)
    return bot


def test_a_separated_bot_reaches_nothing_but_its_seat(work: Path, socket_root: Path) -> None:
    # what the arena keeps beside a ladder: its deal secret, its store, match logs
    ladder = parse_ladder('name = "sep"\ngame = "lost-cities"\nentrants = ["a", "b"]\n',
                          source=work / "sep.toml")
    secret = ladder.state_dir / "deal-secret"
    ladder_secret(ladder)
    LadderStore(ladder.database_url).close()
    writer = MatchLogWriter(ladder.match_log_dir / "running.jsonl")
    # a live referee's admin socket, in a directory anyone can traverse
    admin_dir = work / "admin"
    admin_dir.mkdir(mode=0o755)
    admin = admin_dir / "referee.sock"
    referee = subprocess.Popen([sys.executable, "-m", "arena", "serve", "--listen",
                                f"unix://{admin}", "--sandbox", "process",
                                "--log-dir", str(work / "serve-logs")],
                               cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    try:
        wait_serving(f"unix://{admin}")
        bot = _snoop_copy(work, [
            f"read {secret}", f"read {ladder.state_dir}", f"read {ladder.sqlite_path}",
            f"read {writer.path}", f"read {ladder.match_log_dir}", f"socket {admin}",
            f"tcp {port}",
        ])
        spec = MatchSpec("lost-cities", 5, (load_bot_dir(bot), load_bot_dir(RANDOM_BOT)),
                         {"rounds": 1}, TimeControl(startup_ms=5000))
        result = asyncio.run(play_match(spec, sandbox="process", log_dir=work / "logs",
                                        socket_root=socket_root))
    finally:
        writer.close()
        listener.close()
        referee.terminate()
        referee.wait(10)
    assert result.termination is Termination.NORMAL, result.detail
    tail = (work / "logs" / f"{result.match_id}.seat0.log").read_text()
    findings = dict(line.removeprefix("[hostile] snoop: ").rsplit(": ", 1)
                    for line in tail.splitlines()
                    if line.startswith("[hostile] snoop: ") and ": " in line[17:])
    uid = int(next(line for line in tail.splitlines() if "snoop: uid " in line).split()[-1])
    assert uid >= UID_BASE and uid != os.getuid()
    assert "grandchild started" in tail
    reached = {k: v for k, v in findings.items() if v in ("read", "connected", "ok")}
    assert not reached, reached
    assert any(k.startswith("other seat") for k in findings)
    assert findings[f"socket {admin}"] in ("EACCES", "ENOENT")
    assert findings[f"read {secret}"] in ("EACCES", "ENOENT")
    assert findings[f"tcp {port}"] != "connected"
    assert "listed unix sockets 0, reached 0" in tail
    time.sleep(0.3)
    left = subprocess.run(["pgrep", "-f", "arena-snoop-grandchild"], capture_output=True,
                          text=True, check=False).stdout.split()
    assert left == [], "a setsid'ed grandchild outlived the match"


@pytest.mark.unit
def test_the_arena_keeps_its_logs_and_state_to_itself(work: Path) -> None:
    ladder = parse_ladder('name = "own"\ngame = "lost-cities"\nentrants = ["a", "b"]\n',
                          source=work / "own.toml")
    ladder_secret(ladder)
    LadderStore(ladder.database_url).close()
    writer = MatchLogWriter(ladder.match_log_dir / "m.jsonl")
    writer.close()
    for path, mode in [(ladder.state_dir, 0o700), (ladder.match_log_dir, 0o700),
                       (writer.path, 0o600), (ladder.state_dir / "deal-secret", 0o600)]:
        assert path.stat().st_mode & 0o777 == mode, path


def test_a_bot_in_a_closed_directory_inside_a_needed_one_runs_and_sees_only_itself(
    work: Path, socket_root: Path
) -> None:
    """A worker's private (0700) cache inside the arena's checkout, which every separated bot
    needs: the bot's own directory below it must run, and the cache must stay closed (before,
    the closed directory was left as it is on the host, so the bot could not reach its own
    code: no_start, a loss for a bot that did nothing wrong)."""
    cache = work / "cache"
    cache.mkdir(mode=0o700)
    (cache / "bots").mkdir(mode=0o700)
    victim = cache / "bots" / "victim"
    victim.mkdir(mode=0o755)
    (victim / "bot.py").write_text("SECRET_STRATEGY = 1\n")
    (victim / "bot.py").chmod(0o644)
    own = _snoop_copy(work, [f"read {victim / 'bot.py'}", f"read {victim}"])
    bot = own.rename(cache / "bots" / "snoop")
    spec = MatchSpec("lost-cities", 5, (load_bot_dir(bot), load_bot_dir(RANDOM_BOT)),
                     {"rounds": 1}, TimeControl(startup_ms=5000))
    result = asyncio.run(play_match(spec, sandbox="process", log_dir=work / "logs",
                                    socket_root=socket_root))
    assert result.termination is Termination.NORMAL, result.detail
    tail = (work / "logs" / f"{result.match_id}.seat0.log").read_text()
    findings = dict(line.removeprefix("[hostile] snoop: ").rsplit(": ", 1)
                    for line in tail.splitlines()
                    if line.startswith("[hostile] snoop: ") and ": " in line[17:])
    for target in (victim / "bot.py", victim):  # the cache shows the bot only its own way in
        assert findings[f"read {target}"] in ("EACCES", "ENOENT"), (target, findings)


def _snooped(work: Path, socket_root: Path, targets: list[str]) -> dict[str, str]:
    """What ``snoop`` made of each target in a real match in the process sandbox."""
    bot = _snoop_copy(work, targets, f"snoop-{uuid.uuid4().hex[:6]}")
    spec = MatchSpec("lost-cities", 5, (load_bot_dir(bot), load_bot_dir(RANDOM_BOT)),
                     {"rounds": 1}, TimeControl(startup_ms=5000))
    result = asyncio.run(play_match(spec, sandbox="process", log_dir=work / "logs",
                                    socket_root=socket_root))
    assert result.termination is Termination.NORMAL, result.detail
    tail = (work / "logs" / f"{result.match_id}.seat0.log").read_text()
    return dict(line.removeprefix("[hostile] snoop: ").rsplit(": ", 1)
                for line in tail.splitlines()
                if line.startswith("[hostile] snoop: ") and ": " in line[17:])


def test_a_state_directory_is_private_from_its_first_byte(work: Path, socket_root: Path
                                                          ) -> None:
    """In the order a ladder run makes them: the signing key first (its ``keys/`` directory's
    parent is the state directory), then the store with its WAL. Before, the state directory
    was made 0755 as the key's parent and SQLite made the store 0644: a bot played in a leg
    read the store, hence its deal's seed and every deal of the ladder."""
    ladder = parse_ladder('name = "first"\ngame = "lost-cities"\nentrants = ["a", "b"]\n',
                          source=work / "first.toml")
    ensure_signer(ladder.state_dir)
    store = LadderStore(ladder.database_url)  # open: its -wal and -shm files exist
    try:
        wal = ladder.sqlite_path.with_name(ladder.sqlite_path.name + "-wal")
        for path, mode in [(ladder.state_dir, 0o700), (ladder.state_dir / "keys", 0o700),
                           (ladder.sqlite_path, 0o600), (wal, 0o600)]:
            assert path.stat().st_mode & 0o777 == mode, path
        found = _snooped(work, socket_root, [f"read {ladder.sqlite_path}",
                                             f"read {ladder.state_dir}"])
    finally:
        store.close()
    assert found[f"read {ladder.sqlite_path}"] in ("EACCES", "ENOENT"), found
    assert found[f"read {ladder.state_dir}"] in ("EACCES", "ENOENT"), found


def test_a_state_directory_an_older_arena_left_open_is_closed(work: Path, socket_root: Path
                                                              ) -> None:
    """The same store as an older arena left it (0755 directories, a 0644 database): the bot
    reads it (the probe works), until a run opens the state again and closes it."""
    ladder = parse_ladder('name = "old"\ngame = "lost-cities"\nentrants = ["a", "b"]\n',
                          source=work / "old.toml")
    signing_of(None, ladder.state_dir)
    LadderStore(ladder.database_url).close()
    for path, mode in [(ladder.state_dir.parent, 0o755), (ladder.state_dir, 0o755),
                       (ladder.state_dir / "keys", 0o755), (ladder.sqlite_path, 0o644)]:
        path.chmod(mode)
    opened = _snooped(work, socket_root, [f"read {ladder.sqlite_path}"])
    assert opened[f"read {ladder.sqlite_path}"] == "read", opened
    signing_of(None, ladder.state_dir)
    LadderStore(ladder.database_url).close()
    closed = _snooped(work, socket_root, [f"read {ladder.sqlite_path}"])
    assert closed[f"read {ladder.sqlite_path}"] in ("EACCES", "ENOENT"), closed
