"""A ladder on a cluster: the head signs the log it has verified, never a worker, and never a log
it refused.

Attack: a worker that lies about a match (here: its result flips the winner of every second
leg) must not get the head's signature on anything; the honest leg's log, played by the same
worker, ends signed by the head's key with its ladder slot in the header. Real Dask processes
on 127.0.0.1 (the embedded cluster), the real ladder runner, real SQLite."""

from __future__ import annotations

import asyncio
import dataclasses
from pathlib import Path
from typing import Any

import pytest
from distributed.diagnostics.plugin import WorkerPlugin

from arena.cluster.session import open_cluster
from arena.cluster.task import MatchOutput, MatchTask, decode_outcome, encode_outcome, play_task
from arena.ladder.config import load_ladder
from arena.ladder.reports import load_matches
from arena.ladder.runner import RunSummary, run_ladder
from arena.model import LadderSlot, MatchEndEvent
from arena.record.log import read_events
from arena.record.signing import check_log_signature, load_trusted, parse_log_signature
from tests.support.cluster import ladder_file, pacers

pytestmark = pytest.mark.integration


class LiesOnSecondLegs(WorkerPlugin):  # type: ignore[misc]
    """Makes a worker's ``play_task`` return every second leg (``-l1``) with its winner
    flipped: a result that differs from the log the worker streamed."""

    def setup(self, worker: Any) -> None:
        import arena.cluster.task as task

        task.play_task = _lying


def _lying(task: MatchTask, shipment: Any = None) -> bytes:
    outcome = decode_outcome(play_task(task, shipment))
    if task.spec.match_id.endswith("-l1") and isinstance(outcome, MatchOutput):
        result = outcome.result
        flipped = dataclasses.replace(result, winner=1 if result.winner != 1 else 0,
                                      totals=result.totals[::-1])
        outcome = dataclasses.replace(outcome, result=flipped)
    return encode_outcome(outcome)


def test_the_head_signs_what_it_verified_and_never_a_refused_log(tmp_path: Path) -> None:
    bots = pacers(tmp_path / "bots", ["ann", "bob"])
    cfg = load_ladder(ladder_file(tmp_path / "signed.toml", "signed", bots, concurrency=1))

    async def run() -> RunSummary:
        async with open_cluster(None, workers=1) as session:
            await session.client.register_plugin(LiesOnSecondLegs(), name="lies")
            return await run_ladder(cfg, play=session.player)

    summary = asyncio.run(run())
    assert summary.played == 2 and summary.void == 1
    trusted = load_trusted([cfg.state_dir / "keys" / "referee.pub"])
    by_leg = {m.leg: m for m in load_matches(cfg)}
    honest, refused = by_leg[0], by_leg[1]
    assert not honest.void and refused.void and refused.termination == "internal"
    assert "was refused" in refused.detail

    path = Path(honest.log_path or "")
    signature = check_log_signature(path, trusted)
    assert signature is not None and signature.verified
    assert signature.key_id == trusted.key_ids[0]
    header = next(iter(read_events(path)))
    assert header.slot == LadderSlot(cfg.name, honest.encounter_id, honest.cycle, 0)

    assert refused.log_path is None
    # the live copy the lying worker streamed stays beside the results: a whole log (it ends
    # with the match end), the very one a head signing what it received would have signed
    leftovers = list(cfg.match_log_dir.glob(f"{refused.match_id}*.jsonl"))
    assert leftovers
    for leftover in leftovers:
        assert parse_log_signature(leftover.read_bytes()) is None, f"{leftover.name} signed"
    assert any(isinstance(list(read_events(p))[-1], MatchEndEvent) for p in leftovers)
