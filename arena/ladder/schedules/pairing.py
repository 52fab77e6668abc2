"""Information-driven pairing for adaptive and continuous ladders: which encounter teaches the
most about the ranking next, under fairness rules, and when the ranking is known. PURE.

The model is the ladder's: the Bradley–Terry fit of ``arena.stats.rating`` over the players'
legs (each version of a bot is a player of its own in a continuous ladder), the two legs of an
encounter one clustered observation as in the standings. The choice, in this order of priority:

1. **placement**: a player with placement encounters left plays first, against opponents spread
   over the standings (its k-th placement encounter of ``placement_total`` meets the player at
   the middle of the k-th of ``placement_total`` equal slices of the standings of the other
   current players: rank ``floor((k + 1/2) m / placement_total)`` of ``m``, or the nearest rank
   that is free), new players in the order they arrived;
2. **fairness**: every current player plays at least once in every ``fairness_k`` consecutive
   encounters of the ladder (handed out, recorded or in flight). A player's deadline is the
   ``fairness_k``-th encounter after its last one; as one encounter serves two players, the rule
   steps in as soon as the information rule's pick would leave the deadlines impossible to meet
   (earliest deadline first: at most ``2 (s + 1)`` players may be due within the next ``s + 1``
   encounters). Then the player due first (the longest-waiting) plays its most informative
   opponent that keeps every deadline reachable;
3. **information**: otherwise the pair whose encounter most reduces the uncertainty of the order
   of the standings' adjacent pairs. One encounter between a and b adds ``legs × p (1 − p)`` of
   Fisher information along ``e_a − e_b`` (p: the model's probability that a wins a game);
   the covariance Σ of the log-strengths would shrink by a rank-one update (Sherman–Morrison),
   and the gain is Σ_k w_k · (relative reduction of Var(θ_c − θ_d)) over the adjacent pairs
   (c, d), weighted by how unsure their order is: ``w = (1 − P) / (1 − confidence)`` capped at
   1 (an unseparated pair counts fully), and at least ``MIN_WEIGHT`` so a continuous ladder
   whose order is known keeps spreading its games. A pair that has played much already gains
   little (its difference is known better): that is the "weighted by how little they played".
   Encounters in flight are counted as if played (the same update; the weights stay those of
   the recorded results), so concurrent choices spread over the field rather than pile onto
   one pair. The reason names the adjacent pair the encounter teaches most about.

Never a pair that is in flight, and not the pair of the last encounter (the last one handed
out) while another pair is open. Seats: ``pair[0]`` is whichever of the two sat in seat 0 of an
encounter's first leg less often (a tie: the player the rule names first).

Deterministic: a pure function of its input (ties broken by the players' order), so a resumed
run picks what the crashed one would have picked from the same store. Each choice carries one
line saying why ("placement 1/4: strong@3 vs greedy@1 (rank 2 of 3)", "fairness: random@1 has
waited 7 encounters", "greedy@1 vs strong@2: ordered 71% surely after 3 encounters").

Separation: the probability that an adjacent pair (a above b) is in the right order is
``Φ((θ_a − θ_b) / σ)``, σ² = Var(θ_a − θ_b) = var_a + var_b − 2 cov_ab, the larger of the
model-based and the encounter-clustered estimate (the standings' intervals).
"""

from __future__ import annotations

import functools
import math
import threading
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from statistics import NormalDist

from arena.stats.encounters import Leg
from arena.stats.rating import Aggregator, Model, PairStats, dot, fit_model

DEFAULT_CONFIDENCE = 0.95
"""An adaptive ladder stops when every adjacent pair is ordered at least this surely."""
DEFAULT_PLACEMENT = 4
"""Placement encounters a new version plays before the information rule picks its games."""
MIN_WEIGHT = 1e-3
"""The least weight an adjacent pair's order has in the information rule (a separated pair's
weight is its chance of being wrong over the chance the confidence allows)."""
MIN_PRIOR = 1e-6
"""The prior the pairing fit uses when the ladder's is 0, so a player without games has a
(very wide) rating instead of none."""
LEGS_PER_ENCOUNTER = 2
"""Games an encounter adds to the model (a duplicate pair)."""
_NORMAL = NormalDist()


@dataclass(frozen=True)
class PairingInput:
    """What the next choice depends on."""

    players: tuple[str, ...]
    """The current players (who may be paired), in their stable order (arrival)."""
    legs: tuple[Leg, ...]
    """Every recorded leg of the ladder (retired versions' too: they anchor the ratings), in
    the order they were recorded; the legs of complete encounters (an encounter cut between its
    legs is in flight)."""
    in_flight: tuple[tuple[str, str], ...] = ()
    """Pairs handed out whose encounter is not recorded yet (complete or not), in the order
    they were handed out."""
    placement: Mapping[str, int] = field(default_factory=dict)
    """Players with placement encounters still to play, and how many."""
    placement_total: int = DEFAULT_PLACEMENT
    """Placement encounters a new player plays in all."""
    fairness_k: int = 0
    """Every current player plays at least once every ``fairness_k`` encounters (0: twice the
    number of current players)."""
    prior: float = 1.0
    """The Bradley–Terry prior (the ladder's ``rating.prior``)."""
    confidence: float = DEFAULT_CONFIDENCE
    """The ladder's confidence: the information rule counts an adjacent pair ordered less
    surely than this as fully unknown."""


@dataclass(frozen=True)
class Choice:
    """The next encounter."""

    pair: tuple[str, str]
    """Who meets whom (``pair[0]`` sits in seat 0 of the first leg)."""
    reason: str
    """One line: why this pair ("placement 1/4: strong@3 vs greedy@1 (rank 2 of 3)",
    "fairness: random@1 has waited 7 encounters", "greedy@1 vs strong@2: ordered 71% surely
    after 3 encounters", "greedy@1 vs random@1 (met 4 times): to order strong@2 and greedy@1
    (80% sure)")."""
    rule: str
    """"placement", "fairness" or "information"."""


@dataclass(frozen=True)
class Separation:
    """How surely the current players are ordered."""

    order: tuple[str, ...]
    """The current players by rating, best first."""
    adjacent: tuple[tuple[str, str, float], ...]
    """Each adjacent pair (better, worse) with the model's probability that their order is
    right (from the rating difference and its standard error)."""

    def separated(self, confidence: float = DEFAULT_CONFIDENCE) -> int:
        """How many adjacent pairs are ordered at least that surely."""
        return sum(1 for _, _, p in self.adjacent if p >= confidence)

    def all_separated(self, confidence: float = DEFAULT_CONFIDENCE) -> bool:
        """Whether every adjacent pair is ordered at least that surely."""
        return self.separated(confidence) == len(self.adjacent)


# --- what the legs say ------------------------------------------------------------------------
class _Digest:
    """Everything the choice reads from the recorded legs, built one leg at a time: the
    Bradley–Terry statistics and the ladder's encounters in order (of their first recorded
    leg, each named by the seats of its lowest leg, as ``encounters.fold``)."""

    def __init__(self) -> None:
        self.legs: tuple[Leg, ...] = ()
        self.aggregator = Aggregator()
        self.position: dict[str, int] = {}
        """Encounter id → its position."""
        self.lowest: list[tuple[int, tuple[str, str]]] = []
        """Per position: the lowest leg number seen and its seats."""
        self.last_seen: dict[str, int] = {}
        self.met: Counter[frozenset[str]] = Counter()
        self.first_seat: Counter[str] = Counter()

    def extend(self, legs: Sequence[Leg]) -> None:
        """Take in ``legs`` (recorded after those seen so far)."""
        for leg in legs:
            self._history(leg)
            a, b = leg.players
            if not leg.void and a != b:
                score = 0.5 if leg.winner is None else float(leg.winner == 0)
                self.aggregator.add_game(a, b, score, leg.encounter_id)
        self.legs = (*self.legs, *legs)

    def _history(self, leg: Leg) -> None:
        position = self.position.get(leg.encounter_id)
        if position is None:
            position = self.position[leg.encounter_id] = len(self.lowest)
            self.lowest.append((leg.leg, leg.players))
            for player in leg.players:
                self.last_seen[player] = position
            self.met[frozenset(leg.players)] += 1
            self.first_seat[leg.players[0]] += 1
            return
        number, seats = self.lowest[position]
        if leg.leg < number:  # a lower leg recorded late names the seats
            self.lowest[position] = (leg.leg, leg.players)
            self.first_seat[seats[0]] -= 1
            self.first_seat[leg.players[0]] += 1

    def snapshot(self, players: Sequence[str]) -> _Snapshot:
        """What a choice reads, copied (the digest goes on growing)."""
        names, pairs = self.aggregator.result(extra=players)
        return _Snapshot(names, pairs, len(self.lowest),
                         self.lowest[-1][1] if self.lowest else None, dict(self.last_seen),
                         Counter(self.met), Counter(self.first_seat))


@dataclass(frozen=True)
class _Snapshot:
    """The digest of some legs, as a choice reads it."""

    names: tuple[str, ...]
    pairs: dict[tuple[int, int], PairStats]
    encounters: int
    last_pair: tuple[str, str] | None
    last_seen: dict[str, int]
    met: Counter[frozenset[str]]
    first_seat: Counter[str]


_LAST: list[_Digest] = []
"""The digest of the last call's legs: a live ladder (or the simulation) asks again with the
same legs and a few more, so only the new ones are read. A pure cache: the answer is the one
a digest built from nothing gives."""
_LOCK = threading.Lock()


def _digest(legs: Sequence[Leg], players: Sequence[str]) -> _Snapshot:
    """The digest of ``legs`` (the cached one extended if it saw a prefix of them)."""
    legs = tuple(legs)
    with _LOCK:
        last = _LAST[0] if _LAST else _Digest()
        seen = len(last.legs)
        if seen > len(legs) or legs[:seen] != last.legs:
            last, seen = _Digest(), 0
        last.extend(legs[seen:])
        _LAST[:] = [last]
        return last.snapshot(players)


# --- the model ---------------------------------------------------------------------------------
@functools.lru_cache(maxsize=4)
def _cached_fit(names: tuple[str, ...], stats: tuple[tuple[int, int, int, int, int, int, int,
                                                            int], ...], prior: float) -> Model:
    """The fit for one set of integer statistics (a live ladder asks for the same one for its
    stop rule and its next choice; in-flight choices of a batch share it too)."""
    pairs = {(i, j): PairStats(g, s, s2, ms, m2, c) for i, j, g, s, s2, ms, m2, c in stats}
    return fit_model(names, pairs, prior=prior)


def _model(digest: _Snapshot, prior: float) -> Model:
    stats = tuple((i, j, st.games, st.score2, st.sum_s2, st.sum_ms, st.sum_m2, st.clusters)
                  for (i, j), st in digest.pairs.items())
    return _cached_fit(digest.names, stats, prior if prior > 0 else MIN_PRIOR)


@dataclass(frozen=True)
class _View:
    """The fit as the current players see it."""

    model: Model
    index: dict[str, int]
    """Player → its index in the model."""
    order: tuple[str, ...]
    """Current players, best first."""
    sure: tuple[float, ...]
    """Per adjacent pair of ``order``: the probability their order is right."""

    @classmethod
    def of(cls, players: tuple[str, ...], digest: _Snapshot, prior: float) -> _View:
        return _cached_view(players, _model(digest, prior))

    @classmethod
    def fitted(cls, players: tuple[str, ...], model: Model) -> _View:
        index = {name: k for k, name in enumerate(model.names)}
        rank = {p: k for k, p in enumerate(players)}
        order = tuple(sorted(players, key=lambda p: (-model.theta[index[p]], rank[p])))
        sure = tuple(_order_probability(model, index[a], index[b])
                     for a, b in zip(order, order[1:], strict=False))
        return cls(model, index, order, sure)

    def separation(self) -> Separation:
        return Separation(self.order, tuple(
            (a, b, p) for a, b, p in zip(self.order, self.order[1:], self.sure, strict=False)))


@functools.lru_cache(maxsize=4)
def _cached_view(players: tuple[str, ...], model: Model) -> _View:
    """The view of one fit (shared by the choices of a batch and the stop rule)."""
    return _View.fitted(players, model)


def _order_probability(model: Model, better: int, worse: int) -> float:
    """Φ(Δ / σ): the probability that ``better`` really is the stronger (Δ ≥ 0)."""
    delta = model.theta[better] - model.theta[worse]
    variance = model.difference_variance(better, worse)
    if variance <= 0.0:
        return 1.0 if delta > 0 else 0.5
    return _NORMAL.cdf(delta / math.sqrt(variance))


def separation(players: Sequence[str], legs: Sequence[Leg], prior: float = 1.0) -> Separation:
    """How surely ``players`` are ordered by the fit over ``legs``."""
    players = _unique(players)
    if not players:
        return Separation((), ())
    return _View.of(players, _digest(legs, players), prior).separation()


def _unique(players: Sequence[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(players))


# --- the history -------------------------------------------------------------------------------
@dataclass(frozen=True)
class _History:
    """The ladder's encounters so far, recorded then in flight, as the fairness rules read
    them."""

    length: int
    """Encounters recorded or in flight."""
    last_seen: dict[str, int]
    """Player → the position of its last encounter."""
    met: Counter[frozenset[str]]
    """Encounters per unordered pair."""
    last_pair: frozenset[str] | None
    """The pair of the last encounter handed out."""
    first_seat: Counter[str]
    """How often each player sat in seat 0 of an encounter's first leg."""

    @classmethod
    def of(cls, digest: _Snapshot, in_flight: Sequence[tuple[str, str]]) -> _History:
        length = digest.encounters
        last_seen, met, first_seat = digest.last_seen, digest.met, digest.first_seat
        for position, pair in enumerate(in_flight, start=length):
            last_seen[pair[0]] = last_seen[pair[1]] = position
            met[frozenset(pair)] += 1
            first_seat[pair[0]] += 1
        last = in_flight[-1] if in_flight else digest.last_pair
        return cls(length + len(in_flight), last_seen, met,
                   None if last is None else frozenset(last), first_seat)

    def wait(self, player: str) -> int:
        """Encounters since ``player``'s last one (all of them if it never played)."""
        return self.length - 1 - self.last_seen.get(player, -1)


# --- the choice --------------------------------------------------------------------------------
def choose(state: PairingInput) -> Choice | None:
    """The next encounter (see the module doc); None when fewer than two current players are
    free of encounters in flight (every pair is in flight, or there are not two players)."""
    players = _unique(state.players)
    digest = _digest(state.legs, players)
    history = _History.of(digest, state.in_flight)
    flying = {frozenset(p) for p in state.in_flight}
    open_pairs = [(a, b) for i, a in enumerate(players) for b in players[i + 1:]
                  if frozenset((a, b)) not in flying]
    if len(open_pairs) > 1:
        open_pairs = [p for p in open_pairs if frozenset(p) != history.last_pair] or open_pairs
    if not open_pairs:
        return None
    view = _View.of(players, digest, state.prior)
    placed = _placement(state, players, view, open_pairs)
    choice = placed or _fair_or_informed(state, players, view, history, open_pairs)
    return _seated(choice, history)


def _seated(choice: Choice, history: _History) -> Choice:
    a, b = choice.pair
    if history.first_seat[b] < history.first_seat[a]:
        return Choice((b, a), choice.reason, choice.rule)
    return choice


def _placement(state: PairingInput, players: Sequence[str], view: _View,
               open_pairs: Sequence[tuple[str, str]]) -> Choice | None:
    """A placement encounter of the first new player that has one to play and a free
    opponent."""
    placing = [p for p in players if state.placement.get(p, 0) > 0]
    if not placing:
        return None
    available = {frozenset(p) for p in open_pairs}
    total = max(state.placement_total, 1)
    for player in placing:
        others = [p for p in view.order if p != player and p not in placing]
        others = others or [p for p in view.order if p != player]
        k = min(max(total - state.placement[player], 0), total - 1)
        target = min(int((k + 0.5) * len(others) / total), len(others) - 1)
        ranks = sorted(range(len(others)), key=lambda r: (abs(r - target), r))
        for rank in ranks:
            if frozenset((player, others[rank])) in available:
                return Choice((player, others[rank]),
                              f"placement {k + 1}/{total}: {player} vs {others[rank]} "
                              f"(rank {rank + 1} of {len(others)})", "placement")
    return None


def _fair_or_informed(state: PairingInput, players: tuple[str, ...], view: _View,
                      history: _History, open_pairs: Sequence[tuple[str, str]]) -> Choice:
    gains = _Gains(state, players, view)
    scores = gains.scores(open_pairs)
    best = open_pairs[max(range(len(open_pairs)), key=lambda k: (scores[k], -k))]
    k_window = state.fairness_k if state.fairness_k > 0 else 2 * len(players)
    slack = {p: k_window - 1 - history.wait(p) for p in players}
    if _reachable(slack, best, k_window):
        return gains.choice(best, history)
    ranked = [open_pairs[k] for k in sorted(range(len(open_pairs)), key=lambda k: -scores[k])]
    arrival = {p: k for k, p in enumerate(players)}
    for due in sorted(players, key=lambda p: (slack[p], arrival[p])):
        theirs = [pair for pair in ranked if due in pair]
        if not theirs:
            continue  # every pair of it is in flight
        pair = next((q for q in theirs if _reachable(slack, q, k_window)), None)
        if pair is None:  # not every deadline can be met: its partner is the next most due
            pair = min(theirs, key=lambda q: min(slack[p] for p in q if p != due))
        other = pair[1] if pair[0] == due else pair[0]
        return Choice((due, other), f"fairness: {due} has waited {history.wait(due)} "
                      "encounters", "fairness")
    return gains.choice(ranked[0], history)


def _reachable(slack: Mapping[str, int], pair: tuple[str, str], k_window: int) -> bool:
    """Whether every deadline can still be met after ``pair`` plays: the t-th most urgent of
    the others (0-based) must have at least t // 2 encounters of slack left."""
    after = sorted(k_window - 1 if p in pair else s - 1 for p, s in slack.items())
    return all(s >= t // 2 for t, s in enumerate(after))


@dataclass(frozen=True)
class _Matrices:
    """What the information rule reads from the covariance of the current players."""

    sigma: list[list[float]]
    """Σ, rows and columns in rank order."""
    weights: list[float]
    """Per adjacent pair: how much its order is wanted over the variance of its difference."""
    gram: list[list[float]]
    """G = D W Dᵀ, D holding the adjacent differences of each row of Σ."""

    @classmethod
    def of(cls, sigma: list[list[float]], sure: Sequence[float], confidence: float
           ) -> _Matrices:
        weights = []
        for k, probability in enumerate(sure):
            variance = sigma[k][k] + sigma[k + 1][k + 1] - 2.0 * sigma[k][k + 1]
            need = min(1.0, (1.0 - probability) / max(1.0 - confidence, 1e-12))
            weights.append(max(need, MIN_WEIGHT) / variance if variance > 0 else 0.0)
        diffs = [[x - y for x, y in zip(row, row[1:], strict=False)] for row in sigma]
        weighted = [[w * x for w, x in zip(weights, row, strict=True)] for row in diffs]
        size = len(diffs)
        gram = [[0.0] * size for _ in range(size)]
        for i in range(size):
            row, weighted_row = gram[i], weighted[i]
            for j in range(i, size):
                row[j] = gram[j][i] = dot(weighted_row, diffs[j])
        return cls(sigma, weights, gram)


@functools.lru_cache(maxsize=4)
def _base(players: tuple[str, ...], model: Model, confidence: float) -> _Matrices:
    """The matrices of a fit with nothing in flight (shared by the stop rule's and a batch's
    calls)."""
    view = _cached_view(players, model)
    idx = [view.index[p] for p in view.order]
    return _Matrices.of([[model.cov[i][j] for j in idx] for i in idx], view.sure, confidence)


class _Gains:
    """The information rule's gain of every candidate pair (see the module doc).

    With Σ the covariance of the current players' log-strengths in rank order, one more
    encounter of a and b (information I along u = e_a − e_b) shrinks the variance of the k-th
    adjacent difference by I (Σu)_k,k+1² / (1 + I uᵀΣu). With D the adjacent differences of
    Σ's rows and W the weights over the variances, the weighted sum is
    I / (1 + I uᵀΣu) × (G_aa + G_bb − 2 G_ab), G = D W Dᵀ: one matrix for all candidates.
    Encounters in flight update Σ first (Sherman–Morrison), and the relative reductions are
    then relative to the variances they leave."""

    def __init__(self, state: PairingInput, players: tuple[str, ...], view: _View) -> None:
        self.view = view
        self.position = {p: k for k, p in enumerate(view.order)}
        self.theta = [view.model.theta[view.index[p]] for p in view.order]
        """Log-strengths in rank order."""
        matrices = _base(players, view.model, state.confidence)
        flying = [(self.position[a], self.position[b]) for a, b in state.in_flight
                  if a in self.position and b in self.position and a != b]
        if flying:
            sigma = matrices.sigma
            for a, b in flying:
                sigma = self._updated(sigma, a, b)
            matrices = _Matrices.of(sigma, view.sure, state.confidence)
        self.sigma, self.weights, self.gram = matrices.sigma, matrices.weights, matrices.gram

    def _information(self, a: int, b: int) -> float:
        p = 1.0 / (1.0 + math.exp(self.theta[b] - self.theta[a]))
        return LEGS_PER_ENCOUNTER * p * (1.0 - p)

    def _updated(self, sigma: list[list[float]], a: int, b: int) -> list[list[float]]:
        """Σ after one more encounter between rank positions a and b (Sherman–Morrison:
        Σ − f s sᵀ, s = Σ (e_a − e_b)); a new matrix, the base is shared."""
        s = [x - y for x, y in zip(sigma[a], sigma[b], strict=True)]
        info = self._information(a, b)
        f = info / (1.0 + info * (s[a] - s[b]))
        return [[v - f * si * sj for v, sj in zip(row, s, strict=True)]
                for row, si in zip(sigma, s, strict=True)]

    def scores(self, pairs: Sequence[tuple[str, str]]) -> list[float]:
        """Each pair's weighted relative reduction of the adjacent pairs' variances (one loop:
        it runs over every open pair before every encounter)."""
        position, theta, sigma, gram = self.position, self.theta, self.sigma, self.gram
        exp = math.exp
        out = []
        for first, second in pairs:
            a, b = position[first], position[second]
            p = 1.0 / (1.0 + exp(theta[b] - theta[a]))
            info = LEGS_PER_ENCOUNTER * p * (1.0 - p)
            row_a, gram_a = sigma[a], gram[a]
            tau = row_a[a] + sigma[b][b] - 2.0 * row_a[b]
            out.append(info / (1.0 + info * tau) * (gram_a[a] + gram[b][b] - 2.0 * gram_a[b]))
        return out

    def choice(self, pair: tuple[str, str], history: _History) -> Choice:
        """The information rule's choice of ``pair``, better-ranked first, with its reason:
        the adjacent pair it teaches most about."""
        first, second = sorted(pair, key=self.position.__getitem__)
        a, b = self.position[first], self.position[second]
        s = [x - y for x, y in zip(self.sigma[a], self.sigma[b], strict=True)]
        share = [w * (x - y) * (x - y) for w, x, y in zip(self.weights, s, s[1:], strict=False)]
        k = max(range(len(share)), key=lambda j: (share[j], -j))
        sure = _percent(self.view.sure[k])
        met = history.met[frozenset(pair)]
        if (k, k + 1) == (a, b):
            reason = f"{first} vs {second}: ordered {sure} surely after {met} encounters"
        else:
            upper, lower = self.view.order[k], self.view.order[k + 1]
            reason = (f"{first} vs {second} (met {met} times): to order {upper} and {lower} "
                      f"({sure} sure)")
        return Choice((first, second), reason, "information")


def _percent(probability: float) -> str:
    """71%, 99.7%, >99.9%."""
    if probability >= 0.999:
        return ">99.9%"
    return f"{100 * probability:.0f}%" if probability < 0.99 else f"{100 * probability:.1f}%"
