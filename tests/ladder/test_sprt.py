"""The SPRT statistics: published vectors, independent brute-force references, hand-computed
estimates, symmetry, decisions at the bounds and the validation of bad input."""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from statistics import NormalDist

import pytest

from arena.errors import ConfigError
from arena.stats.sprt import (
    CELL_SCORES,
    EMPTY_CELL_PRIOR,
    NELO_PER_T,
    Decision,
    EloModel,
    Pentanomial,
    SprtParams,
    bounds,
    decide,
    elo_estimate,
    evaluate,
    expected_pairs,
    llr,
    llr_approx,
    llr_logistic,
    llr_normalized,
    logistic_score,
    pair_cell,
    pairing_variance,
)

pytestmark = pytest.mark.unit

# --- published vectors ----------------------------------------------------------------------------
# From fastchess (github.com/Disservin/fastchess), file app/tests/sprt_test.cpp, the test cases
# "normalized pentanomial 1/2" and "logistic pentanomial 1/2" (alpha = beta = 0.05, checked
# there to 1% relative). fastchess counts six cells (LL, LD, WL, DD, WD, WW) and adds WL and DD
# into the middle cell, e.g. Stats(365, 16618, 36029, 200, 16974, 390) is [365, 16618, 36229,
# 16974, 390] here.
FASTCHESS_VECTORS = [
    ((365, 16618, 36229, 16974, 390), EloModel.normalized, 0.0, 2.0, 2.25),
    ((127, 4883, 10712, 5150, 104), EloModel.normalized, -1.75, 0.25, 3.01),
    ((223, 9863, 21279, 10037, 246), EloModel.logistic, 0.5, 2.5, -3.07),
    ((871, 26175, 55983, 26678, 821), EloModel.logistic, 0.0, 2.0, -4.98),
]


@pytest.mark.parametrize(("counts", "model", "elo0", "elo1", "expected"), FASTCHESS_VECTORS)
def test_fastchess_vectors(counts: tuple[int, int, int, int, int], model: EloModel,
                           elo0: float, elo1: float, expected: float) -> None:
    value = llr(Pentanomial(counts), SprtParams(elo0, elo1, model=model))
    assert value == pytest.approx(expected, rel=0.01)


# --- independent references: maximize the constrained likelihood by brute force -------------------
def _regularized(counts: Sequence[int]) -> list[float]:
    raw = [float(n) if n > 0 else EMPTY_CELL_PRIOR for n in counts]
    return [n / sum(raw) for n in raw]


def _pattern_search(objective: Callable[[Sequence[float]], float],
                    start: Sequence[float]) -> float:
    """The maximum of a concave function of three variables: try all 26 neighbours on a grid
    of spacing h, move to the best, halve h when none is better."""
    point, best, h = list(start), objective(start), 0.05
    directions = [d for d in itertools.product((-1, 0, 1), repeat=3) if any(d)]
    while h > 1e-10:
        candidates = [[x + h * dx for x, dx in zip(point, d, strict=True)] for d in directions]
        value, candidate = max(((objective(c), c) for c in candidates), key=lambda vc: vc[0])
        if value > best:
            point, best = candidate, value
        else:
            h /= 2.0
    return best


def _loglik(weights: Sequence[float], probabilities: Sequence[float]) -> float:
    if min(probabilities) <= 0.0:
        return -math.inf
    return sum(w * math.log(p) for w, p in zip(weights, probabilities, strict=True))


def _max_loglik_with_score(weights: Sequence[float], score: float) -> float:
    """max Σ w log p over the five probabilities with mean ``score``: p1, p2, p3 free, p4 and
    p0 then fixed by the mean and the sum."""

    def objective(free: Sequence[float]) -> float:
        p1, p2, p3 = free
        p4 = score - 0.25 * p1 - 0.5 * p2 - 0.75 * p3
        return _loglik(weights, [1.0 - p1 - p2 - p3 - p4, p1, p2, p3, p4])

    return _pattern_search(objective, [0.2, 0.2, 0.2])


def _max_loglik_with_t(weights: Sequence[float], t_value: float,
                       start: Sequence[float]) -> float:
    """max Σ w log p with (mean − ½)/σ = t_value: p1, p2, p3 free, the split of the rest
    between p0 and p4 found by bisection on the t-value."""

    def t_of(p: Sequence[float]) -> float:
        mean = sum(pi * a for pi, a in zip(p, CELL_SCORES, strict=True))
        var = sum(pi * (a - mean) ** 2 for pi, a in zip(p, CELL_SCORES, strict=True))
        return (mean - 0.5) / math.sqrt(var)

    def objective(free: Sequence[float]) -> float:
        p1, p2, p3 = free
        rest = 1.0 - p1 - p2 - p3
        if min(p1, p2, p3, rest) <= 0.0:
            return -math.inf
        low, high = 0.0, rest
        if not t_of([rest, p1, p2, p3, 0.0]) < t_value < t_of([0.0, p1, p2, p3, rest]):
            return -math.inf
        for _ in range(80):
            mid = (low + high) / 2.0
            if t_of([rest - mid, p1, p2, p3, mid]) < t_value:
                low = mid
            else:
                high = mid
        return _loglik(weights, [rest - low, p1, p2, p3, low])

    return _pattern_search(objective, start)


WIDE = Pentanomial((2, 5, 20, 30, 43))


def test_exact_llr_for_wide_bounds_matches_brute_force_and_not_the_approximation() -> None:
    weights = _regularized(WIDE.counts)
    reference = WIDE.pairs * (_max_loglik_with_score(weights, logistic_score(100.0))
                              - _max_loglik_with_score(weights, logistic_score(0.0)))
    exact = llr_logistic(0.0, 100.0, WIDE)
    assert exact == pytest.approx(reference, rel=1e-6)
    assert exact == pytest.approx(21.858, abs=1e-3)
    # the quick approximation (fishtest's LLR_alt2) is twice the true value here
    approx = llr_approx(0.0, 100.0, WIDE)
    assert approx == pytest.approx(44.03, abs=0.01)
    assert approx / exact > 1.9


@pytest.mark.integration
@pytest.mark.parametrize(("counts", "nelo0", "nelo1", "start"), [
    # fastchess's "normalized pentanomial 3" (app/tests/sprt_test.cpp) checks 2.94 for these
    # counts; fishtest's LLRcalc algorithm and this brute force both give 2.095, a
    # difference that fastchess's looser root tolerance (1e-7 on θ) explains
    ((0, 0, 0, 0, 104), 0.0, 5.0, (0.2, 0.2, 0.2)),
    # far bounds, where fishtest's iteration from the uniform distribution finds no root
    ((2, 5, 20, 30, 43), 0.0, 400.0, (0.02, 0.05, 0.3)),
])
def test_exact_normalized_llr_matches_brute_force(counts: tuple[int, int, int, int, int],
                                                  nelo0: float, nelo1: float,
                                                  start: tuple[float, float, float]) -> None:
    weights = _regularized(counts)
    pairs = sum(counts) + EMPTY_CELL_PRIOR * counts.count(0)
    t0, t1 = (math.sqrt(2.0) * nelo / NELO_PER_T for nelo in (nelo0, nelo1))
    reference = pairs * (_max_loglik_with_t(weights, t1, start)
                         - _max_loglik_with_t(weights, t0, start))
    assert llr_normalized(nelo0, nelo1, Pentanomial(counts)) == pytest.approx(reference,
                                                                              rel=1e-6)


# --- symmetry -------------------------------------------------------------------------------------
@pytest.mark.parametrize("model", list(EloModel))
@pytest.mark.parametrize("counts", [(2, 5, 20, 30, 43), (127, 4883, 10712, 5150, 104),
                                    (0, 3, 0, 7, 1)])
def test_swapping_the_roles_mirrors_the_llr(model: EloModel,
                                            counts: tuple[int, int, int, int, int]) -> None:
    counts_ = Pentanomial(counts)
    value = llr(counts_, SprtParams(-1.0, 7.0, model=model))
    # the baseline's view: cells reversed, "at most −7 / at least +1" is H1 / H0 reversed
    mirrored = llr(counts_.mirrored(), SprtParams(-7.0, 1.0, model=model))
    assert mirrored == pytest.approx(-value, rel=1e-9)
    assert value != pytest.approx(0.0)


@pytest.mark.parametrize("model", list(EloModel))
def test_symmetric_results_against_symmetric_bounds_give_zero(model: EloModel) -> None:
    assert llr(Pentanomial((3, 9, 40, 9, 3)), SprtParams(-5.0, 5.0, model=model)) == \
        pytest.approx(0.0, abs=1e-9)


def test_more_wins_mean_a_higher_llr() -> None:
    params = SprtParams(0.0, 10.0)
    worse, better = Pentanomial((10, 20, 40, 20, 10)), Pentanomial((10, 20, 40, 20, 20))
    assert llr(better, params) > llr(worse, params)


# --- bounds and decisions -------------------------------------------------------------------------
def test_bounds_are_walds() -> None:
    lower, upper = bounds(0.05, 0.05)
    assert lower == pytest.approx(math.log(0.05 / 0.95)) == pytest.approx(-2.944, abs=1e-3)
    assert upper == pytest.approx(-lower)
    lower, upper = bounds(0.01, 0.1)
    assert lower == pytest.approx(math.log(0.1 / 0.99))
    assert upper == pytest.approx(math.log(0.9 / 0.01))
    assert SprtParams(0.0, 5.0, alpha=0.01, beta=0.1).bounds == bounds(0.01, 0.1)


def test_decisions_at_the_bounds() -> None:
    lower, upper = bounds(0.05, 0.05)
    assert decide(upper, (lower, upper)) is Decision.H1
    assert decide(lower, (lower, upper)) is Decision.H0
    assert decide(math.nextafter(upper, 0.0), (lower, upper)) is Decision.CONTINUE
    assert decide(math.nextafter(lower, 0.0), (lower, upper)) is Decision.CONTINUE
    assert decide(100.0, (lower, upper)) is Decision.H1
    assert decide(-100.0, (lower, upper)) is Decision.H0


def test_evaluate_decides_from_the_llr() -> None:
    params = SprtParams(0.0, 100.0)
    assert evaluate(WIDE, params).decision is Decision.H1
    assert evaluate(WIDE.mirrored(), SprtParams(0.0, 100.0)).decision is Decision.H0
    assert evaluate(Pentanomial((1, 2, 3, 2, 1)), params).decision is Decision.CONTINUE


# --- the pair → cell mapping ----------------------------------------------------------------------
@pytest.mark.parametrize(("leg1", "leg2", "cell"), [
    (0, 0, 0), (0, 0.5, 1), (0.5, 0, 1), (1, 0, 2), (0, 1, 2), (0.5, 0.5, 2), (1, 0.5, 3),
    (0.5, 1, 3), (1, 1, 4),
])
def test_pair_cell(leg1: float, leg2: float, cell: int) -> None:
    assert pair_cell(leg1, leg2) == cell


def test_pentanomial_accumulates_and_mirrors() -> None:
    counts = Pentanomial()
    for leg1, leg2 in ((1, 1), (1, 0), (0.5, 1), (1, 1)):
        counts = counts.add(pair_cell(leg1, leg2))
    assert counts.counts == (0, 0, 1, 1, 2) and counts.pairs == 4
    assert counts.mirrored().counts == (2, 1, 1, 0, 0)
    assert Pentanomial.parse(" 1, 2,3 ,4,5 ").counts == (1, 2, 3, 4, 5)


# --- estimates computed by hand -------------------------------------------------------------------
def test_elo_estimate_of_an_even_result() -> None:
    # five pairs, one in each cell: mean ½, pair variance (¼ + 1/16 + 0 + 1/16 + ¼) / 5 = 1/8
    counts = Pentanomial((1, 1, 1, 1, 1))
    half = 1.959963984540054 * math.sqrt(0.125 / 5)
    logistic = elo_estimate(counts, EloModel.logistic)
    assert logistic.score == pytest.approx(0.5)
    assert logistic.elo == pytest.approx(0.0, abs=1e-9)
    assert logistic.los == pytest.approx(0.5)
    assert logistic.high == pytest.approx(400 * math.log10((0.5 + half) / (0.5 - half)))
    assert logistic.low == pytest.approx(-logistic.high)
    normalized = elo_estimate(counts, EloModel.normalized)
    # half-width 1.96 × (800 / ln 10) / √(2 × pairs)
    assert normalized.high == pytest.approx(1.959963984540054 * 800 / math.log(10) / math.sqrt(10))


def test_elo_estimate_of_a_winning_result() -> None:
    # 20 pairs scoring 15/20 = ¾ per game: 3 to 1, 400 log10(3) Elo; pair variance
    # (9/16 + 2/4 + 3/16 + 0 + 10/16) / 20 = 3/32
    counts = Pentanomial((1, 2, 3, 4, 10))
    estimate = elo_estimate(counts, EloModel.logistic)
    error = math.sqrt(3 / 32 / 20)
    assert estimate.score == pytest.approx(0.75)
    assert estimate.elo == pytest.approx(400 * math.log10(3))
    assert estimate.los == pytest.approx(NormalDist().cdf(0.25 / error))
    assert estimate.low == pytest.approx(-400 * math.log10(1 / (0.75 - 1.959964 * error) - 1))
    normalized = elo_estimate(counts, EloModel.normalized)
    assert normalized.elo == pytest.approx(0.25 / math.sqrt(2 * 3 / 32) * 800 / math.log(10))


# fastchess, app/tests/elo_test.cpp, "EloPentanomial 1" and "EloPentanomial 2": Stats(LL, LD,
# WL, DD, WD, WW); fastchess prints ± half of the interval's width, and LOS in percent.
@pytest.mark.parametrize(("counts", "elo", "error", "nelo", "nerror", "los"), [
    ((34, 54, 31 + 32, 64, 75), 55.58, 27.65, 57.94, 28.28, 1.0),
    ((332, 433, 457 + 41, 333, 334), -8.64, 10.33, -9.17, 10.96, 0.0505),
])
def test_fastchess_elo_vectors(counts: tuple[int, int, int, int, int], elo: float,
                               error: float, nelo: float, nerror: float, los: float) -> None:
    logistic = elo_estimate(Pentanomial(counts), EloModel.logistic)
    assert logistic.elo == pytest.approx(elo, rel=0.01)
    assert (logistic.high - logistic.low) / 2 == pytest.approx(error, rel=0.01)
    assert logistic.los == pytest.approx(los, abs=5e-5)
    normalized = elo_estimate(Pentanomial(counts), EloModel.normalized)
    assert normalized.elo == pytest.approx(nelo, rel=0.01)
    assert (normalized.high - normalized.low) / 2 == pytest.approx(nerror, rel=0.01)


def test_logistic_elo_is_clamped_at_extreme_scores() -> None:
    estimate = elo_estimate(Pentanomial((0, 0, 0, 0, 50)), EloModel.logistic)
    assert estimate.elo == pytest.approx(400 * math.log10(999))
    assert estimate.los == pytest.approx(1.0)


# --- the variance ratio of pairing ----------------------------------------------------------------
def test_independent_legs_have_ratio_one() -> None:
    # two independent fair coin games: LL, WL, WL, WW in the proportions 1 : 2 : 1
    pairing = pairing_variance(Pentanomial((5, 0, 10, 0, 5)))
    assert pairing.pair_variance == pytest.approx(0.125)
    assert pairing.game_variance == pytest.approx(0.25)
    assert pairing.ratio == pytest.approx(1.0)
    assert pairing.reduction == pytest.approx(0.0)
    assert pairing.note == ""


def test_mirror_pairs_claim_no_ratio() -> None:
    # every pair a win and a loss (a bot against itself): the pair score never moves, and a
    # ratio of 0 ("a pair worth infinitely many games") would be a claim nothing supports
    pairing = pairing_variance(Pentanomial((0, 0, 20, 0, 0)))
    assert pairing.ratio is None and pairing.reduction is None
    assert pairing.note == "every pair scored the same: nothing to estimate"
    assert pairing.ratio_range == (None, None)
    # ... and if those were all draws, no game varied at all
    drawn = pairing_variance(Pentanomial((0, 0, 20, 0, 0)), draw_pairs=20)
    assert drawn.ratio is None and drawn.note == "every game scored the same: nothing to estimate"


def test_too_few_pairs_claim_no_ratio() -> None:
    # the same proportions as the independent case, but 4 pairs: 1.0 would be luck's figure
    small = pairing_variance(Pentanomial((1, 0, 2, 0, 1)))
    assert small.ratio is None and small.reduction is None
    assert small.note == "not enough pairs to estimate (4 of the 20 needed)"
    assert small.ratio_range == (None, None)
    assert small.pair_variance == pytest.approx(0.125)  # the raw moments are still there
    result = evaluate(Pentanomial((1, 0, 2, 0, 1)), SprtParams(0.0, 50.0)).to_json()
    assert result["variance_ratio"] is None and result["variance_reduction"] is None
    assert pairing_variance(Pentanomial((5, 0, 10, 0, 4))).note.startswith("not enough")
    assert pairing_variance(Pentanomial((5, 0, 10, 0, 5))).ratio is not None


def test_correlated_legs_double_the_variance() -> None:
    # LL and WW only: both legs always agree, a pair tells no more than one game
    pairing = pairing_variance(Pentanomial((10, 0, 0, 0, 10)))
    assert pairing.ratio == pytest.approx(2.0)


def test_ratio_range_spans_the_unknown_split() -> None:
    counts = Pentanomial((3, 10, 20, 12, 5))
    low, high = pairing_variance(counts).ratio_range
    assert low is not None and high is not None and low < high
    middle = pairing_variance(counts, draw_pairs=10).ratio
    assert middle is not None and low < middle < high
    assert pairing_variance(counts, draw_pairs=20).ratio == pytest.approx(high)


# --- pairs still needed ---------------------------------------------------------------------------
def test_expected_pairs_from_the_drift() -> None:
    llr_bounds = bounds(0.05, 0.05)
    upper = llr_bounds[1]
    assert expected_pairs(1.0, 10, llr_bounds) == pytest.approx((upper - 1.0) / 0.1)
    assert expected_pairs(-2.0, 40, llr_bounds) == pytest.approx((-upper + 2.0) / (-2.0 / 40))
    assert expected_pairs(upper, 40, llr_bounds) == 0.0
    assert expected_pairs(0.0, 40, llr_bounds) is None
    assert expected_pairs(0.5, 0, llr_bounds) is None


# --- bad input ------------------------------------------------------------------------------------
@pytest.mark.parametrize(("kwargs", "message"), [
    ({"elo0": 5.0, "elo1": 5.0}, "elo0 must be less than elo1"),
    ({"elo0": 5.0, "elo1": 0.0}, "elo0 must be less than elo1"),
    ({"elo0": 0.0, "elo1": 5.0, "alpha": 0.0}, "alpha must be strictly between 0 and 0.5"),
    ({"elo0": 0.0, "elo1": 5.0, "alpha": 0.5}, "alpha"),
    ({"elo0": 0.0, "elo1": 5.0, "beta": -0.1}, "beta must be strictly between 0 and 0.5"),
    ({"elo0": 0.0, "elo1": 5.0, "beta": 0.7}, "beta"),
    ({"elo0": 0.0, "elo1": math.inf}, "elo1 must be a number"),
    ({"elo0": -5000.0, "elo1": 0.0}, "elo0 must be a number between -2000 and 2000"),
])
def test_bad_designs_are_config_errors(kwargs: dict[str, float], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        SprtParams(**kwargs)  # type: ignore[arg-type]


@pytest.mark.parametrize("text", ["1,2,3,4", "1,2,3,4,5,6", "1,2,3,4,-5", "1,2,3,4,1.5",
                                  "a,b,c,d,e", ""])
def test_bad_counts_are_config_errors(text: str) -> None:
    with pytest.raises(ConfigError, match="five non-negative integers"):
        Pentanomial.parse(text)


def test_bad_count_values_are_config_errors() -> None:
    with pytest.raises(ConfigError, match="five non-negative integers"):
        Pentanomial.of([1, 2, 3, 4, True])
    with pytest.raises(ConfigError, match="five non-negative integers"):
        Pentanomial.of([1, 2, 3, 4, 5.0])
    with pytest.raises(ConfigError, match="cell is 0 to 4"):
        Pentanomial().add(5)
    with pytest.raises(ConfigError, match="0, 0.5 or 1"):
        pair_cell(0.25, 1)


def test_all_zero_counts_are_a_config_error() -> None:
    with pytest.raises(ConfigError, match="all zero"):
        evaluate(Pentanomial(), SprtParams(0.0, 5.0))
    with pytest.raises(ConfigError, match="all zero"):
        elo_estimate(Pentanomial(), EloModel.logistic)


def test_draw_pairs_must_fit_the_middle_cell() -> None:
    with pytest.raises(ConfigError, match="between 0 and n2 = 20"):
        pairing_variance(Pentanomial((3, 10, 20, 12, 5)), draw_pairs=21)
