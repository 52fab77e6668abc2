"""A bot cannot park descriptors in the referee through its own seat (process sandbox; the
container twin is in tests/sandbox/test_docker_hostile_faults.py).

``conn_flood`` opens 2,000 connections to its seat's socket before it says Hello. The seat keeps
one connection and closes the rest as soon as they are accepted: the referee's descriptor count
stays flat, the flooding bot is the only one hurt (it never gets a working connection:
``no_start``), and a match running beside it in the same referee is untouched.

Nor can it make the referee hold its messages (issue 19, hole 10): ``mem_flood_big`` sends eight
48 MiB messages out of turn while its opponent thinks. gRPC's receive limit was 64 MiB and the
seat's inbox held four messages, so the referee took in about 250 MiB from one seat; now a
message over the (1 MiB) receive limit ends that seat's stream, and what one seat can make the
referee hold stays a few MiB (``mem_flood_fit`` floods with messages just under the limit)."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from arena.bots import load_bot_dir
from arena.model import MatchResult, MatchSpec, Termination, TimeControl
from arena.referee.match import play_match
from arena.referee.seat import raise_open_files_limit
from tests.support.paths import RANDOM_BOT, ROOT, TEST_BOTS

pytestmark = pytest.mark.integration

FLOOD = ROOT / "sample_bots" / "hostile" / "conn_flood"
REFEREE_FDS_MAX = 200
"""Extra descriptors the referee may hold while two matches run (measured: about 20; keeping
the flood's connections would take over 2,000)."""


def _descriptors() -> int:
    return len(os.listdir("/proc/self/fd"))


@pytest.mark.serial  # measures the host (caches, memory, timing): no neighbours
def test_a_connection_flood_hurts_only_the_flooder(log_dir: Path, socket_root: Path) -> None:
    flood, rnd = load_bot_dir(FLOOD), load_bot_dir(RANDOM_BOT)
    tc = TimeControl(move_time_ms=1000, startup_ms=3000)

    async def scenario() -> tuple[MatchResult, MatchResult, int]:
        base, peak = _descriptors(), 0

        async def watch() -> None:
            nonlocal peak
            while True:
                peak = max(peak, _descriptors() - base)
                await asyncio.sleep(0.01)

        watcher = asyncio.create_task(watch())
        attacked, innocent = await asyncio.gather(
            play_match(MatchSpec("lost-cities", 1, (flood, rnd), {"rounds": 1}, tc),
                       log_dir=log_dir, socket_root=socket_root),
            play_match(MatchSpec("lost-cities", 2, (rnd, rnd), {"rounds": 1}, tc),
                       log_dir=log_dir, socket_root=socket_root),
        )
        watcher.cancel()
        return attacked, innocent, peak

    attacked, innocent, peak = asyncio.run(scenario())
    assert attacked.termination is Termination.NO_START, attacked.detail
    assert attacked.faulty_seat == 0 and attacked.winner == 1 and not attacked.void
    assert innocent.termination is Termination.NORMAL and innocent.decisions > 20
    assert peak < REFEREE_FDS_MAX, peak
    tail = Path(attacked.log or "").with_name(f"{attacked.match_id}.seat0.log").read_text()
    assert "[hostile] conn_flood: parked 1 of 2000 connections" in tail
    assert list(socket_root.iterdir()) == []


@pytest.mark.unit
def test_the_referee_raises_its_descriptor_limit() -> None:
    import resource

    raised = raise_open_files_limit()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    assert raised == soft
    assert soft >= min(hard, 65_536) or hard == resource.RLIM_INFINITY


REFEREE_GROWTH_MAX_MIB = 48
"""How far the referee's peak memory may rise over its resting size while one seat floods
(measured after the fix: a few MiB; before it, about 250 MiB)."""

PROBE = """
import asyncio, gc, json, sys
from pathlib import Path
from arena.bots import load_bot_dir
from arena.model import MatchSpec, TimeControl
from arena.referee.match import play_match

def status(key):
    line = next(l for l in open("/proc/self/status") if l.startswith(key + ":"))
    return int(line.split()[1]) // 1024  # MiB

flooder, ponder, rnd, work = sys.argv[1:5]
def play(bots, seed, tc):
    spec = MatchSpec("lost-cities", seed, tuple(load_bot_dir(b) for b in bots), {"rounds": 1}, tc)
    return asyncio.run(play_match(spec, sandbox="process", log_dir=Path(work) / "logs",
                                  socket_root=Path(work) / "s"))
play((rnd, rnd), 1, TimeControl())  # warm: every module and gRPC's threads are in
gc.collect()
open("/proc/self/clear_refs", "w").write("5")  # the peak (VmHWM) starts again from here
resting = status("VmRSS")
result = play((flooder, ponder), 2, TimeControl(move_time_ms=20_000, startup_ms=20_000))
print(json.dumps({"growth_mib": status("VmHWM") - resting, "result": result.to_json()}))
"""


@pytest.mark.serial  # measures the host (caches, memory, timing): no neighbours
@pytest.mark.slow
@pytest.mark.parametrize("flooder", ["mem_flood_big", "mem_flood_fit"])
def test_a_message_flood_cannot_make_the_referee_hold_it(flooder: str, tmp_path: Path) -> None:
    (tmp_path / "s").mkdir()
    out = subprocess.run(
        [sys.executable, "-c", PROBE, str(TEST_BOTS / flooder), str(TEST_BOTS / "ponder"),
         str(RANDOM_BOT), str(tmp_path)],
        cwd=ROOT, capture_output=True, text=True, timeout=240, check=False,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    probe = json.loads(out.stdout.strip().splitlines()[-1])
    result = probe["result"]
    assert result["faulty_seat"] == 0 and result["winner"] == 1, result
    assert result["termination"] in ("protocol_violation", "oversized_message"), result
    assert probe["growth_mib"] < REFEREE_GROWTH_MAX_MIB, probe
