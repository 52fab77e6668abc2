"""The embedded cluster: `run_ladder` with no [cluster] plays every match as a Dask task in
worker processes on 127.0.0.1, with the same results as the referee in this process."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

from arena.cluster.session import open_cluster
from arena.ladder.config import load_ladder
from arena.ladder.reports import load_matches
from arena.ladder.runner import SECRET_FILE, LadderEventKind, ladder_schedule, run_ladder
from arena.referee.match import play_match
from arena.referee.replay import replay_log
from tests.cluster.conftest import LOOPBACK, descendants, ladder_file, pacers


def test_embedded_cluster_gives_the_in_process_results(tmp_path: Path) -> None:
    bots = pacers(tmp_path / "bots", ["ann", "bob", "cid"])
    local = load_ladder(ladder_file(tmp_path / "local.toml", "same", bots))
    (tmp_path / "c").mkdir()
    remote = load_ladder(ladder_file(tmp_path / "c" / "cluster.toml", "same", bots))
    asyncio.run(run_ladder(local, play=play_match))
    remote.state_dir.mkdir(parents=True)
    shutil.copy(local.state_dir / SECRET_FILE, remote.state_dir / SECRET_FILE)  # same deals
    events = []
    summary = asyncio.run(run_ladder(remote, on_event=events.append))

    assert summary.played == 6 and summary.void == 0
    expected = {m.match_id: (m.seed, m.totals, m.winner) for m in load_matches(local)}
    found = {m.match_id: (m.seed, m.totals, m.winner) for m in load_matches(remote)}
    assert found == expected
    assert set(found) == {m.match_id for e in ladder_schedule(remote) for m in e.matches}
    for m in load_matches(remote):  # the logs came back whole, into the ladder's directory
        assert m.log_path is not None and Path(m.log_path).parent == remote.match_log_dir
        assert replay_log(Path(m.log_path)).finished
    hosts = [e.progress.hosts for e in events if e.kind is LadderEventKind.HOSTS]
    last = hosts[-1]
    assert sum(h.done for h in last) == 6 and all(h.in_flight == 0 for h in last)
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
    import os

    left = [cmd for _, cmd in descendants(os.getpid()) if "resource_tracker" not in cmd]
    assert not left, left
