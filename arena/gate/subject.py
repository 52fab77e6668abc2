"""The game under test and what the checks share: its seeded random matches (computed once),
two logs of its in-process matches, where a check is, and the small helpers of the details."""

from __future__ import annotations

import asyncio
import random
import threading
from collections.abc import Callable, Coroutine, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from arena.games import get_game
from arena.games.api import Game
from arena.games.plugin import GamePlugin
from arena.gate.report import CheckFailed, one_line
from arena.model import BotSpec, MatchSpec, Termination
from arena.referee.local import UNTIMED, LocalPlayer
from arena.referee.match import Match

T = TypeVar("T")

DECISION_CAP = 20_000
"""A random match that has not ended after this many decisions fails ``playouts-end``."""
SAMPLED_ACTIONS = 48
"""At most this many legal actions of one position are checked one by one (a Haggis lead can
offer ~19,000: the first, the last and a seeded sample)."""
SAMPLED_POINTS = 25
"""About this many positions of each match are checked where a check is costly (codec,
leak, renderers)."""
GATE_MATCH = "gate-"
"""How the ids of the gate's in-process matches begin."""


@dataclass
class Step:
    """One decision of a random match: the state before it, its legal actions, the choice."""

    state: Any
    seat: int
    legal: tuple[Any, ...]
    action: Any


@dataclass
class Playout:
    """A uniform-random match from ``new_match(seed)`` (cut at ``DECISION_CAP``)."""

    seed: int
    steps: list[Step]
    final: Any
    """The state after the last step (the end of the match, unless ``ended`` is False)."""
    ended: bool


@dataclass
class Subject:
    """The game under test and what the checks share (playouts, logs), computed once."""

    game_id: str
    matches: int
    source: GamePlugin | None = None
    """The plugin under test (None: the installed game of ``game_id``): what another process
    loads to play the same matches."""
    where: str = ""
    """Where the running check is (seed, decision): named with an exception it did not expect."""
    _playouts: dict[int, Playout] = field(default_factory=dict)
    _logs: dict[int, tuple[Path, Path]] = field(default_factory=dict)
    workdir: Path | None = None
    """Where the in-process matches write their logs (``run_gate``: a temporary directory)."""

    @property
    def game(self) -> Game[Any, Any, Any]:
        """The engine (``UnknownGameError`` when it cannot be loaded)."""
        return get_game(self.game_id)

    @property
    def seeds(self) -> tuple[int, ...]:
        """The seeds of the checked matches."""
        return tuple(range(1, self.matches + 1))

    def playout(self, seed: int) -> Playout:
        """The seeded random match of ``seed`` (choices from ``seed + 1000``)."""
        if seed not in self._playouts:
            self._playouts[seed] = random_playout(self.game, seed, random.Random(seed + 1000))
        return self._playouts[seed]

    def playouts(self) -> Iterator[Playout]:
        """The checked matches' playouts."""
        return (self.playout(seed) for seed in self.seeds)

    def at(self, seed: int, number: int) -> str:
        """``seed S, decision N`` (1-based), remembered as where the check is."""
        self.where = f"seed {seed}, decision {number}"
        return self.where

    def logs(self, seed: int) -> tuple[Path, Path]:
        """Two logs of the same in-process match of ``seed`` (seeded random policies)."""
        if seed not in self._logs:
            assert self.workdir is not None, "logs() inside run_gate"
            self._logs[seed] = (_logged_match(self.game_id, seed, self.workdir / "a"),
                                _logged_match(self.game_id, seed, self.workdir / "b"))
        return self._logs[seed]


def random_playout(game: Game[Any, Any, Any], seed: int, rng: random.Random) -> Playout:
    """A uniform-random match of ``game`` from ``seed``, cut at ``DECISION_CAP``."""
    state = game.new_match(seed)
    steps: list[Step] = []
    while len(steps) < DECISION_CAP:
        seat = game.to_move(state)
        if seat is None:
            return Playout(seed, steps, state, True)
        legal = tuple(game.legal_actions(state))
        if not legal:
            raise CheckFailed(f"seed {seed}, decision {len(steps) + 1}: no legal action while "
                              f"seat {seat} is to move")
        action = rng.choice(legal)
        steps.append(Step(state, seat, legal, action))
        state = game.apply(state, action)
    return Playout(seed, steps, state, False)


def sampled(items: Sequence[T], count: int, rng: random.Random) -> list[T]:
    """All of ``items`` when few, else the first, the last and a seeded sample."""
    if len(items) <= count:
        return list(items)
    return [items[0], *rng.sample(list(items[1:-1]), count - 2), items[-1]]


def points(playout: Playout) -> list[tuple[int, Step]]:
    """About ``SAMPLED_POINTS`` (1-based decision number, step) of a playout, the first
    included."""
    every = max(1, len(playout.steps) // SAMPLED_POINTS)
    return [(n + 1, playout.steps[n]) for n in range(0, len(playout.steps), every)]


def _logged_match(game_id: str, seed: int, log_dir: Path) -> Path:
    """Play ``seed``'s in-process match between seeded random policies, logged in
    ``log_dir``; its log."""
    bots = (BotSpec("gate-0", game_id), BotSpec("gate-1", game_id))
    spec = MatchSpec(game_id, seed, bots, {}, UNTIMED, match_id=f"{GATE_MATCH}{game_id}-{seed}")
    match = Match(spec, sandbox_name="in-process", log_dir=log_dir)
    players = (LocalPlayer(0, _random_policy(seed * 2)),
               LocalPlayer(1, _random_policy(seed * 2 + 1)))
    result = _run(match.run(players))
    if result.termination is not Termination.NORMAL:
        raise CheckFailed(f"seed {seed}: an in-process match between random policies ended "
                          f"{result.termination.value}: {one_line(result.detail)}")
    assert match.log_path is not None
    return match.log_path


def _random_policy(seed: int) -> Callable[[Any], str]:
    rng = random.Random(seed)
    return lambda decision: rng.choice(decision.legal_texts)


def _run(coroutine: Coroutine[Any, Any, T]) -> T:
    """Run a coroutine to its end, also from within a running event loop (a ladder starting:
    the gate then runs in a thread of its own)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coroutine)
    box: list[Any] = []

    def target() -> None:
        try:
            box.append(asyncio.run(coroutine))
        except BaseException as exc:  # noqa: BLE001 — handed to the caller's thread
            box.append(exc)

    thread = threading.Thread(target=target, name="gate-match")
    thread.start()
    thread.join()
    if isinstance(box[0], BaseException):
        raise box[0]
    value: T = box[0]
    return value
