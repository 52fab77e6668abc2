"""The embedded cluster: `run_ladder` with no [cluster] plays every match as a Dask task in
worker processes on 127.0.0.1, with the same results as the referee in this process; a match
whose worker keeps being killed is given up for the run (recorded as a void attempt, never
rated) and played by the next."""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import sys
import threading
from pathlib import Path
from typing import Any

import dask
import pytest

from arena.cluster.session import open_cluster
from arena.errors import ClusterError
from arena.ladder.config import load_ladder
from arena.ladder.reports import load_matches
from arena.ladder.runner import (
    SECRET_FILE,
    LadderEventKind,
    RunSummary,
    ladder_schedule,
    run_ladder,
)
from arena.ladder.store import LadderStore
from arena.record.replay import replay_log
from arena.referee.match import play_match
from tests.support.cluster import (
    LOOPBACK,
    below,
    descendants,
    ladder_file,
    pacers,
    process_tree,
)

pytestmark = pytest.mark.integration


def test_embedded_cluster_gives_the_in_process_results(tmp_path: Path) -> None:
    bots = pacers(tmp_path / "bots", ["ann", "bob"])
    local = load_ladder(ladder_file(tmp_path / "local.toml", "same", bots))
    (tmp_path / "c").mkdir()
    # one worker process: the ladder is one deal, whose second leg waits for the first anyway
    remote = load_ladder(ladder_file(tmp_path / "c" / "cluster.toml", "same", bots,
                                     concurrency=1))
    asyncio.run(run_ladder(local, play=play_match))
    remote.state_dir.mkdir(parents=True)
    shutil.copy(local.state_dir / SECRET_FILE, remote.state_dir / SECRET_FILE)  # same deals
    events = []
    summary = asyncio.run(run_ladder(remote, on_event=events.append))

    assert summary.played == 2 and summary.void == 0
    expected = {m.match_id: (m.seed, m.totals, m.winner) for m in load_matches(local)}
    found = {m.match_id: (m.seed, m.totals, m.winner) for m in load_matches(remote)}
    assert found == expected
    assert set(found) == {m.match_id for e in ladder_schedule(remote) for m in e.matches}
    for m in load_matches(remote):  # the logs came back whole, into the ladder's directory
        assert m.log_path is not None and Path(m.log_path).parent == remote.match_log_dir
        assert replay_log(Path(m.log_path)).finished
    hosts = [e.progress.hosts for e in events if e.kind is LadderEventKind.HOSTS]
    last = hosts[-1]
    assert sum(h.done for h in last) == 2 and all(h.in_flight == 0 for h in last)
    assert {h.worker.split(":")[1] for h in last} == {"//127.0.0.1"}


def test_embedded_cluster_listens_on_loopback_only_and_goes_away(tmp_path: Path) -> None:
    async def addresses() -> list[str]:
        async with open_cluster(None, workers=2) as session:
            info = await session.client.scheduler.identity(n_workers=-1)
            assert await session.slots() == 2
            return [info["address"], *info["workers"]]

    found = asyncio.run(addresses())
    assert len(found) == 3
    assert all(a.startswith(f"tls://{LOOPBACK}:") for a in found), found
    left = [cmd for _, cmd in descendants(os.getpid()) if "resource_tracker" not in cmd]
    assert not left, left


_DASHBOARD_IMPORTS: list[str] | None = None
"""While a list: where the audit hook below notes each attempt to import Dask's dashboard."""


def _note_dashboard_imports(event: str, args: tuple[Any, ...]) -> None:
    if _DASHBOARD_IMPORTS is not None and event == "import" and str(args[0]).startswith(
            "distributed.dashboard"):
        _DASHBOARD_IMPORTS.append(str(args[0]))


def test_two_embedded_clusters_start_at_once_in_one_process() -> None:
    """`arena host` may open a final's cluster while a season's opens: two schedulers starting
    in two threads of one process. Each used to try Dask's dashboard module (bokeh is not
    installed), and the second could get the first's half-made module: "Cluster failed to
    start: module 'distributed.dashboard' has no attribute 'scheduler'". The race is rare; what
    removes it is that no scheduler of the arena tries that import, which the audit hook sees."""
    global _DASHBOARD_IMPORTS
    sys.addaudithook(_note_dashboard_imports)
    errors: list[str] = []

    async def open_one() -> None:
        async with open_cluster(None, workers=1) as session:
            assert await session.slots() == 1

    def run() -> None:
        try:
            asyncio.run(open_one())
        except Exception as exc:  # noqa: BLE001 — reported below, with the other thread's
            errors.append(repr(exc))

    _DASHBOARD_IMPORTS = []
    try:
        threads = [threading.Thread(target=run) for _ in range(2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=120)
        assert not any(thread.is_alive() for thread in threads)
        assert errors == [] and _DASHBOARD_IMPORTS == []
    finally:
        _DASHBOARD_IMPORTS = None


def test_an_embedded_cluster_that_cannot_start_is_a_cluster_error() -> None:
    """Dask's own failure to start a cluster (a RuntimeError) becomes a ``ClusterError``: the
    competition server's ladder and final threads catch the arena's errors, say so and try
    again; before, the RuntimeError ended the thread, and the final never played."""
    async def open_one() -> None:
        async with open_cluster(None, workers=1):
            raise AssertionError("the cluster started")

    with dask.config.set({"distributed.worker.multiprocessing-method": "no-such-method"}):
        with pytest.raises(ClusterError, match="the embedded cluster did not start"):
            asyncio.run(open_one())


def test_a_match_that_keeps_killing_workers_is_void_for_the_run(tmp_path: Path) -> None:
    from arena.cluster.settings import ALLOWED_FAILURES

    bots = pacers(tmp_path / "bots", ["ann", "bob"])
    cfg = load_ladder(ladder_file(tmp_path / "deadly.toml", "deadly", bots, concurrency=1))
    kills: list[int] = []

    async def killer() -> None:
        """SIGKILL the worker process whenever it is mid-match, until the match is given up."""
        while len(kills) <= ALLOWED_FAILURES:
            found = await asyncio.to_thread(process_tree, os.getpid())
            playing = {pid for pid, (_, cmd) in found.items() if "bot.py" in cmd}
            for pid, (_, cmd) in found.items():
                if "spawn_main" in cmd and below(found, pid) & playing:
                    os.kill(pid, signal.SIGKILL)
                    kills.append(pid)
                    await asyncio.sleep(0.5)
            await asyncio.sleep(0.1)  # a look reads all of /proc; a pacers' match lasts seconds

    async def both() -> RunSummary:
        hunt = asyncio.create_task(killer())
        try:
            return await run_ladder(cfg)
        finally:
            hunt.cancel()

    summary = asyncio.run(both())
    assert len(kills) == ALLOWED_FAILURES + 1
    assert summary.void == 1 and summary.given_up == 1
    assert summary.played == 1 and summary.remaining == 1
    with LadderStore(cfg.database_url) as db:  # a void attempt, not a recorded match...
        (attempt,) = db.void_attempts(cfg.name)
        assert attempt.match_id not in db.recorded_ids(cfg.name)
        assert "killed the workers" in attempt.detail and "void attempt" in attempt.detail
    assert len(load_matches(cfg)) == 1
    again = asyncio.run(run_ladder(cfg))  # ...so the next run plays it
    assert again.played == 1 and again.remaining == 0 and len(load_matches(cfg)) == 2
    assert attempt.match_id in {m.match_id for m in load_matches(cfg)}
