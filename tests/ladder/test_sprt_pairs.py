"""The pairs of an SPRT test: ids, attempts and seeds; which legs count, in any order."""

from __future__ import annotations

import random
from dataclasses import dataclass

import pytest

from arena.ladder.schedules.schedule import encounter_seed, pairing_key
from arena.sprt.plan import PairPlan
from arena.stats.sprt import Pentanomial
from arena.stats.sprt_pairs import PairBook, candidate_score

pytestmark = pytest.mark.unit

PLAN = PairPlan.of("My Test", ("../bots/v2", "../bots/v1"), seed=3, secret="s3cret")


@dataclass(frozen=True)
class Leg:
    """A recorded leg as the store reads it back (the fields the book reads)."""

    cycle: int
    leg: int
    winner: int | None
    void: bool = False


def test_legs_of_a_pair_share_the_deal_with_the_seats_swapped() -> None:
    first, second = PLAN.leg(7, 0), PLAN.leg(7, 1)
    assert (first.match_id, second.match_id) == ("my-test-p00007-l0", "my-test-p00007-l1")
    assert first.encounter_id == second.encounter_id == "my-test-p00007"
    assert (first.cycle, first.leg, second.cycle, second.leg) == (7, 0, 7, 1)
    assert first.seats == (0, 1) and second.seats == (1, 0)
    assert first.seed == second.seed == encounter_seed(
        "My Test", 3, 7, pairing_key("../bots/v2", "../bots/v1"), "s3cret")


def test_a_replayed_attempt_has_a_new_id_and_the_same_seed() -> None:
    again = PLAN.leg(7, 1, attempt=2)
    assert again.match_id == "my-test-p00007-l1-r2"
    assert again.seed == PLAN.leg(7, 1).seed and again.seats == (1, 0)


def test_seeds_are_fresh_per_pair_and_secret() -> None:
    seeds = {PLAN.leg(pair, 0).seed for pair in range(200)}
    assert len(seeds) == 200
    other = PairPlan.of("My Test", ("../bots/v2", "../bots/v1"), seed=3, secret="other")
    assert all(other.leg(p, 0).seed != PLAN.leg(p, 0).seed for p in range(20))
    assert PairPlan.of("My Test", ("../bots/v2", "../bots/v1"), seed=3, secret="s3cret") == PLAN


def test_candidate_score_by_leg() -> None:
    # the candidate sits in seat 0 in leg 0 and in seat 1 in leg 1
    assert [candidate_score(0, w) for w in (0, None, 1)] == [1.0, 0.5, 0.0]
    assert [candidate_score(1, w) for w in (1, None, 0)] == [1.0, 0.5, 0.0]


def test_only_complete_pairs_count() -> None:
    book = PairBook()
    assert book.add(0, 0, 0) is None  # a lone leg: won
    assert book.counts == Pentanomial() and book.missing_legs() == [(0, 1)]
    assert book.add(0, 1, 1) == 4  # won both
    assert book.add(1, 1, 0) is None  # pair 1: the candidate lost its second leg
    assert book.add(2, 0, None) is None
    assert book.add(2, 1, None) == 2  # two draws
    assert book.counts == Pentanomial((0, 0, 1, 0, 1)) and book.draw_pairs == 1
    assert book.pairs_started == 3 and book.missing_legs() == [(1, 0)]
    assert book.add(1, 0, 1) == 0  # lost both
    assert book.counts == Pentanomial((1, 0, 1, 0, 1)) and book.missing_legs() == []


def test_a_forfeit_is_a_result_and_a_void_leg_is_played_again() -> None:
    book = PairBook()
    book.add(0, 0, 1)  # the candidate forfeited leg 0: the opponent's win, a loss
    assert book.add(0, 1, None, void=True) is None
    assert book.add(0, 1, None, void=True) is None
    assert book.attempts(0, 1) == 2 and book.missing_legs() == [(0, 1)]
    assert book.counts.pairs == 0
    assert book.add(0, 1, 0) == 0  # the third attempt: the baseline (seat 0 now) won
    assert book.counts == Pentanomial((1, 0, 0, 0, 0))


def test_a_leg_is_counted_once() -> None:
    book = PairBook()
    book.add(0, 0, 0)
    book.add(0, 1, 1)
    assert book.add(0, 1, 0) is None and book.add(0, 0, 1) is None
    assert book.counts == Pentanomial((0, 0, 0, 0, 1))


def test_a_pair_never_begun_is_missing_both_legs() -> None:
    # pair 0's legs were in flight when the run was killed; pair 1 finished a leg
    book = PairBook.of([Leg(1, 0, 0)])
    assert book.pairs_started == 2
    assert book.missing_legs() == [(0, 0), (0, 1), (1, 1)]


LEGS = [Leg(0, 0, 0), Leg(0, 1, 1), Leg(1, 0, 1), Leg(1, 1, None), Leg(2, 0, None, void=True),
        Leg(2, 0, 0), Leg(2, 1, 0), Leg(3, 1, 1), Leg(4, 0, None), Leg(4, 1, None)]


@pytest.mark.parametrize("shuffle", range(12))
def test_arrival_order_does_not_matter(shuffle: int) -> None:
    legs = list(LEGS)
    random.Random(shuffle).shuffle(legs)
    book = PairBook.of(legs)
    assert book.counts == Pentanomial((0, 1, 2, 0, 1))
    assert book.draw_pairs == 1 and book.attempts(2, 0) == 1
    assert book.missing_legs() == [(3, 0)]
