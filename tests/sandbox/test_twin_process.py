"""Attack (issue 33, hole 2): the two legs of a duplicate encounter as a channel between one
bot's two seats, in the separated process sandbox (root; real processes, real matches).

The twin (``bots/twin``) plays leg 0 from seat 0 and leg 1 of the same deal from seat 1. At the
same time: the sender moves host-wide state in wall-clock slots (12 MiB in its ``/tmp``, 200
threads, a lock on its own ``bot.py``, CPU burned in its seat's cgroup), the receiver reads it
(``/proc/meminfo``, ``sysinfo(2)``, ``/proc/loadavg``, ``flock``, the CPU counters of the other
seat cgroups under ``/sys/fs/cgroup``). One after the other: the sender leaves a key readable by
anyone in its keyrings, the receiver looks for it (``/proc/keys``, ``keyctl``). Without the
confinement launcher (``arena.sandbox.confine``, dropped from the bot's command here) it decodes
4 bits of the hand it plays against; with it, nothing.

And the referee's own keys: a referee started in a login session has a session keyring, which
an unconfined bot possessed (read the referee's keys, added its own).

The host's epochs (``arena.sandbox.epochs``) keep the legs of one deal apart in time, not the
instances of a bot in other matches meanwhile (a relay): the legs are played here outside them,
so what is tested is the sandbox alone."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import arena.sandbox.isolation as isolation
from arena.sandbox.api import Limits
from tests.support.paths import ROOT
from tests.support.twins import play_legs, twin_copy, work_dir

pytestmark = [pytest.mark.integration, pytest.mark.slow]

CHANNELS = "shmem,sysinfo,loadavg,flock,cgroup"


@pytest.fixture(autouse=True)
def _separated() -> None:
    if isolation.isolation_available():
        return
    message = "the process sandbox separates bots only as root on Linux"
    if os.environ.get("ARENA_REQUIRE_DOCKER") == "1":  # CI runs as root: never skip there
        pytest.fail(message, pytrace=False)
    pytest.skip(message)


@pytest.fixture
def work() -> Iterator[Path]:
    path = work_dir()
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
def unconfined(monkeypatch: pytest.MonkeyPatch) -> None:
    """The separated bot of before: its command without the launcher."""
    def command_alone(command: list[str], limits: Limits) -> list[str]:
        return list(command)

    monkeypatch.setattr(isolation, "confined", command_alone)


@pytest.mark.serial  # measures the host (caches, memory, timing): no neighbours
def test_unconfined_the_twin_decodes_its_opponents_hand(unconfined: None, work: Path) -> None:
    sent, heard = play_legs(twin_copy(work, CHANNELS), "process", work / "logs")
    for channel in CHANNELS.split(","):
        assert heard.get(channel) == f"decoded {sent}", (channel, heard)


def test_confined_the_twin_decodes_nothing(work: Path) -> None:
    sent, heard = play_legs(twin_copy(work, CHANNELS), "process", work / "logs")
    assert set(heard) >= set(CHANNELS.split(",")), heard
    assert not any(value.startswith("decoded") for value in heard.values()), heard
    assert heard["sysinfo"] == "blocked EPERM" and heard["flock"] == "blocked EPERM"
    assert heard["shmem"] == "none" and heard["loadavg"] == "none"  # static files
    assert heard["cgroup"].startswith("unreadable")  # /sys is hidden


@pytest.mark.serial  # measures the host (caches, memory, timing): no neighbours
def test_unconfined_leg_0_leaves_its_hand_to_leg_1(unconfined: None, work: Path) -> None:
    twin = twin_copy(work, "keyring,atime", send_s=0, listen_s=0)
    sent, heard = play_legs(twin, "process", work / "logs", concurrent=False)
    assert heard.get("keyring") == heard.get("atime") == f"decoded {sent}", heard


def test_confined_leg_0_leaves_nothing(work: Path) -> None:
    twin = twin_copy(work, "keyring,atime", send_s=0, listen_s=0)
    _, heard = play_legs(twin, "process", work / "logs", concurrent=False)
    assert heard.get("keyring") == "blocked EPERM" and heard.get("atime") == "none", heard


REFEREE_IN_A_SESSION = r"""
import ctypes, os, subprocess, sys
from pathlib import Path
import arena.sandbox.isolation as isolation
from arena.sandbox.api import Limits
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
keyctl, add_key = {"x86_64": (250, 248), "aarch64": (219, 217)}[os.uname().machine]
assert libc.syscall(keyctl, 1, b"referee-session") > 0  # as a login session's pam_keyinit does
assert libc.syscall(add_key, b"user", b"referee-secret", b"s3cret", ctypes.c_size_t(6), -3) > 0
if sys.argv[2] == "off":
    isolation.confined = lambda command, limits: list(command)
bot = Path(sys.argv[1])
user = isolation.reserve_user()
argv = isolation.separated([sys.executable, "probe.py"], Limits(), user, bot,
                           [bot, Path(sys.prefix).resolve(), Path(sys.base_prefix).resolve(),
                            Path(isolation.__file__).resolve().parents[2]])
done = subprocess.run(argv, cwd=bot, capture_output=True, text=True, timeout=60,
                      env={"PATH": os.environ["PATH"]})
print(done.stdout + done.stderr)
"""
BOT_READS_THE_SESSION = r"""
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
keyctl = {"x86_64": 250, "aarch64": 219}[os.uname().machine]
key = libc.syscall(keyctl, 10, -3, b"user", b"referee-secret", 0)  # KEYCTL_SEARCH
if key < 0:
    print("search:", os.strerror(ctypes.get_errno()))
else:
    data = ctypes.create_string_buffer(64)
    size = libc.syscall(keyctl, 11, ctypes.c_int(key), data, 64)  # KEYCTL_READ
    print("read:", data.raw[:max(size, 0)].decode())
"""


@pytest.mark.parametrize("variant", ["off", "on"])
def test_a_bot_reads_the_referees_session_keyring_only_unconfined(variant: str,
                                                                  work: Path) -> None:
    """A referee started in a login session has a session keyring (pam_keyinit); a separated
    bot inherited it, and possessed it: it could read the referee's keys and add its own.
    Confined, it has an empty keyring of its own and no keyctl."""
    bot = work / "reader"
    bot.mkdir(mode=0o755)
    (bot / "probe.py").write_text(BOT_READS_THE_SESSION)
    (bot / "probe.py").chmod(0o644)
    done = subprocess.run([sys.executable, "-c", REFEREE_IN_A_SESSION, str(bot), variant],
                          capture_output=True, text=True, timeout=120, check=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    expected = "read: s3cret" if variant == "off" else "search: Operation not permitted"
    assert expected in done.stdout, done.stdout + done.stderr
