"""Swiss pairings, byes and tie-breaks as a pure function of the recorded legs."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest

from arena.ladder.schedules.swiss import SwissState, encounter_id, max_rounds, swiss_state
from arena.stats.encounters import Leg

pytestmark = pytest.mark.unit

PREFIX = "open"
Outcome = Callable[[str, str], float]
"""The first player's round result against the second: 1, 0.5 or 0."""


def legs_of(round_: int, first: str, second: str, result: float) -> list[Leg]:
    """A duplicate encounter with ``first``'s round result: 1 (it wins both legs), 0.5 (one
    each), 0."""
    eid = encounter_id(PREFIX, round_, first, second)
    winners = {1.0: (first, first), 0.5: (first, second), 0.0: (second, second)}[result]
    seats = ((first, second), (second, first))
    return [Leg(eid, k, pair, pair.index(w), (1, 0) if pair.index(w) == 0 else (0, 1), False)
            for k, (pair, w) in enumerate(zip(seats, winners, strict=True))]


def play(players: list[str], rounds: int, outcome: Outcome,
         legs: list[Leg] | None = None) -> tuple[SwissState, list[Leg]]:
    """Play the Swiss round by round as a runner would."""
    legs = list(legs or [])
    while True:
        state = swiss_state(PREFIX, players, rounds, legs)
        if state.finished:
            return state, legs
        for a, b in state.to_play():
            legs += legs_of(state.current, a, b, outcome(a, b))


def random_results(seed: int) -> Outcome:
    """Wins, draws and losses at random."""
    rng = random.Random(seed)
    return lambda a, b: rng.choice([0.0, 0.5, 1.0])


def by_seed(players: list[str]) -> Outcome:
    """The earlier entrant wins."""
    return lambda a, b: 1.0 if players.index(a) < players.index(b) else 0.0


def test_round_one_is_top_half_against_bottom_half() -> None:
    players = [f"p{k}" for k in range(1, 9)]
    state = swiss_state(PREFIX, players, 3, [])
    assert state.current == 0 and not state.finished
    first = state.rounds[0]
    assert first.pairings == (("p1", "p5"), ("p2", "p6"), ("p3", "p7"), ("p4", "p8"))
    assert first.bye is None and first.results == (None,) * 4
    assert state.to_play() == first.pairings
    assert state.groups == ((0.0, tuple(players)),)


def test_winners_meet_winners() -> None:
    players = [f"p{k}" for k in range(1, 9)]
    legs: list[Leg] = []
    for a, b in swiss_state(PREFIX, players, 3, []).to_play():
        legs += legs_of(0, a, b, 1.0)
    state = swiss_state(PREFIX, players, 3, legs)
    assert state.current == 1
    assert state.groups == ((1.0, ("p1", "p2", "p3", "p4")), (0.0, ("p5", "p6", "p7", "p8")))
    assert state.rounds[1].pairings == (("p1", "p3"), ("p2", "p4"), ("p5", "p7"), ("p6", "p8"))


def test_an_odd_field_gives_the_bye_to_the_lowest_who_had_none() -> None:
    players = [f"p{k}" for k in range(1, 8)]
    state, _ = play(players, max_rounds(7), by_seed(players))
    byes = [r.bye for r in state.rounds]
    assert len(set(byes)) == len(byes) == 7 and None not in byes
    assert byes[0] == "p7"  # the lowest-ranked at the start
    # by_seed: the entrant order is the ranking, so the byes go up from the bottom
    assert byes == ["p7", "p6", "p5", "p4", "p3", "p2", "p1"]
    rows = {row.player: row for row in state.table}
    assert all(row.byes == 1 for row in rows.values())
    # a bye is worth a win and is not an opponent
    assert all(len(row.opponents) == 6 for row in rows.values())
    assert rows["p1"].score == 6 + 1


def test_bye_in_a_three_player_field_and_its_worth() -> None:
    players = ["a", "b", "c"]
    state = swiss_state(PREFIX, players, 3, [])
    assert state.rounds[0].pairings == (("a", "b"),) and state.rounds[0].bye == "c"
    state, _ = play(players, 3, by_seed(players))
    assert [r.bye for r in state.rounds] == ["c", "b", "a"]
    assert [(row.player, row.score) for row in state.table] == [("a", 3.0), ("b", 2.0),
                                                                 ("c", 1.0)]


@pytest.mark.integration
@pytest.mark.parametrize("n", range(2, 11))
def test_no_rematch_and_one_bye_each_up_to_the_most_rounds(n: int) -> None:
    players = [f"p{k}" for k in range(n)]
    for seed in range(4):
        state, _ = play(players, max_rounds(n), random_results(seed))
        met: set[frozenset[str]] = set()
        for r in state.rounds:
            for a, b in r.pairings:
                assert frozenset((a, b)) not in met, (n, seed, r.index, a, b)
                met.add(frozenset((a, b)))
            seen = [p for pair in r.pairings for p in pair] + ([r.bye] if r.bye else [])
            assert sorted(seen) == sorted(players)  # everyone plays once (or has the bye)
        byes = [r.bye for r in state.rounds if r.bye]
        assert len(byes) == len(set(byes)) == (max_rounds(n) if n % 2 else 0)
        assert len(met) == n * (n - 1) // 2  # as many rounds as possible: a full round robin


def test_buchholz_and_sonneborn_berger_on_a_worked_example() -> None:
    players = ["A", "B", "C", "D"]
    results = {(0, "A", "C"): 1.0, (0, "B", "D"): 0.5,
               (1, "A", "B"): 0.0, (1, "D", "C"): 1.0,
               (2, "B", "C"): 1.0, (2, "D", "A"): 0.5}
    legs: list[Leg] = []
    for index in range(3):
        state = swiss_state(PREFIX, players, 3, legs)
        pairs = state.rounds[index].pairings
        assert set(pairs) == {k[1:] for k in results if k[0] == index}
        for a, b in pairs:
            legs += legs_of(index, a, b, results[(index, a, b)])
    state = swiss_state(PREFIX, players, 3, legs)
    assert state.finished and state.to_play() == ()
    table = {row.player: (row.rank, row.score, row.buchholz, row.sonneborn_berger)
             for row in state.table}
    # scores A 1.5, B 2.5, C 0, D 2; Buchholz = the opponents' scores; SB = beaten ones' scores
    # plus half the drawn ones'
    assert table == {"B": (1, 2.5, 3.5, 2.5), "D": (2, 2.0, 4.0, 2.0),
                     "A": (3, 1.5, 4.5, 1.0), "C": (4, 0.0, 6.0, 0.0)}
    assert state.rounds[2].results == (1.0, 0.5)
    assert dict(state.groups) == {2.5: ("B",), 2.0: ("D",), 1.5: ("A",), 0.0: ("C",)}


def test_buchholz_breaks_a_level_score() -> None:
    players = ["A", "B", "C", "D"]
    legs = legs_of(0, "A", "C", 1.0) + legs_of(0, "B", "D", 0.0)
    state = swiss_state(PREFIX, players, 2, legs)
    assert state.rounds[1].pairings == (("A", "D"), ("B", "C"))
    legs += legs_of(1, "A", "D", 0.5) + legs_of(1, "B", "C", 1.0)
    table = swiss_state(PREFIX, players, 2, legs).table
    # A and D both 1.5; D met B (1) and A (1.5), A met C (0) and D (1.5)
    assert [(r.player, r.score, r.buchholz) for r in table] == [
        ("D", 1.5, 2.5), ("A", 1.5, 1.5), ("B", 1.0, 1.5), ("C", 0.0, 2.5)]


def test_a_rounds_pairing_depends_only_on_the_results_before_it() -> None:
    players = [f"p{k}" for k in range(9)]
    rng = random.Random(3)
    outcomes: dict[tuple[str, str], float] = {}

    def outcome(a: str, b: str) -> float:
        return outcomes.setdefault((a, b), rng.choice([0.0, 0.5, 1.0]))

    full, legs = play(players, 5, outcome)
    for cut in range(len(legs) + 1):  # any prefix of the record, in any order
        partial = swiss_state(PREFIX, players, 5, list(reversed(legs[:cut])))
        for mine, theirs in zip(partial.rounds, full.rounds, strict=False):
            assert (mine.pairings, mine.bye) == (theirs.pairings, theirs.bye)
        for index in range(partial.current):
            assert partial.rounds[index] == full.rounds[index]


def test_only_recorded_encounters_of_the_pairing_count() -> None:
    players = ["a", "b", "c", "d"]
    state = swiss_state(PREFIX, players, 2, [])
    (first, second) = state.rounds[0].pairings
    # a stranger's legs under a pairing's id, and another round's id: ignored
    forged = [Leg(encounter_id(PREFIX, 0, *first), 0, ("x", "y"), 0, (1, 0), False)]
    forged += legs_of(1, *first, 1.0)
    again = swiss_state(PREFIX, players, 2, forged)
    assert again == state
    half = swiss_state(PREFIX, players, 2, legs_of(0, *first, 0.0))
    assert half.current == 0 and half.to_play() == (second,)
    assert half.rounds[0].results == (0.0, None)


def test_encounter_ids() -> None:
    assert encounter_id(PREFIX, 3, "a", "b") == encounter_id(PREFIX, 3, "b", "a")
    assert encounter_id(PREFIX, 3, "a", "b") != encounter_id(PREFIX, 4, "a", "b")
    assert encounter_id(PREFIX, 3, "a", "b") != encounter_id(PREFIX, 3, "a", "c")
    assert encounter_id(PREFIX, 3, "a", "b").startswith("open-sw03-")


def test_max_rounds() -> None:
    assert [max_rounds(n) for n in range(2, 8)] == [1, 3, 3, 5, 5, 7]


@pytest.mark.parametrize(("players", "rounds", "message"), [
    (["a"], 1, "at least two"),
    (["a", "b", "a"], 1, "twice"),
    (["a", "b", "c", "d"], 4, "1 to 3 rounds, not 4"),
    (["a", "b", "c"], 4, "1 to 3 rounds, not 4"),
    (["a", "b"], 0, "not 0"),
])
def test_bad_swiss_is_refused(players: list[str], rounds: int, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        swiss_state(PREFIX, players, rounds, [])
