"""The final's tie rule (arena.stats.places) on constructed cases: versions whose 95% intervals
overlap share their places, or a stated tie-break orders them; a version clear of every other
has one place."""

from __future__ import annotations

import pytest

from arena.stats.places import BY_RATING, NO_TIE_BREAK, Rated, places

pytestmark = pytest.mark.unit


def _shown(rows: list) -> list[tuple[str, str, str]]:
    return [(p.player, p.shown, p.decided_by) for p in rows]


def test_overlapping_intervals_share_their_places_and_a_clear_one_has_its_own() -> None:
    ratings = [Rated("c@s3", 1400.0, 30.0), Rated("a@s1", 1600.0, 50.0),
               Rated("b@s2", 1560.0, 50.0)]
    rows = places(ratings, NO_TIE_BREAK)
    assert _shown(rows) == [("a@s1", "1-2", ""), ("b@s2", "1-2", ""), ("c@s3", "3", "")]
    assert rows[0].tied_with == ("b@s2",) and rows[2].tied_with == ()


def test_a_chain_of_overlaps_widens_the_middle_ones_places() -> None:
    # a overlaps b, b overlaps c, a is surely ahead of c: a 1-2, b 1-3, c 2-3
    ratings = [Rated("a", 1600.0, 40.0), Rated("b", 1550.0, 40.0), Rated("c", 1500.0, 40.0)]
    assert _shown(places(ratings)) == [("a", "1-2", ""), ("b", "1-3", ""), ("c", "2-3", "")]


def test_the_rating_tie_break_gives_one_place_each_and_says_it_decided() -> None:
    ratings = [Rated("b", 1560.0, 50.0), Rated("a", 1600.0, 50.0), Rated("c", 1400.0, 30.0)]
    assert _shown(places(ratings, BY_RATING)) == [("a", "1", "rating"), ("b", "2", "rating"),
                                                  ("c", "3", "")]


def test_equal_estimates_are_listed_by_name_whatever_the_input_order() -> None:
    one = places([Rated("z", 1500.0, 10.0), Rated("y", 1500.0, 10.0)], BY_RATING)
    two = places([Rated("y", 1500.0, 10.0), Rated("z", 1500.0, 10.0)], BY_RATING)
    assert _shown(one) == _shown(two) == [("y", "1", "rating"), ("z", "2", "rating")]
    assert [p.shown for p in places([Rated("z", 1500.0, 10.0), Rated("y", 1500.0, 10.0)])] \
        == ["1-2", "1-2"]


def test_an_unknown_tie_break_or_a_player_twice_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown tie-break"):
        places([Rated("a", 1.0, 1.0)], "coin")
    with pytest.raises(ValueError, match="twice"):
        places([Rated("a", 1.0, 1.0), Rated("a", 2.0, 1.0)])
