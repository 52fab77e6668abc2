"""Attack: a worker host's certificate (which a bot on that host might read) tries to act as the
head. Against a real hosted scheduler (the head's, guarded) and a real `arena worker` (its
nanny and worker process, guarded by the preload), on 127.0.0.1 with real TLS: it cannot
connect as a client, run a function on the scheduler, a worker or a nanny, feed, register a
plugin, open a raw stream, or make any of them unpickle what it sends. Each attempt would leave
a marker file; none does. The head's certificate still drives the cluster."""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import os
import pickle
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from arena.bots import load_bot_dir
from arena.bots.identity import bot_identity
from arena.cluster.security import CertFiles, tls_security
from arena.cluster.session import open_cluster
from arena.cluster.settings import ClusterSettings
from arena.errors import ClusterError
from arena.model import MatchResult, MatchSpec, TimeControl
from tests.support.cluster import LOOPBACK, free_port, pacers, start, worker_args
from tests.support.paths import ROOT

pytestmark = [pytest.mark.integration, pytest.mark.slow]


class _Touch:
    """Unpickling it creates ``path`` (what an attacker's pickle would do, harmlessly)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def __reduce__(self) -> tuple[Any, tuple[Path]]:
        return Path.touch, (self.path,)


def _touch(path: Path) -> bytes:
    path.touch()
    return b""  # what a guarded head reads from a worker: bytes, never a pickle


async def _refused(call: Any) -> str:
    """Run an attacker's call: it must fail (the peer closes the connection or refuses)."""
    try:
        result = await asyncio.wait_for(call, 15)
    except Exception as exc:  # noqa: BLE001 — any refusal will do, the markers say what ran
        return type(exc).__name__
    return f"answered {result!r}"


async def _attack_scheduler(address: str, stolen: Any, marks: Path) -> list[str]:
    from distributed import Client
    from distributed.core import rpc
    from distributed.protocol.serialize import ToPickle

    args = stolen.get_connection_args("client")
    outcomes = [await _refused(Client(address, security=stolen, asynchronous=True,
                                      timeout="10s"))]
    function = pickle.dumps(functools.partial(_touch, marks / "run_function"))
    attempts = {
        "run_function": lambda r: r.run_function(function=function, args=pickle.dumps(()),
                                                 kwargs=pickle.dumps({}), wait=True),
        "feed": lambda r: r.feed(function=pickle.dumps(functools.partial(
            _touch, marks / "feed")), interval="10ms"),
        "register_scheduler_plugin": lambda r: r.register_scheduler_plugin(
            plugin=ToPickle(_Touch(marks / "plugin")), name="x", idempotent=False),
        "broadcast": lambda r: r.broadcast(msg={"op": "run", "function": function}),
        # an op workers may call, carrying a pickle: Dask would unpickle it on read
        "get_metadata": lambda r: r.get_metadata(keys=[ToPickle(_Touch(marks / "read"))],
                                                 default=None),
    }
    for name, attempt in attempts.items():
        async with rpc(address, connection_args=args, timeout=10) as remote:
            outcomes.append(f"{name}: {await _refused(attempt(remote))}")
    outcomes.append(f"stream: {await _refused(_raw_stream(address, args))}")
    return outcomes


async def _raw_stream(address: str, args: dict[str, Any]) -> Any:
    """``connection_stream``: a raw stream into the scheduler's client handlers."""
    from distributed.comm import connect

    comm = await connect(address, **args)
    try:
        await comm.write({"op": "connection_stream", "reply": False})
        await comm.write([{"op": "subscribe-topic", "topic": "arena-log", "client": "thief"}])
        return await comm.read()
    finally:
        comm.abort()


async def _attack_host(worker: str, nanny: str, stolen: Any, marks: Path) -> list[str]:
    from distributed.core import rpc

    args = stolen.get_connection_args("worker")
    function = pickle.dumps(functools.partial(_touch, marks / "worker-run"))
    outcomes = []
    async with rpc(worker, connection_args=args, timeout=10) as remote:
        outcomes.append(await _refused(remote.run(function=function, args=pickle.dumps(()),
                                                  kwargs=pickle.dumps({}))))
    async with rpc(worker, connection_args=args, timeout=10) as remote:
        outcomes.append(await _refused(remote.get_data(keys=[_PickledKey(marks)])))
    async with rpc(nanny, connection_args=args, timeout=10) as remote:
        outcomes.append(await _refused(remote.run(
            function=pickle.dumps(functools.partial(_touch, marks / "nanny-run")),
            args=pickle.dumps(()), kwargs=pickle.dumps({}))))
    return outcomes


def _PickledKey(marks: Path) -> Any:  # noqa: N802 — reads as the value it makes
    from distributed.protocol.serialize import ToPickle

    return ToPickle(_Touch(marks / "worker-read"))


def test_a_worker_certificate_cannot_act_as_the_head(
        tmp_path: Path, certs: CertFiles, procs: list[subprocess.Popen[bytes]]) -> None:
    address = f"tls://{LOOPBACK}:{free_port()}"
    marks = tmp_path / "marks"
    marks.mkdir()
    procs.append(start(worker_args(address, certs, "w1", tmp_path / "cache"),
                       tmp_path / "w1.log"))
    stolen = tls_security(certs.hosts["w2"])  # another worker host's key

    async def head() -> tuple[list[str], list[str], Any]:
        mine = ClusterSettings(listen=address, tls=certs.hosts["head"], wait_s=60)
        async with open_cluster(mine, workers=0) as session:
            on_scheduler = await _attack_scheduler(address, stolen, marks)
            info = await session.client.scheduler.identity(n_workers=-1)
            worker, state = next(iter(info["workers"].items()))
            on_host = await _attack_host(worker, state["nanny"], stolen, marks)
            # the head's certificate still drives it all
            ran = await session.client.run_on_scheduler(_touch, marks / "head-scheduler")
            await session.client.run(_touch, marks / "head-worker")
            assert await session.slots() == 1
            return on_scheduler, on_host, ran

    on_scheduler, on_host, _ = asyncio.run(head())
    assert sorted(p.name for p in marks.iterdir()) == ["head-scheduler", "head-worker"], (
        on_scheduler, on_host)
    assert not any("answered" in o for o in [*on_scheduler, *on_host]), (on_scheduler, on_host)


def test_the_head_needs_the_head_role_and_a_guarded_scheduler(
        tmp_path: Path, certs: CertFiles) -> None:
    address = f"tls://{LOOPBACK}:{free_port()}"

    async def as_worker() -> None:
        async with open_cluster(ClusterSettings(listen=address, tls=certs.hosts["w1"]),
                                workers=0):
            pass

    with pytest.raises(ClusterError, match="not a head's: make the head's certificate with "
                                           "`arena cluster certs DIR --head HOST`"):
        asyncio.run(as_worker())

    async def unguarded() -> None:
        from distributed import Scheduler

        files = certs.hosts["head"]
        async with Scheduler(host=LOOPBACK, port=0, protocol="tls", dashboard=False,
                             security=tls_security(files)) as scheduler:
            settings = ClusterSettings(scheduler=scheduler.address, tls=files, wait_s=5)
            async with open_cluster(settings, workers=0):
                pass

    with pytest.raises(ClusterError, match="is not guarded .* --preload arena.cluster.preload"):
        asyncio.run(unguarded())

    async def preloaded() -> None:  # as `dask scheduler --preload arena.cluster.preload` runs
        from distributed import Scheduler

        files = certs.hosts["head"]
        async with Scheduler(host=LOOPBACK, port=0, protocol="tls", dashboard=False,
                             security=tls_security(files),
                             preload=["arena.cluster.preload"]) as scheduler:
            settings = ClusterSettings(scheduler=scheduler.address, tls=files, wait_s=1)
            async with open_cluster(settings, workers=0):
                pass

    with pytest.raises(ClusterError, match="no worker joined"):  # past the guard's check
        asyncio.run(preloaded())


def test_a_fake_worker_with_a_stolen_key_cannot_make_the_head_unpickle(
        tmp_path: Path, certs: CertFiles, procs: list[subprocess.Popen[bytes]]) -> None:
    """A worker started with a stolen worker key joins (it passes the version gate) and answers
    the head's match with a pickle that would run code on the head, of a class whose import
    would too. The head unpickles nothing: the match never counts, no mark is left."""
    address = f"tls://{LOOPBACK}:{free_port()}"
    marks = tmp_path / "marks"
    marks.mkdir()
    files = certs.hosts["w2"]
    bots = pacers(tmp_path / "bots", ["ann", "bob"])
    loaded = [load_bot_dir(d) for d in bots]
    spec = MatchSpec("lost-cities", 3, tuple(  # type: ignore[arg-type]
        dataclasses.replace(b, digest=bot_identity(b)) for b in loaded), {"rounds": 1},
        TimeControl(2000, 0, 20_000), match_id="stolen-l0")

    evil = subprocess.Popen(
        [sys.executable, "-m", "distributed.cli.dask_worker", address, "--no-nanny",
         "--preload", "tests.cluster.evil_preload", "--nthreads", "1", "--resources", "match=1",
         "--host", LOOPBACK, "--tls-ca-file", str(files.ca), "--tls-cert", str(files.cert),
         "--tls-key", str(files.key), "--no-dashboard"],
        cwd=ROOT, env={**os.environ, "ARENA_TEST_MARKS": str(marks)},
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    procs.append(evil)

    async def head() -> Any:
        mine = ClusterSettings(listen=address, tls=certs.hosts["head"], wait_s=60)
        async with open_cluster(mine, workers=0) as session:
            play = asyncio.create_task(session.player(spec, log_dir=tmp_path / "logs"))
            deadline = asyncio.get_running_loop().time() + 120
            while not (marks / "gathered").exists() and not play.done():
                assert asyncio.get_running_loop().time() < deadline, "the match never ran"
                await asyncio.sleep(0.1)
            await asyncio.wait({play}, timeout=5)  # what the head does with the answer
            if not play.done():
                play.cancel()
                return "no result"
            return play.result()

    outcome = asyncio.run(head())
    assert not isinstance(outcome, MatchResult) or outcome.void, outcome
    left = sorted(p.name for p in marks.iterdir())
    assert left == ["gathered", f"imported-{evil.pid}"], "only the attacker's process ran it"
