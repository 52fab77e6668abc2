"""Issue 25 point 3: the SDK collects the young generation between decisions when it is about
to come due (``arena.sdk.collect``), so that the collection does not land inside the next
decision; nothing when it is far from due or when the bot disabled collection."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from arena.sdk.collect import DUE_SHARE, collect_if_due

pytestmark = pytest.mark.integration


@pytest.fixture(autouse=True)
def _collection_restored() -> Iterator[None]:
    enabled, thresholds = gc.isenabled(), gc.get_threshold()
    gc.disable()  # no automatic collection while a test fills the young generation
    try:
        yield
    finally:
        gc.set_threshold(*thresholds)
        if enabled:
            gc.enable()


def _fill(count: int) -> list[list[int]]:
    gc.collect()
    return [[] for _ in range(count)]


def test_a_young_generation_past_half_its_threshold_is_collected() -> None:
    gc.set_threshold(1000, 10, 10)
    kept = _fill(1000 // DUE_SHARE + 50)
    gc.enable()
    collect_if_due()
    assert gc.get_count()[0] < 50 and len(kept) > 0


def test_far_from_due_or_disabled_nothing_is_collected() -> None:
    gc.set_threshold(1000, 10, 10)
    kept = _fill(100)
    gc.enable()
    before = gc.get_count()[0]
    collect_if_due()
    assert gc.get_count()[0] >= before
    gc.disable()
    kept += _fill(900)
    collect_if_due()
    assert gc.get_count()[0] >= 900
