"""Hostile bots that forfeit: each attack earns its named termination (real Docker engine)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.support.hostile import check_hostile_run

pytestmark = pytest.mark.docker


@pytest.mark.parametrize(
    ("attack", "termination"),
    [
        ("memory_bomb", "memory"),
        ("cpu_spin", "timeout"),
        ("sleeper", "timeout"),
        ("oversized", "oversized_message"),
        ("illegal", "illegal_action"),
        ("never_connect", "no_start"),
        ("garbage", "protocol_violation"),
        ("conn_flood", "no_start"),
    ],
)
def test_attack_forfeits(
    attack: str, termination: str, docker_sandbox: Any, docker_client: Any, tmp_path: Path
) -> None:
    result, tail = check_hostile_run(docker_sandbox, docker_client, attack, tmp_path, termination)
    assert len(tail.encode()) <= 64 * 1024
    if attack == "memory_bomb":
        assert "memory" in result.detail
    if attack == "conn_flood":  # the seat kept one of its 2,000 connections
        assert "[hostile] conn_flood: parked 1 of 2000 connections" in tail
