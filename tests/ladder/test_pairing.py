"""Information-driven pairing (pure): placement, fairness, information, the back-to-back rule,
determinism and separation."""

from __future__ import annotations

import itertools
import random
from collections.abc import Sequence

import pytest

from arena.ladder.schedules import pairing
from arena.ladder.schedules.pairing import PairingInput, choose, separation
from arena.stats.encounters import Leg

pytestmark = pytest.mark.unit

STRENGTH = {"ace": 600.0, "good": 300.0, "fair": 0.0, "fair2": -10.0, "weak": -400.0,
            "dud": -800.0}


class Ladder:
    """A simulated ladder: duplicate encounters drawn from known strengths."""

    def __init__(self, strength: dict[str, float], seed: int = 1) -> None:
        self.strength = strength
        self.rng = random.Random(seed)
        self.legs: list[Leg] = []
        self.pairs: list[tuple[str, str]] = []

    def play(self, pair: tuple[str, str]) -> None:
        eid = f"e{len(self.pairs)}"
        luck = self.rng.gauss(0, 100)
        for number, (x, y) in enumerate((pair, (pair[1], pair[0]))):
            edge = self.strength[x] - self.strength[y] + luck
            won = 0 if self.rng.random() < 1 / (1 + 10 ** (-edge / 400)) else 1
            self.legs.append(Leg(eid, number, (x, y), won, (9, 3) if won == 0 else (3, 9),
                                 False, float(len(self.pairs))))
        self.pairs.append(pair)

    def choose(self, players: Sequence[str], **kwargs: object) -> pairing.Choice:
        choice = choose(PairingInput(tuple(players), tuple(self.legs), **kwargs))  # type: ignore[arg-type]
        assert choice is not None
        return choice


def fresh_caches() -> None:
    """Forget what the module remembered (a restarted ladder)."""
    pairing._LAST.clear()
    pairing._cached_fit.cache_clear()
    pairing._cached_view.cache_clear()


# --- fairness --------------------------------------------------------------------------------
@pytest.mark.integration
@pytest.mark.parametrize(("k", "concurrency"), [(0, 1), (0, 3), (7, 1), (5, 2)])
def test_fairness_is_never_violated_in_a_long_run(k: int, concurrency: int) -> None:
    """A field with two clear outsiders (the information rule would never pick them): every
    player still plays in every window of K encounters handed out."""
    players = list(STRENGTH)
    ladder = Ladder(STRENGTH, seed=k + concurrency)
    window = k or 2 * len(players)
    handed: list[tuple[str, str]] = []
    rules: set[str] = set()
    while len(handed) < 400:
        flying: list[tuple[str, str]] = []
        for _ in range(concurrency):
            choice = ladder.choose(players, in_flight=tuple(flying), fairness_k=k)
            assert frozenset(choice.pair) not in {frozenset(p) for p in flying}
            flying.append(choice.pair)
            handed.append(choice.pair)
            rules.add(choice.rule)
        for pair in flying:
            ladder.play(pair)
    for start in range(len(handed) - window + 1):
        seen = {p for pair in handed[start:start + window] for p in pair}
        assert seen == set(players), (start, set(players) - seen)
    assert rules == {"information", "fairness"}
    counts = {p: sum(p in pair for pair in handed) for p in players}
    assert min(counts.values()) >= len(handed) // window


def test_fairness_reason_names_the_waiting_player() -> None:
    ladder = Ladder(STRENGTH)
    players = list(STRENGTH)
    reasons = []
    for _ in range(60):
        choice = ladder.choose(players, fairness_k=6)
        ladder.play(choice.pair)
        if choice.rule == "fairness":
            reasons.append((choice.pair, choice.reason))
    assert reasons
    for pair, reason in reasons:
        assert reason.startswith("fairness: ") and reason.endswith(" encounters")
        assert reason.split()[1] in pair and " has waited " in reason


# --- information ------------------------------------------------------------------------------
def test_information_goes_to_the_pair_whose_order_is_unsure() -> None:
    strength = {"ace": 600.0, "fair": 0.0, "fair2": -10.0, "dud": -600.0}
    ladder = Ladder(strength, seed=4)
    players = list(strength)
    for pair in itertools.combinations(players, 2):  # a round robin, four times
        for _ in range(4):
            ladder.play(pair)
    picks = []
    for _ in range(10):
        choice = ladder.choose(players, fairness_k=100)
        picks.append(frozenset(choice.pair))
        ladder.play(choice.pair)
    assert picks.count(frozenset(("fair", "fair2"))) >= 5
    unsure = next(c for c in [ladder.choose(players, fairness_k=100)])
    assert unsure.rule == "information"
    assert " vs " in unsure.reason and "sure" in unsure.reason


def test_a_new_player_without_games_is_rated_and_paired() -> None:
    ladder = Ladder(STRENGTH)
    for _ in range(10):
        ladder.play(("ace", "dud"))
    choice = ladder.choose(["ace", "dud", "fresh"])
    assert "fresh" in choice.pair
    sep = separation(["ace", "dud", "fresh"], ladder.legs)
    assert set(sep.order) == {"ace", "dud", "fresh"} and len(sep.adjacent) == 2


# --- placement --------------------------------------------------------------------------------
def test_placement_meets_opponents_spread_over_the_standings() -> None:
    strength = {f"b{k}": 400.0 - 100.0 * k for k in range(8)}
    ladder = Ladder({**strength, "new@2": 0.0}, seed=2)
    rated = list(strength)
    for pair in itertools.combinations(rated, 2):
        for _ in range(3):
            ladder.play(pair)
    met, expected = [], []
    for left in (4, 3, 2, 1):
        order = [p for p in separation([*rated, "new@2"], ladder.legs).order if p != "new@2"]
        choice = ladder.choose([*rated, "new@2"], placement={"new@2": left}, placement_total=4)
        assert choice.rule == "placement" and "new@2" in choice.pair
        other = choice.pair[1] if choice.pair[0] == "new@2" else choice.pair[0]
        met.append(other)
        k = 4 - left
        rank = int((k + 0.5) * 8 / 4)
        assert choice.reason == f"placement {k + 1}/4: new@2 vs {other} (rank {rank + 1} of 8)"
        expected.append(order[rank])
        ladder.play(choice.pair)
    assert met == expected
    assert [int((k + 0.5) * 8 / 4) for k in range(4)] == [1, 3, 5, 7]


def test_new_players_place_in_the_order_they_arrived_and_skip_busy_pairs() -> None:
    ladder = Ladder({"a": 100.0, "b": 0.0, "c": -100.0, "n1": 0.0, "n2": 0.0})
    for pair in (("a", "b"), ("b", "c"), ("a", "c")) * 3:
        ladder.play(pair)
    players = ["a", "b", "c", "n1", "n2"]
    placement = {"n2": 2, "n1": 2}
    first = ladder.choose(players, placement=placement, placement_total=2)
    assert "n1" in first.pair and first.rule == "placement"
    # n1's opponent at that rank is busy: the nearest free rank instead
    second = ladder.choose(players, placement=placement, placement_total=2,
                           in_flight=(first.pair,))
    assert "n1" in second.pair and set(second.pair) != set(first.pair)
    # every pair of n1 in flight: n2 places
    busy = tuple(("n1", p) for p in ("a", "b", "c", "n2"))
    third = ladder.choose(players, placement=placement, placement_total=2, in_flight=busy)
    assert "n2" in third.pair and "n1" not in third.pair


# --- the back-to-back rule, in flight, seats ----------------------------------------------------
def test_no_pair_twice_in_a_row_while_another_is_open() -> None:
    strength = {"x": 0.0, "y": 0.0, "far": -2000.0}
    ladder = Ladder(strength, seed=9)
    players = list(strength)
    for _ in range(30):
        ladder.play(("x", "far"))
        ladder.play(("y", "far"))
    last = None
    for _ in range(20):
        choice = ladder.choose(players, fairness_k=100)
        assert frozenset(choice.pair) != last
        last = frozenset(choice.pair)
        ladder.play(choice.pair)
    two = Ladder({"x": 0.0, "y": 0.0})
    two.play(("x", "y"))
    assert set(two.choose(["x", "y"]).pair) == {"x", "y"}  # the only pair there is


def test_pairs_in_flight_are_never_chosen() -> None:
    ladder = Ladder(STRENGTH)
    players = ["ace", "good", "fair"]
    flying = (("ace", "good"), ("fair", "ace"))
    choice = ladder.choose(players, in_flight=flying)
    assert set(choice.pair) == {"good", "fair"}
    assert choose(PairingInput(tuple(players), (), in_flight=(*flying, ("good", "fair")))) is None
    assert choose(PairingInput(("ace",), ())) is None
    assert choose(PairingInput((), ())) is None


def test_seats_go_to_whoever_had_seat_0_less() -> None:
    ladder = Ladder({"a": 0.0, "b": 0.0})
    firsts = []
    for _ in range(8):
        choice = ladder.choose(["a", "b"])
        firsts.append(choice.pair[0])
        ladder.play(choice.pair)
    assert firsts.count("a") == firsts.count("b") == 4


# --- determinism ------------------------------------------------------------------------------
def test_choices_are_a_function_of_the_input_alone() -> None:
    """The incremental cache gives what a restarted ladder computes from the same store (also
    from equal legs that are other objects, and after another ladder's call in between)."""

    def run(restart_every: int) -> list[pairing.Choice]:
        fresh_caches()
        ladder = Ladder(STRENGTH, seed=11)
        players = tuple(STRENGTH)
        choices = []
        for step in range(90):
            legs = tuple(ladder.legs)
            if restart_every and step % restart_every == 0:
                fresh_caches()
                legs = tuple(Leg(*vars(leg).values()) for leg in legs)  # equal, not the same
            if restart_every == 5 and step % 5 == 2:
                choose(PairingInput(("p", "q"), ()))  # someone else's ladder in between
            flying = tuple(ladder.pairs[-2:]) if step % 3 == 0 else ()
            choice = choose(PairingInput(players, legs, in_flight=flying,
                                         placement={"weak": 1} if step == 50 else {}))
            assert choice is not None
            choices.append(choice)
            ladder.play(choice.pair)
        return choices

    first = run(0)
    assert run(1) == first
    assert run(5) == first
    assert len({c.rule for c in first}) == 3


def test_ties_break_by_the_players_order() -> None:
    choice = choose(PairingInput(("c", "a", "b"), ()))
    assert choice is not None and set(choice.pair) == {"c", "a"}


# --- separation -------------------------------------------------------------------------------
def test_separation_of_a_clear_field() -> None:
    ladder = Ladder({"strong": 800.0, "mid": 0.0, "weak": -800.0}, seed=5)
    for pair in itertools.combinations(("strong", "mid", "weak"), 2):
        for _ in range(20):
            ladder.play(pair)
    sep = separation(["weak", "mid", "strong"], ladder.legs)
    assert sep.order == ("strong", "mid", "weak")
    assert [(a, b) for a, b, _ in sep.adjacent] == [("strong", "mid"), ("mid", "weak")]
    assert all(p > 0.99 for _, _, p in sep.adjacent)
    assert sep.all_separated() and sep.separated(0.95) == 2


def test_separation_of_a_level_field() -> None:
    legs = []
    for e in range(40):  # mirror bots: each deal's seat wins both legs
        winner = e % 2
        legs += [Leg(f"m{e}", 0, ("x", "y"), winner, (1, 0), False),
                 Leg(f"m{e}", 1, ("y", "x"), winner, (1, 0), False)]
    sep = separation(["x", "y"], legs)
    ((_, _, sure),) = sep.adjacent
    assert sure == pytest.approx(0.5)
    assert not sep.all_separated() and sep.separated(0.5) == 1


def test_void_and_self_legs_count_for_nothing() -> None:
    """A leg the arena voided, or a corrupt one of a player against itself, does not move the
    ratings and cannot crash the choice."""
    legs = [Leg("v", 0, ("a", "b"), 0, (9, 0), True), Leg("s", 0, ("a", "a"), 0, (1, 0), False)]
    sep = separation(["a", "b"], legs)
    assert sep.adjacent[0][2] == pytest.approx(0.5)
    assert choose(PairingInput(("a", "b"), tuple(legs))) is not None


def test_a_prior_of_zero_still_pairs() -> None:
    ladder = Ladder({"a": 1000.0, "b": 0.0, "c": 0.0})
    for _ in range(5):
        ladder.play(("a", "b"))
    choice = ladder.choose(["a", "b", "c"], prior=0.0)
    assert choice.pair
    assert len(separation(["a", "b", "c"], ladder.legs, prior=0.0).adjacent) == 2


def test_reasons_are_one_line() -> None:
    ladder = Ladder({"x@1": 0.0, "y@2+3f2a9c1b": 50.0, "z@abcdef12": -50.0})
    for _ in range(30):
        choice = ladder.choose(list(ladder.strength), placement={"z@abcdef12": 1})
        assert "\n" not in choice.reason and choice.reason
        assert choice.rule in ("placement", "fairness", "information")
        ladder.play(choice.pair)
