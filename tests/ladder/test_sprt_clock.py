"""An SPRT test's clock: a test started before there was a clock keeps its name (and so its
pairs) under the default "auto"; another clock or wall guard is another test, written in its
file and read back."""

from __future__ import annotations

import dataclasses
import hashlib
import json
from pathlib import Path

import pytest

from arena.bots.identity import bot_identity
from arena.ladder.entrants import default_resolve
from arena.model import TimeControl
from arena.sprt.file import SprtDesign, sprt_ladder
from arena.stats.sprt import SprtParams

pytestmark = pytest.mark.unit

BOTS = ("sample_bots/portas/greedy", "sample_bots/portas/random")


def _old_name(design: SprtDesign) -> str:
    """The name as the arena computed it before the clock existed."""
    here = Path.cwd()
    specs = [default_resolve(ref, here) for ref in BOTS]
    tc = design.time_control
    what = {
        "game": "portas", "options": {},
        "time_control": {"move_time_ms": tc.move_time_ms, "time_bank_ms": tc.time_bank_ms,
                         "startup_ms": tc.startup_ms},
        "design": [0.0, 50.0, 0.05, 0.05, "logistic"],
        "bots": [[s.name, s.version, bot_identity(s)] for s in specs],
    }
    key = hashlib.sha256(json.dumps(what, sort_keys=True).encode()).hexdigest()[:8]
    return f"sprt-greedy-vs-random-{key}"


def test_default_clock_keeps_the_old_name(tmp_path: Path) -> None:
    design = SprtDesign(SprtParams(0.0, 50.0), None, {}, TimeControl(move_time_ms=500))
    config = sprt_ladder(*BOTS, design, root=tmp_path)
    assert config.name == _old_name(design)
    assert config.clock == "auto" and "clock" not in config.source.read_text()  # type: ignore[union-attr]


def test_another_clock_is_another_test(tmp_path: Path) -> None:
    base = SprtDesign(SprtParams(0.0, 50.0), None, {}, TimeControl(move_time_ms=500))
    cpu = dataclasses.replace(base, clock="cpu",
                              time_control=TimeControl(move_time_ms=500, clock="cpu",
                                                       wall_guard=3.0))
    a = sprt_ladder(*BOTS, base, root=tmp_path)
    b = sprt_ladder(*BOTS, cpu, root=tmp_path)
    assert a.name != b.name
    assert (b.clock, b.time_control.clock, b.time_control.wall_guard) == ("cpu", "cpu", 3.0)
