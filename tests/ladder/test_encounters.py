"""Encounters folded from their legs, and the keys of bot versions (pure)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from arena.ladder.versions import Version, VersionKeys, legs_of, match_versions
from arena.model import Termination
from arena.stats.encounters import Leg, fold
from tests.support.fakes import stored

pytestmark = pytest.mark.unit


def leg(encounter: str, number: int, players: tuple[str, str], winner: int | None,
        totals: tuple[int, int] = (0, 0), void: bool = False, at: float = 0.0) -> Leg:
    return Leg(encounter, number, players, winner, totals, void, at)


# --- fold -------------------------------------------------------------------------------------
def test_a_duplicate_pair_seen_from_the_first_legs_seat_0() -> None:
    (result,) = fold([leg("e", 0, ("a", "b"), 0, (30, 10), at=5.0),
                      leg("e", 1, ("b", "a"), 0, (25, 20), at=7.0)])
    assert result.players == ("a", "b")
    assert (result.legs, result.recorded) == (2, 2)
    assert result.score == 1.0 and result.opponent_score == 1.0  # a won leg 0, b leg 1
    assert result.margin == (30 - 10) + (20 - 25)
    assert result.score_of("b") == 1.0 and result.margin_of("b") == -15
    assert result.finished_at == 7.0
    with pytest.raises(ValueError, match="did not play"):
        result.score_of("c")


def test_the_lowest_leg_names_the_players_whatever_the_order_recorded() -> None:
    # leg 1 landed first (concurrency): the encounter is still seen from leg 0's seat 0
    (result,) = fold([leg("e", 1, ("b", "a"), 1, (3, 9)), leg("e", 0, ("a", "b"), None, (5, 5))])
    assert result.players == ("a", "b")
    assert result.score == 1.5 and result.margin == 6


def test_void_legs_count_for_nothing_and_order_is_first_recorded() -> None:
    results = fold([leg("x", 0, ("c", "d"), 0, (9, 1), void=True),
                    leg("y", 0, ("a", "b"), 1, (1, 2)),
                    leg("x", 1, ("d", "c"), None, (4, 4), void=True),
                    leg("y", 1, ("b", "a"), 0, (7, 0))])
    assert [r.encounter_id for r in results] == ["x", "y"]
    void = results[0]
    assert (void.legs, void.recorded, void.score, void.margin) == (0, 2, 0.0, 0)
    assert void.opponent_score == 0.0
    played = results[1]
    assert played.score == 0.0 and played.margin == -1 - 7


def test_fold_of_nothing() -> None:
    assert fold([]) == []


# --- version keys -----------------------------------------------------------------------------
def test_version_keys() -> None:
    v1 = Version("greedy", "1", "dir:sha256:3f2a9c1b77aa")
    keys = VersionKeys([v1, Version("strong", "", "sha256:abcdef0123456789")])
    assert keys.key(v1) == "greedy@1"
    assert keys.key(Version("strong", "", "sha256:abcdef0123456789")) == "strong@abcdef01"
    # a second identity under the same version (a directory edited without a new version)
    v1b = Version("greedy", "1", "dir:sha256:99887766aabb")
    keys.add(v1b)
    assert keys.key(v1) == "greedy@1+3f2a9c1b"
    assert keys.key(v1b) == "greedy@1+99887766"
    assert v1.short_identity == "3f2a9c1b"


def test_legs_by_name_and_by_version() -> None:
    first = replace(stored("m1", ("greedy", "random"), (40, 12), winner=0, encounter="e1"),
                    versions=("1", "3"), identities=("sha256:aa", "sha256:bb"))
    second = replace(stored("m2", ("random", "greedy"), (20, 20), encounter="e1", leg=1),
                     versions=("3", "2"), identities=("sha256:bb", "sha256:cc"))
    by_name = legs_of([first, second])
    assert [lg.players for lg in by_name] == [("greedy", "random"), ("random", "greedy")]
    assert by_name[0].encounter_id == "e1" and by_name[0].totals == (40, 12)
    assert (by_name[0].winner, by_name[1].winner) == (0, None)
    by_version = legs_of([first, second], by_version=True)
    assert [lg.players for lg in by_version] == [("greedy@1", "random@3"),
                                                 ("random@3", "greedy@2")]
    keys = match_versions([first, second])
    assert keys.key(Version("random", "3", "sha256:bb")) == "random@3"


def test_a_match_without_encounter_is_its_own_encounter() -> None:
    lone = stored("solo-1", ("a", "b"), (1, 2), winner=1)
    (only,) = legs_of([lone])
    assert only.encounter_id == "solo-1"
    assert not only.void and only.winner == 1


def test_a_void_match_is_a_void_leg() -> None:
    broken = stored("v-l0", ("a", "b"), (0, 0), termination=Termination.INTERNAL,
                    encounter="v")
    (only,) = legs_of([broken])
    assert only.void
    (result,) = fold([only])
    assert result.legs == 0 and result.recorded == 1
