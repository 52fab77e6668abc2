"""Knockouts and Swiss tournaments run by the ladder with the fast in-process fake player: a
tournament's ladder file, a run, and the schedule's state as the store gives it."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any, TypeVar

from arena.ladder.config import LadderConfig, load_ladder
from arena.ladder.runner import RunSummary, run_ladder
from arena.ladder.schedules.registry import schedule_status
from arena.ladder.store import LadderStore
from tests.support.fakes import FakePlayer, fake_resolve

State = TypeVar("State")


def tournament(directory: Path, name: str, entrants: str, schedule: str,
               concurrency: int = 2) -> LadderConfig:
    """The ladder ``directory/name.toml`` of ``entrants`` (TOML strings, comma-separated) whose
    ``[schedule]`` table holds the lines ``schedule``."""
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{name}.toml"
    path.write_text(f'name = "{name}"\ngame = "lost-cities"\nentrants = [{entrants}]\n'
                    f"concurrency = {concurrency}\n[schedule]\n{schedule}\n")
    return load_ladder(path)


def run(cfg: LadderConfig, player: FakePlayer | None = None, **kwargs: Any) -> RunSummary:
    """One run of the ladder with ``player`` (a fresh fake player by default)."""
    return asyncio.run(run_ladder(cfg, play=player or FakePlayer(), resolve=fake_resolve,
                                  **kwargs))


def state(cfg: LadderConfig, kind: type[State]) -> State:
    """The schedule's state from the store, asserted to be a ``kind``."""
    with LadderStore(cfg.database_url) as db:
        status = schedule_status(cfg, db)
    assert isinstance(status, kind)
    return status
