"""The schedule: duplicate pairs, deterministic ids and seeds, round robin and gauntlet."""

from __future__ import annotations

from collections import Counter

import pytest

from arena.ladder.schedules.schedule import GAUNTLET, build_schedule, pairings

pytestmark = pytest.mark.unit

BOTS = ["bots/a", "bots/b", "bots/c", "bots/d", "bots/e"]


def test_round_robin_meets_every_pair_once_per_cycle() -> None:
    for n in range(2, 8):
        got = pairings(n)
        assert Counter(frozenset(p) for p in got) == Counter(
            frozenset((i, j)) for i in range(n) for j in range(i + 1, n)
        )


def test_duplicate_encounters_share_the_seed_and_swap_seats() -> None:
    schedule = build_schedule("demo", BOTS, cycles=3)
    assert len(schedule) == 3 * 10
    for enc in schedule:
        first, second = enc.matches
        assert first.seed == second.seed == enc.seed
        assert second.seats == (first.seats[1], first.seats[0])
        assert (first.leg, second.leg) == (0, 1)
        assert {first.encounter_id, second.encounter_id} == {enc.encounter_id}
    seeds = [enc.seed for enc in schedule]
    assert len(set(seeds)) == len(seeds)  # a fresh deal per encounter
    ids = [m.match_id for enc in schedule for m in enc.matches]
    assert len(set(ids)) == len(ids)


def test_ids_and_seeds_are_deterministic() -> None:
    one = build_schedule("demo", BOTS, cycles=2, seed=5)
    assert one == build_schedule("demo", BOTS, cycles=2, seed=5)
    assert [e.seed for e in one] != [e.seed for e in build_schedule("demo", BOTS, cycles=2)]
    other = build_schedule("other", BOTS, cycles=2, seed=5)
    assert not {m.match_id for e in one for m in e.matches} & {
        m.match_id for e in other for m in e.matches
    }


def test_more_cycles_extend_without_renaming() -> None:
    short = build_schedule("demo", BOTS, cycles=2)
    long = build_schedule("demo", BOTS, cycles=4)
    assert long[: len(short)] == short


def test_adding_an_entrant_keeps_existing_pairings() -> None:
    before = {(e.cycle, frozenset(BOTS[i] for i in e.pairing)): e for e in
              build_schedule("demo", BOTS[:3], cycles=2)}
    after = {(e.cycle, frozenset([*BOTS[:3], "bots/new"][i] for i in e.pairing)): e
             for e in build_schedule("demo", [*BOTS[:3], "bots/new"], cycles=2)}
    for key, enc in before.items():
        assert after[key].encounter_id == enc.encounter_id
        assert after[key].seed == enc.seed


def test_single_matches_alternate_seats_when_not_duplicate() -> None:
    schedule = build_schedule("demo", BOTS[:2], cycles=4, duplicate=False)
    assert [len(e.matches) for e in schedule] == [1, 1, 1, 1]
    seat0 = [e.matches[0].seats[0] for e in schedule]
    assert seat0.count(0) == seat0.count(1) == 2


def test_gauntlet_pairs_the_challenger_with_the_field() -> None:
    schedule = build_schedule("g", BOTS, cycles=2, kind=GAUNTLET, challenger=2)
    assert len(schedule) == 8
    assert all(2 in e.pairing for e in schedule)
    with pytest.raises(ValueError):
        build_schedule("g", BOTS, cycles=1, kind=GAUNTLET)
    with pytest.raises(ValueError):
        build_schedule("g", ["x", "x"], cycles=1)


def test_deal_seeds_depend_on_the_private_secret() -> None:
    """Match ids name the ladder, cycle and pairing; without the secret the deals stay unknown."""
    from arena.ladder.schedules.schedule import build_schedule

    public = build_schedule("demo", ["a", "b"], cycles=2, seed=1)
    one = build_schedule("demo", ["a", "b"], cycles=2, seed=1, secret="s1")
    two = build_schedule("demo", ["a", "b"], cycles=2, seed=1, secret="s2")
    assert [e.encounter_id for e in one] == [e.encounter_id for e in public]
    assert len({e.seed for e in one} & {e.seed for e in public}) == 0
    assert len({e.seed for e in one} & {e.seed for e in two}) == 0
    assert [e.seed for e in one] == [
        e.seed for e in build_schedule("demo", ["a", "b"], cycles=2, seed=1, secret="s1")
    ]
