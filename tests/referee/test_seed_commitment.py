"""The deal seed stays secret while a match runs and is checkable after: the header of a log of
format 4 commits to it (a salted SHA-256) and never states it, not even while the match is being
played (the log is what a live view or a leaked copy shows); the referee keeps the seed for the
operator's live views in a private sidecar (0600) that is gone at the end; the match end reveals
the salt, and the reveal opens the commitment. A header without its seed is shown as "seed
committed" by the views that would print it."""

from __future__ import annotations

import asyncio
import dataclasses
import io
import json
import stat
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from arena.model import BotSpec, HeaderEvent, MatchSpec, TimeControl, seed_commitment
from arena.record.log import read_events, seed_sidecar_path
from arena.record.replay import SeedCheck, replay_events, replay_log
from arena.referee.local import LocalPlayer
from arena.referee.match import Match
from arena.render.html.replay import replay_page
from arena.render.match import render_frame

pytestmark = pytest.mark.unit

SEED = 18_446_744_073_709_551_557
"""The largest 64-bit prime: a seed whose digits cannot turn up in a log by chance."""


@dataclasses.dataclass
class Seen:
    """What was on disk while the match was being played (the first decision's moment)."""

    header: bytes = b""
    log: bytes = b""
    sidecar: bytes = b""
    sidecar_mode: int = 0


def _play_watching(tmp_path: Path) -> tuple[Path, Seen]:
    """A one-round Lost Cities match whose first decision looks at the files on disk."""
    seen = Seen()
    log = tmp_path / "committed.jsonl"

    def first(decision: Any) -> Any:
        if not seen.log:
            seen.log = log.read_bytes()
            seen.header = seen.log.split(b"\n", 1)[0]
            sidecar = seed_sidecar_path(log)
            seen.sidecar = sidecar.read_bytes()
            seen.sidecar_mode = stat.S_IMODE(sidecar.stat().st_mode)
        return decision.legal_actions[0]

    bots = (BotSpec("a", "lost-cities"), BotSpec("b", "lost-cities"))
    spec = MatchSpec("lost-cities", SEED, bots, {"rounds": 1}, TimeControl(),
                     match_id="committed")
    match = Match(spec, sandbox_name="in-process", log_dir=tmp_path)
    asyncio.run(match.run((LocalPlayer(0, first), LocalPlayer(1, first))))
    return log, seen


def test_a_running_log_never_states_its_seed(tmp_path: Path) -> None:
    log, seen = _play_watching(tmp_path)
    assert seen.log, "the policy looked at the log during the match"
    assert str(SEED).encode() not in seen.log, "the seed is in the log of a running match"
    header = json.loads(seen.header)
    assert "seed" not in header and header["log_format"] >= 4
    assert json.loads(seen.sidecar)["seed"] == SEED and seen.sidecar_mode == 0o600
    assert not seed_sidecar_path(log).exists(), "the sidecar outlived its match"
    end = json.loads(log.read_bytes().splitlines()[-1])
    assert end["type"] == "match_end" and end["result"]["seed"] == SEED
    assert header["seed_commitment"] == seed_commitment(SEED, end["seed_salt"])
    assert str(SEED).encode() not in log.read_bytes().split(b"\n", 1)[0]
    report = replay_log(log)
    assert report.seed is SeedCheck.MATCHES and report.finished


def test_the_commitment_hides_small_seeds_behind_the_salt() -> None:
    """Seeds are integers anyone could try one by one: the salt is what hides them."""
    assert seed_commitment(1, "00" * 16) != seed_commitment(1, "01" * 16)
    assert seed_commitment(1, "00" * 16) != seed_commitment(2, "00" * 16)


@pytest.mark.integration
def test_views_of_a_header_without_its_seed_say_seed_committed(tmp_path: Path) -> None:
    log, _ = _play_watching(tmp_path)
    steps = [(step.event, step.state) for step in replay_events(read_events(log))]
    header = steps[0][0]
    assert isinstance(header, HeaderEvent) and header.seed == SEED
    hidden = dataclasses.replace(header, seed=None)
    out = io.StringIO()
    Console(file=out, width=120, color_system=None).print(
        render_frame("board", [hidden], hidden, None))
    assert "seed committed" in out.getvalue() and str(SEED) not in out.getvalue()
    page = replay_page([(hidden, steps[0][1]), *steps[1:]]).html
    assert "seed committed" in page and f"seed {SEED}" not in page
