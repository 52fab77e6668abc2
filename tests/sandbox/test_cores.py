"""The host-wide core allocator with real lock files, across real processes (8 cores named
for the test: the allocator hands out what it is given, the kernel's flock does the rest)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from arena.sandbox.cores import reserve_core

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
CORES = list(range(8))
HOLDER = """
import sys
from pathlib import Path
from arena.sandbox.cores import reserve_core
cores = list(range(8))
first = reserve_core(cores=cores, lock_dir=Path(sys.argv[1]))
second = reserve_core([first.core], cores=cores, lock_dir=Path(sys.argv[1]))
print(first.core, second.core, first.level, second.level, flush=True)
sys.stdin.read()  # hold both until the test closes stdin
"""


def _holder(lock_dir: Path) -> tuple[subprocess.Popen[str], list[int]]:
    proc = subprocess.Popen([sys.executable, "-c", HOLDER, str(lock_dir)], cwd=ROOT,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    return proc, [int(x) for x in proc.stdout.readline().split()]


def test_matches_in_different_processes_get_disjoint_cores(tmp_path: Path) -> None:
    holders = [_holder(tmp_path) for _ in range(4)]  # 4 matches x 2 seats = 8 cores
    try:
        pairs = [cores[:2] for _, cores in holders]
        assert all(a != b for a, b in pairs), pairs
        assert sorted(c for pair in pairs for c in pair) == CORES, pairs
        assert all(cores[2:] == [0, 0] for _, cores in holders)  # nobody shares
        # a fifth match shares, as evenly as it can, and its seats still differ
        extra = [reserve_core(cores=CORES, lock_dir=tmp_path)]
        extra.append(reserve_core([extra[0].core], cores=CORES, lock_dir=tmp_path))
        assert extra[0].core != extra[1].core and {e.level for e in extra} == {1}
    finally:
        for proc, _ in holders:
            assert proc.stdin is not None
            proc.stdin.close()
            proc.wait(timeout=10)
    # the processes are gone: their cores are free again (the kernel dropped the locks)
    again = reserve_core(cores=CORES, lock_dir=tmp_path)
    assert (again.core, again.level) == (0, 0)


@pytest.mark.unit
def test_a_released_core_is_handed_out_again(tmp_path: Path) -> None:
    one = reserve_core(cores=[3, 5], lock_dir=tmp_path)
    two = reserve_core([one.core], cores=[3, 5], lock_dir=tmp_path)
    assert (one.core, two.core) == (3, 5)
    one.release()
    one.release()  # idempotent
    assert reserve_core(cores=[3, 5], lock_dir=tmp_path).core == 3
    single = reserve_core([7], cores=[7], lock_dir=tmp_path / "single")
    assert single.core == 7  # one core only: both seats share it
