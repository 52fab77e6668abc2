"""Container cleanup retries, then reports (it never swallows an engine failure)."""

from __future__ import annotations

import pytest

from arena.sandbox.docker import retried

pytestmark = pytest.mark.unit


def test_a_failing_action_is_retried_until_it_works() -> None:
    calls: list[int] = []

    def flaky() -> None:
        calls.append(1)
        if len(calls) < 3:
            raise RuntimeError("engine busy")

    retried(flaky, (0.0, 0.0, 0.0))
    assert len(calls) == 3


def test_the_last_failure_is_reported() -> None:
    calls: list[int] = []

    def broken() -> None:
        calls.append(1)
        raise RuntimeError(f"attempt {len(calls)}")

    with pytest.raises(RuntimeError, match="attempt 3"):
        retried(broken, (0.0, 0.0))
    assert len(calls) == 3
