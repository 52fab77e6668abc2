"""Modules that moved out of ``arena.referee`` keep their old import path for one release: the
old path is the moved module itself (its names, what is patched through it), and importing it
warns once, naming the new path."""

from __future__ import annotations

import importlib
import sys

import pytest

pytestmark = pytest.mark.unit

MOVED = {
    "arena.referee.log": "arena.record.log",
    "arena.referee.replay": "arena.record.replay",
    "arena.referee.signing": "arena.record.signing",
    "arena.referee.clock": "arena.record.clock",
    "arena.referee.server": "arena.serve.server",
    "arena.referee.client": "arena.serve.client",
    "arena.referee.access": "arena.serve.access",
    "arena.referee.gate": "arena.gate",
}


@pytest.mark.parametrize(("old", "new"), sorted(MOVED.items()))
def test_an_old_path_still_imports_and_warns(old: str, new: str,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delitem(sys.modules, old, raising=False)  # as a fresh process imports it
    with pytest.warns(DeprecationWarning, match=f"{old} moved to {new}") as warned:
        __import__(old)  # an import statement's call: the warning names this line
    assert len(warned) == 1 and warned[0].filename == __file__
    assert sys.modules[old] is importlib.import_module(new)


def test_the_gate_package_names_what_the_gate_module_did() -> None:
    """``arena.gate`` keeps the old module's public names; those of the checks are imported on
    first use (reading a verdict does without the referee, the codecs and the renderers)."""
    import arena.gate as gate

    assert {name for name in gate.__all__ if getattr(gate, name, None) is None} == set()
    assert gate.CHECKS == tuple(gate.CHECK_FUNCTIONS)
