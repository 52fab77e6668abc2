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

The host's epochs (``arena.sandbox.epochs``) keep the legs of one deal apart in time, not the
instances of a bot in other matches meanwhile (a relay): the legs are played here outside them,
so what is tested is the sandbox alone."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

import arena.sandbox.isolation as isolation
from arena.sandbox.api import Limits

from .twin_support import play_legs, twin_copy, work_dir

pytestmark = pytest.mark.slow

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


def test_unconfined_leg_0_leaves_its_hand_to_leg_1(unconfined: None, work: Path) -> None:
    twin = twin_copy(work, "keyring,atime", send_s=0, listen_s=0)
    sent, heard = play_legs(twin, "process", work / "logs", concurrent=False)
    assert heard.get("keyring") == heard.get("atime") == f"decoded {sent}", heard


def test_confined_leg_0_leaves_nothing(work: Path) -> None:
    twin = twin_copy(work, "keyring,atime", send_s=0, listen_s=0)
    _, heard = play_legs(twin, "process", work / "logs", concurrent=False)
    assert heard.get("keyring") == "blocked EPERM" and heard.get("atime") == "none", heard
