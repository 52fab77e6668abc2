"""Rating math: Elo, the Bradley–Terry fit and its intervals, duplicate-deal statistics."""

from __future__ import annotations

import math
import random

import pytest

from arena.stats.rating import (
    ELO_PER_LOGIT,
    Z95,
    GameRecord,
    aggregate,
    elo_update,
    expected_score,
    fit,
    live_elo,
    pairing_stats,
)

pytestmark = pytest.mark.unit


def games(a: str, b: str, wins: int, draws: int, losses: int) -> list[GameRecord]:
    """Unpaired games of a against b (alternating seats), each its own cluster."""
    out = []
    scores = [1.0] * wins + [0.5] * draws + [0.0] * losses
    for k, s in enumerate(scores):
        out.append(GameRecord(a, b, s) if k % 2 == 0 else GameRecord(b, a, 1.0 - s))
    return out


def test_elo_update_known_values() -> None:
    assert expected_score(1500, 1500) == 0.5
    assert expected_score(1900, 1500) == pytest.approx(10 / 11)
    a, b = elo_update(1500, 1500, 1.0, 16)
    assert (a, b) == (1508.0, 1492.0)
    a, b = elo_update(1600, 1400, 0.5, 32)
    assert a + b == pytest.approx(3000.0)
    assert a < 1600


def test_live_elo_starts_at_start_and_is_zero_sum() -> None:
    recs = games("x", "y", 5, 1, 2) + games("y", "z", 2, 0, 3)
    elo = live_elo(recs, k=20, start=1500)
    assert set(elo) == {"x", "y", "z"}
    assert sum(elo.values()) == pytest.approx(4500)
    assert elo["x"] > 1500


def test_two_player_fit_has_the_closed_form() -> None:
    wins, losses = 30, 10
    result = fit(games("a", "b", wins, 0, losses), prior=0.0).by_name()
    assert result["a"].rating - result["b"].rating == pytest.approx(400 * math.log10(3), abs=1e-6)
    assert result["a"].rating + result["b"].rating == pytest.approx(3000, abs=1e-6)
    # the centred rating's variance: 1 / (4 n p (1-p)); the cluster-robust estimate of
    # unpaired games equals it up to the small-sample factor n / (n - 1), and the larger wins
    n, p = wins + losses, wins / (wins + losses)
    expected = Z95 * ELO_PER_LOGIT * math.sqrt(n / (n - 1) / (4 * n * p * (1 - p)))
    assert result["a"].ci95 == pytest.approx(expected, rel=1e-6)
    assert result["b"].ci95 == pytest.approx(expected, rel=1e-6)
    assert (result["a"].games, result["a"].score) == (40, 30.0)


def test_draws_count_half_a_win_each_way() -> None:
    # 3 wins, 2 draws, 1 loss = 4 : 2 points
    result = fit(games("a", "b", 3, 2, 1), prior=0.0).by_name()
    assert result["a"].rating - result["b"].rating == pytest.approx(400 * math.log10(2), abs=1e-6)
    even = fit(games("a", "b", 1, 4, 1), prior=0.0).by_name()
    assert even["a"].rating == pytest.approx(1500, abs=1e-9)


def test_symmetric_results_give_equal_ratings() -> None:
    recs = games("a", "b", 6, 2, 4) + games("b", "c", 6, 2, 4) + games("c", "a", 6, 2, 4)
    result = fit(recs, prior=0.0)
    for r in result.ratings:
        assert r.rating == pytest.approx(1500, abs=1e-6)
    widths = {round(r.ci95, 9) for r in result.ratings}
    assert len(widths) == 1


def test_fit_is_order_independent() -> None:
    rng = random.Random(7)
    recs = simulate(rng, {"p": 200.0, "q": 0.0, "r": -150.0, "s": 50.0}, encounters=300)
    first = fit(recs)
    for _ in range(3):
        rng.shuffle(recs)
        again = fit(recs)
        assert again.ratings == first.ratings  # exact: integer sufficient statistics


def test_ci_shrinks_with_more_games() -> None:
    small = fit(games("a", "b", 15, 5, 10)).by_name()
    large = fit(games("a", "b", 60, 20, 40)).by_name()
    assert large["a"].ci95 < small["a"].ci95
    assert large["a"].ci95 == pytest.approx(small["a"].ci95 / 2, rel=0.1)


def test_prior_keeps_a_perfect_record_finite() -> None:
    result = fit(games("a", "b", 20, 0, 0), prior=1.0).by_name()
    assert math.isfinite(result["a"].rating)
    assert result["a"].rating > result["b"].rating + 400
    with pytest.raises(ValueError):
        fit([GameRecord("a", "b", 0.7)])


def test_fit_recovers_known_ratings() -> None:
    truth = {"a": 300.0, "b": 100.0, "c": 0.0, "d": -100.0, "e": -300.0}
    recs = simulate(random.Random(11), truth, encounters=800)
    result = fit(recs).by_name()
    mean = sum(truth.values()) / len(truth)
    for name, value in truth.items():
        r = result[name]
        assert abs(r.rating - (1500 + value - mean)) < 3 * r.ci95
    ranked = [r.name for r in fit(recs).ratings]
    assert ranked == ["a", "b", "c", "d", "e"]


def test_paired_intervals_are_never_narrower_than_fisher() -> None:
    """With deal luck cancelled by pairing the robust estimate is smaller; the reported interval
    is the larger (model-based) one, and it matches the unpaired closed form."""
    recs = []
    for e in range(40):
        # the deal decides: whoever sits in seat 0 wins both legs -> each encounter is 1:1
        recs.append(GameRecord("a", "b", 1.0, f"e{e}", 10.0, 0))
        recs.append(GameRecord("b", "a", 1.0, f"e{e}", 10.0, 1))
    for e in range(40, 60):
        recs.append(GameRecord("a", "b", 1.0, f"e{e}", 10.0, 0))
        recs.append(GameRecord("b", "a", 0.0, f"e{e}", -10.0, 1))
    result = fit(recs, prior=0.0).by_name()
    n, p = 120, 80 / 120
    model = Z95 * ELO_PER_LOGIT * math.sqrt(1 / (4 * n * p * (1 - p)))
    assert result["a"].ci95 == pytest.approx(model, rel=1e-6)


def test_aggregate_counts_half_points_per_pair() -> None:
    names, pairs = aggregate(games("b", "a", 2, 1, 1))
    assert names == ("a", "b")
    st = pairs[(0, 1)]
    assert (st.games, st.score2, st.clusters) == (4, 3, 4)  # a scored 1 + 0.5 = 1.5 points


def simulate(rng: random.Random, truth: dict[str, float], encounters: int) -> list[GameRecord]:
    """Duplicate encounters with deal luck: seat 0's advantage is shared by both legs."""
    names = sorted(truth)
    recs = []
    for e in range(encounters):
        a, b = rng.sample(names, 2)
        luck = rng.gauss(0, 150)
        for leg, (x, y) in enumerate(((a, b), (b, a))):
            p = expected_score(truth[x] + luck, truth[y])
            won = rng.random() < p
            recs.append(GameRecord(x, y, 1.0 if won else 0.0, f"e{e}", 0.0, leg))
    return recs


def test_pairing_stats_measure_the_variance_reduction() -> None:
    rng = random.Random(3)
    paired, unpaired = [], []
    for e in range(400):
        skill, luck, luck2 = 5.0, rng.gauss(0, 20), rng.gauss(0, 20)
        noise = [rng.gauss(0, 2) for _ in range(4)]
        # leg 0: a in seat 0; leg 1: b in seat 0. margin_a = skill + seat-0 luck of the deal
        paired.append(GameRecord("a", "b", 1.0, f"e{e}", skill + luck + noise[0], 0))
        paired.append(GameRecord("b", "a", 0.0, f"e{e}", -skill + luck + noise[1], 1))
        unpaired.append(GameRecord("a", "b", 1.0, f"u{e}", skill + luck + noise[2], 0))
        unpaired.append(GameRecord("b", "a", 0.0, f"u{e}", -skill + luck2 + noise[3], 1))
    p = pairing_stats(paired)
    u = pairing_stats(unpaired)
    assert p.encounters == 400
    assert p.margin_ratio is not None and u.margin_ratio is not None
    assert p.margin_ratio < 0.05  # luck cancels, only the noise remains
    assert 0.8 < u.margin_ratio < 1.2  # independent deals: no reduction
    assert p.margin_reduction == pytest.approx(1 - p.margin_ratio)


def test_pentanomial_counts() -> None:
    recs = [
        GameRecord("b", "a", 1.0, "e1", 5, 0), GameRecord("a", "b", 0.0, "e1", -5, 1),  # a: 0
        GameRecord("a", "b", 1.0, "e2", 5, 0), GameRecord("b", "a", 1.0, "e2", 5, 1),  # a: 1/2
        GameRecord("a", "b", 0.5, "e3", 0, 0), GameRecord("b", "a", 0.0, "e3", -5, 1),  # a: 3/4
        GameRecord("a", "b", 1.0, "e4", 5, 0), GameRecord("b", "a", 0.0, "e4", -5, 1),  # a: 1
        GameRecord("a", "b", 1.0, "e5", 5, 0),  # incomplete: ignored
    ]
    stats = pairing_stats(recs)
    assert stats.pentanomial == {("a", "b"): (1, 0, 1, 1, 1)}
    assert stats.encounters == 4


# --- honest small-sample statistics (issue 20, point 6) ----------------------------------------
def mirror(encounters: int, pair: tuple[str, str] = ("greedy", "greedy-copy")
           ) -> list[GameRecord]:
    """A bot against its copy: the deal decides which seat wins, by how much, and both legs
    alike, so the two legs undo each other (the paired difference is always 0)."""
    a, b = pair
    recs = []
    for e in range(encounters):
        seat0_wins = e % 3 != 0
        margin = float(5 + 3 * e) if seat0_wins else -float(4 + e)
        recs.append(GameRecord(a, b, 1.0 if seat0_wins else 0.0, f"m{e}", margin, 0))
        recs.append(GameRecord(b, a, 1.0 if seat0_wins else 0.0, f"m{e}", margin, 1))
    return recs


def test_a_mirror_match_claims_no_variance_ratio() -> None:
    """The quickstart's greedy against a copy of greedy: the old code claimed "paired variance
    = 0.00 x unpaired (+100% reduction, worth 1075.2x as many unpaired games)"."""
    few = pairing_stats(mirror(4))
    assert few.encounters == 4
    assert few.score_ratio is None and few.margin_ratio is None
    assert few.score_note == "not enough encounters to estimate (4 of the 20 needed)"
    assert few.margin_note == few.score_note
    assert few.score_reduction is None and few.margin_reduction is None
    many = pairing_stats(mirror(40))
    assert many.score_ratio is None and many.margin_ratio is None
    assert many.margin_note == "every paired difference is the same: nothing to estimate"
    assert many.score_note == many.margin_note
    assert many.per_pair_margin_ratio == {}


def test_no_ratio_below_the_minimum_then_a_figure() -> None:
    rng = random.Random(5)
    recs = simulate(rng, {"a": 100.0, "b": 0.0}, encounters=19)
    below = pairing_stats(recs)
    assert below.margin_ratio is None and below.margin_note.startswith("not enough encounters")
    recs = []
    for e in range(20):  # margins with a real, measurable spread
        luck, noise = rng.gauss(0, 20), rng.gauss(0, 5)
        recs.append(GameRecord("a", "b", 1.0, f"e{e}", 10 + luck, 0))
        recs.append(GameRecord("b", "a", 0.0, f"e{e}", -10 + luck + noise, 1))
    enough = pairing_stats(recs)
    assert enough.margin_ratio is not None and enough.margin_note == ""
    assert ("a", "b") in enough.per_pair_margin_ratio
    # every game scored the same (a won all): no score spread to compare against
    assert enough.score_ratio is None
    assert enough.score_note == "every game scored the same: nothing to estimate"


def test_pairs_met_once_give_no_ratio() -> None:
    names = [f"b{k}" for k in range(8)]
    recs = []
    for e, (a, b) in enumerate((a, b) for i, a in enumerate(names) for b in names[i + 1:]):
        recs.append(GameRecord(a, b, 1.0, f"e{e}", 7.0, 0))
        recs.append(GameRecord(b, a, 0.0, f"e{e}", -3.0, 1))
    stats = pairing_stats(recs)
    assert stats.encounters == 28
    assert stats.margin_ratio is None
    assert stats.margin_note == "no two bots have met twice yet: nothing to compare"
