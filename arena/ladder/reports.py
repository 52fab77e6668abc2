"""A ladder's reports: the official standings, the head-to-head cross-table, the match list,
the versions of each bot and the rating history.

Everything here is a pure function of the recorded matches (``StoredMatch``), except the
loaders (``load_standings``, ``load_crosstable``, ``load_matches``, ``load_versions``,
``load_history``, ``load_void_attempts``), which read them from the ladder's store. Void
matches are listed but never rated: every W/D/L figure comes from one tally, ``head_to_head``,
over the rated matches. The matches the cluster gave up on (``VoidAttempt``) are kept apart:
counted and listed, never rated, played again.

**Who is a player.** A continuous ladder (``schedule.type = "continuous"``) rates each version
of a bot as a player of its own (``name@version``: ``arena.ladder.versions``), so every result
stays with the version that played it; its standings show each name at its *current* version
(the one of the name that played first most recently), rated by the same fit as every retired
version. Every other ladder rates bot names, as it always has.

**Rating history** (``rating_history``): the official fit again after each complete encounter,
over the encounters complete by then (in the order they completed): each player's rating and
95% interval after every step, what `arena ladder history` exports and the report draws. The
fit of a prefix is order-independent like the standings' (the last step *is* the standings'
fit), and a step is computed from per-pair sufficient statistics updated one encounter at a
time, so a long ladder's history costs one fit per encounter, not one pass over the store.
"""

from __future__ import annotations

import contextlib
import csv
import io
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field, fields, replace
from typing import Any

from arena.errors import ConfigError
from arena.ladder.config import LadderConfig
from arena.ladder.schedules.knockout import Bracket
from arena.ladder.schedules.schedule import CONTINUOUS, KNOCKOUT, SWISS
from arena.ladder.schedules.status import AdaptiveStatus, ScheduleStatus
from arena.ladder.store import LadderStore, StoredMatch, VoidAttempt
from arena.ladder.versions import Version, legs_of
from arena.model import plain_text
from arena.stats.encounters import fold
from arena.stats.rating import (
    Fit,
    GameRecord,
    PairingStats,
    PairStats,
    Rating,
    aggregate,
    fit,
    fit_pairs,
    pairing_stats,
)


# --- the tally -------------------------------------------------------------------------------
@dataclass(frozen=True)
class Tally:
    """A bot's wins, draws, losses and game points over some rated matches."""

    wins: int = 0
    draws: int = 0
    losses: int = 0
    points: int = 0
    """The bot's game points (its match totals), summed."""

    @property
    def games(self) -> int:
        """Matches counted."""
        return self.wins + self.draws + self.losses

    @property
    def score_rate(self) -> float:
        """(W + D/2) / games; 0 without games."""
        return (self.wins + self.draws / 2) / self.games if self.games else 0.0

    @property
    def points_per_game(self) -> float:
        """Mean game points per match; 0 without games."""
        return self.points / self.games if self.games else 0.0

    def __add__(self, other: Tally) -> Tally:
        return Tally(self.wins + other.wins, self.draws + other.draws,
                     self.losses + other.losses, self.points + other.points)


def head_to_head(matches: Sequence[StoredMatch]) -> dict[tuple[str, str], Tally]:
    """(bot, opponent) → the bot's tally against that opponent over the rated matches (void ones
    skipped): the one W/D/L count behind the standings and the cross-table (pure)."""
    tallies: dict[tuple[str, str], Tally] = {}
    for m in matches:
        if m.void:
            continue
        for seat in (0, 1):
            key = (m.bots[seat], m.bots[1 - seat])
            tallies[key] = tallies.get(key, Tally()) + _seat_tally(m, seat)
    return tallies


def _seat_tally(m: StoredMatch, seat: int) -> Tally:
    won, lost = m.winner == seat, m.winner == 1 - seat
    return Tally(int(won), int(not won and not lost), int(lost), m.totals[seat])


def _per_bot(pairs: Mapping[tuple[str, str], Tally]) -> dict[str, Tally]:
    bots: dict[str, Tally] = {}
    for (bot, _), tally in pairs.items():
        bots[bot] = bots.get(bot, Tally()) + tally
    return bots


# --- players: names, or versions -------------------------------------------------------------
def rates_versions(config: LadderConfig) -> bool:
    """Whether the ladder rates each version of a bot as a player of its own (a continuous
    ladder) rather than each name."""
    return config.schedule.kind == CONTINUOUS


def by_version(matches: Sequence[StoredMatch]) -> list[StoredMatch]:
    """The matches with each seat's bot named by its version's key (``name@version``), so every
    function here rates, tallies and lists versions (pure)."""
    legs = legs_of(matches, by_version=True)
    return [replace(m, bots=leg.players) for m, leg in zip(matches, legs, strict=True)]


@dataclass(frozen=True)
class PlayedVersion:
    """One version of a bot as the recorded matches name it."""

    key: str
    """Its player key (``name@version``)."""
    version: Version
    first_played: float
    """When its first match was recorded."""
    last_played: float
    """When its latest match was recorded."""
    order: int
    """The order in which the versions first played (0 first)."""


def played_versions(matches: Sequence[StoredMatch]) -> dict[str, PlayedVersion]:
    """Every version that played in ``matches`` (in recording order), by key."""
    keyed = by_version(matches)
    found: dict[str, PlayedVersion] = {}
    for m, k in zip(matches, keyed, strict=True):
        for seat in (0, 1):
            key = k.bots[seat]
            seen = found.get(key)
            if seen is None:
                version = Version(m.bots[seat], m.versions[seat], m.identities[seat])
                found[key] = PlayedVersion(key, version, m.finished_at, m.finished_at,
                                           len(found))
            else:
                found[key] = replace(seen, last_played=max(seen.last_played, m.finished_at))
    return found


def current_versions(played: Mapping[str, PlayedVersion]) -> dict[str, str]:
    """Each name's current version's key: of its versions, the one that played first most
    recently (the version it replaced stops playing)."""
    current: dict[str, PlayedVersion] = {}
    for v in played.values():
        best = current.get(v.version.name)
        if best is None or v.order > best.order:
            current[v.version.name] = v
    return {name: v.key for name, v in current.items()}


def records_of(matches: Sequence[StoredMatch]) -> list[GameRecord]:
    """Rated games (void matches dropped) for the rating functions."""
    return [
        GameRecord(m.bots[0], m.bots[1], m.score0, m.encounter_id or None,
                   float(m.totals[0] - m.totals[1]), m.leg)
        for m in matches if not m.void
    ]


# --- standings -------------------------------------------------------------------------------
@dataclass(frozen=True)
class StandingRow:
    """One line of the standings."""

    rank: int
    bot: str
    rating: float
    """The official Bradley–Terry rating."""
    ci95: float
    """Half-width of the 95% interval around ``rating``."""
    matches: int
    """Rated matches played."""
    wins: int
    draws: int
    losses: int
    points_per_match: float
    """Mean game points (the bot's total) per rated match."""
    live_elo: float | None
    """The live (incremental) Elo, when known."""
    name: str = ""
    """The bot's name, where ``bot`` is a version's key (a continuous ladder); else ""."""
    version: str = ""
    """That version as recorded (a continuous ladder); else ""."""

    @property
    def score_rate(self) -> float:
        """(W + D/2) / matches."""
        return (self.wins + self.draws / 2) / self.matches if self.matches else 0.0

    def to_json(self) -> dict[str, Any]:
        """The row as JSON data (rounded for reading); a version's row also names its bot and
        version."""
        named = {"name": self.name, "version": self.version} if self.name else {}
        return {
            "rank": self.rank, "bot": self.bot, **named, "rating": round(self.rating, 1),
            "ci95": round(self.ci95, 1), "low": round(self.rating - self.ci95, 1),
            "high": round(self.rating + self.ci95, 1), "matches": self.matches,
            "wins": self.wins, "draws": self.draws, "losses": self.losses,
            "score_rate": round(self.score_rate, 4),
            "points_per_match": round(self.points_per_match, 2),
            "live_elo": None if self.live_elo is None else round(self.live_elo, 1),
        }


@dataclass(frozen=True)
class Standings:
    """The official standings of a ladder and what backs them."""

    ladder: str
    rows: tuple[StandingRow, ...]
    """Best first."""
    rated: int
    """Rated matches."""
    void: int
    """Void matches (recorded, never rated)."""
    pairing: PairingStats
    """What the duplicate deals bought."""
    fit: Fit = field(repr=False)
    """The Bradley–Terry fit behind the ratings."""
    given_up: int = 0
    """Matches the cluster gave up on (void attempts: kept apart, never rated, played
    again)."""
    by_version: bool = False
    """Each version is a player (a continuous ladder): ``rows`` holds each name's current
    version, ``retired`` counts the others (rated in the same fit)."""
    retired: int = 0
    """Versions rated but no longer current (a continuous ladder; `--versions` lists them)."""

    def to_json(self) -> dict[str, Any]:
        """The standings as one JSON object."""
        p = self.pairing
        return {
            "ladder": self.ladder,
            "rated_by": "version" if self.by_version else "name",
            "retired_versions": self.retired,
            "rated_matches": self.rated,
            "void_matches": self.void,
            "given_up_matches": self.given_up,
            "standings": [r.to_json() for r in self.rows],
            "duplicate_deals": {
                "encounters": p.encounters,
                "score_variance_ratio": _round(p.score_ratio),
                "score_variance_note": _note(p.score_ratio, p.score_note),
                "margin_variance_ratio": _round(p.margin_ratio),
                "margin_variance_note": _note(p.margin_ratio, p.margin_note),
                "pentanomial": [
                    {"bots": list(pair), "counts": list(c)}
                    for pair, c in sorted(p.pentanomial.items())
                ],
            },
        }


def _round(x: float | None) -> float | None:
    return None if x is None else round(x, 4)


def _note(ratio: float | None, note: str) -> str | None:
    return None if ratio is not None else ratio_note(note)


NOT_ESTIMABLE = "not enough to estimate"
"""What is shown instead of a variance ratio of pairing that the results cannot support."""


def ratio_note(note: str) -> str:
    """What the terminal, the JSON and the report show instead of a variance ratio that cannot
    be estimated, given the statistics' reason (``PairingStats.score_note``,
    ``PairingVariance.note``): the reason when it says how much is missing ("not enough
    encounters to estimate (4 of the 20 needed)"), else "not enough to estimate" and the
    reason ("... (every paired difference is the same: nothing to estimate)")."""
    if not note:
        return NOT_ESTIMABLE
    if note.startswith("not enough"):
        return note
    return f"{NOT_ESTIMABLE} ({note})"


def standings_of(ladder: str, matches: Sequence[StoredMatch], *, prior: float = 1.0,
                 live: Mapping[str, float] | None = None, given_up: int = 0,
                 versions: bool = False) -> Standings:
    """Standings from recorded matches (pure); ``live``: the live Elo by bot, if known;
    ``given_up``: how many matches the cluster gave up on; ``versions``: rate each version as
    a player and show each name at its current version (a continuous ladder: see the module
    doc; the live Elo, kept by name, is then not shown)."""
    shown: dict[str, Version] | None = None
    if versions:
        played = played_versions(matches)
        shown = {key: played[key].version for key in current_versions(played).values()}
        matches = by_version(matches)
        live = None
    records = records_of(matches)
    result = fit(records, prior=prior)
    tallies = _per_bot(head_to_head(matches))
    ratings = [r for r in result.ratings if shown is None or r.name in shown]
    rows = tuple(
        _row(rank, rating, tallies.get(rating.name, Tally()), (live or {}).get(rating.name),
             None if shown is None else shown[rating.name])
        for rank, rating in enumerate(ratings, start=1)
    )
    return Standings(ladder, rows, len(records), sum(1 for m in matches if m.void),
                     pairing_stats(records), result, given_up, versions,
                     len(result.ratings) - len(rows))


def _row(rank: int, rating: Rating, tally: Tally, live_elo: float | None,
         version: Version | None = None) -> StandingRow:
    return StandingRow(rank, rating.name, rating.rating, rating.ci95, tally.games, tally.wins,
                       tally.draws, tally.losses, tally.points_per_game, live_elo,
                       "" if version is None else version.name,
                       "" if version is None else version.version)


# --- versions --------------------------------------------------------------------------------
@dataclass(frozen=True)
class VersionRow:
    """One version of a bot: its rating as a player of its own, and when it played."""

    player: str
    """Its key (``name@version``)."""
    name: str
    version: str
    """As recorded ("" when its bot.toml names none: the key then shows its identity)."""
    identity: str
    """The code identity it was recorded with (a directory's hash, an image's id)."""
    rating: float | None
    """Its rating in the fit over every version; None: it has no rated match."""
    ci95: float | None
    """Half-width of the 95% interval around ``rating``."""
    encounters: int
    """Encounters with at least one rated match."""
    matches: int
    """Rated matches."""
    first_played: float
    """When its first match was recorded (seconds since the epoch)."""
    last_played: float
    """When its latest match was recorded."""
    current: bool
    """The name's current version (the others are retired: replaced by a newer one)."""

    @property
    def short_identity(self) -> str:
        """The identity's first hex digits (as in the version's key)."""
        return Version(self.name, self.version, self.identity).short_identity

    def to_json(self) -> dict[str, Any]:
        """The row as JSON data."""
        return {
            "player": self.player, "name": self.name, "version": self.version,
            "identity": self.identity, "current": self.current,
            "rating": None if self.rating is None else round(self.rating, 1),
            "ci95": None if self.ci95 is None else round(self.ci95, 1),
            "encounters": self.encounters, "matches": self.matches,
            "first_played": iso_time(self.first_played),
            "last_played": iso_time(self.last_played),
        }


def versions_of(matches: Sequence[StoredMatch], *, prior: float = 1.0) -> tuple[VersionRow, ...]:
    """Every version of every bot in ``matches``, rated as players of their own (pure): the
    names in the order of their current versions' ratings, each name's versions in the order
    they first played."""
    played = played_versions(matches)
    current = set(current_versions(played).values())
    keyed = by_version(matches)
    ratings = fit(records_of(keyed), prior=prior).by_name()
    tallies = _per_bot(head_to_head(keyed))
    encounters: dict[str, int] = {}
    for result in fold(legs_of(matches, by_version=True)):
        if result.legs:
            for player in result.players:
                encounters[player] = encounters.get(player, 0) + 1
    rank = {r.version.name: -ratings[r.key].rating if r.key in ratings else 0.0
            for r in played.values() if r.key in current}
    ordered = sorted(played.values(), key=lambda v: (rank[v.version.name], v.version.name,
                                                     v.order))
    return tuple(
        VersionRow(v.key, v.version.name, v.version.version, v.version.identity,
                   _get(ratings.get(v.key), "rating"), _get(ratings.get(v.key), "ci95"),
                   encounters.get(v.key, 0), tallies.get(v.key, Tally()).games,
                   v.first_played, v.last_played, v.key in current)
        for v in ordered
    )


def _get(rating: Rating | None, attribute: str) -> float | None:
    return None if rating is None else float(getattr(rating, attribute))


# --- cross-table -----------------------------------------------------------------------------
@dataclass(frozen=True)
class Crosstable:
    """Head-to-head results over the rated matches."""

    order: tuple[str, ...]
    """The bots in standings order (best first)."""
    cells: Mapping[tuple[str, str], Tally]
    """(bot, opponent) → the bot's tally against that opponent."""


def crosstable_of(matches: Sequence[StoredMatch], *, prior: float = 1.0,
                  versions: bool = False) -> Crosstable:
    """The cross-table of recorded matches, bots ranked as in the standings (pure);
    ``versions``: between the current versions of the bots (a continuous ladder)."""
    if versions:
        current = set(current_versions(played_versions(matches)).values())
        matches = by_version(matches)
        order = tuple(r.name for r in fit(records_of(matches), prior=prior).ratings
                      if r.name in current)
        return Crosstable(order, {pair: tally for pair, tally in head_to_head(matches).items()
                                  if pair[0] in current and pair[1] in current})
    order = tuple(r.name for r in fit(records_of(matches), prior=prior).ratings)
    return Crosstable(order, head_to_head(matches))


# --- match list ------------------------------------------------------------------------------
def match_json(m: StoredMatch) -> dict[str, Any]:
    """A recorded match as JSON data (one entry of the match list)."""
    return {
        "match_id": m.match_id, "encounter_id": m.encounter_id, "cycle": m.cycle, "leg": m.leg,
        "game": m.game, "game_version": m.game_version, "seed": m.seed, "bots": list(m.bots),
        "winner": m.winner, "termination": str(m.termination), "faulty_seat": m.faulty_seat,
        "void": m.void, "rounds": [list(r) for r in m.rounds], "totals": list(m.totals),
        "log": m.log_path, "duration_s": round(m.duration_s, 3),
        "versions": list(m.versions), "identities": list(m.identities),
    }


def seat_version(m: StoredMatch, seat: int) -> str:
    """A seat's version as the match list shows it: the version and the first hex digits of
    the code identity (``2 · 3f2a9c1b``); "" when neither was recorded."""
    short = Version(m.bots[seat], m.versions[seat], m.identities[seat]).short_identity
    return " · ".join(part for part in (m.versions[seat], short) if part)


# --- the schedule types' states -------------------------------------------------------------
def schedule_json(status: ScheduleStatus) -> dict[str, Any]:
    """A schedule type's state as JSON data: its ``type`` ("knockout", "swiss", "adaptive",
    "continuous") and every field of the status (``arena.ladder.schedules.status``)."""
    if isinstance(status, AdaptiveStatus):
        return {"type": status.kind, **asdict(status)}
    if isinstance(status, Bracket):
        return {"type": KNOCKOUT, **asdict(status)}
    return {"type": SWISS, **asdict(status), "finished": status.finished}


# --- matches the cluster gave up on ----------------------------------------------------------
def given_up_text(count: int) -> str:
    """The count of matches the cluster gave up on, in plain words (the terminal and the HTML
    report say it alike)."""
    matches = "1 match was" if count == 1 else f"{count} matches were"
    return f"{matches} given up by the cluster (void: never rated, played again)"


def format_when(timestamp: float) -> str:
    """A ``time.time()`` value as ``YYYY-MM-DD HH:MM:SS UTC``."""
    return time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(timestamp))


def iso_time(timestamp: float) -> str:
    """A ``time.time()`` value as ISO 8601 in UTC, ``YYYY-MM-DDTHH:MM:SSZ``."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(timestamp))


# --- rating history --------------------------------------------------------------------------
@dataclass(frozen=True)
class HistoryPoint:
    """A player's official rating after one step of the rating history."""

    step: int
    """Complete encounters fitted (1 after the first)."""
    encounter_id: str
    """The encounter whose completion (or a replayed leg of it) made the step."""
    at: float
    """When that encounter's latest match was recorded (seconds since the epoch)."""
    player: str
    """A bot's name, or a version's key (a continuous ladder)."""
    rating: float
    ci95: float
    """Half-width of the 95% interval around ``rating``."""


def rating_history(matches: Sequence[StoredMatch], *, prior: float = 1.0,
                   versions: bool = False, legs: int = 2,
                   fit: Callable[[int], bool] | None = None) -> list[HistoryPoint]:
    """Every player's official rating and interval after each complete encounter (pure; see
    the module doc). Matches are taken in recording order; an encounter is complete once each
    of its ``legs`` legs (2 with duplicate deals, else 1) has a recorded match (a match without
    an encounter id is one of its own); a leg recorded again later (a void leg played again)
    makes another step; an encounter with no rated match makes none. ``step`` counts the steps;
    one whose fit does not exist (``prior = 0`` with a perfect record so far) is left out.
    ``fit``: which steps to fit (every one when None; the others still count), the last step
    always (it is the standings)."""
    if versions:
        matches = by_version(matches)
    groups: dict[str, list[StoredMatch]] = {}
    totals: dict[tuple[str, str], PairStats] = {}
    points: list[HistoryPoint] = []
    step = 0
    unfitted: tuple[str, float] | None = None
    for m in matches:
        encounter = m.encounter_id or m.match_id
        group = groups.setdefault(encounter, [])
        before = _encounter_stats(group) if _complete(group, legs) else {}
        group.append(m)
        after = _encounter_stats(group) if _complete(group, legs) else {}
        if after == before:  # not complete yet, or nothing rated changed (a void leg)
            continue
        _add(totals, before, -1)
        _add(totals, after, 1)
        step += 1
        if fit is None or fit(step):
            points += _step(step, encounter, m.finished_at, totals, prior)
            unfitted = None
        else:
            unfitted = (encounter, m.finished_at)
    if unfitted is not None:
        points += _step(step, *unfitted, totals, prior)
    return points


def _complete(group: Sequence[StoredMatch], legs: int) -> bool:
    if group and not group[0].encounter_id:
        return True
    return {m.leg for m in group} >= set(range(legs))


def _encounter_stats(group: Sequence[StoredMatch]) -> dict[tuple[str, str], PairStats]:
    """The sufficient statistics of one encounter's rated matches, by pair of names."""
    names, pairs = aggregate(records_of(group))
    return {(names[i], names[j]): stats for (i, j), stats in pairs.items()}


def _add(totals: dict[tuple[str, str], PairStats], part: Mapping[tuple[str, str], PairStats],
         sign: int) -> None:
    """Add (``sign`` 1) or take away (-1) one encounter's statistics."""
    for pair, stats in part.items():
        total = totals.setdefault(pair, PairStats())
        for f in fields(PairStats):
            setattr(total, f.name, getattr(total, f.name) + sign * getattr(stats, f.name))
        if total.games == 0:
            del totals[pair]


def _step(step: int, encounter: str, at: float, totals: Mapping[tuple[str, str], PairStats],
          prior: float) -> list[HistoryPoint]:
    """The fit of ``totals``, exactly as ``fit`` would aggregate the same matches."""
    names = sorted({name for pair in totals for name in pair})
    index = {name: i for i, name in enumerate(names)}
    pairs = dict(sorted(((index[a], index[b]), replace(stats))
                        for (a, b), stats in totals.items()))
    try:
        result = fit_pairs(names, pairs, prior=prior)
    except ValueError:  # no maximum-likelihood estimate yet (prior 0)
        return []
    return [HistoryPoint(step, encounter, at, r.name, r.rating, r.ci95) for r in result.ratings]


HISTORY_COLUMNS = ("step", "encounter_id", "time", "player", "rating", "ci95", "low", "high")
"""The columns of the rating history's CSV."""
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
"""What a spreadsheet reads as the start of a formula in a CSV cell."""


def history_csv(points: Iterable[HistoryPoint]) -> str:
    """The rating history as CSV with a header (one row per player per step). A player's name
    has no control characters (``plain_text``), and one a spreadsheet would read as a formula
    is written with a leading ``'``."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(HISTORY_COLUMNS)
    for p in points:
        player = plain_text(p.player)
        player = f"'{player}" if player.startswith(_FORMULA_START) else player
        writer.writerow([p.step, p.encounter_id, iso_time(p.at), player,
                         *(f"{x:.1f}" for x in (p.rating, p.ci95, p.rating - p.ci95,
                                                p.rating + p.ci95))])
    return out.getvalue()


def history_json(ladder: str, points: Iterable[HistoryPoint], *, versions: bool = False
                 ) -> dict[str, Any]:
    """The rating history as one JSON object: the steps in order, each with every player's
    rating and interval after it."""
    steps: list[dict[str, Any]] = []
    for p in points:
        if not steps or steps[-1]["step"] != p.step:
            steps.append({"step": p.step, "encounter_id": p.encounter_id,
                          "time": iso_time(p.at), "ratings": []})
        steps[-1]["ratings"].append({
            "player": p.player, "rating": round(p.rating, 1), "ci95": round(p.ci95, 1),
            "low": round(p.rating - p.ci95, 1), "high": round(p.rating + p.ci95, 1)})
    return {"ladder": ladder, "rated_by": "version" if versions else "name", "steps": steps}


# --- loaders ---------------------------------------------------------------------------------
def load_standings(config: LadderConfig, store: LadderStore | None = None) -> Standings:
    """The ladder's standings from its store (with the live Elo; by version in a continuous
    ladder)."""
    with open_store(config, store) as db:
        return standings_of(config.name, db.matches(config.name), prior=config.rating.prior,
                            live=db.live_elo(config.name),
                            given_up=len(db.void_attempts(config.name)),
                            versions=rates_versions(config))


def load_crosstable(config: LadderConfig, store: LadderStore | None = None) -> Crosstable:
    """The ladder's cross-table from its store."""
    return crosstable_of(load_matches(config, store), prior=config.rating.prior,
                         versions=rates_versions(config))


def load_versions(config: LadderConfig, store: LadderStore | None = None
                  ) -> tuple[VersionRow, ...]:
    """Every version of every bot of the ladder, rated as players of their own."""
    return versions_of(load_matches(config, store), prior=config.rating.prior)


def load_history(config: LadderConfig, store: LadderStore | None = None
                 ) -> list[HistoryPoint]:
    """The ladder's rating history, recomputed from its store (``rating_history``)."""
    return history_of(config, load_matches(config, store))


def history_of(config: LadderConfig, matches: Sequence[StoredMatch], *,
               fit: Callable[[int], bool] | None = None) -> list[HistoryPoint]:
    """The rating history of the ladder's recorded ``matches`` (pure; ``fit``: see
    ``rating_history``)."""
    return rating_history(matches, prior=config.rating.prior, versions=rates_versions(config),
                          legs=2 if config.duplicate else 1, fit=fit)


def load_matches(config: LadderConfig, store: LadderStore | None = None, *,
                 missing_ok: bool = False) -> list[StoredMatch]:
    """Every recorded match of the ladder, void ones included. ``missing_ok``: a ladder without
    a store yet has no matches (instead of the ``ConfigError`` of ``open_store``)."""
    if missing_ok and store is None and not config.store_exists():
        return []
    with open_store(config, store) as db:
        return db.matches(config.name)


def load_void_attempts(config: LadderConfig, store: LadderStore | None = None
                       ) -> list[VoidAttempt]:
    """The matches the cluster gave up on (void attempts), in the order they were recorded."""
    with open_store(config, store) as db:
        return db.void_attempts(config.name)


@contextlib.contextmanager
def open_store(config: LadderConfig, store: LadderStore | None = None) -> Iterator[LadderStore]:
    """``store`` when given (left open), else the ladder's own store, closed on exit. Reading
    never creates a store: ``ConfigError`` when the ladder's SQLite file does not exist yet."""
    if store is not None:
        yield store
        return
    if not config.store_exists():
        raise ConfigError(
            f"ladder {config.name!r} has no results yet ({config.sqlite_path} "
            "does not exist): run it with `arena run-ladder`"
        )
    db = LadderStore(config.database_url)
    try:
        yield db
    finally:
        db.close()
