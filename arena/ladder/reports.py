"""A ladder's reports: the official standings, the head-to-head cross-table and the match list.

Everything here is a pure function of the recorded matches (``StoredMatch``), except the
loaders (``load_standings``, ``load_crosstable``, ``load_matches``, ``load_rating_history``,
``load_void_attempts``), which read them from the ladder's store. Void matches are listed but
never rated: every W/D/L figure comes from one tally, ``head_to_head``, over the rated matches.
The matches the cluster gave up on (``VoidAttempt``) are kept apart: counted and listed, never
rated, played again.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from arena.errors import ConfigError
from arena.ladder.config import LadderConfig
from arena.ladder.rating import Fit, GameRecord, PairingStats, Rating, fit, pairing_stats
from arena.ladder.store import LadderStore, StoredMatch, VoidAttempt


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

    @property
    def score_rate(self) -> float:
        """(W + D/2) / matches."""
        return (self.wins + self.draws / 2) / self.matches if self.matches else 0.0

    def to_json(self) -> dict[str, Any]:
        """The row as JSON data (rounded for reading)."""
        return {
            "rank": self.rank, "bot": self.bot, "rating": round(self.rating, 1),
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

    def to_json(self) -> dict[str, Any]:
        """The standings as one JSON object."""
        p = self.pairing
        return {
            "ladder": self.ladder,
            "rated_matches": self.rated,
            "void_matches": self.void,
            "given_up_matches": self.given_up,
            "standings": [r.to_json() for r in self.rows],
            "duplicate_deals": {
                "encounters": p.encounters,
                "score_variance_ratio": _round(p.score_ratio),
                "margin_variance_ratio": _round(p.margin_ratio),
                "pentanomial": [
                    {"bots": list(pair), "counts": list(c)}
                    for pair, c in sorted(p.pentanomial.items())
                ],
            },
        }


def _round(x: float | None) -> float | None:
    return None if x is None else round(x, 4)


def standings_of(ladder: str, matches: Sequence[StoredMatch], *, prior: float = 1.0,
                 live: Mapping[str, float] | None = None, given_up: int = 0) -> Standings:
    """Standings from recorded matches (pure); ``live``: the live Elo by bot, if known;
    ``given_up``: how many matches the cluster gave up on."""
    records = records_of(matches)
    result = fit(records, prior=prior)
    tallies = _per_bot(head_to_head(matches))
    rows = tuple(
        _row(rank, rating, tallies.get(rating.name, Tally()), (live or {}).get(rating.name))
        for rank, rating in enumerate(result.ratings, start=1)
    )
    return Standings(ladder, rows, len(records), sum(1 for m in matches if m.void),
                     pairing_stats(records), result, given_up)


def _row(rank: int, rating: Rating, tally: Tally, live_elo: float | None) -> StandingRow:
    return StandingRow(rank, rating.name, rating.rating, rating.ci95, tally.games, tally.wins,
                       tally.draws, tally.losses, tally.points_per_game, live_elo)


# --- cross-table -----------------------------------------------------------------------------
@dataclass(frozen=True)
class Crosstable:
    """Head-to-head results over the rated matches."""

    order: tuple[str, ...]
    """The bots in standings order (best first)."""
    cells: Mapping[tuple[str, str], Tally]
    """(bot, opponent) → the bot's tally against that opponent."""


def crosstable_of(matches: Sequence[StoredMatch], *, prior: float = 1.0) -> Crosstable:
    """The cross-table of recorded matches, bots ranked as in the standings (pure)."""
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
    }


# --- matches the cluster gave up on ----------------------------------------------------------
def given_up_text(count: int) -> str:
    """The count of matches the cluster gave up on, in plain words (the terminal and the HTML
    report say it alike)."""
    matches = "1 match was" if count == 1 else f"{count} matches were"
    return f"{matches} given up by the cluster (void: never rated, played again)"


def format_when(timestamp: float) -> str:
    """A ``time.time()`` value as ``YYYY-MM-DD HH:MM:SS UTC``."""
    return time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(timestamp))


# --- rating history --------------------------------------------------------------------------
@dataclass(frozen=True)
class RatingStep:
    """A bot's live Elo after one rated match (the ladder's rating history, in order)."""

    match_id: str
    bot: str
    rating: float
    """The live Elo after the match."""
    delta: float
    """What the match changed."""


# --- loaders ---------------------------------------------------------------------------------
def load_standings(config: LadderConfig, store: LadderStore | None = None) -> Standings:
    """The ladder's standings from its store (with the live Elo)."""
    with open_store(config, store) as db:
        return standings_of(config.name, db.matches(config.name), prior=config.rating.prior,
                            live=db.live_elo(config.name),
                            given_up=len(db.void_attempts(config.name)))


def load_crosstable(config: LadderConfig, store: LadderStore | None = None) -> Crosstable:
    """The ladder's cross-table from its store."""
    return crosstable_of(load_matches(config, store), prior=config.rating.prior)


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


def load_rating_history(config: LadderConfig, store: LadderStore | None = None
                        ) -> list[RatingStep]:
    """Every live Elo update of the ladder, in the order the matches were applied."""
    with open_store(config, store) as db:
        return [RatingStep(*row) for row in db.elo_history(config.name)]


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
