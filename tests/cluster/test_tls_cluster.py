"""Several hosts, played on one machine: `arena run-ladder` hosts a TLS scheduler, two separate
`arena worker` processes play; one is killed (SIGKILL, with everything it started) mid-match.
Every scheduled match is recorded exactly once, from its scheduled seed, with its logs in the
ladder's state directory. Certificates of another CA, plain TCP and workers of another arena
version are refused (Dask's own worker is kept only with the arena's preload)."""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import arena
from arena.cluster.security import CertFiles
from arena.cluster.session import open_cluster
from arena.cluster.settings import ClusterSettings
from arena.errors import ClusterError
from arena.ladder.config import LadderConfig, load_ladder
from arena.ladder.reports import load_matches
from arena.ladder.runner import ladder_schedule
from arena.ladder.store import LadderStore
from arena.record.replay import replay_log
from tests.support.cluster import (
    LOOPBACK,
    cluster_section,
    descendants,
    free_port,
    kill_session,
    ladder_file,
    own_host,
    pacers,
    start,
    worker_args,
)
from tests.support.paths import ROOT

pytestmark = [pytest.mark.integration, pytest.mark.slow]


def _recorded(cfg: LadderConfig) -> int:
    if not cfg.store_exists():
        return 0
    try:
        with LadderStore(cfg.database_url) as db:
            return len(db.recorded_ids(cfg.name))
    except Exception:  # noqa: BLE001 — the head may be creating the schema right now
        return 0


def _playing(proc: subprocess.Popen[bytes]) -> bool:
    """A worker is mid-match when one of its processes runs a bot."""
    return any("bot.py" in cmd for _, cmd in descendants(proc.pid))


POLL_S = 0.1
"""How often the tests look for a worker mid-match: a look reads every process's stat and
command line (8 ms here, more on a busy machine), and a pacers' match keeps its bots for a
second and more."""


def test_a_worker_killed_mid_match_loses_nothing(
        tmp_path: Path, certs: CertFiles, procs: list[subprocess.Popen[bytes]]) -> None:
    address = f"tls://{LOOPBACK}:{free_port()}"
    # one deal (two matches): the first recorded, the second killed mid-match; pacers of 30 ms
    # a decision (sleeping, no CPU) keep the second on its worker for seconds to be seen there
    bots = pacers(tmp_path / "bots", ["ann", "bob"], pace_s=0.03)
    path = ladder_file(tmp_path / "tls.toml", "tls", bots, concurrency=1,
                       extra=cluster_section(address, certs))
    cfg = load_ladder(path)
    head = start(["run-ladder", str(path)], tmp_path / "head.log")
    procs.append(head)
    workers = [start(worker_args(address, certs, name, tmp_path / f"cache-{name}"),
                     tmp_path / f"{name}.log") for name in ("w1", "w2")]
    procs.extend(workers)

    deadline = time.monotonic() + 120
    while not (_recorded(cfg) >= 1 and (busy := [w for w in workers if _playing(w)])):
        assert head.poll() is None, (tmp_path / "head.log").read_text()
        assert time.monotonic() < deadline, "no progress"
        time.sleep(POLL_S)
    before = _recorded(cfg)
    kill_session(busy[0])  # the whole host (whichever plays now): nanny, worker, its bots
    assert head.wait(timeout=180) == 0, (tmp_path / "head.log").read_text()

    schedule = {m.match_id: m.seed for e in ladder_schedule(cfg) for m in e.matches}
    found = load_matches(cfg)
    ids = [m.match_id for m in found]
    assert len(ids) == len(set(ids)) == len(schedule) == 2, "each match recorded once"
    assert before == 1, "the kill landed mid-run"
    assert {m.match_id: m.seed for m in found} == schedule
    assert not any(m.void for m in found)
    for m in found:
        assert m.log_path and Path(m.log_path).parent == cfg.match_log_dir
        assert replay_log(Path(m.log_path)).finished
    output = (tmp_path / "head.log").read_text()
    assert "Traceback" not in output and "done: 2 matches played" in output


def test_a_frozen_worker_is_given_up_and_its_late_result_ignored(
        tmp_path: Path, certs: CertFiles, procs: list[subprocess.Popen[bytes]]) -> None:
    address = f"tls://{LOOPBACK}:{free_port()}"
    bots = pacers(tmp_path / "bots", ["ann", "bob"])
    path = ladder_file(tmp_path / "frozen.toml", "frozen", bots, concurrency=1,
                       extra=cluster_section(address, certs, worker_ttl_s=5))
    cfg = load_ladder(path)
    head = start(["run-ladder", str(path)], tmp_path / "head.log")
    procs.append(head)
    # two hosts: the frozen one keeps its kernel's epoch open, which is no other host's
    workers = [start(worker_args(address, certs, name, tmp_path / f"cache-{name}"),
                     tmp_path / f"{name}.log", prefix=own_host()) for name in ("w1", "w2")]
    procs.extend(workers)
    deadline = time.monotonic() + 120
    while not (busy := [w for w in workers if _playing(w)]):
        assert head.poll() is None and time.monotonic() < deadline, "no progress"
        time.sleep(POLL_S)
    os.killpg(busy[0].pid, signal.SIGSTOP)  # the host (whichever plays now) freezes mid-match
    try:
        assert head.wait(timeout=180) == 0, (tmp_path / "head.log").read_text()
    finally:
        os.killpg(busy[0].pid, signal.SIGCONT)  # it wakes up, too late
    time.sleep(2)
    schedule = {m.match_id: m.seed for e in ladder_schedule(cfg) for m in e.matches}
    found = load_matches(cfg)
    assert [m.match_id for m in found].count(found[0].match_id) == 1
    assert {m.match_id: m.seed for m in found} == schedule and len(found) == 2
    assert not any(m.void for m in found)
    # its frozen nanny was waited for as long as the TTL, not Dask's fixed 30 s
    assert "did not shut down within 5.0s" in (tmp_path / "head.log").read_text()
    kill_session(busy[0])  # given up: no need to wait for its orderly stop (10 s and more)


def test_a_worker_host_outlives_the_head_and_serves_its_next_run(
        tmp_path: Path, certs: CertFiles, procs: list[subprocess.Popen[bytes]]) -> None:
    address = f"tls://{LOOPBACK}:{free_port()}"
    bots = pacers(tmp_path / "bots", ["ann", "bob"])
    path = ladder_file(tmp_path / "twice.toml", "twice", bots, concurrency=1,
                       extra=cluster_section(address, certs, wait_s=30))
    worker = start(worker_args(address, certs, "w1", tmp_path / "cache"), tmp_path / "w1.log")
    procs.append(worker)
    for run in (1, 2):  # the head's scheduler goes away between the runs
        head = start(["run-ladder", str(path), "--matches", "1"], tmp_path / f"head{run}.log")
        procs.append(head)
        assert head.wait(timeout=120) == 0, (tmp_path / f"head{run}.log").read_text()
        assert worker.poll() is None, (tmp_path / "w1.log").read_text()
    assert len(load_matches(load_ladder(path))) == 2  # one match a run, both by the worker


def test_other_ca_and_plain_tcp_are_refused(
        tmp_path: Path, certs: CertFiles, other_certs: CertFiles,
        procs: list[subprocess.Popen[bytes]]) -> None:
    address = f"tls://{LOOPBACK}:{free_port()}"
    procs.append(start(worker_args(address, certs, "w1", tmp_path / "cache"),
                       tmp_path / "w1.log"))

    async def head_then_intruders() -> list[str]:
        mine = ClusterSettings(listen=address, tls=certs.hosts["head"], wait_s=60)
        async with open_cluster(mine, workers=0) as session:
            assert await session.slots() == 1
            refused = []
            intruder = ClusterSettings(scheduler=address, tls=other_certs.hosts["intruder"])
            with pytest.raises(ClusterError) as caught:
                async with open_cluster(intruder, workers=0):
                    pass
            refused.append(str(caught.value))
            from distributed import Client

            with pytest.raises((OSError, TimeoutError)):
                await Client(address.replace("tls://", "tcp://"), asynchronous=True,
                             timeout="3s")
            refused.append("plain tcp")
            return refused

    refused = asyncio.run(head_then_intruders())
    assert refused[0].startswith(f"cannot reach the scheduler at {address}")
    kill_session(procs[0])  # its head is gone: no need to wait for its orderly stop


def _other_version(tmp_path: Path) -> Path:
    """A copy of this arena that says it is another version (as an old install would); with
    its bytecode (copied with the sources' times, so still valid: only ``__init__`` is compiled
    again), as an installed copy has it."""
    root = tmp_path / "old"
    shutil.copytree(Path(arena.__file__).parent, root / "arena")
    init = root / "arena" / "__init__.py"
    init.write_text(init.read_text().replace(f'__version__ = "{arena.__version__}"',
                                             '__version__ = "0.0.1-old"'))
    return root


def test_workers_of_another_version_are_refused(
        tmp_path: Path, certs: CertFiles, procs: list[subprocess.Popen[bytes]]) -> None:
    address = f"tls://{LOOPBACK}:{free_port()}"
    procs.append(start(worker_args(address, certs, "w1", tmp_path / "cache"),
                       tmp_path / "w1.log"))
    files = certs.hosts["w2"]

    async def head() -> list[str]:
        mine = ClusterSettings(listen=address, tls=certs.hosts["head"], wait_s=60)
        async with open_cluster(mine, workers=0) as session:
            # an arena worker of another version asks first and refuses to join
            old = start(worker_args(address, certs, "w2", tmp_path / "cache2"),
                        tmp_path / "old.log", pythonpath=_other_version(tmp_path))
            procs.append(old)
            assert await asyncio.to_thread(old.wait, 60) == 3
            # a worker that joins without saying its version is removed by the gate
            plain = subprocess.Popen(
                [sys.executable, "-m", "distributed.cli.dask_worker", address, "--no-nanny",
                 "--nthreads", "1", "--resources", "match=1", "--host", LOOPBACK,
                 "--tls-ca-file", str(files.ca), "--tls-cert", str(files.cert),
                 "--tls-key", str(files.key), "--no-dashboard"],
                cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                start_new_session=True)
            procs.append(plain)
            deadline = time.monotonic() + 60
            while not session.refused:
                assert time.monotonic() < deadline, "the plain worker was not refused"
                await asyncio.sleep(0.1)
            assert await asyncio.to_thread(plain.wait, 60) is not None
            assert await session.slots() == 1
            # Dask's own worker with the arena's preload says its version and is kept
            preloaded = subprocess.Popen(
                [sys.executable, "-m", "distributed.cli.dask_worker", address, "--no-nanny",
                 "--preload", "arena.cluster.preload", "--nthreads", "1", "--resources",
                 "match=1", "--host", LOOPBACK, "--tls-ca-file", str(files.ca),
                 "--tls-cert", str(files.cert), "--tls-key", str(files.key), "--no-dashboard"],
                cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                start_new_session=True)
            procs.append(preloaded)
            while await session.slots() < 2:
                assert time.monotonic() < deadline + 60, "the preloaded worker did not join"
                assert preloaded.poll() is None, "the preloaded worker was refused"
                await asyncio.sleep(0.1)
            return list(session.refused)

    refused = asyncio.run(head())
    message = (tmp_path / "old.log").read_text()
    assert "refused: the head runs arena 0.1.0" in message and "0.0.1-old" in message
    assert len(refused) == 1 and "announces no arena version" in refused[0]
    kill_session(procs[0])
