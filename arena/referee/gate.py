"""The conformance gate: a game is checked before the arena lets it decide rated matches.

Every game is an adversary's until it has shown otherwise: its engine runs inside the referee,
and a bug in it (a leak of the opponent's cards, a deal that depends on the process, a legal
action that ``apply`` refuses) decides matches. ``run_gate`` runs the game protocol's contract
(``arena/games/api.py``) on a plugin, the built-ins included, and reports each check:

- ``determinism``: the same seed and actions give the same deals, states, legal actions and
  observation bytes twice, and in another Python process (another ``PYTHONHASHSEED``: a match
  a cluster worker plays is replayed by the head); two in-process matches write the same log
  (the referee's own figures set aside: times, the seed's salt, paths); different seeds deal
  differently;
- ``grammar``: ``parse_action(format_action(a)) == a`` and the text is canonical, for the legal
  actions (sampled where a position offers many); garbage text is ``InvalidActionError``; a
  game's optional ``legal_texts`` gives exactly those texts, in the legal list's order;
- ``playouts-end``: uniform-random matches end within ``DECISION_CAP`` decisions, with a
  non-empty, duplicate-free, stable legal list while running and a result that adds up;
- ``is-legal``: ``is_legal`` agrees with ``legal_actions`` on the legal actions and on illegal
  ones (actions of other positions), ``apply`` refuses those and never changes its input;
- ``replay``: an in-process match's log (a real file) replays (``replay_log``), deals and
  round summaries are JSON;
- ``codec-round-trip``: observations (one by one and incrementally, as the referee and the SDK
  do) and actions survive the ``arena.v1`` envelope and its bytes;
- ``leak``: ``determinize`` redraws what a seat cannot see; that seat's observation bytes and
  legal actions stay the same, and the redraw really changes hidden parts (else the comparison
  proves nothing);
- ``options``: defaults, unknown keys, values out of range or outside the choices;
- ``renderers``: the terminal renderer draws states and views, the HTML board draws them.

A check that raises is a failed check (the exception, and where, in its detail), never a crash.
A detail names the seed and the decision of the first failure, so an author reproduces it.

Results are cached per plugin identity (the plugin's fields, its distribution version and the
bytes of its packages' files) under ``arena_home()/games/``: ``gate_status`` reads the cache,
``require_gated`` (what ladders and the competition server ask) runs the gate when nothing is
cached and refuses a failing game unless the operator overrides it.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import importlib.util
import io
import json
import logging
import os
import random
import subprocess
import sys
import tempfile
import threading
import traceback
from collections.abc import Callable, Coroutine, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import arena
from arena.errors import ConfigError, IllegalActionError, InvalidActionError, OptionsError
from arena.games import get_game, plugin, registered
from arena.games.api import Game
from arena.games.plugin import GamePlugin
from arena.model import BotSpec, MatchSpec, Termination

log = logging.getLogger(__name__)

T = TypeVar("T")

CHECKS = ("determinism", "grammar", "playouts-end", "is-legal", "replay", "codec-round-trip",
          "leak", "options", "renderers")
"""Every check of the gate, in the order it runs them."""
GATE_VERSION = 1
"""Bumped when the checks change: a result cached by another version is not used."""
OTHER_PROCESS_TIMEOUT_S = 600
"""How long the other process of ``determinism`` may take to play the matches (generous: a
loaded host)."""
DECISION_CAP = 20_000
"""A random match that has not ended after this many decisions fails ``playouts-end``."""
SAMPLED_ACTIONS = 48
"""At most this many legal actions of one position are checked one by one (a Haggis lead can
offer ~19,000: the first, the last and a seeded sample)."""
SAMPLED_POINTS = 25
"""About this many positions of each match are checked where a check is costly (codec,
leak, renderers)."""
OTHER_ACTIONS = 16
"""Actions legal elsewhere in the checked matches, tried on each position (``is-legal``)."""
GARBAGE = ("", " ", "xyzzy", "\x00\x01\x02", "9" * 5000, "pass pass pass pass", "\n", "{}")
"""Texts outside any sensible grammar: ``parse_action`` refuses them (``InvalidActionError``)
or reads them as a canonical action."""
REFEREE_FIGURES = frozenset({"ms", "cpu_ms", "started_at", "seed_commitment", "seed_salt",
                             "duration_s", "log", "seat_stats"})
"""Log fields the referee measures or draws (not the game): left out when two logs of one
match are compared."""
NAMES = ("seat 0", "seat 1")
"""The names boards are drawn with."""
GATE_MATCH = "gate-"
"""How the ids of the gate's in-process matches begin."""


@dataclass(frozen=True)
class Check:
    """One check's verdict."""

    name: str
    """One of ``CHECKS``."""
    passed: bool
    detail: str
    """What was checked (passed) or the first failure, with its seed and decision."""


@dataclass(frozen=True)
class GateReport:
    """What the gate found of one plugin."""

    game_id: str
    plugin_identity: str
    """The identity the result holds for (``plugin_identity``)."""
    passed: bool
    checks: tuple[Check, ...]
    seconds: float = 0.0
    """How long the gate ran."""

    @property
    def failed(self) -> tuple[str, ...]:
        """The names of the failed checks."""
        return tuple(c.name for c in self.checks if not c.passed)

    def to_json(self) -> dict[str, Any]:
        """The report as JSON-able data (``--format json``, the cache)."""
        return {"gate_version": GATE_VERSION, "game": self.game_id,
                "identity": self.plugin_identity, "passed": self.passed,
                "seconds": round(self.seconds, 3),
                "checks": [{"name": c.name, "passed": c.passed, "detail": c.detail}
                           for c in self.checks]}

    @classmethod
    def from_json(cls, data: Any) -> GateReport:
        """A report read back; ``ValueError`` for anything else."""
        if not isinstance(data, dict) or data.get("gate_version") != GATE_VERSION:
            raise ValueError("not a gate report of this version")
        checks = tuple(Check(str(c["name"]), bool(c["passed"]), str(c["detail"]))
                       for c in data["checks"])
        if tuple(c.name for c in checks) != CHECKS:
            raise ValueError("a gate report without every check")
        return cls(str(data["game"]), str(data["identity"]), bool(data["passed"]), checks,
                   float(data.get("seconds", 0.0)))


class CheckFailed(Exception):
    """A check's failure, as its detail says it."""


# --- the subject: one game, its random matches --------------------------------------------------
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
    from arena.referee.local import UNTIMED, LocalPlayer
    from arena.referee.match import Match

    bots = (BotSpec("gate-0", game_id), BotSpec("gate-1", game_id))
    spec = MatchSpec(game_id, seed, bots, {}, UNTIMED, match_id=f"{GATE_MATCH}{game_id}-{seed}")
    match = Match(spec, sandbox_name="in-process", log_dir=log_dir)
    players = (LocalPlayer(0, _random_policy(seed * 2)),
               LocalPlayer(1, _random_policy(seed * 2 + 1)))
    result = _run(match.run(players))
    if result.termination is not Termination.NORMAL:
        raise CheckFailed(f"seed {seed}: an in-process match between random policies ended "
                          f"{result.termination.value}: {_line(result.detail)}")
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


# --- the checks ----------------------------------------------------------------------------------
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
    deals = {_json(game.deal_record(game.new_match(seed))) for seed in range(1, 6)}
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
    from arena.wire import observation_bytes

    sampled_points = {number for number, _ in points(playout)}
    digests = []
    for number, step in enumerate(playout.steps, start=1):
        parts = [str(step.seat), str(len(step.legal)), game.format_action(step.action)]
        if number == 1 or game.round_index(step.state) != game.round_index(
                playout.steps[number - 2].state):
            parts.append(_json(game.deal_record(step.state)))
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
    command = [sys.executable, "-m", "arena.referee.gate", json.dumps(asdict(source)),
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


def _trace_main(argv: list[str]) -> int:
    """``python -m arena.referee.gate PLUGIN_JSON SEED...``: print the traces of the seeds'
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
        from arena.wire import ObservationEncoder

        self.encoders = [ObservationEncoder(game_id) for _ in (0, 1)]

    def of(self, game: Game[Any, Any, Any], state: Any, seat: int) -> bytes:
        from arena.v1 import bot_pb2

        message = bot_pb2.Observation()
        self.encoders[seat].encode_into(message, game.observation(state, seat))
        data: bytes = message.SerializeToString(deterministic=True)
        return data


def _same_position(game: Game[Any, Any, Any], states: tuple[Any, Any],
                   seen: tuple[_SeatBytes, _SeatBytes], where: str) -> None:
    first, second = states
    if _json(game.deal_record(first)) != _json(game.deal_record(second)):
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
    return [_json(_without_figures(json.loads(line)))
            for line in path.read_text(encoding="utf-8").splitlines()]


def _without_figures(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_figures(v) for k, v in value.items() if k not in REFEREE_FIGURES}
    if isinstance(value, list):
        return [_without_figures(v) for v in value]
    return value


def check_grammar(subject: Subject) -> str:
    """Every (sampled) legal action's text parses back to it and is canonical; garbage is
    refused."""
    game = subject.game
    rng = random.Random(7)
    checked = 0
    texts = getattr(game, "legal_texts", None)
    for playout in subject.playouts():
        for number, step in enumerate(playout.steps, start=1):
            where = subject.at(playout.seed, number)
            for action in sampled(step.legal, SAMPLED_ACTIONS, rng):
                _round_trip(game, action, where)
                checked += 1
            if texts is not None:
                _same_texts(game, tuple(texts(step.state)), step.legal, where)
    for text in GARBAGE:
        subject.where = f"parse_action({text[:20]!r})"
        try:
            action = game.parse_action(text)
        except InvalidActionError:
            continue
        if game.format_action(action) != text:
            raise CheckFailed(f"parse_action({text[:20]!r}) reads {game.format_action(action)!r}"
                              ": text outside the grammar must raise InvalidActionError")
    said = "; legal_texts agrees with format_action" if texts is not None else ""
    return f"{checked} legal actions: text round trip, canonical{said}; garbage text refused"


def _same_texts(game: Game[Any, Any, Any], texts: tuple[Any, ...], legal: tuple[Any, ...],
                where: str) -> None:
    """A game's ``legal_texts`` must be ``format_action`` of each legal action, in order."""
    for index, action in enumerate(legal):
        text = game.format_action(action)
        if index >= len(texts) or texts[index] != text:
            shown = repr(texts[index])[:40] if index < len(texts) else "nothing"
            raise CheckFailed(f"{where}: legal_texts gives {shown} where legal action "
                              f"{index} formats as {text!r}")
    if len(texts) != len(legal):
        raise CheckFailed(f"{where}: legal_texts gives {len(texts)} texts for {len(legal)} "
                          "legal actions")


def _round_trip(game: Game[Any, Any, Any], action: Any, where: str) -> None:
    text = game.format_action(action)
    if not isinstance(text, str) or not text or "\n" in text:
        raise CheckFailed(f"{where}: format_action gives {text!r} (one non-empty line wanted)")
    try:
        back = game.parse_action(text)
    except InvalidActionError as exc:
        raise CheckFailed(f"{where}: the legal action {text!r} does not parse: {exc}") from None
    if back != action:
        raise CheckFailed(f"{where}: {text!r} parses to {back!r}, not the legal action "
                          f"{action!r}")
    if game.format_action(back) != text:
        raise CheckFailed(f"{where}: {text!r} is not canonical: it formats back as "
                          f"{game.format_action(back)!r}")


def check_playouts_end(subject: Subject) -> str:
    """Random matches end, with a sound legal list on the way and a result that adds up."""
    game = subject.game
    count = 0
    for seed in (*subject.seeds, *range(100, 100 + 3 * subject.matches)):
        playout = subject.playout(seed)
        if not playout.ended:
            raise CheckFailed(f"seed {seed}: a random match (choices seeded {seed + 1000}) did "
                              f"not end in {DECISION_CAP} decisions")
        if seed in subject.seeds:
            _sound_steps(game, playout, subject)
        _sound_end(game, playout)
        count += 1
    return f"{count} random matches ended, each within {DECISION_CAP} decisions"


def _sound_steps(game: Game[Any, Any, Any], playout: Playout, subject: Subject) -> None:
    finished = 0
    for number, step in enumerate(playout.steps, start=1):
        where = subject.at(playout.seed, number)
        if step.seat not in (0, 1):
            raise CheckFailed(f"{where}: to_move is {step.seat!r}, not 0, 1 or None")
        if len(set(step.legal)) != len(step.legal):
            raise CheckFailed(f"{where}: the legal actions repeat an action")
        if tuple(game.legal_actions(step.state)) != step.legal:
            raise CheckFailed(f"{where}: legal_actions differs when asked again")
        if game.outcome(step.state) is not None:
            raise CheckFailed(f"{where}: an outcome while seat {step.seat} is to move")
        rounds = len(game.finished_rounds(step.state))
        if game.round_index(step.state) != rounds:
            raise CheckFailed(f"{where}: round_index {game.round_index(step.state)} with "
                              f"{rounds} finished rounds")
        if rounds - finished not in (0, 1):
            raise CheckFailed(f"{where}: {rounds - finished} rounds finished at once")
        finished = rounds


def _sound_end(game: Game[Any, Any, Any], playout: Playout) -> None:
    final, where = playout.final, f"seed {playout.seed}, the end"
    result = game.outcome(final)
    if result is None or game.to_move(final) is not None:
        raise CheckFailed(f"{where}: to_move is None but there is no outcome (or the reverse)")
    rounds = tuple(game.finished_rounds(final))
    if tuple(result.rounds) != rounds or not rounds:
        raise CheckFailed(f"{where}: the result's rounds {result.rounds} are not the finished "
                          f"rounds {rounds}")
    totals = (sum(r[0] for r in rounds), sum(r[1] for r in rounds))
    if tuple(result.totals) != totals:
        raise CheckFailed(f"{where}: the result's totals {result.totals} are not the sum of "
                          f"its rounds {totals}")
    if result.winner not in (0, 1, None):
        raise CheckFailed(f"{where}: the winner is {result.winner!r}")


def check_is_legal(subject: Subject) -> str:
    """``is_legal`` agrees with ``legal_actions`` (legal and illegal actions), ``apply``
    refuses illegal actions and leaves its input alone."""
    game = subject.game
    rng = random.Random(11)
    universe = _universe(subject, rng)
    legal_checked = illegal_checked = 0
    for playout in subject.playouts():
        sampled_points = {number for number, _ in points(playout)}
        for number, step in enumerate(playout.steps, start=1):
            where = subject.at(playout.seed, number)
            for action in sampled(step.legal, SAMPLED_ACTIONS, rng):
                if not game.is_legal(step.state, action):
                    raise CheckFailed(f"{where}: is_legal refuses the legal action "
                                      f"{game.format_action(action)!r}")
                legal_checked += 1
            others = rng.sample(universe, min(OTHER_ACTIONS, len(universe)))
            illegal_checked += _check_illegal(game, step, others, where)
            _check_apply_pure(game, step, where, number in sampled_points)
    if illegal_checked == 0:
        raise CheckFailed("no action of another position was ever illegal: is_legal was not "
                          "tested on an illegal action")
    return (f"is_legal accepts {legal_checked} legal actions and refuses {illegal_checked} "
            "actions of other positions (apply refuses them too); apply leaves its input "
            "unchanged")


def _universe(subject: Subject, rng: random.Random) -> list[Any]:
    """Actions legal somewhere in the checked matches (sampled per position), each once."""
    seen: dict[Any, None] = {}
    for playout in subject.playouts():
        for step in playout.steps:
            seen.update(dict.fromkeys(sampled(step.legal, SAMPLED_ACTIONS, rng)))
    return list(seen)


def _check_illegal(game: Game[Any, Any, Any], step: Step, others: list[Any], where: str) -> int:
    """Actions of other positions that are not legal here: is_legal refuses them, apply
    raises ``IllegalActionError`` (tried on the first few), ``explain_illegal`` (if the game
    has it) gives a reason."""
    legal = set(step.legal)
    explain = getattr(game, "explain_illegal", None)
    checked = 0
    for action in others:
        if action in legal:
            continue
        text = game.format_action(action)
        if game.is_legal(step.state, action):
            raise CheckFailed(f"{where}: is_legal accepts {text!r}, which legal_actions does "
                              "not offer")
        if checked < 3:
            try:
                game.apply(step.state, action)
            except IllegalActionError:
                pass
            else:
                raise CheckFailed(f"{where}: apply accepts the illegal action {text!r} (it must "
                                  "raise IllegalActionError)")
            if explain is not None and not str(explain(step.state, action) or "").strip():
                raise CheckFailed(f"{where}: explain_illegal gives no reason for {text!r}")
        checked += 1
    return checked


def _check_apply_pure(game: Game[Any, Any, Any], step: Step, where: str, bytes_too: bool
                      ) -> None:
    """``apply`` leaves its input as it was: both seats' views (their bytes too at sampled
    points: a view could share a list the state mutates), the deal and the seat to move."""
    from arena.wire import observation_bytes

    def looks(state: Any) -> list[Any]:
        views = [game.observation(state, s) for s in (0, 1)]
        data = [observation_bytes(game.id, v) for v in views] if bytes_too else []
        return [*views, *data, _json(game.deal_record(state)), game.to_move(state)]

    before = looks(step.state)
    game.apply(step.state, step.action)
    if looks(step.state) != before:
        raise CheckFailed(f"{where}: apply({game.format_action(step.action)!r}) changed the "
                          "state it was given")


def check_replay(subject: Subject) -> str:
    """In-process matches write logs that replay; deals and round summaries are JSON."""
    from arena.record.replay import replay_log

    game = subject.game
    if game.id != subject.game_id:
        raise CheckFailed(f"the engine's id is {game.id!r}, not the plugin's {subject.game_id!r}")
    decisions = 0
    for playout in subject.playouts():
        for number, step in enumerate(playout.steps, start=1):
            if number == 1 or game.round_index(step.state) != game.round_index(
                    playout.steps[number - 2].state):
                _is_json(game.deal_record(step.state),
                         f"{subject.at(playout.seed, number)}: deal_record")
        for index in range(len(game.finished_rounds(playout.final))):
            _is_json(game.round_summary(playout.final, index),
                     f"seed {playout.seed}: round_summary of round {index}")
    for seed in subject.seeds:
        subject.where = f"seed {seed}, the in-process match's log"
        path = subject.logs(seed)[0]
        try:
            report = replay_log(path)
        except Exception as exc:  # noqa: BLE001 — the replay's verdict is the detail
            raise CheckFailed(f"seed {seed}: the log of an in-process match does not replay: "
                              f"{type(exc).__name__}: {_line(str(exc))}") from None
        if not report.finished:
            raise CheckFailed(f"seed {seed}: the replayed log has no match end")
        decisions += report.decisions
    return (f"{len(subject.seeds)} logged in-process matches replay ({decisions} decisions); "
            "deals and round summaries are JSON")


def _is_json(value: Any, what: str) -> None:
    try:
        back = json.loads(json.dumps(value))
    except (TypeError, ValueError) as exc:
        raise CheckFailed(f"{what} is not JSON: {exc}") from None
    if back != value:
        raise CheckFailed(f"{what} does not survive JSON (tuples, non-string keys?)")


def check_codec(subject: Subject) -> str:
    """Observations and actions through the arena.v1 envelope and its bytes, and back."""
    from arena.v1 import bot_pb2
    from arena.wire import (
        ObservationDecoder,
        ObservationEncoder,
        decode_action,
        decode_observation,
        encode_action,
        encode_observation,
    )

    game, game_id = subject.game, subject.game_id
    rng = random.Random(13)
    views = actions = 0
    for playout in subject.playouts():
        coders = [(ObservationEncoder(game_id), ObservationDecoder(game_id)) for _ in (0, 1)]
        for number, step in enumerate(playout.steps, start=1):
            where = subject.at(playout.seed, number)
            view = game.observation(step.state, step.seat)
            encoder, decoder = coders[step.seat]
            message = bot_pb2.Observation()
            encoder.encode_into(message, view)
            wire = bot_pb2.Observation.FromString(message.SerializeToString())
            if decoder.decode(wire) != view:
                raise CheckFailed(f"{where}: seat {step.seat}'s observation, encoded and "
                                  "decoded as the referee and the SDK do, is not the same view")
            views += 1
        for number, step in points(playout):
            where = subject.at(playout.seed, number)
            for seat in (0, 1):
                view = game.observation(step.state, seat)
                data = encode_observation(game_id, view).SerializeToString()
                if decode_observation(game_id, bot_pb2.Observation.FromString(data)) != view:
                    raise CheckFailed(f"{where}: seat {seat}'s observation does not survive "
                                      "the codec")
            for action in sampled(step.legal, SAMPLED_ACTIONS, rng):
                data = encode_action(game_id, action).SerializeToString()
                if decode_action(game_id, bot_pb2.Action.FromString(data)) != action:
                    raise CheckFailed(f"{where}: the typed action "
                                      f"{game.format_action(action)!r} does not survive the "
                                      "codec")
                actions += 1
    return f"{views} observations and {actions} typed actions through the envelope and back"


def check_leak(subject: Subject) -> str:
    """A seat's observation bytes and legal actions do not move when what it cannot see is
    redrawn; and the redraw changes something."""
    from arena.wire import observation_bytes

    game, game_id = subject.game, subject.game_id
    rng = random.Random(17)
    compared = varied = sampled_views = 0
    for playout in subject.playouts():
        for number, step in points(playout):
            where = subject.at(playout.seed, number)
            for seat in (0, 1):
                view = game.observation(step.state, seat)
                seen = observation_bytes(game_id, view)
                deals = set()
                for _ in range(3):
                    twin = game.determinize(view, rng)
                    if observation_bytes(game_id, game.observation(twin, seat)) != seen:
                        raise CheckFailed(
                            f"{where}: seat {seat}'s observation bytes change when what it "
                            "cannot see is redrawn (determinize): the observation leaks hidden "
                            "information")
                    if seat == step.seat and tuple(game.legal_actions(twin)) != step.legal:
                        raise CheckFailed(
                            f"{where}: seat {seat}'s legal actions change when what it cannot "
                            "see is redrawn: they leak hidden information")
                    deals.add(_json(game.deal_record(twin)))
                    compared += 1
                sampled_views += 1
                varied += len(deals) > 1
                if number == 1 and len(deals) == 1:
                    raise CheckFailed(
                        f"{where}: determinize redraws nothing at the start of a match (three "
                        "draws, one deal): the leak test would prove nothing")
    if varied * 2 <= sampled_views:
        raise CheckFailed(f"determinize redrew the hidden part at only {varied} of "
                          f"{sampled_views} sampled positions: the leak test would prove little")
    return (f"{compared} redraws of what a seat cannot see: its observation bytes and legal "
            f"actions unchanged; the deal varied at {varied} of {sampled_views} positions")


def check_options(subject: Subject) -> str:
    """Defaults complete and stable; unknown keys and bad values refused."""
    game = subject.game
    defaults = game.options_of(game.new_match(1))
    names = {spec.name for spec in game.option_specs}
    if set(defaults) != names:
        raise CheckFailed(f"options_of gives {sorted(defaults)}, the specs name {sorted(names)}")
    if game.options_of(game.new_match(1, defaults)) != defaults:
        raise CheckFailed("the defaults, given back to new_match, are not the options played")
    bad: list[tuple[str, dict[str, Any]]] = [("an unknown option",
                                              {"no_such_option_of_the_gate": 1})]
    for spec in game.option_specs:
        if spec.minimum is not None:
            bad.append((f"{spec.name} below its minimum", {spec.name: spec.minimum - 1}))
        if spec.maximum is not None:
            bad.append((f"{spec.name} above its maximum", {spec.name: spec.maximum + 1}))
        if spec.choices is not None and isinstance(spec.default, str):
            bad.append((f"{spec.name} outside its choices", {spec.name: "no-such-choice"}))
    for what, options in bad:
        subject.where = f"options {options}"
        try:
            game.new_match(1, options)
        except OptionsError:
            continue
        raise CheckFailed(f"new_match accepts {what} ({options}): it must raise OptionsError")
    return f"{len(names)} options: defaults complete; {len(bad)} bad option sets refused"


def check_renderers(subject: Subject) -> str:
    """The terminal renderer and the HTML board draw states and views."""
    from rich.console import Console

    from arena.render import renderer_for
    from arena.render.html import board_for
    from arena.render.html.markup import render

    game, game_id = subject.game, subject.game_id
    renderer, board = renderer_for(game_id), board_for(game_id)
    drawn = 0
    for playout in subject.playouts():
        states = [(n, s.state) for n, s in points(playout)[::5]]
        for number, state in [*states, (len(playout.steps) + 1, playout.final)]:
            where = subject.at(playout.seed, number)
            for what, drawing in (("state", renderer.render_state(state)),
                                  *((f"seat {s}'s view",
                                     renderer.render_view(game.observation(state, s)))
                                    for s in (0, 1))):
                console = Console(file=io.StringIO(), width=100, color_system=None)
                console.print(drawing)
                if not console.file.getvalue().strip():  # type: ignore[attr-defined]
                    raise CheckFailed(f"{where}: the terminal renderer draws the {what} empty")
            for what, html in (("state", board.state(state, NAMES)),
                               *((f"seat {s}'s view", board.view(game.observation(state, s),
                                                                 NAMES)) for s in (0, 1))):
                if not render(html).strip():
                    raise CheckFailed(f"{where}: the HTML board draws the {what} empty")
            drawn += 1
    return f"{drawn} positions drawn by the terminal renderer and the HTML board"


CHECK_FUNCTIONS: dict[str, Callable[[Subject], str]] = {
    "determinism": check_determinism,
    "grammar": check_grammar,
    "playouts-end": check_playouts_end,
    "is-legal": check_is_legal,
    "replay": check_replay,
    "codec-round-trip": check_codec,
    "leak": check_leak,
    "options": check_options,
    "renderers": check_renderers,
}
"""Each check, by name (``CHECKS`` is their order)."""


# --- running ---------------------------------------------------------------------------------
def run_gate(plugin: GamePlugin, *, matches: int = 3,
             progress: Callable[[Check], None] | None = None) -> GateReport:
    """Run every check on ``plugin`` (made this process's game of its id meanwhile: an
    uninstalled package is checked as it would play) and report each; ``progress`` is called
    with each check as it ends. Never raises for the game's faults: they are failed checks."""
    import time

    started = time.monotonic()
    identity = plugin_identity(plugin)
    subject = Subject(plugin.id, max(1, matches), plugin)
    results: list[Check] = []
    with registered(plugin), _quiet_matches(), \
            tempfile.TemporaryDirectory(prefix="arena-gate-") as tmp:
        subject.workdir = Path(tmp)
        for name in CHECKS:
            check = _one(name, subject)
            results.append(check)
            if progress is not None:
                progress(check)
    return GateReport(plugin.id, identity, all(c.passed for c in results), tuple(results),
                      time.monotonic() - started)


class _GateMatches(logging.Filter):
    """Drops the referee's own log records about the gate's matches (their failures are the
    gate's report)."""

    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args if isinstance(record.args, tuple) else ()
        return not any(isinstance(a, str) and a.startswith(GATE_MATCH) for a in args)


@contextlib.contextmanager
def _quiet_matches() -> Iterator[None]:
    match_log, quiet = logging.getLogger("arena.referee.match"), _GateMatches()
    match_log.addFilter(quiet)
    try:
        yield
    finally:
        match_log.removeFilter(quiet)


def _one(name: str, subject: Subject) -> Check:
    subject.where = ""
    try:
        return Check(name, True, CHECK_FUNCTIONS[name](subject))
    except CheckFailed as failed:
        return Check(name, False, _line(str(failed)))
    except (Exception, SystemExit) as exc:  # noqa: BLE001 — the game's failure is the check's
        frame = traceback.extract_tb(exc.__traceback__)[-1]
        at = f"{subject.where}: " if subject.where else ""
        return Check(name, False, _line(f"{at}{type(exc).__name__}: {exc} (raised at "
                                        f"{frame.filename}:{frame.lineno})"))


def plugin_identity(plugin: GamePlugin) -> str:
    """A sha256 of what the gate's verdict depends on: the plugin's fields, its distribution
    version, the gate's and the arena's version, and the bytes of every file of the packages
    its parts live in."""
    digest = hashlib.sha256()
    fields = (GATE_VERSION, arena.__version__, plugin.id, plugin.engine, plugin.codec,
              plugin.renderer, plugin.board, plugin.proto, plugin.observation_type,
              plugin.action_type, plugin.distribution, plugin.dist_version)
    digest.update(_json(list(fields)).encode())
    for root in sorted({package_root(locator) for locator in
                        (plugin.engine, plugin.codec, plugin.renderer, plugin.board)
                        if locator} - {None}, key=str):
        assert root is not None
        for path in _files(root):
            digest.update(f"\0{path.relative_to(root.parent)}\0".encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()


def package_root(locator: str) -> Path | None:
    """The directory of the top-level package a ``module:attr`` lives in (a single-module
    top level: its file); None when it cannot be found."""
    top = locator.partition(":")[0].strip().split(".")[0]
    try:
        spec = importlib.util.find_spec(top)
    except (ImportError, ValueError):
        return None
    if spec is None:
        return None
    if spec.submodule_search_locations:
        return Path(next(iter(spec.submodule_search_locations)))
    return Path(spec.origin) if spec.origin else None


def _files(root: Path) -> list[Path]:
    if root.is_file():
        return [root]
    return sorted(p for p in root.rglob("*")
                  if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc")


# --- the cache and the refusal -------------------------------------------------------------------
_memo: dict[tuple[str, str], GateReport] = {}
_memo_lock = threading.Lock()


def cache_path(game_id: str, identity: str) -> Path:
    """Where the verdict on one plugin identity is kept."""
    from arena.bots.home import arena_home

    return arena_home() / "games" / f"{game_id}-{identity[:16]}.json"


def gate_status(plugin: GamePlugin) -> GateReport | None:
    """The cached verdict on this plugin as it is now (None: the gate has not run on it)."""
    identity = plugin_identity(plugin)
    known = _memo.get((plugin.id, identity))
    if known is not None:
        return known
    try:
        report = GateReport.from_json(json.loads(cache_path(plugin.id, identity).read_text()))
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if report.plugin_identity != identity or report.game_id != plugin.id:
        return None
    _memo[(plugin.id, identity)] = report
    return report


def save_report(report: GateReport) -> None:
    """Keep a verdict (atomically: a reader sees the old file or the new one)."""
    _memo[(report.game_id, report.plugin_identity)] = report
    path = cache_path(report.game_id, report.plugin_identity)
    with contextlib.suppress(OSError):  # a read-only home: the verdict lives in this process
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        tmp.write_text(json.dumps(report.to_json(), indent=1) + "\n", encoding="utf-8")
        os.replace(tmp, path)


def checked_report(game_plugin: GamePlugin) -> GateReport:
    """The cached verdict on the plugin, or the gate's, run now and kept."""
    with _memo_lock:
        report = gate_status(game_plugin)
        if report is None:
            log.info("running the conformance gate on %s", game_plugin.id)
            report = run_gate(game_plugin)
            save_report(report)
        return report


def require_gated(game_id: str, *, allow: bool = False,
                  override: str = "allow_ungated_game = true") -> str:
    """Refuse a game that fails the conformance gate (run now when nothing is cached): a
    ``ConfigError`` of one line naming the failed checks and `arena games check`. With
    ``allow`` the game passes with a warning line, logged and returned ("" for a game that
    passes). ``override`` names the setting that allows it, for the message."""
    report = checked_report(plugin(game_id))
    if report.passed:
        return ""
    first = next(c for c in report.checks if not c.passed)
    failed = ", ".join(report.failed)
    if not allow:
        raise ConfigError(f"game {game_id!r} fails the conformance gate ({failed}; "
                          f"{first.name}: {_clip(first.detail)}): run `arena games check "
                          f"{game_id}` for the report, or set {override} to play it anyway")
    warning = (f"game {game_id!r} fails the conformance gate ({failed}) and is played anyway "
               f"({override})")
    log.warning("%s", warning)
    return warning


# --- small helpers -------------------------------------------------------------------------------
def _json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=repr)


def _line(text: str) -> str:
    """One line (a detail is shown in a table cell and in one-line refusals)."""
    return " ".join(str(text).split())


def _clip(text: str, limit: int = 160) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _short(line: str) -> str:
    return _clip(line, 120)


if __name__ == "__main__":
    raise SystemExit(_trace_main(sys.argv[1:]))
