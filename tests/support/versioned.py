"""Ladder stores filled through the store's own ``record_match`` with bots of several versions:
the material of the version, standings and history tests."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path

from arena.ladder.config import LadderConfig, load_ladder
from arena.ladder.store import LadderStore
from arena.model import BotSpec, MatchResult, Termination

STRENGTH = {"alpha@1": 0, "alpha@2": 60, "beta@1": 20, "gamma@1": -40}
"""Points per match a version is worth (unknown versions: 0)."""


def bot(name: str, version: str, identity: str = "") -> BotSpec:
    """A bot of one version (its identity: a fake image id unless given)."""
    digest = identity or "sha256:" + hashlib.sha256(f"{name}@{version}".encode()).hexdigest()
    return BotSpec(name=name, game="lost-cities", command=("true",), version=version,
                   digest=digest)


def result(match_id: str, seed: int, seats: tuple[BotSpec, BotSpec], *,
           void: bool = False) -> MatchResult:
    """A deterministic result: the versions' strengths plus the deal's luck for seat 0."""
    luck = hashlib.sha256(str(seed).encode()).digest()[0] % 50 - 25
    margin = (STRENGTH.get(f"{seats[0].name}@{seats[0].version}", 0)
              - STRENGTH.get(f"{seats[1].name}@{seats[1].version}", 0) + luck)
    totals = (max(margin, 0) + 10, max(-margin, 0) + 10)
    winner = None if margin == 0 or void else (0 if margin > 0 else 1)
    return MatchResult(
        match_id=match_id, game="lost-cities", game_version=1, seed=seed, options={},
        bots=(seats[0].name, seats[1].name), rounds=(totals,), totals=totals, winner=winner,
        termination=Termination.INTERNAL if void else Termination.NORMAL, faulty_seat=None,
        detail="", log=f"/logs/{match_id}.jsonl", duration_s=0.01, decisions=10)


def record_encounters(store: LadderStore, ladder: str,
                      encounters: Sequence[tuple[BotSpec, BotSpec]], *,
                      first: int = 0) -> None:
    """Record each (a, b) as a duplicate encounter: leg 0 with a in seat 0, leg 1 swapped."""
    for k, (a, b) in enumerate(encounters, start=first):
        encounter = f"{ladder}-e{k:04d}"
        for leg, seats in enumerate(((a, b), (b, a))):
            store.record_match(ladder, result(f"{encounter}-l{leg}", 1000 + k, seats), seats,
                               encounter_id=encounter, cycle=k, leg=leg)


A1, A2, B1, G1 = bot("alpha", "1"), bot("alpha", "2"), bot("beta", "1"), bot("gamma", "1")
EARLY = [(A1, B1), (B1, G1), (G1, A1), (A1, B1), (B1, G1), (G1, A1)]
"""A round robin of alpha 1, beta and gamma, twice."""
LATE = [(A2, B1), (G1, A2), (A2, B1), (B1, G1), (G1, A2), (A2, B1)]
"""Then alpha 2 replaces alpha 1."""


def versioned_ladder(tmp_path: Path, kind: str = "continuous") -> LadderConfig:
    """A ladder of alpha (version 1, then 2), beta and gamma with twelve encounters recorded."""
    path = tmp_path / f"{kind}.toml"
    path.write_text(f'name = "vers"\ngame = "lost-cities"\nentrants = ["alpha", "beta", '
                    f'"gamma"]\n[schedule]\ntype = "{kind}"\n')
    config = load_ladder(path)
    with LadderStore(config.database_url) as store:
        record_encounters(store, config.name, [*EARLY, *LATE])
    return config
