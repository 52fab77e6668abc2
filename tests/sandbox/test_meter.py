"""The CPU and memory meters (issue 22): parsing the cgroup files of cgroup v1 (cgroupfs and
systemd drivers, a namespaced mount) and v2 from their real formats, a real v2 cgroup on this
host's unified hierarchy, the ``proc`` meter over real process trees; then, in the process
sandbox's per-seat cgroup and in a container on the real Docker engine (its cgroup counters,
found from its init process and read by kept-open descriptors), with real bots: a burner reads
what it burned, a forked orphan's CPU is counted, a sleeper barely moves, a 100 MiB allocation
shows in the peak, the cgroup is gone after stop and the meter keeps its last value, and a bot
cannot reset its counter nor leave its cgroup (the attack)."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from arena.sandbox.docker import DockerSandbox
from arena.sandbox.meter import (
    NO_COUNTER,
    CgroupMount,
    ProcMeter,
    SeatCgroup,
    cgroup_cpu_problem,
    cgroup_directory,
    meter_of_directories,
    parse_cpu_stat,
    parse_mountinfo,
    parse_proc_cgroup,
    parse_stat,
    parse_vmhwm,
)
from arena.sandbox.process import ProcessBot, ProcessSandbox
from tests.support.meter import (
    BURN_RANGE_MS,
    MS,
    PROBE,
    reading_cost_us,
    settled,
    start_probe,
    wait_for,
)

pytestmark = pytest.mark.unit

CONTAINER = "684dc5e72f7dc824dcefb76ba9e901d890bcc85df5c62272d35483a0853cfb89"

HYBRID_MOUNTINFO = """\
31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755
32 31 0:29 / /sys/fs/cgroup/cpu,cpuacct rw,relatime - cgroup cgroup rw,cpu,cpuacct
35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory
40 31 0:37 / /sys/fs/cgroup/systemd rw,relatime - cgroup cgroup rw,xattr,name=systemd
41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw,nsdelegate
"""
UNIFIED_MOUNTINFO = (
    "25 30 0:23 / /sys rw,nosuid,nodev,noexec,relatime shared:7 - sysfs sysfs rw\n"
    "26 25 0:24 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:8 - cgroup2 cgroup2 "
    "rw,nsdelegate,memory_recursiveprot\n"
)
CPU_STAT_V2 = b"""usage_usec 1234567
user_usec 1000000
system_usec 234567
nr_periods 0
nr_throttled 0
throttled_usec 0
"""


def test_v1_cgroupfs_driver_paths() -> None:
    mounts = parse_mountinfo(HYBRID_MOUNTINFO)
    assert [m.version for m in mounts] == [1, 1, 1, 2]
    assert mounts[0].controllers == {"cpu", "cpuacct"}
    paths = parse_proc_cgroup(f"4:memory:/docker/{CONTAINER}\n"
                              f"2:cpu,cpuacct:/docker/{CONTAINER}\n1:name=systemd:/docker/x\n"
                              f"0::/docker/{CONTAINER}\n")
    assert cgroup_directory(mounts, paths, "cpuacct") == Path(
        f"/sys/fs/cgroup/cpu,cpuacct/docker/{CONTAINER}")
    assert cgroup_directory(mounts, paths, "memory") == Path(
        f"/sys/fs/cgroup/memory/docker/{CONTAINER}")
    assert cgroup_directory(mounts, paths, "") == Path(f"/sys/fs/cgroup/unified/docker/{CONTAINER}")


def test_v2_systemd_driver_paths() -> None:
    mounts = parse_mountinfo(UNIFIED_MOUNTINFO)
    assert mounts == [CgroupMount(2, "/", Path("/sys/fs/cgroup"), frozenset())]
    paths = parse_proc_cgroup(f"0::/system.slice/docker-{CONTAINER}.scope\n")
    assert cgroup_directory(mounts, paths, "cpuacct") is None
    assert cgroup_directory(mounts, paths, "") == Path(
        f"/sys/fs/cgroup/system.slice/docker-{CONTAINER}.scope")
    assert cgroup_cpu_problem(mounts) is None


def test_a_mount_of_a_subtree_is_followed_and_what_lies_outside_it_is_not() -> None:
    mounts = [CgroupMount(1, "/docker/abc", Path("/sys/fs/cgroup/cpuacct"),
                          frozenset({"cpuacct"}))]
    inside = parse_proc_cgroup("3:cpuacct:/docker/abc/seat\n")
    assert cgroup_directory(mounts, inside, "cpuacct") == Path("/sys/fs/cgroup/cpuacct/seat")
    outside = parse_proc_cgroup("3:cpuacct:/docker/abcd\n")
    assert cgroup_directory(mounts, outside, "cpuacct") is None


def test_no_cpu_hierarchy_is_one_line() -> None:
    mounts = [CgroupMount(1, "/", Path("/sys/fs/cgroup/memory"), frozenset({"memory"}))]
    problem = cgroup_cpu_problem(mounts)
    assert problem == NO_COUNTER and "\n" not in problem and 'clock = "wall"' in problem


def test_v2_counter_files_in_their_real_format(tmp_path: Path) -> None:
    cgroup = tmp_path / "system.slice" / f"docker-{CONTAINER}.scope"
    cgroup.mkdir(parents=True)
    (cgroup / "cpu.stat").write_bytes(CPU_STAT_V2)
    (cgroup / "memory.peak").write_bytes(b"104857600\n")
    mounts = [CgroupMount(2, "/", tmp_path, frozenset())]
    directory = cgroup_directory(
        mounts, parse_proc_cgroup(f"0::/system.slice/docker-{CONTAINER}.scope\n"), "")
    meter = meter_of_directories(directory, directory, 2)
    assert meter is not None and meter.kind == "cgroup-v2"
    assert meter.cpu_ns() == 1_234_567_000
    assert meter.peak_memory_bytes() == 104_857_600
    (cgroup / "cpu.stat").write_bytes(CPU_STAT_V2.replace(b"1234567", b"2000000", 1))
    assert meter.cpu_ns() == 2_000_000_000  # the kept-open descriptor reads the new value
    (cgroup / "cpu.stat").write_bytes(b"garbage\n")
    assert meter.cpu_ns() == 2_000_000_000  # unreadable: the last value, no exception
    meter.close()
    assert meter.cpu_ns() == 2_000_000_000 and meter.peak_memory_bytes() == 104_857_600
    assert parse_cpu_stat(b"usage_usec 7\n") == 7000


def test_no_counter_file_is_no_meter(tmp_path: Path) -> None:
    assert meter_of_directories(tmp_path, tmp_path, 2) is None
    assert meter_of_directories(tmp_path, tmp_path, 1) is None
    assert meter_of_directories(None, None, 1) is None


def test_proc_stat_and_status_parsing() -> None:
    line = "42 (a (weird) name) S 1 42 42 0 -1 4194560 10 0 0 0 7 3 5 1 20 0 1 0 999 0 0"
    assert parse_stat(line) == (7 + 3 + 5 + 1, 999)
    assert parse_vmhwm("Name:\tx\nVmHWM:\t  102400 kB\nVmRSS:\t 1 kB\n") == 100 * 1024 * 1024


def _root() -> None:
    if os.geteuid() != 0:
        message = "a seat's own cgroup needs root"
        if os.environ.get("ARENA_REQUIRE_DOCKER") == "1":  # CI runs as root: never skip there
            pytest.fail(message, pytrace=False)
        pytest.skip(message)


def _probe(mode: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, str(PROBE), mode], stdout=subprocess.DEVNULL)


@pytest.mark.integration
def test_a_real_v2_cgroup_counts_its_processes() -> None:
    _root()
    seat = SeatCgroup.create(versions=(2,))
    if seat is None:
        pytest.skip("no writable cgroup v2 hierarchy here")
    proc = _probe("sleep")
    try:
        seat.enter(proc.pid)
        assert seat.meter.kind == "cgroup-v2" and seat.pids() == [proc.pid]
        before = seat.meter.cpu_ns()
        os.kill(proc.pid, 0)
    finally:
        assert seat.remove()  # kills what is inside
        proc.wait(timeout=30)
    assert all(not d.exists() for d in seat.directories)
    assert seat.meter.cpu_ns() >= before


@pytest.mark.integration
def test_the_proc_meter_counts_a_reaped_helper_and_keeps_its_last_value() -> None:
    proc = _probe("fork")
    meter = ProcMeter(proc.pid)
    try:
        cpu = settled(meter, minimum_ms=BURN_RANGE_MS[0])
        print(f"\nproc meter, forked helper of 300 ms: {cpu:.0f} ms")
        assert BURN_RANGE_MS[0] <= cpu <= BURN_RANGE_MS[1]
        peak = meter.peak_memory_bytes()
        assert peak is not None and peak > 1 << 20
        assert reading_cost_us(meter, 200) < 20_000
    finally:
        proc.kill()
        proc.wait(timeout=30)
    last = meter.cpu_ns()
    assert last >= cpu * MS and meter.cpu_ns() == last  # the process is gone: no exception
    meter.close()
    assert meter.cpu_ns() == last


# --- the sandboxes: the process sandbox's seat cgroup, a container's cgroup -----------------
Sandbox = ProcessSandbox | DockerSandbox


@pytest.fixture(params=[pytest.param("process", marks=pytest.mark.integration),
                        pytest.param("docker", marks=pytest.mark.docker)])
def sandbox(request: pytest.FixtureRequest) -> Sandbox:
    """The process sandbox as root (its seats get cgroups of their own), then a Docker sandbox
    whose containers this engine runs here (so their CPU is metered)."""
    box: Sandbox
    if request.param == "process":
        _root()
        box = ProcessSandbox()
        box.check([])
    else:
        request.getfixturevalue("base_image")
        box = DockerSandbox(client=request.getfixturevalue("docker_client"))
    assert box.cpu_meter_problem() is None
    return box


def _where(sandbox: Sandbox) -> str:
    return "process sandbox" if isinstance(sandbox, ProcessSandbox) else "container"


async def _stopped(bot: Any, socket_dir: Path) -> None:
    await bot.stop()
    socket_dir.rmdir()


def _cgroup_of(bot: Any) -> SeatCgroup | None:
    """A process sandbox seat's own cgroup (None for a container: the engine's)."""
    if not isinstance(bot, ProcessBot):
        return None
    cgroup = bot._cgroup
    assert cgroup is not None, "as root a seat has a cgroup of its own"
    return cgroup


def test_a_burner_reads_what_it_burned_and_its_cgroup_goes_with_it(sandbox: Sandbox,
                                                                    tmp_path: Path) -> None:
    async def run() -> None:
        bot, socket_dir = await start_probe(sandbox, tmp_path, "burn")
        cgroup = _cgroup_of(bot)
        meter = bot.meter
        assert meter is not None and meter.kind in ("cgroup-v1", "cgroup-v2")
        try:
            cpu = await asyncio.to_thread(settled, meter, BURN_RANGE_MS[0])
            print(f"\n{_where(sandbox)}, burner of 300 ms: {cpu:.0f} ms")
            assert BURN_RANGE_MS[0] <= cpu <= BURN_RANGE_MS[1]
            assert await asyncio.to_thread(reading_cost_us, meter) < 500
            if cgroup is not None:
                assert cgroup.pids()  # the bot is in its cgroup
        finally:
            await _stopped(bot, socket_dir)
        if cgroup is not None:
            assert all(not d.exists() for d in cgroup.directories)
        last = meter.cpu_ns()  # the cgroup (and container) are gone: the last value, no exception
        assert last >= cpu * MS
        assert meter.cpu_ns() == last
        if cgroup is not None:
            assert meter.peak_memory_bytes() is not None

    asyncio.run(run())


def test_an_orphaned_helpers_cpu_is_counted(sandbox: Sandbox, tmp_path: Path) -> None:
    async def run() -> None:
        bot, socket_dir = await start_probe(sandbox, tmp_path, "orphan")
        assert bot.meter is not None
        try:
            cpu = await asyncio.to_thread(settled, bot.meter, BURN_RANGE_MS[0])
            print(f"\n{_where(sandbox)}, orphaned helper of 300 ms: {cpu:.0f} ms")
            assert BURN_RANGE_MS[0] <= cpu <= BURN_RANGE_MS[1]
        finally:
            await _stopped(bot, socket_dir)

    asyncio.run(run())


def test_a_sleeper_barely_moves_and_memory_shows_in_the_peak(sandbox: Sandbox,
                                                             tmp_path: Path) -> None:
    async def run() -> None:
        sleeper, sleeper_dir = await start_probe(sandbox, tmp_path, "sleep")
        hog, hog_dir = await start_probe(sandbox, tmp_path, "memory", seat=1)
        assert sleeper.meter is not None and hog.meter is not None
        hog_meter = hog.meter

        def peaked() -> bool:
            peak = hog_meter.peak_memory_bytes()
            return peak is not None and peak >= 80 << 20

        try:
            await asyncio.to_thread(settled, sleeper.meter)
            before = sleeper.meter.cpu_ns()
            await asyncio.sleep(1.0)
            moved = (sleeper.meter.cpu_ns() - before) / MS
            print(f"\n{_where(sandbox)}, a sleeper over 1 s: {moved:.2f} ms")
            assert moved < 50
            if isinstance(sandbox, ProcessSandbox):  # the bot says when it has allocated
                await asyncio.to_thread(wait_for, lambda: "memory done" in hog.log_tail())
                peak = hog_meter.peak_memory_bytes()
                assert peak is not None and peak >= 80 << 20, peak
            else:  # a container's log arrives later: wait for the counter
                await asyncio.to_thread(wait_for, peaked)
        finally:
            await _stopped(sleeper, sleeper_dir)
            await _stopped(hog, hog_dir)
        if isinstance(sandbox, DockerSandbox):
            assert peaked()  # the container is gone: the last value

    asyncio.run(run())


def test_attack_a_bot_cannot_reset_its_counter_nor_leave_its_cgroup(sandbox: Sandbox,
                                                                    tmp_path: Path) -> None:
    async def run() -> None:
        bot, socket_dir = await start_probe(sandbox, tmp_path, "attack")
        cgroup = _cgroup_of(bot)
        assert bot.meter is not None
        pids: list[int] = []
        owners: set[int] = set()
        try:
            if cgroup is not None:
                await asyncio.to_thread(wait_for, lambda: "attack done" in bot.log_tail())
            cpu = await asyncio.to_thread(settled, bot.meter, 150)
            tail = bot.log_tail()
            if cgroup is not None:
                pids = cgroup.pids()
                owners = {d.stat().st_uid for d in cgroup.directories}
                owners |= {f.stat().st_uid for f in cgroup.procs_files()}
        finally:
            await _stopped(bot, socket_dir)
        if cgroup is None:
            tail = bot.log_tail()  # a container's log, complete once it is gone
        assert "[probe] attack done" in tail, tail
        writes = [line for line in tail.splitlines() if line.startswith("[probe] write ")]
        assert any("cpuacct.usage" in w or "cpu.stat" in w for w in writes), tail
        # the counter files it tried: at least 3 in a seat's cgroup, 2 in a container's
        assert len(writes) >= (3 if cgroup is not None else 2), tail
        assert not any(w.endswith(": OK") for w in writes), tail
        assert "escape: OK" not in tail
        assert cpu >= 150  # the CPU burned after the attack is on its counter
        if cgroup is not None:
            assert pids, "the bot is still in its cgroup"
            assert owners == {0}  # the seat's cgroup is root's, not the bot user's
        print("\n" + "\n".join(writes))

    asyncio.run(run())


def test_each_sandbox_says_whether_it_meters_cpu_here(monkeypatch: pytest.MonkeyPatch) -> None:
    from arena.sandbox.docker import DockerSandbox

    assert ProcessSandbox().cpu_meter_problem() is None  # Linux: a cgroup, else /proc
    monkeypatch.setenv("DOCKER_HOST", "tcp://127.0.0.1:2375")
    problem = DockerSandbox(client=object()).cpu_meter_problem()
    assert problem is not None and "\n" not in problem
    assert "DOCKER_HOST=tcp://127.0.0.1:2375" in problem and 'clock = "wall"' in problem
