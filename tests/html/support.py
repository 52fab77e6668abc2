"""Real match logs for the page tests, and the engine's state behind every frame of a replay."""

from __future__ import annotations

import asyncio
import json
import random
import re
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from arena.ladder.config import load_ladder
from arena.ladder.runner import run_ladder
from arena.model import (
    BotSpec,
    DecisionEvent,
    HeaderEvent,
    MatchEndEvent,
    MatchResult,
    MatchSpec,
    TimeControl,
)
from arena.referee.local import LocalPlayer
from arena.referee.log import read_events
from arena.referee.match import Match
from arena.referee.replay import replay_events

Policy = Callable[[Any], Any]
TIME_CONTROL = TimeControl(move_time_ms=5000, startup_ms=1000)
"""Generous: the tests' matches are decided by their policies, not by the clock."""


def random_policy(seed: int) -> Policy:
    """A seeded uniformly random player."""
    rng = random.Random(seed)
    return lambda decision: rng.choice(decision.legal_actions)


def play_logged(log_dir: Path, game: str, seed: int, *, options: dict[str, Any] | None = None,
                policies: tuple[Policy, Policy] | None = None,
                names: tuple[str, str] = ("alice", "bob"), match_id: str | None = None,
                time_control: TimeControl = TIME_CONTROL,
                ) -> Path:
    """Play one match in-process and return its log (written by the real match loop)."""
    policies = policies or (random_policy(seed), random_policy(seed + 1))
    bots = (BotSpec(names[0], game), BotSpec(names[1], game))
    match_id = match_id or f"{game}-{seed}"
    spec = MatchSpec(game, seed, bots, dict(options or {}), time_control, match_id=match_id)
    match = Match(spec, sandbox_name="in-process", log_dir=log_dir)
    asyncio.run(match.run((LocalPlayer(0, policies[0]), LocalPlayer(1, policies[1]))))
    return log_dir / f"{match_id}.jsonl"



def frame_states(log: Path) -> list[Any]:
    """The engine's state behind each frame of the log's replay page: the start, after every
    decision, and the match end."""
    states = []
    for step in replay_events(read_events(log)):
        if isinstance(step.event, HeaderEvent | DecisionEvent | MatchEndEvent):
            states.append(step.state)
    return states


def page_data(html: str) -> dict[str, Any]:
    """The JSON data block of a replay page."""
    found = re.search(r'<script type="application/json" id="arena-data">(.*?)</script>', html,
                      re.S)
    assert found is not None, "the page has no data block"
    data: dict[str, Any] = json.loads(found.group(1))
    return data


def frame_html(data: dict[str, Any], frame: int, view: int) -> str:
    """A frame's HTML joined from the page's fragment table (what the player does)."""
    table = data["t"]

    def join(index: int) -> str:
        entry = table[index]
        return entry if isinstance(entry, str) else "".join(join(i) for i in entry)

    return join(data["frames"][frame][view])


def cards_in(html: str) -> Counter[str]:
    """The ``data-card`` values in some HTML (a multiset)."""
    return Counter(re.findall(r'data-card="([^"]+)"', html))


def mini_ladder(tmp_path: Path) -> Path:
    """A small real PORTAS ladder (3 bots, 2 cycles: 12 matches): in-process random players,
    real match logs, the real store."""
    path = tmp_path / "mini.toml"
    path.write_text('name = "mini"\ngame = "portas"\nentrants = ["ann", "ben", "cy"]\n'
                    "seed = 11\n[schedule]\ncycles = 2\n")
    config = load_ladder(path)

    async def play(spec: MatchSpec, *, sandbox: str = "process", log_dir: Path,
                   on_event: Any = None) -> MatchResult:
        match = Match(spec, sandbox_name="in-process", log_dir=log_dir)
        seed = spec.seed % 1000
        return await match.run((LocalPlayer(0, random_policy(seed)),
                                LocalPlayer(1, random_policy(seed + 1))))

    def resolve(ref: str, base_dir: Path) -> BotSpec:
        return BotSpec(name=ref, game="portas", command=("true",), version="1",
                       digest=f"test:{ref}")

    asyncio.run(run_ladder(config, play=play, resolve=resolve))
    return path
