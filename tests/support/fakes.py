"""Fakes for ladder tests: a fast in-process player (deterministic results from the seed) and
recorded matches made by hand."""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import typer

from arena.cluster.executor import given_up
from arena.ladder.store import StoredMatch
from arena.model import BotSpec, MatchResult, MatchSpec, Termination

STRENGTH = {"alpha": 30, "beta": 10, "gamma": 0, "delta": -20}


def deal_luck(seed: int) -> int:
    """Seat 0's advantage in this deal (both legs of an encounter share it)."""
    return hashlib.sha256(str(seed).encode()).digest()[0] - 128


def fake_result(spec: MatchSpec, termination: Termination = Termination.NORMAL) -> MatchResult:
    a, b = spec.bots[0].name, spec.bots[1].name
    margin = STRENGTH.get(a, 0) - STRENGTH.get(b, 0) + deal_luck(spec.seed) // 2
    totals = (max(margin, 0) + 10, max(-margin, 0) + 10)
    winner = None if margin == 0 else (0 if margin > 0 else 1)
    void = termination.is_void
    return MatchResult(
        match_id=spec.match_id, game=spec.game, game_version=1, seed=spec.seed,
        options=dict(spec.options), bots=(a, b), rounds=(totals,), totals=totals,
        winner=None if void else winner, termination=termination, faulty_seat=None, detail="",
        log=f"/logs/{spec.match_id}.jsonl", duration_s=0.01, decisions=10,
    )


GIVEN_UP = "the match killed the workers that played it (fake)"
"""The detail of the matches a ``FakePlayer`` gives up on."""


class FakePlayer:
    """Records every call; optional per-match delay, hook, void matches and matches given up
    on (the cancelled result the cluster's player returns when a match kills its workers)."""

    def __init__(self, delay: float = 0.0, void_ids: set[str] | None = None,
                 hook: Callable[[MatchSpec], None] | None = None,
                 given_up_ids: set[str] | None = None) -> None:
        self.delay = delay
        self.calls: list[MatchSpec] = []
        self.void_ids = void_ids or set()
        self.given_up_ids = given_up_ids or set()
        self.hook = hook
        self.active = 0
        self.max_active = 0

    async def __call__(self, spec: MatchSpec, *, sandbox: str = "process", log_dir: Path,
                       on_event: Callable[[dict[str, Any]], None] | None = None) -> MatchResult:
        self.calls.append(spec)
        self.active += 1
        self.max_active = max(self.max_active, self.active)
        try:
            if self.hook is not None:
                self.hook(spec)
            await asyncio.sleep(self.delay)
        finally:
            self.active -= 1
        if spec.match_id in self.given_up_ids:
            return given_up(spec, GIVEN_UP)
        term = Termination.INTERNAL if spec.match_id in self.void_ids else Termination.NORMAL
        return fake_result(spec, term)


def fake_resolve(ref: str, base_dir: Path) -> BotSpec:
    """Entrant references are bot names here."""
    return BotSpec(name=ref, game="lost-cities", directory=None, command=("true",),
                   version="1", digest=f"fake:{ref}")


def stored(match_id: str, bots: tuple[str, str], totals: tuple[int, int], *,
           winner: int | None = None, termination: Termination = Termination.NORMAL,
           faulty_seat: int | None = None, encounter: str = "", leg: int = 0) -> StoredMatch:
    """A recorded match as the store reads it back (for the pure report functions)."""
    return StoredMatch(
        match_id=match_id, encounter_id=encounter, cycle=0, leg=leg, game="lost-cities",
        game_version=1, seed=7, bots=bots, winner=winner, termination=termination,
        faulty_seat=faulty_seat, void=termination.is_void, detail="", rounds=(totals,),
        totals=totals, log_path=f"/logs/{match_id}.jsonl", duration_s=0.25, finished_at=0.0,
    )


SAMPLE_MATCHES = [
    stored("m0", ("alpha", "beta"), (30, 10), winner=0, encounter="e0", leg=0),
    stored("m1", ("beta", "alpha"), (12, 12), encounter="e0", leg=1),
    stored("m2", ("alpha", "gamma"), (5, 25), winner=1, faulty_seat=0, encounter="e1"),
    stored("m3", ("gamma", "alpha"), (40, 0), termination=Termination.INTERNAL, encounter="e1",
           leg=1),
    stored("m4", ("beta", "gamma"), (20, 8), winner=0, encounter="e2"),
]
"""Recorded matches for report and view tests: a draw, a forfeit, a void match."""


def ladder_app() -> typer.Typer:
    """A root app with only the ladder commands (`run-ladder`, `arena ladder ...`, `arena
    standings` and `arena matches`)."""
    from arena.cli import ladder_cmds, results_cmds

    app = typer.Typer()

    @app.callback()
    def root() -> None:
        """Test root."""

    ladder_cmds.register(app)
    results_cmds.register(app)
    return app
