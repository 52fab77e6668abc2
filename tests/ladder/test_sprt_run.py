"""SPRT tests run on the ladder runner with the fast fake player: decisions, the pair budget,
void legs, results out of order, a stopped test resumed, and what is refused."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from arena.cluster import session
from arena.errors import ConfigError
from arena.ladder.config import LadderConfig, parse_ladder
from arena.ladder.reports import load_matches, load_standings
from arena.ladder.runner import LadderEventKind, run_ladder
from arena.model import BotSpec, MatchResult, MatchSpec
from arena.sprt.run import (
    SprtEvent,
    SprtOutcome,
    SprtSummary,
    VoidLegError,
    run_sprt,
)
from arena.stats.sprt import Decision, Pentanomial
from arena.stats.sprt_pairs import PairBook
from tests.support.fakes import FakePlayer, fake_resolve

pytestmark = pytest.mark.integration


def sprt_config(tmp_path: Path, candidate: str, baseline: str, extra: str = "",
                concurrency: int = 2) -> LadderConfig:
    path = tmp_path / "test.toml"
    path.write_text(f'name = "t"\ngame = "lost-cities"\nconcurrency = {concurrency}\n'
                    f'[sprt]\ncandidate = "{candidate}"\nbaseline = "{baseline}"\n'
                    f"elo0 = 0\nelo1 = 50\n{extra}")
    return parse_ladder(path.read_text(), source=path)


def run(cfg: LadderConfig, player: Any, **kwargs: Any) -> SprtSummary:
    return asyncio.run(run_sprt(cfg, play=player, resolve=fake_resolve, **kwargs))


def check_pairs(cfg: LadderConfig, summary: SprtSummary) -> None:
    """The counts are those of the complete pairs in the store; ids are unique; both legs of a
    pair share the seed with the seats swapped."""
    stored = load_matches(cfg)
    assert summary.status.counts == PairBook.of(stored).counts
    ids = [m.match_id for m in stored]
    assert len(ids) == len(set(ids))
    for pair in {m.cycle for m in stored}:
        legs = [m for m in stored if m.cycle == pair]
        assert len({m.seed for m in legs}) == 1
        for m in legs:
            assert m.encounter_id == f"t-p{pair:05d}"
            assert m.bots[m.leg] == summary.bots[0], "the candidate sits in seat `leg`"


def test_a_stronger_candidate_passes(tmp_path: Path) -> None:
    cfg = sprt_config(tmp_path, "alpha", "gamma")
    player = FakePlayer()
    events: list[SprtEvent] = []
    summary = run(cfg, player, on_event=events.append)
    assert summary.outcome is SprtOutcome.H1 and summary.status.decision is Decision.H1
    assert summary.bots == ("alpha", "gamma")
    assert summary.status.llr >= summary.status.params.bounds[1]
    check_pairs(cfg, summary)
    assert summary.run.played == len(player.calls) == len(load_matches(cfg))
    # it stopped at the first decision: at most the matches in flight were played after it
    decided = next(i for i, e in enumerate(events) if e.status.decision is Decision.H1)
    after = [e for e in events[decided + 1:] if e.kind is LadderEventKind.MATCH_FINISHED]
    assert len(after) < 2
    assert events[0].kind is LadderEventKind.START and events[-1].kind is LadderEventKind.DONE
    # a decided test plays nothing more
    again = FakePlayer()
    second = run(cfg, again)
    assert again.calls == [] and second.outcome is SprtOutcome.H1
    assert second.status == summary.status and second.run.skipped == summary.run.played
    data = second.to_json()
    assert data["outcome"] == data["decision"] == "H1" and data["matches_played"] == 0
    assert data["pentanomial"] == list(summary.status.counts.counts)


def test_a_bot_against_itself_accepts_h0(tmp_path: Path) -> None:
    cfg = sprt_config(tmp_path, "gamma", "gamma")
    summary = run(cfg, FakePlayer())
    assert summary.outcome is SprtOutcome.H0
    assert summary.bots == ("gamma (candidate)", "gamma (baseline)")
    counts = summary.status.counts.counts
    assert counts[2] == summary.status.pairs > 0, "a deterministic bot mirrors its own deal"
    assert json.dumps(summary.to_json()["elo"]) == "0.0", "an even score is 0 Elo, not -0"
    check_pairs(cfg, summary)
    # the store's reports read the test as a two-bot ladder
    assert {r.bot for r in load_standings(cfg).rows} == set(summary.bots)


def test_a_spent_budget_is_inconclusive_and_a_larger_one_continues(tmp_path: Path) -> None:
    cfg = sprt_config(tmp_path, "beta", "gamma", "max_pairs = 6\n")
    first = FakePlayer()
    summary = run(cfg, first)
    assert summary.outcome is SprtOutcome.INCONCLUSIVE and summary.status.pairs == 6
    assert summary.status.decision is Decision.CONTINUE and len(first.calls) == 12
    assert summary.to_json()["outcome"] == "inconclusive"
    more = FakePlayer()
    extended = run(cfg, more, max_pairs=10)
    assert extended.status.pairs == 10 and len(more.calls) == 8
    assert not {s.match_id for s in first.calls} & {s.match_id for s in more.calls}
    assert {s.match_id for s in more.calls} == {f"t-p{p:05d}-l{leg}" for p in range(6, 10)
                                                for leg in (0, 1)}
    check_pairs(cfg, extended)


def test_a_void_leg_is_played_again_with_its_seed(tmp_path: Path) -> None:
    cfg = sprt_config(tmp_path, "beta", "gamma", "max_pairs = 4\n")
    player = FakePlayer(void_ids={"t-p00001-l1", "t-p00001-l1-r1"})
    events: list[SprtEvent] = []
    summary = run(cfg, player, on_event=events.append)
    calls = {s.match_id: s for s in player.calls}
    assert {"t-p00001-l1", "t-p00001-l1-r1", "t-p00001-l1-r2"} <= set(calls)
    seeds = {calls[m].seed for m in ("t-p00001-l0", "t-p00001-l1", "t-p00001-l1-r1",
                                     "t-p00001-l1-r2")}
    assert len(seeds) == 1
    assert calls["t-p00001-l1-r2"].bots[1].name == "beta", "same seats as the void attempts"
    assert summary.run.void == 2 and summary.status.pairs == 4
    stored = {m.match_id: m for m in load_matches(cfg)}
    assert stored["t-p00001-l1"].void and stored["t-p00001-l1-r1"].void
    assert not stored["t-p00001-l1-r2"].void
    check_pairs(cfg, summary)
    # pair 1 counted only once its replayed leg landed
    finished = [e for e in events if e.kind is LadderEventKind.MATCH_FINISHED]
    at = next(i for i, e in enumerate(finished) if e.result is not None
              and e.result.match_id == "t-p00001-l1-r2")
    done_before = {e.result.match_id for e in finished[:at]
                   if e.result is not None and not e.result.void}
    complete_before = sum(1 for p in range(4) if {f"t-p{p:05d}-l0", f"t-p{p:05d}-l1"}
                          <= done_before)
    assert finished[at - 1].status.pairs == complete_before


def test_a_leg_void_again_and_again_stops_the_run(tmp_path: Path) -> None:
    cfg = sprt_config(tmp_path, "beta", "gamma", concurrency=1)
    player = FakePlayer(void_ids={"t-p00000-l0", "t-p00000-l0-r1", "t-p00000-l0-r2"})
    with pytest.raises(VoidLegError, match="t-p00000-l0-r2 was void 3 times in a row"):
        run(cfg, player)
    assert [m.match_id for m in load_matches(cfg)] == ["t-p00000-l0", "t-p00000-l0-r1",
                                                        "t-p00000-l0-r2"]


def test_a_leg_the_cluster_gave_up_on_gets_a_new_id_when_the_test_resumes(
        tmp_path: Path) -> None:
    """Its void attempt is recorded apart from the matches, yet counts for the next attempt's
    number: a resumed test never plays an id that is already recorded."""
    cfg = sprt_config(tmp_path, "beta", "gamma", "max_pairs = 1\n", concurrency=1)
    stop = asyncio.Event()

    def stop_at_the_third_attempt(spec: MatchSpec) -> None:
        if spec.match_id == "t-p00000-l1-r2":
            stop.set()

    first = FakePlayer(delay=0.05, given_up_ids={"t-p00000-l1"}, void_ids={"t-p00000-l1-r1"},
                       hook=stop_at_the_third_attempt)
    stopped = run(cfg, first, stop=stop)
    assert [s.match_id for s in first.calls] == ["t-p00000-l0", "t-p00000-l1", "t-p00000-l1-r1",
                                                  "t-p00000-l1-r2"]
    assert stopped.run.interrupted and (stopped.run.void, stopped.run.given_up) == (2, 1)
    assert stopped.to_json()["given_up_matches"] == 1
    assert [m.match_id for m in load_matches(cfg)] == ["t-p00000-l0", "t-p00000-l1-r1"]
    second = FakePlayer()
    resumed = run(cfg, second)
    assert [s.match_id for s in second.calls] == ["t-p00000-l1-r2"]
    assert resumed.status.pairs == 1 and PairBook.of(load_matches(cfg)).counts.pairs == 1
    check_pairs(cfg, resumed)


class ShuffledPlayer(FakePlayer):
    """The fake player with a random delay per match: results land out of order."""

    def __init__(self, seed: int) -> None:
        super().__init__()
        self.rng = random.Random(seed)
        self.handed_out: list[str] = []
        self.landed: list[str] = []

    async def __call__(self, spec: MatchSpec, **kwargs: Any) -> MatchResult:
        self.handed_out.append(spec.match_id)
        await asyncio.sleep(self.rng.random() * 0.02)
        result = await super().__call__(spec, **kwargs)
        self.landed.append(spec.match_id)
        return result


def test_results_out_of_order_count_only_complete_pairs(tmp_path: Path) -> None:
    cfg = sprt_config(tmp_path, "beta", "gamma", "max_pairs = 20\n", concurrency=5)
    player = ShuffledPlayer(seed=5)
    seen: list[tuple[set[str], Pentanomial]] = []
    done: set[str] = set()

    def watch(event: SprtEvent) -> None:
        if event.kind is LadderEventKind.MATCH_FINISHED and event.result is not None:
            done.add(event.result.match_id)
            seen.append((set(done), event.status.counts))

    summary = run(cfg, player, on_event=watch)
    assert player.landed != player.handed_out, "the results should have landed out of order"
    by_id = {m.match_id: m for m in load_matches(cfg)}
    for finished, counts in seen:
        complete = PairBook.of(by_id[i] for i in sorted(finished))
        assert counts == complete.counts, "evaluated on the complete pairs so far"
    assert summary.status.pairs == 20
    check_pairs(cfg, summary)


def test_a_stopped_test_resumes_where_it_was(tmp_path: Path) -> None:
    cfg = sprt_config(tmp_path, "beta", "gamma", "max_pairs = 12\n", concurrency=3)
    stop = asyncio.Event()

    def stop_after(n: int) -> Callable[[SprtEvent], None]:
        def sink(event: SprtEvent) -> None:
            if event.kind is LadderEventKind.MATCH_FINISHED and event.progress.done >= n:
                stop.set()
        return sink

    first = FakePlayer(delay=0.01)
    stopped = run(cfg, first, on_event=stop_after(7), stop=stop)
    assert stopped.run.interrupted and stopped.outcome is SprtOutcome.UNFINISHED
    recorded = {m.match_id for m in load_matches(cfg)}
    dropped = {s.match_id: s.seed for s in first.calls}.items() - \
        {(m.match_id, m.seed) for m in load_matches(cfg)}
    assert len(recorded) >= 7 and dropped, "matches in flight are dropped, not recorded"
    second = FakePlayer()
    resumed = run(cfg, second)
    replayed = {s.match_id: s.seed for s in second.calls}
    assert not set(replayed) & recorded, "nothing recorded is played again"
    for match_id, seed in dropped:
        assert replayed[match_id] == seed, "a dropped leg is played again with its seed"
    assert resumed.outcome is SprtOutcome.INCONCLUSIVE and resumed.status.pairs == 12
    check_pairs(cfg, resumed)
    single = tmp_path / "single"
    single.mkdir()
    whole = run(sprt_config(single, "beta", "gamma", "max_pairs = 12\n"), FakePlayer())
    assert whole.status.counts == resumed.status.counts, "the same deals as one whole run"


@pytest.mark.parametrize(("bots", "extra", "outcome"), [
    (("alpha", "delta"), "", SprtOutcome.H1),
    (("beta", "gamma"), "max_pairs = 2\n", SprtOutcome.INCONCLUSIVE),
])
def test_a_finished_test_opens_no_cluster(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                          bots: tuple[str, str], extra: str,
                                          outcome: SprtOutcome) -> None:
    """Run again once decided (or with the budget spent), with the real runner's default
    (matches on the cluster): the source says up front that it has nothing to play, so no
    cluster is started."""
    cfg = sprt_config(tmp_path, *bots, extra)
    finished = run(cfg, FakePlayer())
    assert finished.outcome is outcome
    opened: list[object] = []
    real_open = session.open_cluster

    def recording_open(*args: Any, **kwargs: Any) -> Any:
        opened.append(args)
        return real_open(*args, **kwargs)

    monkeypatch.setattr(session, "open_cluster", recording_open)

    def with_a_directory(ref: str, base_dir: Path) -> BotSpec:  # what the process sandbox needs
        return dataclasses.replace(fake_resolve(ref, base_dir), directory=str(tmp_path))

    again = asyncio.run(run_sprt(cfg, resolve=with_a_directory, sandbox="process"))
    assert opened == []
    assert again.outcome is outcome and again.run.played == 0
    assert again.status.counts == finished.status.counts


@pytest.mark.unit
def test_a_plain_ladder_and_a_test_are_not_confused(tmp_path: Path) -> None:
    cfg = sprt_config(tmp_path, "alpha", "gamma")
    with pytest.raises(ConfigError, match="is an SPRT test"):
        asyncio.run(run_ladder(cfg, play=FakePlayer(), resolve=fake_resolve))
    plain = parse_ladder('name = "p"\ngame = "lost-cities"\nentrants = ["alpha", "beta"]\n')
    with pytest.raises(ConfigError, match="is not an SPRT test"):
        run(plain, FakePlayer())


@pytest.mark.unit
def test_a_bot_of_another_game_is_refused_before_anything_is_played(tmp_path: Path) -> None:
    def resolve(ref: str, base_dir: Path) -> BotSpec:
        game = "haggis" if ref == "other" else "lost-cities"
        return BotSpec(name=ref, game=game, command=("true",), version="1", digest=f"x:{ref}")

    cfg = sprt_config(tmp_path, "alpha", "other")
    player = FakePlayer()
    with pytest.raises(ConfigError, match="the baseline 'other' plays 'haggis'"):
        asyncio.run(run_sprt(cfg, play=player, resolve=resolve))
    assert player.calls == [] and not cfg.state_dir.exists()
