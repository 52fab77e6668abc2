"""Knockout brackets as a pure function of the seeds and the recorded legs."""

from __future__ import annotations

import math
from collections.abc import Callable

import pytest

from arena.ladder.schedules.knockout import (
    MAX_EXTRA_ENCOUNTERS,
    Bracket,
    Tie,
    bracket,
    encounter_id,
    positions,
)
from arena.stats.encounters import Leg

pytestmark = pytest.mark.unit

PREFIX = "cup"


def encounter(tie: Tie, index: int, winner: str | None, margin: int = 10,
              split: bool = False) -> list[Leg]:
    """Both legs of a tie's encounter: ``winner`` takes both (or, with ``split``, one each and
    the margin to ``winner``), None: two draws."""
    a, b = tie.players
    assert a is not None and b is not None
    eid = encounter_id(PREFIX, tie.round, tie.slot, index)
    legs = []
    for number, seats in enumerate(((a, b), (b, a))):
        if winner is None:
            legs.append(Leg(eid, number, seats, None, (5, 5), False))
            continue
        won = seats.index(winner) if not split or number == 0 else 1 - seats.index(winner)
        totals = [0, 0]
        totals[won] = margin if not split or number == 0 else 1
        legs.append(Leg(eid, number, seats, won, (totals[0], totals[1]), False))
    return legs


def play_out(seeds: list[str], decide: Callable[[Tie], str], per_tie: int = 1
             ) -> tuple[Bracket, list[Leg]]:
    """Play every tie as the bracket hands it out until it has a champion."""
    legs: list[Leg] = []
    for _ in range(100):
        now = bracket(PREFIX, seeds, legs, per_tie)
        if now.champion is not None:
            return now, legs
        for tie, index in now.to_play():
            legs += encounter(tie, index, decide(tie))
    raise AssertionError("no champion")


@pytest.mark.parametrize("n", range(2, 10))
def test_brackets_of_2_to_9_with_byes_to_the_top_seeds(n: int) -> None:
    seeds = [f"s{k}" for k in range(1, n + 1)]
    now = bracket(PREFIX, seeds, [])
    size = 1 << math.ceil(math.log2(n))
    assert len(now.rounds) == int(math.log2(size))
    assert [len(r) for r in now.rounds] == [size >> (k + 1) for k in range(len(now.rounds))]
    first = now.rounds[0]
    byes = [t for t in first if t.decided_by == "bye"]
    assert len(byes) == size - n
    assert sorted(t.seeds[0] or 0 for t in byes) == list(range(1, size - n + 1))
    for tie in byes:
        assert tie.players[1] is None and tie.winner == tie.players[0] and tie.needed == 0
    for tie in first:
        assert tie.seeds[0] is not None
        if tie.seeds[1] is not None:
            assert tie.seeds[0] + tie.seeds[1] == size + 1  # 1 meets the lowest seed
    # every first-round tie that is not a bye, and a second-round tie of two byes' winners
    ready = [t for r in now.rounds for t in r if None not in t.players and not t.decided]
    assert now.to_play() == tuple((t, 0) for t in ready)
    assert [t for t in ready if t.round == 0] == [t for t in first if t.decided_by != "bye"]
    assert all(t.round == 1 and t.seeds[0] and t.seeds[0] <= size - n for t in ready
               if t.round > 0)
    assert now.champion is None
    # seeds 1 and 2 only meet in the final: they start in different halves
    half = len(first) // 2 or 1
    top = {t.seeds[0] for t in first[:half]} | {t.seeds[1] for t in first[:half]}
    assert 1 in top and (n < 2 or 2 not in top or len(first) == 1)


def test_standard_positions() -> None:
    assert positions(2) == [1, 2]
    assert positions(4) == [1, 4, 2, 3]
    assert positions(8) == [1, 8, 4, 5, 2, 7, 3, 6]
    assert sorted(positions(16)) == list(range(1, 17))


def test_the_better_seed_wins_through_to_the_champion() -> None:
    seeds = [f"s{k}" for k in range(1, 7)]
    rank = {s: k for k, s in enumerate(seeds)}
    now, legs = play_out(seeds, lambda tie: min((p for p in tie.players if p),
                                                key=rank.__getitem__))
    assert now.champion == "s1"
    final = now.rounds[-1][0]
    assert final.players == ("s1", "s2") and final.decided_by == "score 2-0"
    assert now.to_play() == ()
    # resuming from the same legs rebuilds the same bracket
    assert bracket(PREFIX, seeds, list(reversed(legs))) == now


def test_upsets_and_later_rounds_order_players_by_seed() -> None:
    seeds = ["a", "b", "c", "d"]
    # round 0: a-d, b-c; the lower seed wins every tie
    now, _ = play_out(seeds, lambda tie: max((p for p in tie.players if p),
                                             key=seeds.index))
    assert now.champion == "d"
    final = now.rounds[1][0]
    assert final.players == ("c", "d") and final.seeds == (3, 4)


def test_a_level_score_is_decided_by_the_point_margin() -> None:
    now = bracket(PREFIX, ["a", "b"], [])
    (tie,) = now.rounds[0]
    legs = encounter(tie, 0, "b", margin=37, split=True)  # one leg each, b by 37 - 1
    decided = bracket(PREFIX, ["a", "b"], legs).rounds[0][0]
    assert decided.winner == "b" and decided.needed == 1
    assert decided.decided_by == "point margin +36 after a level score"
    assert decided.results[0].players == ("a", "b") and decided.results[0].margin == -36


def test_a_dead_level_tie_gets_extra_encounters_then_the_seed() -> None:
    seeds = ["top", "low"]
    legs: list[Leg] = []
    (tie,) = bracket(PREFIX, seeds, legs).rounds[0]
    legs += encounter(tie, 0, None)  # two draws: level on score and margin
    now = bracket(PREFIX, seeds, legs)
    (tie,) = now.rounds[0]
    assert tie.winner is None and tie.needed == 2 and tie.played == (0,)
    assert [index for _, index in now.to_play()] == [1]
    # the extra encounter decides it
    extra = bracket(PREFIX, seeds, legs + encounter(tie, 1, "low")).rounds[0][0]
    assert extra.winner == "low" and extra.decided_by == "score 3-1 after 1 extra encounter"
    # level through every extra encounter: the better seed goes through
    for index in range(1, 1 + MAX_EXTRA_ENCOUNTERS):
        legs += encounter(tie, index, None)
    final = bracket(PREFIX, seeds, legs)
    (tie,) = final.rounds[0]
    assert tie.winner == "top" and final.champion == "top"
    assert tie.decided_by == f"seed (level after {1 + MAX_EXTRA_ENCOUNTERS} encounters)"
    assert tie.needed == 1 + MAX_EXTRA_ENCOUNTERS and len(tie.results) == tie.needed
    assert final.to_play() == ()


def test_several_encounters_per_tie_and_out_of_order_results() -> None:
    seeds = ["a", "b"]
    (tie,) = bracket(PREFIX, seeds, [], 3).rounds[0]
    legs = encounter(tie, 2, "a")  # the third landed first
    now = bracket(PREFIX, seeds, legs, 3)
    assert [index for _, index in now.to_play()] == [0, 1]
    legs += encounter(tie, 0, "b") + encounter(tie, 1, "b", split=True)
    (tie,) = bracket(PREFIX, seeds, legs, 3).rounds[0]
    # 3-3 on score; a +20, -20 and -9 on points
    assert tie.winner == "b" and tie.decided_by == "point margin +9 after a level score"
    scores = [r.score for r in tie.results]
    assert tie.played == (0, 1, 2) and scores == [0.0, 1.0, 2.0]


def test_legs_that_are_not_the_ties_are_ignored() -> None:
    seeds = ["a", "b", "c", "d"]
    now = bracket(PREFIX, seeds, [])
    tie = now.rounds[0][0]
    stranger = [Leg(encounter_id(PREFIX, 0, 0, 0), 0, ("x", "y"), 0, (1, 0), False),
                Leg("other-ladder-e", 0, ("a", "d"), 0, (1, 0), False)]
    assert bracket(PREFIX, seeds, stranger) == now
    assert tie.players == ("a", "d")


def test_encounter_ids_are_stable() -> None:
    assert encounter_id("cup", 1, 2, 3) == "cup-k01-s002-e03"


@pytest.mark.parametrize(("seeds", "per_tie", "message"), [
    (["solo"], 1, "at least two"),
    ([], 1, "at least two"),
    (["a", "b", "a"], 1, "twice"),
    (["a", "b"], 0, "at least one encounter"),
])
def test_bad_brackets_are_refused(seeds: list[str], per_tie: int, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        bracket(PREFIX, seeds, [], per_tie)
