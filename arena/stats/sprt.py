"""The statistics of `arena sprt`: a sequential probability ratio test on duplicate pairs. PURE.

The question is "is the candidate stronger than the baseline?", asked as two hypotheses about
its Elo advantage: **H0**, it is at most ``elo0`` stronger, and **H1**, it is at least ``elo1``
stronger. Pairs are played one after another, and after each one the log-likelihood ratio (LLR)
of H1 against H0 is compared with two bounds: above the upper one H1 is accepted, below the
lower one H0 is accepted, in between the test goes on. With the bounds of Wald,
``log(β/(1−α))`` and ``log((1−β)/α)``, a candidate that is really ``elo0`` stronger passes with
probability about α at most, and one that is really ``elo1`` stronger fails with probability
about β at most, whatever the number of pairs this takes.

**Pairs, not games.** Every encounter of the arena is a duplicate pair: the same deal twice with
the seats swapped. The candidate scores 1 (win), ½ (equal totals) or 0 (loss) in each leg, so a
pair lands in one of five cells, ``2 × (score1 + score2)`` = 0 … 4, and a test's data are the
five **pentanomial** counts ``[n0, n1, n2, n3, n4]``. The pair is the independent unit; its two
legs are not independent (they share the deal), and counting them as two independent games
would misjudge the variance.

**The statistics are fishtest's** (the Stockfish testing framework, ``LLRcalc.py`` and
``stat_util.py``; fastchess implements the same): the LLR is the *generalized* SPRT of the
pentanomial model. Under each hypothesis the five cell probabilities are estimated by maximum
likelihood from the observed counts, *constrained* so that the hypothesis holds exactly; the LLR
is the log of the ratio of the two maximized likelihoods. The constrained maximum has the form
``p_i = p̂_i / (1 + θ φ_i)``, where ``p̂`` is the observed distribution and θ solves the
"secular equation" ``Σ p̂_i φ_i / (1 + θ φ_i) = 0``, found here with a bracketed Newton
iteration. No normal approximation is involved: the quick formula
``(s1 − s0)(2 s − s0 − s1) / (2 σ²)`` per pair (``llr_approx``) is close for the narrow bounds of
chess-engine testing and badly off for the wide bounds bots need.

**Empty cells.** As fishtest and fastchess do, an empty cell counts as 0.001 of a pair (a tiny
prior) before anything is computed, so every cell has a positive probability and no logarithm
is infinite. It moves no result by a visible amount once a cell has a pair in it.

**Two Elo models** (what ``elo0``/``elo1`` and the estimate are measured in):

* ``logistic``: the usual Elo, the unit of the ladder standings. An advantage of E Elo is an
  expected score of ``1 / (1 + 10^(−E/400))`` per game; so 0 is an even match, +100 about 64%,
  +400 about 91%.
* ``normalized`` (fishtest's "normalized Elo", nElo): the advantage measured against the noise.
  ``nElo = (score − ½) / σ_game × 800 / ln 10``, where ``σ_game = √2 × σ_pair`` is the
  per-game standard deviation that the spread of pair scores implies. Between nearly equal bots
  whose games are independent and never drawn, one nElo is one Elo; where draws or the shared
  deal make results less noisy, the same Elo is more nElo, because it is easier to see. The
  number of pairs a test with given nElo bounds needs hardly depends on the game, which makes
  nElo bounds easy to plan with. For pentanomial data the hypothesis is a constraint on the
  t-value ``(score − ½) / σ_pair = √2 × nElo × ln 10 / 800``.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from statistics import NormalDist

from arena.errors import ArenaError, ConfigError
from arena.stats.rating import MIN_RATIO_ENCOUNTERS, SAME_GAME

CELL_SCORES = (0.0, 0.25, 0.5, 0.75, 1.0)
"""The candidate's mean score per game in each pentanomial cell (cell / 4)."""
EMPTY_CELL_PRIOR = 1e-3
"""What an empty cell counts as, in pairs (fishtest's and fastchess's regularization)."""
NELO_PER_T = 800.0 / math.log(10.0)
"""Normalized Elo per unit of per-game t-value ((score − ½) / σ_game); about 347.4."""
MAX_ABS_ELO = 2000.0
"""The largest bound accepted (in either model): 2000 Elo is an expected score of 99.999%."""
ELO_SCORE_CLAMP = 1e-3
"""Scores are clamped to [0.001, 0.999] before turning into logistic Elo (±1200), as fishtest."""
Z95 = NormalDist().inv_cdf(0.975)
"""The two-sided 95% quantile of the standard normal distribution (1.95996…)."""
_ROOT_STEPS = 200
_FIXED_POINT_STEPS = 300
_FIXED_POINT_TOLERANCE = 1e-10


class EloModel(enum.StrEnum):
    """The unit of the Elo bounds and estimate (see the module docstring)."""

    logistic = "logistic"
    normalized = "normalized"

    @property
    def unit(self) -> str:
        """How its Elo figures are labelled: "Elo" or "nElo"."""
        return "Elo" if self is EloModel.logistic else "nElo"


class Decision(enum.StrEnum):
    """Where the LLR stands against the bounds."""

    H0 = "H0"
    """Accepted H0: the candidate is at most ``elo0`` stronger."""
    H1 = "H1"
    """Accepted H1: the candidate is at least ``elo1`` stronger."""
    CONTINUE = "continue"
    """Between the bounds: not enough evidence either way yet."""


# --- data --------------------------------------------------------------------------------------
def pair_cell(score_leg1: float, score_leg2: float) -> int:
    """The pentanomial cell of one duplicate pair: ``round(2 × (score_leg1 + score_leg2))``.

    Scores are the candidate's, 1 (win), 0.5 (equal totals) or 0 (loss), so the cell runs from
    0 (lost both legs) through 2 (won one and lost one, or two draws) to 4 (won both)."""
    for score in (score_leg1, score_leg2):
        if score not in (0.0, 0.5, 1.0):
            raise ConfigError(f"a leg's score must be 0, 0.5 or 1, got {score!r}")
    return round(2 * (score_leg1 + score_leg2))


@dataclass(frozen=True)
class Pentanomial:
    """How many pairs fell in each cell, from the candidate's side: ``[n0, n1, n2, n3, n4]``."""

    counts: tuple[int, int, int, int, int] = (0, 0, 0, 0, 0)
    """Pairs scoring 0, ¼, ½, ¾ and 1 per game (LL, LD, WL or DD, WD, WW)."""

    def __post_init__(self) -> None:
        _check_counts(self.counts)

    @classmethod
    def of(cls, values: Sequence[object]) -> Pentanomial:
        """Five non-negative integers (ConfigError otherwise)."""
        counts = _check_counts(values)
        return cls((counts[0], counts[1], counts[2], counts[3], counts[4]))

    @classmethod
    def parse(cls, text: str) -> Pentanomial:
        """``"N0,N1,N2,N3,N4"`` → counts (ConfigError on anything else)."""
        parts = [part.strip() for part in text.split(",")]
        if len(parts) != 5 or not all(part.isdigit() for part in parts):
            raise ConfigError(
                f"pentanomial counts must be five non-negative integers N0,N1,N2,N3,N4, "
                f"got {text!r}")
        return cls.of([int(part) for part in parts])

    @property
    def pairs(self) -> int:
        """The number of pairs counted."""
        return sum(self.counts)

    def add(self, cell: int) -> Pentanomial:
        """These counts with one more pair in ``cell`` (0 … 4)."""
        if cell not in range(5):
            raise ConfigError(f"a pentanomial cell is 0 to 4, got {cell!r}")
        counts = list(self.counts)
        counts[cell] += 1
        return Pentanomial.of(counts)

    def mirrored(self) -> Pentanomial:
        """The same pairs from the baseline's side (cell c becomes 4 − c)."""
        return Pentanomial.of(self.counts[::-1])


def _check_counts(values: Sequence[object]) -> list[int]:
    counts = [v for v in values if isinstance(v, int) and not isinstance(v, bool) and v >= 0]
    if len(values) != 5 or len(counts) != 5:
        raise ConfigError(
            f"pentanomial counts must be five non-negative integers, got {list(values)!r}")
    return counts


@dataclass(frozen=True)
class SprtParams:
    """The design of a test: the hypotheses, the error rates and the Elo model."""

    elo0: float
    """H0: the candidate is at most this much stronger."""
    elo1: float
    """H1: the candidate is at least this much stronger (greater than ``elo0``)."""
    alpha: float = 0.05
    """The largest chance of accepting H1 when H0 holds (a false pass), in (0, 0.5)."""
    beta: float = 0.05
    """The largest chance of accepting H0 when H1 holds (a false fail), in (0, 0.5)."""
    model: EloModel = EloModel.logistic
    """The unit of ``elo0`` and ``elo1``."""

    def __post_init__(self) -> None:
        for name, elo in (("elo0", self.elo0), ("elo1", self.elo1)):
            if not math.isfinite(elo) or abs(elo) > MAX_ABS_ELO:
                raise ConfigError(f"{name} must be a number between -{MAX_ABS_ELO:g} and "
                                  f"{MAX_ABS_ELO:g}, got {elo!r}")
        if self.elo0 >= self.elo1:
            raise ConfigError(f"elo0 must be less than elo1, got elo0={self.elo0:g} "
                              f"and elo1={self.elo1:g}")
        for name, rate in (("alpha", self.alpha), ("beta", self.beta)):
            if not 0.0 < rate < 0.5:
                raise ConfigError(f"{name} must be strictly between 0 and 0.5, got {rate!r}")

    @property
    def bounds(self) -> tuple[float, float]:
        """The LLR bounds of this design (see ``bounds``)."""
        return bounds(self.alpha, self.beta)


# --- the test ----------------------------------------------------------------------------------
def accepted_claim(decision: Decision, params: SprtParams, candidate: str = "the candidate",
                   baseline: str | None = None) -> str | None:
    """What an accepted hypothesis says ("the candidate is at least 50 Elo stronger [than
    B]"); None while the test continues."""
    if decision is Decision.CONTINUE:
        return None
    bound = (f"least {params.elo1:g}" if decision is Decision.H1 else f"most {params.elo0:g}")
    than = "" if baseline is None else f" than {baseline}"
    return f"{candidate} is at {bound} {params.model.unit} stronger{than}"


def bounds(alpha: float, beta: float) -> tuple[float, float]:
    """Wald's LLR bounds ``(log(β / (1 − α)), log((1 − β) / α))``: (−2.94, 2.94) for 5%/5%."""
    return math.log(beta / (1.0 - alpha)), math.log((1.0 - beta) / alpha)


def decide(llr: float, llr_bounds: tuple[float, float]) -> Decision:
    """H1 once the LLR reaches the upper bound, H0 once it reaches the lower one, else continue.

    Reaching a bound exactly counts (Wald's rule: go on while lower < LLR < upper)."""
    lower, upper = llr_bounds
    if llr >= upper:
        return Decision.H1
    if llr <= lower:
        return Decision.H0
    return Decision.CONTINUE


def llr(counts: Pentanomial, params: SprtParams) -> float:
    """The exact generalized LLR of H1 against H0 for these counts, in the design's model."""
    if params.model is EloModel.normalized:
        return llr_normalized(params.elo0, params.elo1, counts)
    return llr_logistic(params.elo0, params.elo1, counts)


def logistic_score(elo: float) -> float:
    """The expected score per game of an advantage of ``elo`` logistic Elo."""
    return 1.0 / (1.0 + math.pow(10.0, -elo / 400.0))


def llr_logistic(elo0: float, elo1: float, counts: Pentanomial) -> float:
    """fishtest's ``LLR_logistic`` for pentanomial counts: H0 and H1 fix the expected score
    per game at ``logistic_score(elo0)`` and ``logistic_score(elo1)``."""
    weights, pairs = _distribution(counts)
    fitted = [_mle_with_score(weights, logistic_score(elo)) for elo in (elo0, elo1)]
    return _log_ratio(weights, pairs, fitted[0], fitted[1])


def llr_normalized(nelo0: float, nelo1: float, counts: Pentanomial) -> float:
    """fishtest's ``LLR_normalized`` for pentanomial counts: H0 and H1 fix the t-value of the
    pair score, ``(score − ½) / σ_pair``, at ``√2 × nElo / NELO_PER_T``."""
    weights, pairs = _distribution(counts)
    fitted = [_mle_with_t_value(weights, math.sqrt(2.0) * nelo / NELO_PER_T)
              for nelo in (nelo0, nelo1)]
    return _log_ratio(weights, pairs, fitted[0], fitted[1])


def llr_approx(elo0: float, elo1: float, counts: Pentanomial) -> float:
    """The quick approximation of the logistic LLR (fishtest's ``LLR_alt2``, a Brownian-motion
    approximation): ``pairs × (s1 − s0)(2 s − s0 − s1) / (2 σ²)`` with the observed mean pair
    score s and variance σ². Kept to show how far off it is; ``llr_logistic`` is the test."""
    weights, pairs = _distribution(counts)
    mean, variance = _moments(weights)
    s0, s1 = logistic_score(elo0), logistic_score(elo1)
    return pairs * (s1 - s0) * (2.0 * mean - s0 - s1) / (2.0 * variance)


def _distribution(counts: Pentanomial) -> tuple[list[float], float]:
    """The observed cell probabilities after the empty-cell prior, and the (prior) pair total."""
    if counts.pairs == 0:
        raise ConfigError("the pentanomial counts are all zero: there is nothing to test yet")
    regularized = [float(n) if n > 0 else EMPTY_CELL_PRIOR for n in counts.counts]
    total = sum(regularized)
    return [n / total for n in regularized], total


def _moments(probabilities: Sequence[float]) -> tuple[float, float]:
    """Mean and variance of the pair score under these cell probabilities."""
    mean = sum(p * a for p, a in zip(probabilities, CELL_SCORES, strict=True))
    variance = sum(p * (a - mean) ** 2 for p, a in zip(probabilities, CELL_SCORES, strict=True))
    return mean, variance


def _log_ratio(weights: Sequence[float], pairs: float, p0: Sequence[float],
               p1: Sequence[float]) -> float:
    """``pairs × Σ p̂_i log(p1_i / p0_i)``: the log of the ratio of the two likelihoods."""
    return pairs * sum(w * (math.log(b) - math.log(a))
                       for w, a, b in zip(weights, p0, p1, strict=True))


def _tilt(weights: Sequence[float], phi: Sequence[float]) -> list[float]:
    """The constrained maximum-likelihood form ``p̂_i / (1 + θ φ_i)`` for the θ that makes
    ``Σ p_i φ_i = 0`` (the constraint) while the ``p_i`` still sum to one."""
    theta = secular_root(weights, phi)
    return [w / (1.0 + theta * f) for w, f in zip(weights, phi, strict=True)]


def secular_root(weights: Sequence[float], phi: Sequence[float]) -> float:
    """The θ that solves ``Σ w_i φ_i / (1 + θ φ_i) = 0`` with every ``1 + θ φ_i > 0``.

    The left side falls from +∞ to −∞ across ``(−1 / max φ, −1 / min φ)``, so exactly one
    root lies there when φ takes both signs; a Newton step is taken when it stays inside the
    bracket that the signs so far allow, a bisection otherwise."""
    if not min(phi) < 0.0 < max(phi):
        raise ArenaError("the secular equation has no root: the constraint is not reachable")
    low, high = -1.0 / max(phi), -1.0 / min(phi)
    theta = 0.0
    for _ in range(_ROOT_STEPS):
        value = sum(w * f / (1.0 + theta * f) for w, f in zip(weights, phi, strict=True))
        slope = -sum(w * (f / (1.0 + theta * f)) ** 2 for w, f in zip(weights, phi, strict=True))
        if value == 0.0:
            return theta
        if value > 0.0:
            low = theta
        else:
            high = theta
        step = theta - value / slope
        following = step if low < step < high else (low + high) / 2.0
        if abs(following - theta) <= 4e-16 * max(1.0, abs(theta)):
            return following
        theta = following
    return theta


def _mle_with_score(weights: Sequence[float], score: float) -> list[float]:
    """The most likely cell probabilities whose expected score per game is ``score``
    (fishtest's ``MLE_expected``): the constraint is ``Σ p_i (a_i − score) = 0``."""
    return _tilt(weights, [a - score for a in CELL_SCORES])


def _mle_with_t_value(weights: Sequence[float], t_value: float) -> list[float]:
    """The most likely cell probabilities with ``(mean − ½) / σ = t_value`` (fishtest's
    ``MLE_t_value``).

    The constraint is not linear, so the maximum is a fixed point: with the mean μ and σ of
    the current estimate, ``φ_i = a_i − ½ − t σ (1 + ((a_i − μ)/σ)²) / 2`` linearizes it, the
    secular equation gives the next estimate, and that repeats until nothing moves. fishtest
    starts from the uniform distribution; this starts from the observed one and, should a step
    fail (for targets far from the data the first φ can miss a sign), walks the target there
    in smaller steps. Both reach the same maximum where fishtest's converges."""
    estimate = list(weights)
    mean, variance = _moments(estimate)
    reached = (mean - 0.5) / math.sqrt(variance)
    step = t_value - reached
    while reached != t_value:
        target = t_value if abs(t_value - reached) <= abs(step) else reached + step
        moved = _fixed_point(weights, target, estimate)
        if moved is None:
            step /= 2.0
            if abs(step) < 1e-9:
                raise ArenaError(f"no maximum-likelihood fit with t-value {t_value:g}")
            continue
        estimate, reached = moved, target
        step *= 2.0
    return estimate


def _fixed_point(weights: Sequence[float], t_value: float,
                 start: Sequence[float]) -> list[float] | None:
    """Iterate the linearized t-value constraint from ``start`` until no probability moves by
    1e-10 (fishtest stops at 1e-9); None if it does not settle. Should a step move more than
    the one before (an oscillation, seen where a fitted probability is far above the observed
    one), the following steps go half way."""
    estimate = list(start)
    last_change = math.inf
    damped = False
    for _ in range(_FIXED_POINT_STEPS):
        following = _t_value_step(weights, t_value, estimate)
        if following is None:
            return None
        change = max(abs(a - b) for a, b in zip(following, estimate, strict=True))
        if change < _FIXED_POINT_TOLERANCE:
            return following
        damped = damped or change >= last_change
        last_change = change
        estimate = ([(a + b) / 2.0 for a, b in zip(following, estimate, strict=True)]
                    if damped else following)
    return None


def _t_value_step(weights: Sequence[float], t_value: float,
                  estimate: Sequence[float]) -> list[float] | None:
    """One step: linearize the constraint at ``estimate`` and solve; None if φ has one sign."""
    mean, variance = _moments(estimate)
    sigma = math.sqrt(variance)
    phi = [a - 0.5 - t_value * sigma * (1.0 + ((a - mean) / sigma) ** 2) / 2.0
           for a in CELL_SCORES]
    if not min(phi) < 0.0 < max(phi):
        return None
    return _tilt(weights, phi)


# --- estimates ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class EloEstimate:
    """What the counts say about the candidate's advantage, in one Elo model."""

    model: EloModel
    """The unit of ``elo``, ``low`` and ``high``."""
    score: float
    """The candidate's mean score per game (the mean pair score)."""
    elo: float
    """The advantage that this score is."""
    low: float
    """The lower end of its 95% interval."""
    high: float
    """The upper end of its 95% interval."""
    los: float
    """The likelihood of superiority: the probability that the candidate is really the
    stronger one, ``Φ((score − ½) / standard error)``."""


def elo_estimate(counts: Pentanomial, model: EloModel) -> EloEstimate:
    """The Elo estimate with its 95% interval and LOS (fishtest's ``get_elo``; fastchess's
    pentanomial Elo), from the mean and variance of the pair score (empty-cell prior included).

    The interval for the score is ``mean ± 1.96 σ_pair / √pairs``, mapped through the model:
    ``logistic`` maps each end by the Elo formula (so the interval is not symmetric), and
    ``normalized`` divides by the fixed ``σ_game = √2 σ_pair``, so its half-width is
    ``1.96 × NELO_PER_T / √(2 × pairs)`` whatever the results."""
    weights, pairs = _distribution(counts)
    mean, variance = _moments(weights)
    error = math.sqrt(variance / pairs)
    to_elo = _score_to_elo(model, math.sqrt(2.0 * variance))
    return EloEstimate(
        model=model,
        score=mean,
        elo=to_elo(mean),
        low=to_elo(mean - Z95 * error),
        high=to_elo(mean + Z95 * error),
        los=NormalDist().cdf((mean - 0.5) / error),
    )


def _score_to_elo(model: EloModel, sigma_game: float) -> Callable[[float], float]:
    """Score per game → Elo in ``model`` (normalized: against ``sigma_game``)."""
    if model is EloModel.normalized:
        return lambda score: (score - 0.5) / sigma_game * NELO_PER_T
    return logistic_elo


def logistic_elo(score: float) -> float:
    """The logistic Elo of an expected score (clamped to [0.001, 0.999], i.e. ±1200 Elo)."""
    clamped = min(max(score, ELO_SCORE_CLAMP), 1.0 - ELO_SCORE_CLAMP)
    return -400.0 * math.log10(1.0 / clamped - 1.0) + 0.0  # + 0.0: an even score is 0, not -0


@dataclass(frozen=True)
class PairingVariance:
    """What the pairing bought: the variance of a pair against two independent games.

    ``ratio = Var(pair score) / (σ²_game / 2)``, where the pair score is the mean of its two
    legs and σ²_game is the variance of the single games' W/D/L scores (the same games, seen
    as independent trinomial games). Two independent games would have a mean of variance
    σ²_game / 2; a ratio below 1 is variance the shared deal removed (``1 − ratio`` of it), and
    then a pair tells as much as ``2 / ratio`` independent games, so an SPRT needs about
    ``ratio`` times the games it would need unpaired. Above 1 the pairing cost variance.
    Computed from the counts as they are (no empty-cell prior). Below ``MIN_RATIO_PAIRS``
    pairs, or when a variance is 0 (mirror bots: every pair scores ½), there is no figure to
    claim: the ratio is None and ``note`` says why."""

    pair_variance: float
    """Var(pair score), the pair score being the candidate's mean score over both legs."""
    game_variance: float
    """σ²_game, the variance of a single game's score (1, ½, 0)."""
    ratio: float | None
    """``pair_variance / (game_variance / 2)``; None when it cannot be estimated (``note``)."""
    draw_pairs: int
    """How many of the n2 pairs were two draws rather than a win and a loss (the counts alone
    do not say, and the game variance depends on it)."""
    ratio_range: tuple[float | None, float | None]
    """The ratio if every n2 pair was a win and a loss, and if every one was two draws: the
    range the ratio can take when the split is unknown (an end is None where it cannot be
    estimated)."""
    note: str = ""
    """Why ``ratio`` is None, in words ("not enough pairs to estimate (4 of the 20 needed)",
    "every pair scored the same: nothing to estimate"); "" when it is a figure."""

    @property
    def reduction(self) -> float | None:
        """``1 − ratio``: the fraction of the variance the pairing removed."""
        return None if self.ratio is None else 1.0 - self.ratio


MIN_RATIO_PAIRS = MIN_RATIO_ENCOUNTERS
"""Pairs below which no variance ratio is given (as the ladder's standings; see
``arena.stats.rating.MIN_RATIO_ENCOUNTERS`` for why 20)."""
SAME_PAIR = "every pair scored the same: nothing to estimate"
"""The note when the pair variance is 0 (every pair a win and a loss: a mirror match)."""


def pairing_variance(counts: Pentanomial, draw_pairs: int = 0) -> PairingVariance:
    """The variance ratio of pairing for these counts, ``draw_pairs`` of the n2 pairs being
    two draws (ConfigError unless 0 ≤ draw_pairs ≤ n2)."""
    if counts.pairs == 0:
        raise ConfigError("the pentanomial counts are all zero: there is nothing to measure yet")
    if not 0 <= draw_pairs <= counts.counts[2]:
        raise ConfigError(f"draw pairs must be between 0 and n2 = {counts.counts[2]}, "
                          f"got {draw_pairs}")
    pair_var = _moments([n / counts.pairs for n in counts.counts])[1]
    game_var = _game_variance(counts, draw_pairs)
    ratio, note = _ratio(counts.pairs, pair_var, game_var)
    return PairingVariance(
        pair_variance=pair_var,
        game_variance=game_var,
        ratio=ratio,
        draw_pairs=draw_pairs,
        ratio_range=(_ratio(counts.pairs, pair_var, _game_variance(counts, 0))[0],
                     _ratio(counts.pairs, pair_var,
                            _game_variance(counts, counts.counts[2]))[0]),
        note=note,
    )


def _game_variance(counts: Pentanomial, draw_pairs: int) -> float:
    """The variance of the single games' scores behind the counts.

    Per pair, the legs' scores are LL (0, 0), LD (0, ½), WL (1, 0) or DD (½, ½), WD (1, ½),
    WW (1, 1): the sum of a pair's scores is its cell / 2, the sum of their squares
    0, ¼, 1 or ½, 5/4, 2."""
    n0, n1, n2, n3, n4 = counts.counts
    games = 2 * counts.pairs
    total = (n1 + 2 * n2 + 3 * n3 + 4 * n4) / 2.0
    squares = n1 / 4.0 + (n2 - draw_pairs) + draw_pairs / 2.0 + 5.0 * n3 / 4.0 + 2.0 * n4
    mean = total / games
    return max(squares / games - mean * mean, 0.0)


def _ratio(pairs: int, pair_variance: float, game_variance: float) -> tuple[float | None, str]:
    """The ratio, or None and why it cannot be estimated."""
    if pairs < MIN_RATIO_PAIRS:
        return None, f"not enough pairs to estimate ({pairs} of the {MIN_RATIO_PAIRS} needed)"
    if game_variance <= 0.0:
        return None, SAME_GAME
    if pair_variance <= 1e-12 * game_variance:
        return None, SAME_PAIR
    return pair_variance / (game_variance / 2.0), ""


def expected_pairs(llr_value: float, pairs: int, llr_bounds: tuple[float, float]) -> float | None:
    """A rough estimate of the pairs still needed before the LLR reaches a bound.

    The LLR has moved on average ``drift = llr / pairs`` per pair so far (the usual LLR drift
    per pair); if it keeps that pace it reaches the bound it is heading for, the upper one for
    a positive drift and the lower one for a negative drift, after ``(bound − llr) / drift``
    more pairs. 0 once a bound is reached; None before the first pair or with no drift."""
    if decide(llr_value, llr_bounds) is not Decision.CONTINUE:
        return 0.0
    if pairs <= 0 or llr_value == 0.0:
        return None
    drift = llr_value / pairs
    target = llr_bounds[1] if drift > 0.0 else llr_bounds[0]
    return (target - llr_value) / drift


# --- one evaluation ----------------------------------------------------------------------------
@dataclass(frozen=True)
class SprtResult:
    """Everything the counts say under one design: the LLR and its decision, the Elo
    estimate, and what the pairing bought."""

    params: SprtParams
    """The design."""
    counts: Pentanomial
    """The pentanomial counts."""
    llr: float
    """The exact generalized LLR of H1 against H0."""
    decision: Decision
    """H1, H0 or continue."""
    estimate: EloEstimate
    """The Elo estimate in the design's model."""
    pairing: PairingVariance
    """The variance ratio of pairing."""

    def to_json(self) -> dict[str, object]:
        """One flat JSON object (the fields of `arena sprt llr --format json`)."""
        lower, upper = self.params.bounds
        return {
            "model": str(self.params.model),
            "elo0": self.params.elo0,
            "elo1": self.params.elo1,
            "alpha": self.params.alpha,
            "beta": self.params.beta,
            "pentanomial": list(self.counts.counts),
            "pairs": self.counts.pairs,
            "llr": self.llr,
            "lower_bound": lower,
            "upper_bound": upper,
            "decision": str(self.decision),
            "score": self.estimate.score,
            "elo": self.estimate.elo,
            "elo_ci95": [self.estimate.low, self.estimate.high],
            "los": self.estimate.los,
            "variance_ratio": self.pairing.ratio,
            "variance_note": "" if self.pairing.ratio is not None else self.pairing.note,
            "variance_reduction": self.pairing.reduction,
            "variance_ratio_range": list(self.pairing.ratio_range),
            "draw_pairs": self.pairing.draw_pairs,
        }


def evaluate(counts: Pentanomial, params: SprtParams, draw_pairs: int = 0) -> SprtResult:
    """The LLR, decision, Elo estimate and pairing variance of ``counts`` under ``params``."""
    value = llr(counts, params)
    return SprtResult(
        params=params,
        counts=counts,
        llr=value,
        decision=decide(value, params.bounds),
        estimate=elo_estimate(counts, params.model),
        pairing=pairing_variance(counts, draw_pairs),
    )
