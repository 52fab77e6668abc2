"""Hostile bots whose attack the container absorbs: the match goes on (real Docker engine)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.support.hostile import check_hostile_run

pytestmark = pytest.mark.docker


def _run(attack: str, sandbox: Any, client: Any, tmp_path: Path) -> str:
    _, tail = check_hostile_run(sandbox, client, attack, tmp_path, "normal")
    assert len(tail.encode()) <= 64 * 1024
    return tail


def test_fork_bomb_hits_the_pids_limit(
    docker_sandbox: Any, docker_client: Any, tmp_path: Path
) -> None:
    assert "[hostile] fork bomb started" in _run(
        "fork_bomb", docker_sandbox, docker_client, tmp_path
    )


def test_output_flood_keeps_a_bounded_tail(
    docker_sandbox: Any, docker_client: Any, tmp_path: Path
) -> None:
    assert "[hostile] flood done" in _run("output_flood", docker_sandbox, docker_client, tmp_path)


def test_writes_outside_tmp_fail_and_tmp_fills(
    docker_sandbox: Any, docker_client: Any, tmp_path: Path
) -> None:
    tail = _run("disk_writer", docker_sandbox, docker_client, tmp_path)
    for path in ("/bot/owned", "/etc/owned", "/usr/bin/owned", "/arena/owned", "/owned"):
        assert f"[hostile] write {path}: EROFS" in tail
    assert "[hostile] fill /tmp: ENOSPC" in tail


def test_no_network_but_loopback(docker_sandbox: Any, docker_client: Any, tmp_path: Path) -> None:
    tail = _run("network", docker_sandbox, docker_client, tmp_path)
    assert "[hostile] interfaces: ['lo']" in tail
    assert tail.count("[hostile] connect ") == 4 and ": connected" not in tail
    assert "[hostile] dns: " in tail and "dns: resolved" not in tail


def test_killing_pid1_and_the_parent_has_no_effect(
    docker_sandbox: Any, docker_client: Any, tmp_path: Path
) -> None:
    # Pid 1 is the container's init, running as the bot's uid: the kernel ignores SIGKILL sent
    # to a namespace's init from inside, so the bot (its child) plays on to a normal end.
    tail = _run("killer", docker_sandbox, docker_client, tmp_path)
    assert "[hostile] kill pid1: " in tail and "[hostile] kill parent: " in tail


def test_snoop_finds_nothing_to_reach(
    docker_sandbox: Any, docker_client: Any, tmp_path: Path
) -> None:
    tail = _run("snoop", docker_sandbox, docker_client, tmp_path)
    assert "[hostile] snoop: uid 65534" in tail
    other = next(line for line in tail.splitlines() if "snoop: other seat" in line)
    assert other.endswith(": ENOENT")  # only its own seat's directory is mounted
    assert "listed unix sockets 0, reached 0" in tail
    assert "docker /var/run/docker.sock: ENOENT" in tail
    assert "docker /run/docker.sock: ENOENT" in tail
