"""``determinism``: the same seed and actions give the same deals, states, legal actions,
observation bytes and logs, twice and in another Python process; different seeds deal
differently."""

from __future__ import annotations

import hashlib
import json
import os
import random
import subprocess
import sys
from dataclasses import asdict
from pathlib import Path
from typing import Any

from arena.games import get_game, plugin, registered
from arena.games.api import Game
from arena.games.plugin import GamePlugin
from arena.gate.report import CheckFailed, canonical_json, clip
from arena.gate.subject import Playout, Subject, points, random_playout
from arena.v1 import bot_pb2
from arena.wire import ObservationEncoder, observation_bytes

OTHER_PROCESS_TIMEOUT_S = 600
"""How long the other process of ``determinism`` may take to play the matches (generous: a
loaded host)."""
REFEREE_FIGURES = frozenset({"ms", "cpu_ms", "started_at", "seed_commitment", "seed_salt",
                             "duration_s", "log", "seat_stats"})
"""Log fields the referee measures or draws (not the game): left out when two logs of one
match are compared."""


def check_determinism(subject: Subject) -> str:
    """Same seed and actions: same deals, states, legal actions, observations, logs."""
    game = subject.game
    decisions = 0
    for playout in subject.playouts():
        state = game.new_match(playout.seed)
        seen = (_SeatBytes(subject.game_id), _SeatBytes(subject.game_id))
        for number, step in enumerate(playout.steps, start=1):
            _same_position(game, (step.state, state), seen, subject.at(playout.seed, number))
            state = game.apply(state, step.action)
            decisions += 1
        _same_position(game, (playout.final, state), seen, f"seed {playout.seed}, the end")
    deals = {canonical_json(game.deal_record(game.new_match(seed))) for seed in range(1, 6)}
    if len(deals) == 1:
        raise CheckFailed("new_match deals the same for seeds 1 to 5: the seed is ignored")
    for seed in subject.seeds:
        subject.where = f"seed {seed}, the in-process match"
        first, second = (_log_lines(path) for path in subject.logs(seed))
        for number, (a, b) in enumerate(zip(first, second, strict=False), start=1):
            if a != b:
                raise CheckFailed(f"seed {seed}: two in-process matches with the same "
                                  f"choices wrote different logs at line {number}: "
                                  f"{_short(a)} / {_short(b)}")
        if len(first) != len(second):
            raise CheckFailed(f"seed {seed}: two in-process matches with the same choices "
                              f"wrote {len(first)} and {len(second)} log lines")
    _same_in_another_process(subject)
    return (f"{len(subject.seeds)} matches ({decisions} decisions) twice, and in another Python "
            "process: same deals, legal actions, observation bytes and logs; different seeds "
            "deal differently")


def _same_in_another_process(subject: Subject) -> None:
    """Another Python process (another ``PYTHONHASHSEED``) plays the same matches with the same
    choices: a game that orders by ``hash()`` of strings, by set order or by ``id()`` is the
    same within one process and not across them (a cluster worker's match, replayed by the
    head, would not be the same match)."""
    game = subject.game
    ours = {str(p.seed): trace(game, p) for p in subject.playouts()}
    theirs, hash_seed = _traces_elsewhere(subject)
    for seed, digests in ours.items():
        other = theirs.get(seed, [])
        for number, (a, b) in enumerate(zip(digests, other, strict=False), start=1):
            if a != b:
                raise CheckFailed(
                    f"seed {seed}, decision {number}: another Python process "
                    f"(PYTHONHASHSEED={hash_seed}) plays a different match from the same seed "
                    "and choices (the deal, the legal actions or their order, or an observation "
                    "depends on the process: hash() of a string, set order, id()?)")
        if len(digests) != len(other):
            raise CheckFailed(f"seed {seed}: another Python process (PYTHONHASHSEED={hash_seed}) "
                              f"plays {len(other) - 1} decisions, this one {len(digests) - 1}")


def trace(game: Game[Any, Any, Any], playout: Playout) -> list[str]:
    """A short digest of every decision of a playout (the seat, how many legal actions, the
    choice, each round's deal, both seats' observation bytes at sampled points) and of its
    end: what two processes compare."""
    sampled_points = {number for number, _ in points(playout)}
    digests = []
    for number, step in enumerate(playout.steps, start=1):
        parts = [str(step.seat), str(len(step.legal)), game.format_action(step.action)]
        if number == 1 or game.round_index(step.state) != game.round_index(
                playout.steps[number - 2].state):
            parts.append(canonical_json(game.deal_record(step.state)))
        if number in sampled_points:
            parts += [observation_bytes(game.id, game.observation(step.state, seat)).hex()
                      for seat in (0, 1)]
        digests.append(_digest(parts))
    digests.append(_digest([repr(game.outcome(playout.final))]))
    return digests


def _digest(parts: list[str]) -> str:
    return hashlib.sha256("\x00".join(parts).encode()).hexdigest()[:16]


def _traces_elsewhere(subject: Subject) -> tuple[dict[str, list[str]], str]:
    """The traces of the subject's matches played by another Python process, and its
    ``PYTHONHASHSEED``."""
    source = subject.source or plugin(subject.game_id)
    hash_seed = "2" if os.environ.get("PYTHONHASHSEED") == "1" else "1"
    env = {**os.environ, "PYTHONHASHSEED": hash_seed,
           "PYTHONPATH": os.pathsep.join(p or os.getcwd() for p in sys.path)}
    command = [sys.executable, "-m", "arena.gate", json.dumps(asdict(source)),
               *map(str, subject.seeds)]
    try:
        done = subprocess.run(command, capture_output=True, text=True, env=env,  # noqa: S603
                              timeout=OTHER_PROCESS_TIMEOUT_S, check=False)
    except subprocess.TimeoutExpired:
        raise CheckFailed(f"another Python process did not play the matches within "
                          f"{OTHER_PROCESS_TIMEOUT_S} s") from None
    lines = done.stdout.strip().splitlines()
    if done.returncode != 0 or not lines:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise CheckFailed(f"another Python process could not play the matches: {last}")
    traces: dict[str, list[str]] = json.loads(lines[-1])
    return traces, hash_seed


def trace_main(argv: list[str]) -> int:
    """``python -m arena.gate PLUGIN_JSON SEED...``: print the traces of the seeds'
    random matches (``trace``) as one JSON line (the other process of ``determinism``)."""
    found = GamePlugin(**json.loads(argv[0]))
    with registered(found):
        game = get_game(found.id)
        traces = {seed: trace(game, random_playout(game, int(seed), random.Random(int(seed)
                                                                                  + 1000)))
                  for seed in argv[1:]}
    sys.stdout.write(json.dumps(traces) + "\n")
    return 0


class _SeatBytes:
    """Both seats' observation bytes along two runs of one match, encoded as the referee
    does (each history entry once: ``ObservationEncoder``)."""

    def __init__(self, game_id: str) -> None:
        self.encoders = [ObservationEncoder(game_id) for _ in (0, 1)]

    def of(self, game: Game[Any, Any, Any], state: Any, seat: int) -> bytes:
        message = bot_pb2.Observation()
        self.encoders[seat].encode_into(message, game.observation(state, seat))
        data: bytes = message.SerializeToString(deterministic=True)
        return data


def _same_position(game: Game[Any, Any, Any], states: tuple[Any, Any],
                   seen: tuple[_SeatBytes, _SeatBytes], where: str) -> None:
    first, second = states
    if canonical_json(game.deal_record(first)) != canonical_json(game.deal_record(second)):
        raise CheckFailed(f"{where}: the deal differs between two runs of the same seed")
    if game.to_move(first) != game.to_move(second):
        raise CheckFailed(f"{where}: the seat to move differs between two runs")
    for seat in (0, 1):
        if seen[0].of(game, first, seat) != seen[1].of(game, second, seat):
            raise CheckFailed(f"{where}: seat {seat}'s observation bytes differ between two "
                              "runs of the same seed and actions")
    if game.to_move(first) is not None and (tuple(game.legal_actions(first))
                                            != tuple(game.legal_actions(second))):
        raise CheckFailed(f"{where}: the legal actions (or their order) differ between two "
                          "runs")


def _log_lines(path: Path) -> list[str]:
    """A log's lines without the referee's own figures (``REFEREE_FIGURES``)."""
    return [canonical_json(_without_figures(json.loads(line)))
            for line in path.read_text(encoding="utf-8").splitlines()]


def _without_figures(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_figures(v) for k, v in value.items() if k not in REFEREE_FIGURES}
    if isinstance(value, list):
        return [_without_figures(v) for v in value]
    return value


def _short(line: str) -> str:
    return clip(line, 120)
