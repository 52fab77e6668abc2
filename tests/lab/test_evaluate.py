"""The lab's evaluator (arena/lab/evaluate.py): its matches are the referee's. The same seeds,
match ids and policies played both ways give the same decisions — what each policy was shown
(the whole ``Decision``: match info, round, observation, legal texts, allowance, id), what it
answered, the hooks it was called with — and the same results, faults included; against the
real match path (bot processes in the process sandbox) the logged decisions are the same. Then
the sums: W/D/L, the SPRT on the same pairs as ``arena.stats.sprt``, and the CLI."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from arena.bots import load_bot_dir
from arena.cli.main import app
from arena.errors import ConfigError
from arena.lab.evaluate import (
    DEFAULT_TIME_CONTROL,
    evaluate,
    leg_match_id,
    load_policy,
    play_in_process,
    sequential_sprt,
)
from arena.model import BotSpec, DecisionEvent, MatchSpec, Termination
from arena.referee.local import LocalPlayer
from arena.referee.match import Match, play_match
from arena.sdk.decision import Decision
from arena.stats.sprt import Pentanomial, SprtParams, pair_cell
from arena.stats.sprt import evaluate as sprt_evaluate
from tests.lab.conftest import SMALL
from tests.support.goofspiel import goofspiel

pytestmark = pytest.mark.unit

GAMES = ("lost-cities", "haggis", "portas", "goofspiel")
NAMES = ("alpha", "beta")


class Recording:
    """A policy that writes down everything the arena shows and tells it."""

    def __init__(self, policy: Any) -> None:
        self.policy = policy
        self.seen: list[Any] = []

    def decide(self, decision: Decision) -> Any:
        self.seen.append(Decision(decision.match, decision.round, decision.observation,
                                  decision.legal_texts, decision.time_left_ms,
                                  decision.decision_id))
        answer = self.policy(decision)
        self.seen.append(("answer", answer if isinstance(answer, str) else repr(answer)))
        return answer

    def match_start(self, info: Any) -> None:
        self.seen.append(("start", info))

    def round_end(self, round_index: int, scores: Any, totals: Any) -> None:
        self.seen.append(("round_end", round_index, tuple(scores), tuple(totals)))

    def match_end(self, result: str, termination: str, totals: Any, *, detail: str = "",
                  faulty_seat: int | None = None) -> None:
        self.seen.append(("end", result, termination, tuple(totals), detail, faulty_seat))


def _referee(game: str, policies: tuple[Any, Any], seed: int, match_id: str) -> tuple[Any, list]:
    """The in-process referee (the real match loop, LocalPlayer seats)."""
    events: list[Any] = []
    spec = MatchSpec(game, seed, (BotSpec(NAMES[0], game), BotSpec(NAMES[1], game)),
                     SMALL[game], DEFAULT_TIME_CONTROL, match_id=match_id)
    match = Match(spec, sandbox_name="in-process", log_dir=None, on_event=events.append)
    result = asyncio.run(match.run((LocalPlayer(0, policies[0]), LocalPlayer(1, policies[1]))))
    return result, [(e.round, e.seat, e.action) for e in events if isinstance(e, DecisionEvent)]


def _both_ways(game: str, make: tuple[Any, Any], seed: int) -> Any:
    match_id = leg_match_id(seed, 0)
    ours = (Recording(make[0]()), Recording(make[1]()))
    record: list[tuple[int, int, str | None]] = []
    played = play_in_process(game, ours, seed, match_id=match_id, bot_names=NAMES,
                             options=SMALL[game], record=record)
    theirs = (Recording(make[0]()), Recording(make[1]()))
    result, decisions = _referee(game, theirs, seed, match_id)
    assert record == decisions
    for seat in (0, 1):
        assert ours[seat].seen == theirs[seat].seen, f"seat {seat} was shown something else"
    assert (played.termination, played.faulty_seat, played.winner) == \
        (result.termination, result.faulty_seat, result.winner)
    assert (played.totals, played.rounds, played.detail, played.decisions) == \
        (result.totals, result.rounds, result.detail, result.decisions)
    return played


def _fresh(game: str, name: str) -> Any:
    """A sample bot's policy, its per-match state dropped (lost-cities/random keeps a generator
    per match id and seat: a fresh bot process each time under the referee)."""
    def make() -> Any:
        policy = load_policy(name, game)
        rngs = getattr(sys.modules[policy.__module__], "_RNGS", None)
        if isinstance(rngs, dict):
            rngs.clear()
        return policy
    return make


@pytest.mark.parametrize("game", GAMES)
def test_every_decision_and_result_is_the_referees(game: str) -> None:
    if game == "goofspiel":
        goofspiel()
    for seed in (3, 4):
        _both_ways(game, (_fresh(game, "greedy"), _fresh(game, "random")), seed)


def _first_legal_then(fault: str) -> Any:
    def policy(decision: Decision) -> Any:
        if decision.decision_id < 5:
            return decision.legal_actions[0]
        if fault == "crash":
            raise RuntimeError("gave up")
        if fault == "invalid":
            return "no such action at all"
        return decision.legal_actions[-1]
    return lambda: policy


@pytest.mark.parametrize("fault", ["crash", "invalid"])
def test_a_policys_fault_ends_the_match_as_the_referee_ends_it(fault: str) -> None:
    played = _both_ways("portas", (_first_legal_then("ok"), _first_legal_then(fault)), 7)
    assert played.termination is Termination(f"{fault}_action" if fault == "invalid" else fault)
    assert played.faulty_seat == 1 and played.winner == 0


def test_an_illegal_action_is_refused_with_the_referees_reason() -> None:
    def illegal() -> Any:
        return lambda decision: "bid 13"  # legal once a round

    goofspiel()
    played = _both_ways("goofspiel", (illegal, illegal), 1)
    assert played.termination is Termination.ILLEGAL_ACTION and played.faulty_seat == 0
    assert played.decisions == 3 and "already" in played.detail


@pytest.mark.integration
@pytest.mark.parametrize(("game", "bots"), [
    ("lost-cities", ("sample_bots/lost-cities/random", "sample_bots/lost-cities/greedy")),
    ("goofspiel", ("examples/goofspiel/bots/greedy", "examples/goofspiel/bots/random")),
])
def test_the_real_match_path_logs_the_same_decisions(game: str, bots: tuple[str, str],
                                                     tmp_path: Path) -> None:
    """Bot processes in the process sandbox, the same seed and match id: the log's decisions
    are the evaluator's (the lost-cities random sample keeps a generator per match: a fresh
    process each time, as the referee runs it)."""
    if game == "goofspiel":
        goofspiel()
    root = Path(__file__).resolve().parents[2]
    specs = tuple(load_bot_dir(root / bot) for bot in bots)
    seed, match_id = 11, leg_match_id(11, 0)
    spec = MatchSpec(game, seed, specs, SMALL[game], DEFAULT_TIME_CONTROL, match_id=match_id)
    result = asyncio.run(play_match(spec, sandbox="process", log_dir=tmp_path))
    assert result.termination is Termination.NORMAL, result.detail
    from arena.record.log import read_events

    logged = [(e.round, e.seat, e.action) for e in read_events(Path(result.log or ""))
              if isinstance(e, DecisionEvent)]
    record: list[tuple[int, int, str | None]] = []
    policies = (load_policy(str(root / bots[0]), game), load_policy(str(root / bots[1]), game))
    played = play_in_process(game, policies, seed, match_id=match_id,
                             bot_names=(specs[0].name, specs[1].name), options=SMALL[game],
                             record=record)
    assert record == logged
    assert (played.totals, played.winner) == (result.totals, result.winner)


def test_the_sums_and_the_sprt_are_the_arenas() -> None:
    params = SprtParams(0.0, 50.0)
    one = evaluate("greedy", "random", game="portas", matches=12, jobs=1, options=SMALL["portas"],
                   params=params)
    assert (one.matches, one.pairs) == (12, 6)
    assert one.wins + one.draws + one.losses == 12
    assert one.names == ("greedy", "random") and not one.faults
    by_pair: dict[int, list[float]] = {}
    for leg in one.legs:
        by_pair.setdefault(leg.pair, []).append(leg.score)
    counts = Pentanomial()
    for pair in sorted(by_pair)[:one.sprt_pairs]:
        counts = counts.add(pair_cell(*by_pair[pair]))
    assert one.sprt.counts == counts
    assert one.sprt.llr == sprt_evaluate(counts, params, one.sprt.pairing.draw_pairs).llr
    assert sequential_sprt(one.legs, params)[0] == one.sprt
    elo, ci95 = one.elo
    assert ci95 > 0 and (elo > 0) == (one.wins > one.losses)


@pytest.mark.integration
def test_jobs_do_not_change_the_results() -> None:
    one = evaluate("greedy", "random", game="portas", matches=8, jobs=1, options=SMALL["portas"])
    two = evaluate("greedy", "random", game="portas", matches=8, jobs=2, options=SMALL["portas"])
    assert one.legs == two.legs and two.jobs == 2


def test_a_policy_that_names_nothing_is_one_line() -> None:
    with pytest.raises(ConfigError, match="policy 'nosuch' is neither FILE.py:FUNCTION, a bot "
                                          "directory nor a sample bot of portas"):
        load_policy("nosuch", "portas")
    with pytest.raises(ConfigError, match="has no callable 'missing'"):
        load_policy(f"{Path(__file__).resolve()}:missing", "portas")


def test_a_function_in_a_file_is_a_policy(tmp_path: Path) -> None:
    source = tmp_path / "mine.py"
    source.write_text("def last(decision):\n    return decision.legal_texts[-1]\n")
    result = evaluate(f"{source}:last", "random", game="portas", matches=2,
                      options=SMALL["portas"])
    assert result.names == (f"{source}:last", "random") and result.matches == 2


def test_the_cli_prints_the_figures_as_json() -> None:
    out = CliRunner().invoke(app, ["lab", "evaluate", "greedy", "greedy", "--game", "portas",
                                   "--matches", "4", "--jobs", "1", "-o", "games=1",
                                   "--format", "json"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.output)
    assert (data["a"], data["b"], data["matches"]) == ("greedy#1", "greedy#2", 4)
    assert data["wins"] == data["losses"] and data["mean_margin"] == 0  # the duplicate mirror
    assert data["sprt"]["verdict"] and data["matches_per_s"] > 0 and data["faults"] == 0
    refused = CliRunner().invoke(app, ["lab", "evaluate", "nosuch", "greedy", "--game", "portas"])
    assert refused.exit_code == 2 and "policy 'nosuch'" in refused.output
