"""Ratings: live incremental Elo and the official Bradley–Terry standings. PURE (stdlib only).

Two numbers, two jobs:

* **Live Elo** (``elo_update``/``live_elo``) moves after every result, starts at 1500 with a
  configurable K. It depends on the order of the games, so it is shown while a ladder runs and
  never used to rank.
* **Official standings** (``fit``): a Bradley–Terry maximum-likelihood fit over all non-void
  results. Order-independent: the records are first folded into integer per-pair sufficient
  statistics (scores counted in half points), so any permutation of the records gives
  bit-identical ratings.

Modelling choices (documented, as the ladder's numbers depend on them):

* **Draws count as half a win each way** (the "score" Bradley–Terry used by Ordo): a draw adds
  1/2 to each side's score. The likelihood ``Π p_ij^(s_ij) p_ji^(s_ji)`` with fractional scores is
  concave with the usual Bradley–Terry form, its maximum matches expected to observed scores, and
  it needs no extra draw parameter (draws are rare in the arena's games: equal totals).
* **A weak prior**: each bot gets ``prior`` virtual games scored 50% against a ghost of rating
  1500 (BayesElo's virtual draws). It keeps ratings finite for perfect records and for
  disconnected fields; ``prior=0`` gives the plain MLE (then every bot needs a win and a loss
  inside one connected field).
* **Anchor**: ratings are on the Elo scale (``400 / ln 10`` per logit), relative to the
  precision-weighted mean of the field, which is 1500. Only rating *differences* are identified,
  so some reference point must be chosen; weighting each bot by the inverse of its variance
  (from a first, equal-weight pass) makes the reference the best-determined point of the field.
  With a plain mean, one badly determined bot (a bot that lost every game has a rating known
  only to be "very low") shifts the reference by a third of its own uncertainty in a field of
  three, and that shift was added to every other bot's interval.
* **95% intervals**: ``±1.96 σ`` of a bot's rating relative to that anchor, where ``σ²`` is
  the larger of two estimates. (1) the model-based one, the inverse observed Fisher information,
  which treats every match as independent; (2) the cluster-robust ("sandwich") one, clustered on
  encounters: with duplicate deals the two legs of an encounter share a deal and are *not*
  independent, and the sandwich uses the observed spread of whole-encounter scores instead of
  the model's binomial variance, so it stays valid whatever the correlation between legs is
  (with the CR1 small-sample factor G/(G-1)). The sandwich can be over-optimistic at perfect
  records (no observed spread), where the Fisher estimate is large; taking the larger of the two
  never claims more precision than either argument supports.

Also here: the duplicate-deal statistics (pentanomial counts per pair, and the measured variance
reduction of the paired score difference versus unpaired matches).
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

ELO_PER_LOGIT = 400.0 / math.log(10.0)
"""Elo points per unit of logistic log-odds."""
Z95 = 1.959963984540054
"""The two-sided 95% quantile of the standard normal distribution."""


@dataclass(frozen=True)
class GameRecord:
    """One rated game between two bots (void matches are never turned into records)."""

    a: str
    """The bot in seat 0."""
    b: str
    """The bot in seat 1."""
    score_a: float
    """Seat 0's score: 1 win, 0.5 draw, 0 loss."""
    encounter: str | None = None
    """The encounter (duplicate pair) the game belongs to; None: a cluster of its own."""
    margin_a: float = 0.0
    """Seat 0's total minus seat 1's total, in game points (for the pairing statistics)."""
    leg: int = 0
    """The leg within the encounter (0 or 1)."""


# --- live Elo ---------------------------------------------------------------------------------
def expected_score(rating_a: float, rating_b: float) -> float:
    """The Elo expectation of A against B."""
    return 1.0 / (1.0 + math.pow(10.0, (rating_b - rating_a) / 400.0))


def elo_update(
    rating_a: float, rating_b: float, score_a: float, k: float
) -> tuple[float, float]:
    """Both ratings after one game in which A scored ``score_a`` (zero-sum update)."""
    delta = k * (score_a - expected_score(rating_a, rating_b))
    return rating_a + delta, rating_b - delta


def live_elo(
    records: Iterable[GameRecord], *, k: float = 16.0, start: float = 1500.0
) -> dict[str, float]:
    """Fold ``elo_update`` over the records in the order given (order-dependent by nature)."""
    ratings: dict[str, float] = {}
    for rec in records:
        ra = ratings.get(rec.a, start)
        rb = ratings.get(rec.b, start)
        ratings[rec.a], ratings[rec.b] = elo_update(ra, rb, rec.score_a, k)
    return ratings


# --- aggregation --------------------------------------------------------------------------------
@dataclass
class PairStats:
    """Integer sufficient statistics of the games between bots ``i < j`` (scores in half points).

    For the sandwich variance: per encounter c with m_c games and i's half-point score S_c, we
    keep Σ S_c², Σ m_c S_c and Σ m_c² (all integers)."""

    games: int = 0
    score2: int = 0
    """i's score against j, in half points."""
    sum_s2: int = 0
    sum_ms: int = 0
    sum_m2: int = 0
    clusters: int = 0


def _half_points(score: float) -> int:
    half = round(score * 2)
    if half not in (0, 1, 2) or abs(score * 2 - half) > 1e-9:
        raise ValueError(f"a game score must be 0, 0.5 or 1, got {score!r}")
    return half


class Aggregator:
    """``aggregate`` one game at a time: the same integer statistics, kept up to date as a
    record grows (a live ladder's store, a simulation), so reading them costs the number of
    pairs of bots, not of games."""

    def __init__(self) -> None:
        self._clusters: dict[tuple[str, str, str], list[int]] = {}
        self._pairs: dict[tuple[str, str], PairStats] = {}
        self._solo = 0

    def add(self, rec: GameRecord) -> None:
        """Count one record (``ValueError`` for a bot playing itself or a bad score)."""
        self.add_game(rec.a, rec.b, rec.score_a, rec.encounter)

    def add_game(self, a: str, b: str, score_a: float, encounter: str | None) -> None:
        """Count one game of ``a`` (seat 0) against ``b`` in ``encounter`` (None: a cluster of
        its own)."""
        if a == b:
            raise ValueError(f"a bot cannot play itself: {a!r}")
        first, second = (a, b) if a < b else (b, a)
        half = _half_points(score_a)
        half = half if first == a else 2 - half
        if encounter is None:
            key = (first, second, f"\x00{self._solo}")
            self._solo += 1
        else:
            key = (first, second, encounter)
        acc = self._clusters.setdefault(key, [0, 0])
        m, s = acc
        acc[0], acc[1] = m + 1, s + half
        st = self._pairs.setdefault((first, second), PairStats())
        st.games += 1
        st.score2 += half
        st.sum_s2 += (s + half) * (s + half) - s * s
        st.sum_ms += (m + 1) * (s + half) - m * s
        st.sum_m2 += (m + 1) * (m + 1) - m * m
        st.clusters += m == 0

    def result(self, extra: Iterable[str] = ()
               ) -> tuple[tuple[str, ...], dict[tuple[int, int], PairStats]]:
        """Sorted bot names (with ``extra``) and per-pair statistics keyed by their indexes, in
        a fixed order (bit-identical float sums downstream)."""
        names = tuple(sorted({name for key in self._pairs for name in key} | set(extra)))
        index = {name: i for i, name in enumerate(names)}
        pairs = {(index[first], index[second]): PairStats(
            st.games, st.score2, st.sum_s2, st.sum_ms, st.sum_m2, st.clusters)
            for (first, second), st in self._pairs.items()}
        return names, dict(sorted(pairs.items()))

    def copy(self) -> Aggregator:
        """An independent copy (to extend one without the other)."""
        other = Aggregator()
        other._clusters = {key: acc[:] for key, acc in self._clusters.items()}
        other._pairs = {key: PairStats(st.games, st.score2, st.sum_s2, st.sum_ms, st.sum_m2,
                                       st.clusters) for key, st in self._pairs.items()}
        other._solo = self._solo
        return other


def aggregate(
    records: Iterable[GameRecord], extra: Iterable[str] = (),
) -> tuple[tuple[str, ...], dict[tuple[int, int], PairStats]]:
    """Fold records into sorted bot names and per-pair integer statistics (order-independent).

    ``extra``: names to include though they have no record (a player yet to play)."""
    aggregator = Aggregator()
    for rec in records:
        aggregator.add(rec)
    return aggregator.result(extra)


# --- Bradley–Terry fit ------------------------------------------------------------------------
@dataclass(frozen=True)
class Rating:
    """One bot's official rating."""

    name: str
    rating: float
    """Elo scale, precision-weighted field mean 1500 (with the prior's ghost at 1500 too)."""
    ci95: float
    """Half-width of the 95% interval: the rating lies in ``rating ± ci95``."""
    games: int
    score: float
    """Points scored (wins + draws / 2)."""

    @property
    def low(self) -> float:
        return self.rating - self.ci95

    @property
    def high(self) -> float:
        return self.rating + self.ci95


@dataclass(frozen=True)
class Fit:
    """The result of a Bradley–Terry fit, best first."""

    ratings: tuple[Rating, ...]
    iterations: int
    converged: bool

    def by_name(self) -> dict[str, Rating]:
        return {r.name: r for r in self.ratings}


def _sigmoid(x: float) -> float:
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    e = math.exp(x)
    return e / (1.0 + e)


def _log_sigmoid(x: float) -> float:
    return -math.log1p(math.exp(-x)) if x >= 0 else x - math.log1p(math.exp(x))


def _loglik(theta: Sequence[float], pairs: Mapping[tuple[int, int], PairStats], prior: float
            ) -> float:
    total = 0.0
    for (i, j), st in pairs.items():
        d = theta[i] - theta[j]
        s = st.score2 / 2.0
        total += s * _log_sigmoid(d) + (st.games - s) * _log_sigmoid(-d)
    if prior > 0:
        total += sum(prior / 2.0 * (_log_sigmoid(t) + _log_sigmoid(-t)) for t in theta)
    return total


def _grad_hess(
    theta: Sequence[float], pairs: Mapping[tuple[int, int], PairStats], prior: float
) -> tuple[list[float], list[list[float]]]:
    """Gradient and negated Hessian (the observed information) of the log-likelihood."""
    n = len(theta)
    grad = [0.0] * n
    info = [[0.0] * n for _ in range(n)]
    for (i, j), st in pairs.items():
        p = _sigmoid(theta[i] - theta[j])
        g = st.score2 / 2.0 - st.games * p
        w = st.games * p * (1.0 - p)
        grad[i] += g
        grad[j] -= g
        info[i][i] += w
        info[j][j] += w
        info[i][j] -= w
        info[j][i] -= w
    if prior > 0:
        for i, t in enumerate(theta):
            p = _sigmoid(t)
            grad[i] += prior * (0.5 - p)
            info[i][i] += prior * p * (1.0 - p)
    return grad, info


def _gauge(info: list[list[float]], prior: float) -> list[list[float]]:
    """Without a prior the information is singular along (1, ..., 1): add J/n to fix the mean."""
    if prior > 0:
        return info
    n = len(info)
    return [[v + 1.0 / n for v in row] for row in info]


def _solve(matrix: list[list[float]], rhs: list[float]) -> list[float]:
    """Solve a symmetric positive definite system by Gaussian elimination with pivoting."""
    n = len(rhs)
    aug = [row[:] + [rhs[k]] for k, row in enumerate(matrix)]
    _eliminate(aug, n)
    return [aug[k][n] for k in range(n)]


def _inverse(matrix: list[list[float]]) -> list[list[float]]:
    """The inverse of a non-singular matrix (Gauss–Jordan with partial pivoting)."""
    n = len(matrix)
    aug = [row[:] + [1.0 if c == r else 0.0 for c in range(n)] for r, row in enumerate(matrix)]
    _eliminate(aug, n)
    return [row[n:] for row in aug]


def _eliminate(aug: list[list[float]], n: int) -> None:
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(aug[r][col]))
        if abs(aug[pivot][col]) < 1e-300:
            raise ValueError("singular information matrix (a bot without rated games?)")
        aug[col], aug[pivot] = aug[pivot], aug[col]
        prow = aug[col]
        inv = 1.0 / prow[col]
        prow = [v * inv for v in prow]
        aug[col] = prow
        for r in range(n):
            if r != col:
                row = aug[r]
                f = row[col]
                if f != 0.0:
                    aug[r] = [a - f * b for a, b in zip(row, prow, strict=True)]


def dot(x: Iterable[float], y: Iterable[float]) -> float:
    """Σ x_k y_k (the shorter of the two decides the length)."""
    return float(sum(map(operator.mul, x, y)))


def _cholesky(matrix: list[list[float]]) -> list[list[float]]:
    """The lower-triangular L with L Lᵀ = ``matrix`` (symmetric positive definite; a sixth of
    the work of Gauss–Jordan). ``ValueError`` if it is not positive definite."""
    n = len(matrix)
    mul = operator.mul
    low = [[0.0] * n for _ in range(n)]
    for j in range(n):
        row_j = low[j]
        head = row_j[:j]
        pivot = matrix[j][j] - sum(map(mul, head, head))
        if not pivot > 0.0:
            raise ValueError("singular information matrix (a bot without rated games?)")
        d = math.sqrt(pivot)
        row_j[j] = d
        for i in range(j + 1, n):
            row_i = low[i]
            row_i[j] = (matrix[i][j] - sum(map(mul, row_i, head))) / d
    return low


def _cholesky_solve(matrix: list[list[float]], rhs: list[float]) -> list[float]:
    """Solve a symmetric positive definite system through its Cholesky factor."""
    low = _cholesky(matrix)
    n = len(rhs)
    mul = operator.mul
    y = [0.0] * n
    for i in range(n):
        y[i] = (rhs[i] - sum(map(mul, low[i], y[:i]))) / low[i][i]
    upper = [list(col) for col in zip(*low, strict=True)]
    x = [0.0] * n
    for i in range(n - 1, -1, -1):
        x[i] = (y[i] - sum(map(mul, upper[i][i + 1:], x[i + 1:]))) / upper[i][i]
    return x


def _cholesky_inverse(matrix: list[list[float]]) -> list[list[float]]:
    """The inverse of a symmetric positive definite matrix: L⁻ᵀ L⁻¹."""
    low = _cholesky(matrix)
    n = len(matrix)
    mul = operator.mul
    cols = []  # the columns of L⁻¹ (lower triangular): L y = e_c by forward substitution
    for c in range(n):
        y = [0.0] * n
        y[c] = 1.0 / low[c][c]
        for i in range(c + 1, n):
            row = low[i]
            y[i] = -sum(map(mul, row[c:i], y[c:i])) / row[i]
        cols.append(y)
    result = [[0.0] * n for _ in range(n)]
    for i in range(n):
        for j in range(i, n):
            value = sum(map(mul, cols[i][j:], cols[j][j:]))
            result[i][j] = result[j][i] = value
    return result


Solver = Callable[[list[list[float]], list[float]], list[float]]
"""How a Newton step solves its linear system."""


def _newton(
    n: int, pairs: Mapping[tuple[int, int], PairStats], prior: float, max_iter: int, tol: float,
    solve: Solver = _solve, final_step: float = 0.0,
) -> tuple[list[float], int, bool]:
    """Newton's method with a backtracking line search from θ = 0. ``final_step``: a full
    step smaller than this is taken without a line search and ends the iteration (near the
    maximum, rounding in the log-likelihood can refuse such a step and halve it for many
    iterations; 0: never)."""
    theta = [0.0] * n
    ll = _loglik(theta, pairs, prior)
    for it in range(1, max_iter + 1):
        grad, info = _grad_hess(theta, pairs, prior)
        step = solve(_gauge(info, prior), grad)
        if max(map(abs, step), default=0.0) < final_step:
            return [t + s for t, s in zip(theta, step, strict=True)], it, True
        scale = 1.0
        while True:
            trial = [t + scale * s for t, s in zip(theta, step, strict=True)]
            trial_ll = _loglik(trial, pairs, prior)
            if trial_ll >= ll - 1e-12 or scale < 1e-6:
                break
            scale /= 2.0
        theta, ll = trial, trial_ll
        if max(abs(scale * s) for s in step) < tol:
            return theta, it, True
    return theta, max_iter, False


def fit(
    records: Iterable[GameRecord],
    *,
    prior: float = 1.0,
    max_iter: int = 100,
    tol: float = 1e-9,
) -> Fit:
    """The Bradley–Terry maximum-likelihood ratings with 95% intervals (see the module doc).

    Raises ``ValueError`` for a score other than 0, 0.5 or 1, or when ``prior == 0`` and the
    maximum-likelihood estimate does not exist (the information matrix is singular)."""
    names, pairs = aggregate(records)
    return fit_pairs(names, pairs, prior=prior, max_iter=max_iter, tol=tol)


def fit_pairs(
    names: Sequence[str],
    pairs: Mapping[tuple[int, int], PairStats],
    *,
    prior: float = 1.0,
    max_iter: int = 100,
    tol: float = 1e-9,
) -> Fit:
    """``fit`` on pre-aggregated statistics (``aggregate``)."""
    n = len(names)
    if n == 0:
        return Fit((), 0, True)
    theta, cov, iterations, converged = _theta_cov(n, pairs, prior, max_iter, tol)
    spread = _cluster_spread(theta, pairs)
    # The anchor (gauge): first the plain field mean, then the precision-weighted mean, so a
    # badly determined bot (say one that lost every game) does not blur everyone's interval.
    weights = _anchor_weights(_variances(cov, spread, [1.0 / n] * n))
    variances = _variances(cov, spread, weights)
    mean = sum(w * t for w, t in zip(weights, theta, strict=True))
    games = [0] * n
    score2 = [0] * n
    for (i, j), st in pairs.items():
        games[i] += st.games
        games[j] += st.games
        score2[i] += st.score2
        score2[j] += 2 * st.games - st.score2
    ratings = [
        Rating(
            name=names[k],
            rating=1500.0 + ELO_PER_LOGIT * (theta[k] - mean),
            ci95=Z95 * ELO_PER_LOGIT * math.sqrt(max(variances[k], 0.0)),
            games=games[k],
            score=score2[k] / 2.0,
        )
        for k in range(n)
    ]
    ratings.sort(key=lambda r: (-r.rating, r.name))
    return Fit(tuple(ratings), iterations, converged)


def _anchor_weights(variances: Sequence[float]) -> list[float]:
    """Inverse-variance weights (summing to 1) for the anchor; equal weights as a fallback."""
    n = len(variances)
    if any(v <= 0.0 for v in variances):
        return [1.0 / n] * n
    inverse = [1.0 / v for v in variances]
    total = sum(inverse)
    return [x / total for x in inverse]


def _theta_cov(
    n: int, pairs: Mapping[tuple[int, int], PairStats], prior: float, max_iter: int, tol: float
) -> tuple[list[float], list[list[float]], int, bool]:
    """The maximum-likelihood log-strengths and their model-based covariance (the inverse of
    the observed information, gauge-fixed without a prior), with Newton's iterations."""
    theta, iterations, converged = _newton(n, pairs, prior, max_iter, tol)
    _, info = _grad_hess(theta, pairs, prior)
    return theta, _inverse(_gauge(info, prior)), iterations, converged


def _cluster_spread(
    theta: Sequence[float], pairs: Mapping[tuple[int, int], PairStats]
) -> list[tuple[int, int, float]]:
    """Per pair (i, j) that met, the encounter-clustered spread of i's score around the model,
    Σ_c (S_c − m_c p)² with the CR1 factor G/(G−1): the "meat" of the sandwich estimate (pairs
    whose spread is 0 are left out)."""
    total_clusters = sum(st.clusters for st in pairs.values())
    factor = total_clusters / (total_clusters - 1) if total_clusters > 1 else 1.0
    spread = []
    for (i, j), st in pairs.items():
        p = _sigmoid(theta[i] - theta[j])
        # Σ_c (S_c − m_c p)² with S in points: (Σ S2² − 2p Σ m S2 ... ) / 4 in half points
        q = (st.sum_s2 / 4.0) - p * st.sum_ms + p * p * st.sum_m2
        q = max(q, 0.0) * factor
        if q != 0.0:
            spread.append((i, j, q))
    return spread


def _variances(
    cov: list[list[float]],
    spread: Sequence[tuple[int, int, float]],
    weights: Sequence[float],
) -> list[float]:
    """Per bot, max(model-based, cluster-robust) variance of θ_k minus the anchor Σ w_c θ_c."""
    n = len(cov)
    col_mean = [sum(weights[r] * cov[r][c] for r in range(n)) for c in range(n)]
    grand = sum(weights[c] * col_mean[c] for c in range(n))
    model = [cov[k][k] - 2.0 * col_mean[k] + grand for k in range(n)]
    # centered covariance rows: (P A)_kc = A_kc - col_mean_c
    centered = [[v - m for v, m in zip(cov[k], col_mean, strict=True)] for k in range(n)]
    robust = [0.0] * n
    for i, j, q in spread:
        for k in range(n):
            row = centered[k]
            d = row[i] - row[j]
            robust[k] += q * d * d
    return [max(a, b) for a, b in zip(model, robust, strict=True)]


@dataclass(frozen=True)
class Model:
    """A Bradley–Terry fit as pairing decisions read it (``arena.ladder.schedules.pairing``): the
    log-strengths and their covariance, in logits. Only differences are identified, so nothing
    here is anchored; the variance of a difference is the standings' (the larger of the
    model-based and the encounter-clustered estimate)."""

    names: tuple[str, ...]
    """Sorted, as ``aggregate`` gives them."""
    theta: tuple[float, ...]
    """Each player's maximum-likelihood log-strength (natural log-odds units)."""
    cov: tuple[tuple[float, ...], ...]
    """The model-based covariance of ``theta`` (the inverse observed information)."""
    meat: tuple[tuple[float, ...], ...]
    """The sandwich's middle, Σ q_ij (e_i − e_j)(e_i − e_j)ᵀ over the encounter-clustered
    spreads q_ij of the pairs that met (``_cluster_spread``)."""

    def model_difference_variance(self, i: int, j: int) -> float:
        """Var(θ_i − θ_j) = var_i + var_j − 2 cov_ij, model-based."""
        cov = self.cov
        return cov[i][i] + cov[j][j] - 2.0 * cov[i][j]

    def difference_variance(self, i: int, j: int) -> float:
        """Var(θ_i − θ_j): the larger of the model-based and the encounter-clustered estimate
        (the sandwich ``A B A`` read along ``e_i − e_j``)."""
        r = [x - y for x, y in zip(self.cov[i], self.cov[j], strict=True)]
        robust = dot(r, [dot(row, r) for row in self.meat])
        return max(self.model_difference_variance(i, j), robust)


def _meat(n: int, spread: Sequence[tuple[int, int, float]]) -> tuple[tuple[float, ...], ...]:
    meat = [[0.0] * n for _ in range(n)]
    for i, j, q in spread:
        meat[i][i] += q
        meat[j][j] += q
        meat[i][j] -= q
        meat[j][i] -= q
    return tuple(tuple(row) for row in meat)


FINAL_STEP = 1e-6
"""The pairing fit's last Newton step (logits): Newton converges quadratically, so after a step
this small the estimate is within about 1e-12 of the maximum."""


def fit_model(
    names: Sequence[str],
    pairs: Mapping[tuple[int, int], PairStats],
    *,
    prior: float = 1.0,
    max_iter: int = 100,
    tol: float = 1e-9,
) -> Model:
    """The fit of ``fit_pairs`` with its covariance, for pairing decisions, which take one
    before every encounter: the same Newton iteration and stopping rule, its linear algebra by
    Cholesky factors (several times faster than ``fit``'s Gauss–Jordan for a field of 32; the
    estimates agree to the iteration's tolerance). Needs ``prior > 0`` (``ValueError``
    otherwise, or if the information is singular)."""
    if prior <= 0:
        raise ValueError("a pairing fit needs a prior > 0")
    if not names:
        return Model((), (), (), ())
    theta, _, _ = _newton(len(names), pairs, prior, max_iter, tol, _cholesky_solve,
                          final_step=FINAL_STEP)
    _, info = _grad_hess(theta, pairs, prior)
    cov = _cholesky_inverse(info)
    return Model(tuple(names), tuple(theta), tuple(tuple(row) for row in cov),
                 _meat(len(names), _cluster_spread(theta, pairs)))


# --- duplicate-deal statistics -------------------------------------------------------------
PENTANOMIAL = (0.0, 0.25, 0.5, 0.75, 1.0)
"""The five possible per-encounter scores of a duplicate pair (the mean of its two legs)."""
MIN_RATIO_ENCOUNTERS = 20
"""Complete encounters (of bots that met at least twice) below which no variance ratio of
pairing is given. The ratio divides two sample variances; from n encounters each is known only
to about ±√(2/n) of itself (±32% at 20, ±63% at 5), so below 20 the figure says more about luck
than about the deals (with 4 encounters of a mirror match it claimed a pair worth 1075 unpaired
games). The SPRT's ratio uses the same minimum, in pairs."""
NOT_ENOUGH = "not enough encounters to estimate ({have} of the {need} needed)"
"""The note when there are fewer than ``MIN_RATIO_ENCOUNTERS``."""
SAME_PAIRED_DIFFERENCE = "every paired difference is the same: nothing to estimate"
"""The note when the paired variance is 0 (mirror bots: each leg undoes the other)."""
SAME_GAME = "every game scored the same: nothing to estimate"
"""The note when the unpaired variance is 0."""
NO_REPEAT = "no two bots have met twice yet: nothing to compare"
"""The note when no pair of bots has two complete encounters (each pair's own mean is removed,
so a pair met once tells nothing about the spread)."""
_DEGENERATE = 1e-12
"""A variance this small against the other is rounding error, i.e. 0."""


@dataclass(frozen=True)
class PairingStats:
    """What the duplicate deals bought, measured over the complete two-leg encounters."""

    pentanomial: dict[tuple[str, str], tuple[int, int, int, int, int]]
    """Per pair (a, b) with a < b: how many encounters a scored 0, 1/4, 1/2, 3/4, 1."""
    encounters: int
    """Complete two-leg encounters used."""
    score_ratio: float | None
    """Var(paired score) / Var(two unpaired games) for the W/D/L score; None if unmeasurable."""
    margin_ratio: float | None
    """The same ratio for the point margin (total difference) of the games."""
    per_pair_margin_ratio: dict[tuple[str, str], float] = field(default_factory=dict)
    """The margin ratio of each pair that has one (``MIN_RATIO_ENCOUNTERS`` complete encounters
    and a variance to measure)."""
    score_note: str = ""
    """Why ``score_ratio`` is None, in words ("not enough encounters to estimate (4 of the 20
    needed)", "every paired difference is the same: nothing to estimate"); "" when it is a
    figure."""
    margin_note: str = ""
    """Why ``margin_ratio`` is None; "" when it is a figure."""

    @property
    def score_reduction(self) -> float | None:
        """1 − score_ratio: the fraction of the variance the pairing removed."""
        return None if self.score_ratio is None else 1.0 - self.score_ratio

    @property
    def margin_reduction(self) -> float | None:
        return None if self.margin_ratio is None else 1.0 - self.margin_ratio


def _pooled_ratio(groups: Iterable[Sequence[tuple[float, float]]]) -> tuple[float | None, str]:
    """Pooled within-group Var(x0 + x1) / (Var(x0) + Var(x1)), or None and why not.

    Only groups (pairs of bots) with at least two encounters count; below
    ``MIN_RATIO_ENCOUNTERS`` of their encounters, or when either variance is 0, there is no
    figure."""
    sum_pair = sum_x0 = sum_x1 = 0.0
    counted = 0
    for legs in groups:
        m = len(legs)
        if m < 2:
            continue
        counted += m
        mean0 = sum(x0 for x0, _ in legs) / m
        mean1 = sum(x1 for _, x1 in legs) / m
        for x0, x1 in legs:
            d0, d1 = x0 - mean0, x1 - mean1
            sum_x0 += d0 * d0
            sum_x1 += d1 * d1
            sum_pair += (d0 + d1) * (d0 + d1)
    unpaired = sum_x0 + sum_x1
    if counted == 0:
        return None, NO_REPEAT
    if counted < MIN_RATIO_ENCOUNTERS:
        return None, NOT_ENOUGH.format(have=counted, need=MIN_RATIO_ENCOUNTERS)
    if unpaired <= 0.0:
        return None, SAME_GAME
    if sum_pair <= _DEGENERATE * unpaired:
        return None, SAME_PAIRED_DIFFERENCE
    return sum_pair / unpaired, ""


def pairing_stats(records: Iterable[GameRecord]) -> PairingStats:
    """Pentanomial counts and the measured variance reduction of duplicate deals.

    Within each pair of bots (a < b), for every complete encounter take a's score (and point
    margin) in each leg, x0 and x1. Unpaired games would have variance Var(x0) + Var(x1) for the
    sum of two games; the paired sum has Var(x0 + x1) = Var(x0) + Var(x1) + 2 Cov(x0, x1). The
    ratio is pooled over pairs (each pair's own means removed, so strength differences do not
    count as noise). A ratio below 1 is variance the shared deals removed.

    No figure is claimed that the results cannot support: below ``MIN_RATIO_ENCOUNTERS``
    complete encounters of pairs that met twice, or when a variance is 0 (mirror bots: every
    paired difference is the same), the ratio is None and ``score_note``/``margin_note`` say
    why."""
    legs_by_encounter: dict[tuple[str, str, str], dict[int, tuple[float, float]]] = {}
    for rec in records:
        if rec.encounter is None:
            continue
        first, second = sorted((rec.a, rec.b))
        flip = first != rec.a
        score = 1.0 - rec.score_a if flip else rec.score_a
        margin = -rec.margin_a if flip else rec.margin_a
        legs_by_encounter.setdefault((first, second, rec.encounter), {})[rec.leg] = (
            score,
            margin,
        )
    by_pair_score: dict[tuple[str, str], list[tuple[float, float]]] = {}
    by_pair_margin: dict[tuple[str, str], list[tuple[float, float]]] = {}
    penta: dict[tuple[str, str], list[int]] = {}
    complete = 0
    for (first, second, _), legs in sorted(legs_by_encounter.items()):
        if set(legs) != {0, 1}:
            continue
        complete += 1
        (s0, m0), (s1, m1) = legs[0], legs[1]
        pair = (first, second)
        by_pair_score.setdefault(pair, []).append((s0, s1))
        by_pair_margin.setdefault(pair, []).append((m0, m1))
        counts = penta.setdefault(pair, [0, 0, 0, 0, 0])
        counts[round((s0 + s1) * 2)] += 1
    per_pair: dict[tuple[str, str], float] = {}
    for pair, legs_list in by_pair_margin.items():
        ratio, _ = _pooled_ratio([legs_list])
        if ratio is not None:
            per_pair[pair] = ratio
    score_ratio, score_note = _pooled_ratio(by_pair_score.values())
    margin_ratio, margin_note = _pooled_ratio(by_pair_margin.values())
    return PairingStats(
        pentanomial={pair: (c[0], c[1], c[2], c[3], c[4]) for pair, c in penta.items()},
        encounters=complete,
        score_ratio=score_ratio,
        margin_ratio=margin_ratio,
        per_pair_margin_ratio=per_pair,
        score_note=score_note,
        margin_note=margin_note,
    )
