"""Garbage collection between decisions, not inside them.

CPython collects its young generation when allocations pass a threshold, wherever that happens.
A bot allocates mostly while it reads, decodes and answers a request, that is while its clock
runs, so that is where its collections landed (measured with the benchmark bot: 10 of a match's
11 collections inside a decision, ~50-100 µs each). ``collect_if_due``, called by the SDK once
its answer is out, runs the collection that is about to come due while no clock runs, so the
next decision starts with an empty young generation (measured: 13 collections a match, none
inside a decision). It collects what would have been collected anyway, a little earlier: the
CPU is about the same. The oldest generation is left to CPython (its heuristics keep full
collections rare, and ``gc.freeze`` after the warm-up keeps them small). The referee allocates
little while it waits for an answer: its collections fell outside the decisions already.
"""

from __future__ import annotations

import gc

DUE_SHARE = 2
"""Collect when the young generation is past 1/DUE_SHARE of its threshold: a decision allocates
far fewer objects than half the default threshold (700)."""


def collect_if_due() -> None:
    """Collect the young generation now if it would fill up soon (and the middle one with it when
    that is next); nothing when collection is disabled."""
    if not gc.isenabled():
        return
    counts, thresholds = gc.get_count(), gc.get_threshold()
    if thresholds[0] <= 0 or counts[0] * DUE_SHARE < thresholds[0]:
        return
    gc.collect(1 if counts[1] + 1 >= thresholds[1] else 0)
