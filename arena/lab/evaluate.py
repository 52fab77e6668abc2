"""The lab's fast evaluator (``arena lab evaluate``): two trusted policies play duplicate pairs
in-process, across worker processes, and the result is what the arena's own statistics say of
it: W/D/L, mean margin, the Bradley–Terry Elo difference with its 95% interval (the ladder's
fit, :mod:`arena.stats.rating`) and the verdict ``arena sprt`` would give on the same pairs
(:mod:`arena.stats.sprt`). No sandbox, no sockets, no log: the referee's rules without its
machinery, for the thousands of matches a bot author plays between two edits.

**The same matches as the referee's.** :func:`play_in_process` is the referee's match loop
(``arena.referee.match``) reduced to what a trusted in-process policy needs: the same deal from
the seed, the same ``Decision`` for every decision (the seat's observation, the legal actions
in the game's order and their texts, the match's ``MatchInfo``), the same hooks in the same
order (``match_start``, ``round_end``, ``match_end``), the same answer rules (a text is parsed by
the game's grammar, a value must be a legal action) and faults (an exception is the seat's
``crash``, an illegal answer ``illegal_action``, a non-action ``invalid_action``: the other seat
wins), the same result. Given the same seed, match id and time control, a policy decides exactly
as it does under the referee (tests/lab/test_evaluate.py compares every decision). What it does
not do: time a decision (``time_left_ms`` is the time control's allowance, never less) or limit
memory: the policies are trusted code.

**Pairs.** Pair ``i`` deals seed ``seed + i`` twice: leg 0 with policy A in seat 0, leg 1 with
the seats swapped. Each leg has its own match id (``lab-`` and a digest of the seed and the leg,
which does not reveal the seed: bots seed their generators from match ids), so a run is
reproducible whatever the number of jobs.
"""

from __future__ import annotations

import hashlib
import importlib.util
import math
import os
import sys
import time
import traceback
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from functools import cached_property
from multiprocessing import get_context
from pathlib import Path
from typing import Any

from arena.errors import ConfigError, InvalidActionError
from arena.games import get_game, plugin
from arena.games.api import legal_texts_of, totals_of
from arena.model import Termination, TimeControl
from arena.referee.match import illegal_detail, recorded_answer
from arena.sdk.decision import LazyDecision, MatchInfo
from arena.sdk.policy import PolicyCalls
from arena.stats.rating import ELO_PER_LOGIT, GameRecord, aggregate, fit_model
from arena.stats.sprt import (
    Z95,
    Pentanomial,
    SprtParams,
    SprtResult,
    accepted_claim,
    decide,
    llr,
    pair_cell,
)
from arena.stats.sprt import Decision as SprtDecision
from arena.stats.sprt import evaluate as sprt_evaluate

DEFAULT_TIME_CONTROL = TimeControl()
"""What the policies are told (``MatchInfo``, ``time_left_ms``): the arena's default time
control. Nothing is timed."""
POLICY_FUNCTION = "choose"
"""The function a sample bot's ``bot.py`` gives ``run`` (every sample bot's policy)."""


# --- policies ----------------------------------------------------------------------------------
def load_policy(ref: str, game: str) -> Any:
    """The policy ``ref`` names: ``path/to/file.py:function`` (any callable or object with
    ``decide``), a bot directory (its ``bot.py``'s ``choose``) or a sample bot's name
    (``greedy``: ``sample_bots/<game>/greedy``, or a bot the game's package ships beside its
    reference bot). ``ConfigError`` in one line when it names nothing loadable."""
    path, attr = ref, POLICY_FUNCTION
    if ".py:" in ref:
        path, _, attr = ref.rpartition(":")
    if path.endswith(".py"):
        return _attribute(_module(Path(path)), attr, ref)
    directory = Path(ref)
    if not directory.is_dir():
        directory = _sample_dir(ref, game)
    if not (directory / "bot.py").is_file():
        raise ConfigError(f"policy {ref!r}: {directory} has no bot.py (give FILE.py:FUNCTION)")
    return _attribute(_module(directory / "bot.py"), POLICY_FUNCTION, ref)


def _sample_dir(name: str, game: str) -> Path:
    from arena.bots.images.wheels import is_source_tree

    places = []
    root = Path(__file__).resolve().parents[2]
    if is_source_tree(root):
        places.append(root / "sample_bots" / game)
    declared = plugin(game).reference_bot_dir()
    if declared is not None:
        places.append(declared.parent)
        for example in sorted((root / "examples").glob("*/bots")):  # a game package's tree
            if any(_bot_game(bot) == game for bot in example.iterdir()):
                places.append(example)
    for place in places:
        if (place / name / "bot.py").is_file():
            return place / name
    known = sorted({p.name for place in places if place.is_dir() for p in place.iterdir()
                    if (p / "bot.py").is_file()})
    raise ConfigError(f"policy {name!r} is neither FILE.py:FUNCTION, a bot directory nor a "
                      f"sample bot of {game} (sample bots: {', '.join(known) or 'none'})")


def _bot_game(directory: Path) -> str:
    """The game of a bot directory's bot.toml ('' without one)."""
    import tomllib

    try:
        data = tomllib.loads((directory / "bot.toml").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return ""
    return str(data.get("game", ""))


def _module(path: Path) -> Any:
    if not path.is_file():
        raise ConfigError(f"no policy file {path}")
    name = f"arena_lab_policy_{hashlib.sha256(str(path.resolve()).encode()).hexdigest()[:12]}"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ConfigError(f"{path} cannot be imported as a Python module")
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(path.parent))  # the bot's own modules beside it, as when it runs
    try:
        sys.modules[name] = module
        spec.loader.exec_module(module)
    except Exception as exc:
        sys.modules.pop(name, None)
        raise ConfigError(f"{path} failed to import: {exc!r}") from exc
    finally:
        sys.path.remove(str(path.parent))
    return module


def _attribute(module: Any, attr: str, ref: str) -> Any:
    value = getattr(module, attr, None)
    if value is None or not (callable(value) or callable(getattr(value, "decide", None))):
        raise ConfigError(f"policy {ref!r}: {module.__file__} has no callable {attr!r}")
    return value


# --- one match ---------------------------------------------------------------------------------
class _Lazy(LazyDecision):
    """A ``Decision`` whose ``observation`` and ``legal_texts`` are made when the policy first
    reads them (a policy that picks among ``legal_actions`` never pays for them), as the SDK's
    decisions decode their observation on first read. Prints, compares and copies as the plain
    ``Decision`` of the same values."""

    @cached_property
    def observation(self) -> Any:
        game, state, seat, _ = self.__dict__["_source"]
        return game.observation(state, seat)

    @cached_property
    def legal_texts(self) -> tuple[str, ...]:
        game, state, _, legal = self.__dict__["_source"]
        return legal_texts_of(game, state, legal)


@dataclass(frozen=True)
class Played:
    """One in-process match's result (the referee's ``MatchResult`` fields that matter here)."""

    winner: int | None
    """The winning seat; None for equal totals."""
    totals: tuple[int, int]
    rounds: tuple[tuple[int, int], ...]
    termination: Termination
    faulty_seat: int | None = None
    detail: str = ""
    decisions: int = 0


class _Fault(Exception):
    def __init__(self, termination: Termination, seat: int, detail: str,
                 answer: str | None = None) -> None:
        super().__init__(detail)
        self.termination, self.seat, self.detail = termination, seat, detail
        self.answer = answer
        """The answer as the referee's log records a faulted decision (None: none)."""


def play_in_process(game_id: str, policies: tuple[Any, Any], seed: int, *,
                    match_id: str = "", bot_names: tuple[str, str] = ("local-0", "local-1"),
                    options: Mapping[str, Any] | None = None,
                    time_control: TimeControl = DEFAULT_TIME_CONTROL,
                    record: list[tuple[int, int, str | None]] | None = None) -> Played:
    """Play one match between two trusted policies (seat order) as the referee would (module
    doc). ``record``: a list that receives ``(round, seat, action text)`` per decision, as the
    referee's log records it (a faulted decision: its answer, None for none). Raises
    ``OptionsError`` for bad options; a policy's fault is the result's termination."""
    game = get_game(game_id)
    state = game.new_match(seed, options or {})
    match_options = game.options_of(state)
    calls = (PolicyCalls(policies[0]), PolicyCalls(policies[1]))
    infos = tuple(MatchInfo(match_id or f"lab-{_opaque(seed, 0)}", game.id, game.version, seat,
                            dict(match_options), time_control.move_time_ms,
                            time_control.time_bank_ms, bot_names, time_control.clock,
                            time_control.wall_guard) for seat in (0, 1))
    allowance = time_control.move_time_ms + time_control.time_bank_ms
    decisions = 0
    rounds_done = len(game.finished_rounds(state))
    # a decision's calls, looked up once: a PORTAS decision is ~3.5 us of the engine's, and
    # each lookup, call layer or cached property's first read is a few per cent of it
    to_move, legal_actions, apply, finished_rounds = (
        game.to_move, game.legal_actions, game.apply, game.finished_rounds)
    decide = (calls[0].decide, calls[1].decide)
    new = object.__new__
    try:
        for each in (0, 1):
            _call(each, calls[each].match_start, infos[each])
        while (seat := to_move(state)) is not None:
            decisions += 1
            legal = tuple(legal_actions(state))
            round_index = rounds_done  # the protocol's round_index while running (the gate
            decision = new(_Lazy)      # checks it at every decision: arena/gate/playouts.py)
            # legal_actions in the instance dict, where the cached property would put it on
            # first read (its __get__ takes a lock: ~1.5 us a decision, a tenth of PORTAS')
            decision.__dict__.update(match=infos[seat], round=round_index,
                                     time_left_ms=allowance, decision_id=decisions,
                                     parsed_actions=legal, legal_actions=legal,
                                     _source=(game, state, seat, legal))
            try:
                try:  # _call, inline
                    choice = decide[seat](decision)
                except Exception as exc:  # noqa: BLE001 — the policy's failure: its crash
                    raise _crash(seat, exc) from exc
                for action in legal:  # one of the legal values, what nearly every policy
                    if action is choice:  # answers: found by identity (an equality test per
                        break             # action costs more)
                else:
                    action = _action(game, state, legal, choice, seat)
            except _Fault as fault:
                if record is not None:
                    record.append((round_index, seat, fault.answer))
                raise
            if record is not None:
                record.append((round_index, seat, game.format_action(action)))
            rounds_before = rounds_done
            state = apply(state, action)
            finished = finished_rounds(state)
            rounds_done = len(finished)
            if rounds_done > rounds_before:
                totals = totals_of(finished)
                for each in (0, 1):
                    _call(each, calls[each].round_end, rounds_before, finished[rounds_before],
                          totals)
    except _Fault as fault:
        finished = game.finished_rounds(state)
        played = Played(1 - fault.seat, totals_of(finished), finished, fault.termination,
                        fault.seat, fault.detail, decisions)
    else:
        outcome = game.outcome(state)
        assert outcome is not None, "the match ended without an outcome"
        played = Played(outcome.winner, outcome.totals, game.finished_rounds(state),
                        Termination.NORMAL, None, "", decisions)
    for each in (0, 1):
        result = ("DRAW" if played.winner is None else "WIN" if played.winner == each
                  else "LOSS")
        try:
            calls[each].match_end(f"MATCH_RESULT_{result}",
                                  f"TERMINATION_{played.termination.name}", played.totals,
                                  detail=played.detail[:1000], faulty_seat=played.faulty_seat)
        except Exception:  # noqa: BLE001, S110 — the match is over; nothing to forfeit
            pass
    return played


def _call(seat: int, func: Callable[..., Any], *args: Any) -> Any:
    try:
        return func(*args)
    except Exception as exc:  # noqa: BLE001 — the policy's failure is its seat's crash
        raise _crash(seat, exc) from exc


def _crash(seat: int, exc: Exception) -> _Fault:
    """The seat's crash for the exception its policy raised."""
    frame = traceback.extract_tb(exc.__traceback__)[-1]
    return _Fault(Termination.CRASH, seat, f"the policy raised {exc!r} at "
                  f"{frame.filename}:{frame.lineno}")


def _action(game: Any, state: Any, legal: tuple[Any, ...], choice: Any, seat: int) -> Any:
    """The action a policy's answer is, checked as the referee checks it (an answer that is one
    of ``legal`` by identity is found before, in the match loop)."""
    if not isinstance(choice, str) and choice in legal:
        return choice
    try:
        action = game.parse_action(choice if isinstance(choice, str)
                                   else game.format_action(choice))
    except InvalidActionError as exc:
        raise _Fault(Termination.INVALID_ACTION, seat, str(exc), _shown(choice)) from None
    except Exception:  # noqa: BLE001 — not an action of this game at all
        raise _Fault(Termination.INVALID_ACTION, seat,
                     f"answered {choice!r:.100}, not a {game.id} action", _shown(choice)) \
            from None
    if not game.is_legal(state, action):
        text = game.format_action(action)
        raise _Fault(Termination.ILLEGAL_ACTION, seat,
                     illegal_detail(game, state, action, text), text)
    return action


def _shown(choice: Any) -> str | None:
    """An answer that is no action, as the referee's log records it."""
    return recorded_answer((choice if isinstance(choice, str) else repr(choice))[:200])


def _opaque(seed: int, leg: int) -> str:
    return hashlib.sha256(f"lab:{seed}:{leg}".encode()).hexdigest()[:12]


def leg_match_id(seed: int, leg: int) -> str:
    """The match id of a pair's leg (module doc)."""
    return f"lab-{_opaque(seed, leg)}"


# --- many matches ------------------------------------------------------------------------------
@dataclass(frozen=True)
class Leg:
    """One leg of a pair, from policy A's side."""

    pair: int
    leg: int
    """0: A in seat 0; 1: A in seat 1."""
    score: float
    """A's score: 1, 0.5 or 0."""
    margin: int
    """A's total minus B's."""
    fault: str = ""
    """The termination and detail of a faulted leg ('' for a normal one)."""


_WORKER: dict[str, Any] = {}


def _init_worker(refs: tuple[str, str], game: str, options: dict[str, Any],
                 time_control: TimeControl, names: tuple[str, str]) -> None:
    _WORKER.update(policies=(load_policy(refs[0], game), load_policy(refs[1], game)), game=game,
                   options=options, time_control=time_control, names=names)


def _play_pairs(pairs: Sequence[int], seed: int) -> list[Leg]:
    a, b = _WORKER["policies"]
    name_a, name_b = _WORKER["names"]
    legs = []
    for pair in pairs:
        for leg, seats, names in ((0, (a, b), (name_a, name_b)), (1, (b, a), (name_b, name_a))):
            played = play_in_process(_WORKER["game"], seats, seed + pair,
                                     match_id=leg_match_id(seed + pair, leg), bot_names=names,
                                     options=_WORKER["options"],
                                     time_control=_WORKER["time_control"])
            mine = leg  # A's seat
            score = 0.5 if played.winner is None else float(played.winner == mine)
            fault = "" if played.termination is Termination.NORMAL else \
                f"{played.termination} (seat {played.faulty_seat}): {played.detail}"
            legs.append(Leg(pair, leg, score, played.totals[mine] - played.totals[1 - mine],
                            fault))
    return legs


@dataclass(frozen=True)
class Evaluation:
    """What :func:`evaluate` found, from policy A's side."""

    game: str
    names: tuple[str, str]
    """A's and B's names (their references; numbered when the same)."""
    legs: tuple[Leg, ...] = field(repr=False)
    """Every leg, in pair order."""
    seconds: float
    """Wall time of the play (workers' start included)."""
    jobs: int
    params: SprtParams
    sprt: SprtResult
    """The test's result where ``arena sprt`` would have stopped (the first pair whose LLR
    reached a bound), else after every pair."""
    sprt_pairs: int
    """The pairs that result counts."""

    @property
    def matches(self) -> int:
        return len(self.legs)

    @property
    def pairs(self) -> int:
        return self.matches // 2

    @property
    def wins(self) -> int:
        return sum(leg.score == 1.0 for leg in self.legs)

    @property
    def draws(self) -> int:
        return sum(leg.score == 0.5 for leg in self.legs)

    @property
    def losses(self) -> int:
        return sum(leg.score == 0.0 for leg in self.legs)

    @property
    def faults(self) -> tuple[Leg, ...]:
        return tuple(leg for leg in self.legs if leg.fault)

    @property
    def mean_margin(self) -> float:
        return sum(leg.margin for leg in self.legs) / max(1, self.matches)

    @property
    def matches_per_s(self) -> float:
        return self.matches / self.seconds if self.seconds > 0 else math.inf

    @cached_property
    def elo(self) -> tuple[float, float]:
        """A's Bradley–Terry Elo advantage over B and the half-width of its 95% interval: the
        ladder standings' fit (prior and encounter-clustered variance included) of these legs,
        each pair an encounter."""
        names, pairs = aggregate(self._records())
        model = fit_model(names, pairs)
        a, b = names.index(self.names[0]), names.index(self.names[1])
        difference = ELO_PER_LOGIT * (model.theta[a] - model.theta[b])
        return difference, Z95 * ELO_PER_LOGIT * math.sqrt(model.difference_variance(a, b))

    def _records(self) -> Iterator[GameRecord]:
        a, b = self.names
        for leg in self.legs:
            seat0, seat1 = (a, b) if leg.leg == 0 else (b, a)
            score0 = leg.score if leg.leg == 0 else 1.0 - leg.score
            margin0 = leg.margin if leg.leg == 0 else -leg.margin
            yield GameRecord(seat0, seat1, score0, f"pair-{leg.pair}", margin0, leg.leg)

    @property
    def verdict(self) -> str:
        """The SPRT's one-line verdict, as ``arena sprt`` words it."""
        claim = accepted_claim(self.sprt.decision, self.params, *self.names)
        if claim is not None:
            return f"{self.sprt.decision} accepted after {self.sprt_pairs} pairs: {claim}"
        return (f"inconclusive: after {self.pairs} pairs the LLR reached neither bound (more "
                "--matches continue the test)")


def sequential_sprt(legs: Sequence[Leg], params: SprtParams) -> tuple[SprtResult, int]:
    """The SPRT over the complete pairs of ``legs`` taken in pair order, stopped at the first
    pair whose LLR reaches a bound, as ``arena sprt`` stops: the result and the pairs it
    counts."""
    by_pair: dict[int, dict[int, float]] = {}
    for leg in legs:
        by_pair.setdefault(leg.pair, {})[leg.leg] = leg.score
    counts, draw_pairs, used = Pentanomial(), 0, 0
    for pair in sorted(by_pair):
        scores = by_pair[pair]
        if len(scores) != 2:
            continue
        counts = counts.add(pair_cell(scores[0], scores[1]))
        draw_pairs += (scores[0], scores[1]) == (0.5, 0.5)
        used += 1
        if decide(llr(counts, params), params.bounds) is not SprtDecision.CONTINUE:
            break
    return sprt_evaluate(counts, params, draw_pairs), used


def evaluate(a: str, b: str, *, game: str, matches: int, jobs: int = 1, seed: int = 1,
             options: Mapping[str, Any] | None = None,
             params: SprtParams | None = None,
             time_control: TimeControl = DEFAULT_TIME_CONTROL,
             progress: Callable[[int], None] | None = None) -> Evaluation:
    """Play ``matches`` (rounded up to whole pairs) between the policies ``a`` and ``b``
    (:func:`load_policy` references) on ``jobs`` worker processes and sum them up. ``params``:
    the SPRT's design (default elo0 0, elo1 50, 5%/5%, logistic). ``progress`` gets the number
    of legs played so far. ``ConfigError`` for a policy that cannot be loaded or bad counts."""
    if matches < 2:
        raise ConfigError(f"--matches must be at least 2 (one duplicate pair), got {matches}")
    if jobs < 1:
        raise ConfigError(f"--jobs must be at least 1, got {jobs}")
    get_game(game)  # UnknownGameError first
    params = params or SprtParams(0.0, 50.0)
    names = (a, b) if a != b else (f"{a}#1", f"{b}#2")
    pairs = (matches + 1) // 2
    setup = ((a, b), game, dict(options or {}), time_control, names)
    started = time.perf_counter()
    legs: list[Leg] = []
    if jobs == 1:
        _init_worker(*setup)
        for start in range(0, pairs, 25):
            legs += _play_pairs(range(start, min(pairs, start + 25)), seed)
            if progress is not None:
                progress(len(legs))
    else:
        _init_worker(*setup)  # refuses a bad policy here, in one line, before any worker
        chunk = max(1, min(50, pairs // (jobs * 8)))
        batches = [range(s, min(pairs, s + chunk)) for s in range(0, pairs, chunk)]
        context = get_context("spawn")
        with ProcessPoolExecutor(jobs, mp_context=context, initializer=_init_worker,
                                 initargs=setup) as pool:
            for done in pool.map(_play_pairs, batches, [seed] * len(batches)):
                legs += done
                if progress is not None:
                    progress(len(legs))
    seconds = time.perf_counter() - started
    legs.sort(key=lambda leg: (leg.pair, leg.leg))
    sprt, used = sequential_sprt(legs, params)
    return Evaluation(game, names, tuple(legs), seconds, jobs, params, sprt, used)


def default_jobs() -> int:
    """The cores this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return max(1, os.cpu_count() or 1)
