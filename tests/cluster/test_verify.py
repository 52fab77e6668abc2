"""Attack: a worker returns something other than the match the head asked for. The head checks
every outcome against its spec (``arena.cluster.verify``): another match id, a doctored result
or log, a zlib bomb, a Needs for an image or directory the match does not name are refused,
and the match is void (``internal``: recorded, never rated), logged with the worker's address.

End to end: real worker processes (the embedded cluster's) whose ``play_task`` a worker plugin
replaces with a dishonest one; the head's real ``ClusterPlayer`` judges what comes back."""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import pickle
import time
import zlib
from pathlib import Path
from typing import Any

import pytest
from distributed.diagnostics.plugin import WorkerPlugin

from arena.cluster.session import open_cluster
from arena.cluster.shipping import Needs
from arena.cluster.task import (
    MatchOutput,
    MatchTask,
    decode_outcome,
    encode_outcome,
    play_task,
)
from arena.cluster.verify import (
    SEAT_LOG_CAP,
    Inconsistent,
    check_needs,
    check_output,
    check_void,
)
from arena.model import BotSpec, MatchResult, MatchSpec
from tests.support.cluster import m1_spec, slow_match, worker_log

pytestmark = pytest.mark.unit

RIVAL_IMAGE = "sha256:" + "7" * 64
"""Another author's submitted image, which the match does not name."""


def _honest(tmp_path: Path, seed: int = 4) -> tuple[MatchOutput, MatchSpec]:
    result, lines = worker_log(tmp_path / "w", seed=seed)
    output = MatchOutput(result, zlib.compress(b"".join(lines)), (zlib.compress(b"out"), None),
                         "tls://127.0.0.1:4001", "h")
    return output, m1_spec(seed)


def test_an_honest_outcome_passes_and_a_bots_output_is_plain_text(tmp_path: Path) -> None:
    output, spec = _honest(tmp_path)
    loud = dataclasses.replace(output, seat_logs=(zlib.compress(
        b"crashed \x1b]52;c;ZXZpbA==\x07\x1b[2Jwon\n"), None))
    checked = check_output(loud, spec)
    assert checked.result == dataclasses.replace(output.result, detail=checked.result.detail)
    kept = checked.seat_logs[0] or ""
    assert kept.startswith("crashed ") and kept.endswith("won\n") and checked.seat_logs[1] is None
    assert not any(c in kept for c in "\x1b\x07"), "nothing a terminal would act on"


@pytest.mark.integration
def test_a_worker_cannot_return_another_match_a_doctored_one_or_a_bomb(tmp_path: Path) -> None:
    output, spec = _honest(tmp_path)
    result = output.result
    other, _ = _honest(tmp_path / "other", seed=9)
    flipped = 1 if result.winner != 1 else 0
    lines = zlib.decompress(output.log).decode().splitlines(keepends=True)
    doctored_line = lines[3].replace('"action":"', '"action":"x', 1)
    attacks: dict[str, Any] = {
        "another match id": dataclasses.replace(output, result=dataclasses.replace(
            result, match_id="m2")),
        "another seed's log and result": dataclasses.replace(other, worker=output.worker),
        "a flipped winner": dataclasses.replace(output, result=dataclasses.replace(
            result, winner=flipped, totals=result.totals[::-1])),
        "a doctored move": dataclasses.replace(output, log=zlib.compress(
            "".join([*lines[:3], doctored_line, *lines[4:]]).encode())),
        "a log bomb": dataclasses.replace(output, log=zlib.compress(b"\n" * 300_000_000, 9)),
        "a seat log bomb": dataclasses.replace(output, seat_logs=(
            zlib.compress(b"x" * (SEAT_LOG_CAP + 1)), None)),
        "not zlib": dataclasses.replace(output, log=b"junk"),
        "not an outcome": "rm -rf /",
    }
    for name, attack in attacks.items():
        started = time.monotonic()
        with pytest.raises(Inconsistent):
            check_output(attack, spec)
        assert time.monotonic() - started < 30, f"{name}: the check is bounded"
    with pytest.raises(Inconsistent):
        check_void(dataclasses.replace(result, match_id="m2"), spec)
    with pytest.raises(Inconsistent, match="without a match log"):
        check_void(result, spec)  # a win without a log


def test_a_worker_may_only_ask_for_what_the_match_names() -> None:
    mine = BotSpec("mine", "lost-cities", directory="/bots/mine", digest="dir:sha256:" + "1" * 64)
    image = BotSpec("img", "lost-cities", image="sha256:" + "2" * 64, digest="x")
    spec = MatchSpec("lost-cities", 1, (mine, image), match_id="m1")
    assert check_needs(Needs((mine.digest,), (image.image or "",)), spec)
    for needs in (Needs((), (RIVAL_IMAGE,)), Needs(("dir:sha256:" + "3" * 64,), ()),
                  Needs((image.digest,), ())):
        with pytest.raises(Inconsistent):
            check_needs(needs, spec)


class Dishonest(WorkerPlugin):  # type: ignore[misc]
    """Makes a worker's ``play_task`` lie: a match whose id ends in ``-flip`` comes back with its
    winner flipped, one ending in ``-rival`` asks for another author's image."""

    def setup(self, worker: Any) -> None:
        import arena.cluster.task as task

        task.play_task = _dishonest  # what the pickled reference resolves to from now on


def _dishonest(task: MatchTask, shipment: Any = None) -> bytes:
    if task.spec.match_id.endswith("-rival"):
        return encode_outcome(Needs((), (RIVAL_IMAGE,)))
    outcome = decode_outcome(play_task(task, shipment))
    if isinstance(outcome, MatchOutput):
        result = outcome.result
        winner = 1 if result.winner != 1 else 0
        outcome = dataclasses.replace(outcome, result=dataclasses.replace(
            result, winner=winner, totals=result.totals[::-1]))
    return encode_outcome(outcome)


@pytest.mark.integration
def test_a_real_worker_that_lies_gets_a_void_match(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    flip = slow_match(tmp_path / "bots", "lie-flip")
    rival = dataclasses.replace(flip, match_id="lie-rival")
    asked: list[str] = []

    def images(image_id: str) -> bytes:
        asked.append(image_id)
        return b""

    async def run() -> list[MatchResult]:
        async with open_cluster(None, workers=1, images=images) as session:
            await session.client.register_plugin(Dishonest(), name="dishonest")
            return [await session.player(spec, log_dir=tmp_path / "logs")
                    for spec in (flip, rival)]

    with caplog.at_level(logging.ERROR, logger="arena.cluster.executor"):
        results = asyncio.run(run())
    for result in results:
        assert result.void and str(result.termination) == "internal" and result.log is None
        assert result.winner is None and "was refused" in result.detail
    assert "differs from its match log" in results[0].detail
    assert "an image the match does not name" in results[1].detail
    assert asked == []  # the rival's image was never saved
    assert "from worker tls://127.0.0.1:" in caplog.text


def test_what_a_worker_returns_is_decoded_never_unpickled(tmp_path: Path) -> None:
    output, _ = _honest(tmp_path)
    for outcome in (output, Needs(("dir:sha256:" + "1" * 64,), (RIVAL_IMAGE,)),
                    dataclasses.replace(output, seat_logs=(None, b"x"))):
        again = decode_outcome(encode_outcome(outcome))
        if isinstance(outcome, MatchOutput):  # the JSON keeps the duration to 0.1 ms
            assert isinstance(again, MatchOutput)
            assert again.result.to_json() == outcome.result.to_json()
            again = dataclasses.replace(again, result=outcome.result)
        assert again == outcome
    marker = tmp_path / "unpickled"
    hostile = [pickle.dumps(_Touch(marker)), b"arena-cluster/1\n\xff\xff\xff\xff",
               encode_outcome(output)[:-1], b"", "text", None]
    for data in hostile:
        with pytest.raises(ValueError):
            decode_outcome(data)
    assert not marker.exists()


class _Touch:
    def __init__(self, path: Path) -> None:
        self.path = path

    def __reduce__(self) -> tuple[Any, tuple[Path]]:
        return Path.touch, (self.path,)
