"""The CPU and memory meter of a container (issue 22), real Docker engine: the container's
cgroup counters, found from its init process and read by kept-open descriptors. A burner reads
what it burned, an orphaned helper's CPU is counted, a sleeper barely moves, a 100 MiB
allocation shows in the peak, the meter keeps its last value after the container is gone, and a
bot cannot reset its counter nor leave its cgroup (the attack)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from arena.bots.images import BaseImage
from arena.sandbox.docker import DockerBot, DockerSandbox

from .meter_support import BURN_RANGE_MS, MS, reading_cost_us, settled, start_probe, wait_for

pytestmark = pytest.mark.docker


@pytest.fixture(scope="module")
def sandbox(base_image: BaseImage, docker_client: Any) -> DockerSandbox:
    """A Docker sandbox whose containers this engine runs here (so their CPU is metered)."""
    box = DockerSandbox(client=docker_client)
    assert box.cpu_meter_problem() is None
    return box


async def _stopped(bot: DockerBot, socket_dir: Path) -> None:
    await bot.stop()
    socket_dir.rmdir()


def test_a_burner_reads_what_it_burned(sandbox: DockerSandbox, tmp_path: Path) -> None:
    async def run() -> None:
        bot, socket_dir = await start_probe(sandbox, tmp_path, "burn")
        meter = bot.meter
        assert meter is not None and meter.kind in ("cgroup-v1", "cgroup-v2")
        try:
            cpu = await asyncio.to_thread(settled, meter, BURN_RANGE_MS[0])
            print(f"\ncontainer, burner of 300 ms: {cpu:.0f} ms")
            assert BURN_RANGE_MS[0] <= cpu <= BURN_RANGE_MS[1]
            assert await asyncio.to_thread(reading_cost_us, meter) < 500
        finally:
            await _stopped(bot, socket_dir)
        last = meter.cpu_ns()  # the container and its cgroup are gone: no exception
        assert last >= cpu * MS and meter.cpu_ns() == last

    asyncio.run(run())


def test_an_orphaned_helpers_cpu_is_counted(sandbox: DockerSandbox, tmp_path: Path) -> None:
    async def run() -> None:
        bot, socket_dir = await start_probe(sandbox, tmp_path, "orphan")
        assert bot.meter is not None
        try:
            cpu = await asyncio.to_thread(settled, bot.meter, BURN_RANGE_MS[0])
            print(f"\ncontainer, orphaned helper of 300 ms: {cpu:.0f} ms")
            assert BURN_RANGE_MS[0] <= cpu <= BURN_RANGE_MS[1]
        finally:
            await _stopped(bot, socket_dir)

    asyncio.run(run())


def test_a_sleeper_barely_moves_and_memory_shows_in_the_peak(sandbox: DockerSandbox,
                                                             tmp_path: Path) -> None:
    async def run() -> None:
        sleeper, sleeper_dir = await start_probe(sandbox, tmp_path, "sleep")
        hog, hog_dir = await start_probe(sandbox, tmp_path, "memory", seat=1)
        assert sleeper.meter is not None and hog.meter is not None
        hog_meter = hog.meter
        try:
            await asyncio.to_thread(settled, sleeper.meter)
            before = sleeper.meter.cpu_ns()
            await asyncio.sleep(1.0)
            moved = (sleeper.meter.cpu_ns() - before) / MS
            print(f"\ncontainer, a sleeper over 1 s: {moved:.2f} ms")
            assert moved < 50

            def peaked() -> bool:
                peak = hog_meter.peak_memory_bytes()
                return peak is not None and peak >= 80 << 20

            await asyncio.to_thread(wait_for, peaked)
        finally:
            await _stopped(sleeper, sleeper_dir)
            await _stopped(hog, hog_dir)
        peak = hog_meter.peak_memory_bytes()  # gone: the last value
        assert peak is not None and peak >= 80 << 20

    asyncio.run(run())


def test_attack_a_bot_cannot_reset_its_counter_nor_leave_its_cgroup(sandbox: DockerSandbox,
                                                                    tmp_path: Path) -> None:
    async def run() -> None:
        bot, socket_dir = await start_probe(sandbox, tmp_path, "attack")
        assert bot.meter is not None
        try:
            cpu = await asyncio.to_thread(settled, bot.meter, 150)
        finally:
            await _stopped(bot, socket_dir)
        tail = bot.log_tail()
        assert "[probe] attack done" in tail, tail
        writes = [line for line in tail.splitlines() if line.startswith("[probe] write ")]
        assert any("cpuacct.usage" in w or "cpu.stat" in w for w in writes), tail
        assert len(writes) >= 2 and not any(w.endswith(": OK") for w in writes), tail
        assert "escape: OK" not in tail
        assert cpu >= 150  # the CPU burned after the attack is on its counter
        print("\n" + "\n".join(writes))

    asyncio.run(run())
