"""Ladder definitions: a TOML file → a frozen ``LadderConfig``.

```toml
name = "demo"                        # required; names the state directory and the match ids
game = "lost-cities"                 # required; a registered game id
entrants = ["../sample_bots/lost-cities/random", "greedy@2"]
                                     # bot directories (relative to this file) or bot names
seed = 1                             # optional; the deal seeds derive from it (default 0)
concurrency = 2                      # optional; default: the number of cores
sandbox = "auto"                     # "auto" (Docker when an engine answers) | "docker" | "process"
duplicate = true                     # duplicate deals (default true)
state_dir = "state/demo"             # optional; default state/<name> beside this file
database = "sqlite:////abs/path.db"  # optional; any SQLAlchemy URL (default <state_dir>/ladder.db)
log_dir = "state/demo/matches"       # optional; default <state_dir>/matches
signing_key = "keys/referee.key"     # optional; the Ed25519 key (`arena keys new`) that signs
                                     # every match log; default <state_dir>/keys/referee.key,
                                     # made on the first run
allow_ungated_game = false           # optional; true plays a game that fails the conformance
                                     # gate (`arena games check GAME`), with a warning line

[options]                            # rules options of the game
rounds = 3

[schedule]
type = "round-robin"                 # or "gauntlet" (then: challenger = "<an entrant>"), or
cycles = 10                          # "continuous", "adaptive", "knockout", "swiss" (below)

[time_control]
move_time_ms = 1000
time_bank_ms = 0
startup_ms = 10000
clock = "auto"                       # "cpu": a decision is charged the CPU its sandbox used;
                                     # "wall": the wall time; "auto" (default): cpu where the
                                     # sandbox can meter CPU, else wall (said in one line)
wall_guard = 4.0                     # cpu clock: no answer after this × the allowance (+100 ms)
                                     # of wall time is a wall_timeout

[rating]
elo_k = 16
start = 1500
prior = 1.0                          # virtual 50% games per bot in the official fit

[cluster]                            # optional; none: an embedded cluster on 127.0.0.1
scheduler = "tls://head:8786"        # submit to a running scheduler, or
listen = "tls://0.0.0.0:8786"        # host the scheduler in `arena run-ladder` (not both)
ca = "certs/ca.pem"                  # mutual TLS (required with either): the ladder's CA,
cert = "certs/head.pem"              # the head's certificate (its role: `arena cluster
key = "certs/head-key.pem"           # certs DIR --head HOST`) and its key
worker_ttl_s = 60                    # a silent worker is given up after this long
wait_s = 60                          # how long to wait for the first worker
```

An **SPRT test** (``arena sprt``) is a ladder file with an ``[sprt]`` section instead of
``entrants`` and ``[schedule]``: duplicate pairs of the candidate against the baseline, played
until the test knows (``arena.sprt.run``). ``duplicate`` must stay true.

```toml
[sprt]
candidate = "../sample_bots/lost-cities/strong"   # a bot directory (relative to this file) or name
baseline = "../sample_bots/lost-cities/greedy"    # may be the candidate itself
elo0 = 0                             # H0: the candidate is at most elo0 stronger
elo1 = 50                            # H1: it is at least elo1 stronger (elo0 < elo1)
alpha = 0.05                         # optional; in (0, 0.5)
beta = 0.05                          # optional; in (0, 0.5)
model = "logistic"                   # optional; or "normalized"
max_pairs = 400                      # optional; no bound by default
```

The other schedule types (``arena.ladder.schedules.sources`` runs them) have keys of their own;
``cycles`` and ``challenger`` belong to a round robin and a gauntlet only:

```toml
[schedule]                           # a ladder that never stops: new versions are picked up
type = "continuous"
placement = 4                        # encounters a new version plays first (default 4)
fairness = 8                         # every current version plays at least once every K
                                     # encounters (default: twice the current versions)
refresh_s = 10                       # how often the entrants are looked at again (default 10)
rest_s = 0                           # seconds between two matches it starts (default 0: none);
                                     # a ladder on a shared machine need not play flat out
catalogue = false                    # true: also every submitted bot of the game (its latest
                                     # version); ``entrants`` may then be empty

[schedule]                           # information-driven pairing within a budget
type = "adaptive"
encounters = 60                      # the budget (required)
confidence = 0.95                    # stop once every adjacent pair is ordered this surely
fairness = 8                         # as above

[schedule]                           # single elimination
type = "knockout"
encounters = 1                       # duplicate encounters per tie (default 1)
seed_from = "demo.toml"              # seeds: that ladder's official standings (names not in
                                     # it follow in entrant order); default: the entrant order

[schedule]                           # Dutch-style Swiss
type = "swiss"
rounds = 3                           # 1 .. the most a field of this size allows
```

Any problem is one ``ConfigError`` naming the key and the line.
"""

from __future__ import annotations

import dataclasses
import os
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.cluster.settings import ClusterSettings, TlsFiles
from arena.errors import ConfigError, OptionsError
from arena.games import game_ids, get_game
from arena.games.api import validate_options
from arena.ladder.schedules.pairing import DEFAULT_CONFIDENCE, DEFAULT_PLACEMENT
from arena.ladder.schedules.schedule import (
    ADAPTIVE,
    CONTINUOUS,
    FIXED_KINDS,
    GAUNTLET,
    KNOCKOUT,
    ROUND_ROBIN,
    SCHEDULE_KINDS,
    SWISS,
)
from arena.ladder.schedules.swiss import max_rounds
from arena.ladder.toml_keys import TomlKeys
from arena.model import TimeControl
from arena.referee.service import REQUESTED_CLOCKS
from arena.stats.sprt import EloModel, SprtParams

SANDBOXES = ("process", "docker", "auto")
CLOCK_SETTINGS = REQUESTED_CLOCKS
"""What a ladder file, ``arena match --clock``, an SPRT test or a competition may ask for: a
clock model (``CLOCKS``), or "auto" (the CPU clock where the sandbox can meter CPU, else the
wall clock, said in one line before the first match: ``arena.referee.service.resolve_clock``)."""
DATABASE_FILE = "ladder.db"
"""The SQLite file of a ladder's results, in its state directory (unless ``database`` is set)."""
_TOP_KEYS = {
    "name", "game", "entrants", "seed", "concurrency", "sandbox", "duplicate", "state_dir",
    "database", "log_dir", "signing_key", "options", "schedule", "time_control", "rating",
    "sprt", "cluster", "allow_ungated_game",
}
_SECTION_KEYS = {
    "schedule": {"type", "cycles", "challenger", "placement", "fairness", "refresh_s",
                 "rest_s", "catalogue", "encounters", "confidence", "seed_from", "rounds"},
    "time_control": {"move_time_ms", "time_bank_ms", "startup_ms", "clock", "wall_guard"},
    "rating": {"elo_k", "start", "prior"},
    "sprt": {"candidate", "baseline", "elo0", "elo1", "alpha", "beta", "model", "max_pairs"},
    "cluster": {"scheduler", "listen", "ca", "cert", "key", "worker_ttl_s", "wait_s"},
}
_SPRT_PARAMS = ("elo0", "elo1", "alpha", "beta")
_KIND_KEYS: dict[str, tuple[str, ...]] = {
    "cycles": FIXED_KINDS,
    "challenger": (GAUNTLET,),
    "placement": (CONTINUOUS,),
    "refresh_s": (CONTINUOUS,),
    "rest_s": (CONTINUOUS,),
    "catalogue": (CONTINUOUS,),
    "fairness": (CONTINUOUS, ADAPTIVE),
    "encounters": (ADAPTIVE, KNOCKOUT),
    "confidence": (ADAPTIVE,),
    "seed_from": (KNOCKOUT,),
    "rounds": (SWISS,),
}
"""The schedule keys that belong to some schedule types only."""
DEFAULT_REFRESH_S = 10.0
"""How often a continuous ladder looks at its entrants again, by default (seconds)."""


@dataclass(frozen=True)
class RatingConfig:
    """Rating options."""

    elo_k: float = 16.0
    """K factor of the live Elo."""
    start: float = 1500.0
    """Live Elo of a newcomer."""
    prior: float = 1.0
    """Virtual 50% games per bot in the official Bradley–Terry fit (0: plain MLE)."""


@dataclass(frozen=True)
class ScheduleConfig:
    """Which encounters the ladder plays (see the module doc for each type's keys)."""

    kind: str = ROUND_ROBIN
    """One of ``SCHEDULE_KINDS``: "round-robin", "gauntlet", "continuous", "adaptive",
    "knockout", "swiss"."""
    cycles: int = 1
    """Cycles of a round robin or a gauntlet."""
    challenger: str | None = None
    """The gauntlet's challenger (one of the entrants as written)."""
    placement: int = DEFAULT_PLACEMENT
    """Continuous: the placement encounters a new version plays first."""
    fairness: int = 0
    """Continuous, adaptive: every current player plays at least once every ``fairness``
    encounters (0: twice the number of current players)."""
    refresh_s: float = DEFAULT_REFRESH_S
    """Continuous: how often the entrants (and the catalogue) are looked at again."""
    rest_s: float = 0.0
    """Continuous: the least time between the starts of two of its matches (0: none)."""
    catalogue: bool = False
    """Continuous: every submitted bot of the ladder's game plays too (its latest version)."""
    encounters: int = 1
    """Adaptive: the budget of encounters; knockout: the encounters of a tie."""
    confidence: float = DEFAULT_CONFIDENCE
    """Adaptive: it stops once every adjacent pair is ordered at least this surely."""
    seed_from: Path | None = None
    """Knockout: the ladder file whose official standings seed the bracket (None: the
    entrant order)."""
    rounds: int = 1
    """Swiss: the number of rounds."""


@dataclass(frozen=True)
class SprtConfig:
    """An SPRT test: duplicate pairs of the candidate against the baseline until the test
    knows (the ladder's entrants are then exactly the two, candidate first)."""

    candidate: str
    """The candidate's reference as written (a bot directory, relative to ``base_dir``, or a
    name)."""
    baseline: str
    """The baseline's reference as written (may be the candidate's)."""
    params: SprtParams
    """The hypotheses, error rates and Elo model."""
    max_pairs: int | None = None
    """The pair budget: the test stops inconclusive once this many pairs are complete (None:
    no budget)."""


@dataclass(frozen=True)
class LadderConfig:
    """A parsed, validated ladder definition."""

    name: str
    game: str
    entrants: tuple[str, ...]
    """Entrant references as written: bot directories (relative to ``base_dir``) or names."""
    base_dir: Path
    """The directory of the ladder file: entrant directories resolve against it."""
    state_dir: Path
    schedule: ScheduleConfig = ScheduleConfig()
    options: Mapping[str, Any] = field(default_factory=dict)
    time_control: TimeControl = TimeControl()
    """The limits of every match; its ``clock`` is the one ``clock`` asked for ("wall" for
    "auto" until the runner resolves it, ``with_clock``)."""
    clock: str = "auto"
    """The clock asked for (``CLOCK_SETTINGS``): "auto", "cpu" or "wall"."""
    concurrency: int = 1
    sandbox: str = "auto"
    duplicate: bool = True
    seed: int = 0
    rating: RatingConfig = RatingConfig()
    database: str | None = None
    """A SQLAlchemy URL; None: SQLite at ``sqlite_path``."""
    log_dir: Path | None = None
    source: Path | None = None
    """The ladder file."""
    sprt: SprtConfig | None = None
    """The SPRT test this ladder file holds (its ``[sprt]`` section), if any."""
    cluster: ClusterSettings = ClusterSettings()
    """Where the matches run (default: an embedded cluster of ``concurrency`` workers)."""
    signing_key: Path | None = None
    """The private key that signs the ladder's match logs (``signing_key``, relative to the
    ladder file); None: ``keys/referee.key`` in the state directory, made on the first run
    (``arena.record.signing.ensure_signer``)."""
    allow_ungated_game: bool = False
    """Play the game even when it fails the conformance gate (``arena.gate``; a
    warning line says so); by default such a ladder is refused before anything is played."""

    @property
    def sqlite_path(self) -> Path | None:
        """The SQLite file holding the results (``DATABASE_FILE`` in the state directory); None
        when ``database`` names the store."""
        return None if self.database else self.state_dir / DATABASE_FILE

    @property
    def database_url(self) -> str:
        """The store's SQLAlchemy URL: ``database``, else the SQLite file's."""
        path = self.sqlite_path
        return str(self.database) if path is None else f"sqlite:///{path.resolve()}"

    def store_exists(self) -> bool:
        """Whether the results store exists, checked without opening (or creating) it: the
        SQLite file must be there; a named database is taken to exist (only a connection could
        tell)."""
        path = self.sqlite_path
        return path is None or path.exists()

    @property
    def match_log_dir(self) -> Path:
        """Where match logs are written."""
        return self.log_dir if self.log_dir is not None else self.state_dir / "matches"

    def with_clock(self, clock: str) -> LadderConfig:
        """This ladder with its clock resolved to ``clock`` (one of ``CLOCKS``)."""
        tc = dataclasses.replace(self.time_control, clock=clock)
        return dataclasses.replace(self, clock=clock, time_control=tc)

    @property
    def challenger_index(self) -> int | None:
        ch = self.schedule.challenger
        return None if ch is None else self.entrants.index(ch)


def load_ladder(path: str | os.PathLike[str]) -> LadderConfig:
    """Read and validate a ladder file. Raises ``ConfigError`` naming the key and the line."""
    file = Path(path)
    try:
        text = file.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"{file}: cannot read the ladder file: {exc.strerror or exc}") from None
    return parse_ladder(text, source=file)


def parse_ladder(text: str, *, source: Path | None = None) -> LadderConfig:
    """Parse ladder TOML text (entrant paths resolve against the source's directory)."""
    where = str(source) if source is not None else "<ladder>"
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{where}: invalid TOML: {exc}") from None
    return LadderParser(text, where, source).parse(data)


class LadderParser(TomlKeys):
    """A ladder file's data read into a ``LadderConfig`` (errors name the key and its line)."""

    def parse(self, data: Mapping[str, Any]) -> LadderConfig:
        self.top = data
        self.unknown(data, None, _TOP_KEYS)
        for section in ("options", *_SECTION_KEYS):
            if section in data and not isinstance(data[section], dict):
                raise self.error(None, section, "must be a table")
        name = self.get(data, None, "name", str, required=True)
        if not name.strip():
            raise self.error(None, "name", "must not be empty")
        game = self.get(data, None, "game", str, required=True)
        self.check_game(game)
        sprt = self.sprt(data) if "sprt" in data else None
        table = data.get("schedule", {})
        kind = self.kind(table)
        entrants = ((sprt.candidate, sprt.baseline) if sprt is not None
                    else self.entrants(data, kind, table))
        options = dict(data.get("options", {}))
        self.check_options(game, options)
        state = self.get(data, None, "state_dir", str)
        state_dir = self.base / state if state is not None else self.base / "state" / name
        log_dir = self.get(data, None, "log_dir", str)
        signing_key = self.get(data, None, "signing_key", str)
        if signing_key is not None and not signing_key.strip():
            raise self.error(None, "signing_key", "must be the path of a private key (`arena "
                             "keys new DIR` makes one), relative to the ladder file")
        return LadderConfig(
            name=name,
            game=game,
            entrants=entrants,
            base_dir=self.base,
            state_dir=state_dir,
            schedule=self.schedule(table, kind, entrants),
            options=options,
            time_control=self.time_control(data.get("time_control", {})),
            clock=self.clock(data.get("time_control", {})),
            concurrency=self.positive(data, None, "concurrency", os.cpu_count() or 1),
            sandbox=self.choice(data, "sandbox", SANDBOXES, "auto"),
            duplicate=self.get(data, None, "duplicate", bool, True),
            seed=self.get(data, None, "seed", int, 0),
            rating=self.rating(data.get("rating", {})),
            database=self.get(data, None, "database", str),
            log_dir=self.base / log_dir if log_dir is not None else None,
            source=self.source,
            sprt=sprt,
            cluster=self.cluster(data.get("cluster", {})),
            signing_key=self.base / signing_key if signing_key is not None else None,
            allow_ungated_game=self.get(data, None, "allow_ungated_game", bool, False),
        )

    def check_game(self, game: str) -> None:
        if game not in game_ids():
            raise self.error(None, "game", f"unknown game; known: {', '.join(game_ids())}")

    def check_options(self, game: str, options: dict[str, Any]) -> None:
        try:
            validate_options(get_game(game).option_specs, options)
        except OptionsError as exc:
            bad = next((k for k in options if k in str(exc)), "")
            raise self.error("options", bad, str(exc)) from None

    def entrants(self, data: Mapping[str, Any], kind: str,
                 schedule: Mapping[str, Any]) -> tuple[str, ...]:
        catalogue = kind == CONTINUOUS and schedule.get("catalogue") is True
        value = self.get(data, None, "entrants", list, [], required=not catalogue)
        if not all(isinstance(v, str) and v.strip() for v in value):
            raise self.error(None, "entrants", "must be a list of bot directories or names")
        if len(value) < 2 and not catalogue:
            raise self.error(None, "entrants", f"a {kind} ladder needs at least two entrants"
                             + (" (or `catalogue = true` in [schedule])"
                                if kind == CONTINUOUS else ""))
        if len(set(value)) != len(value):
            dup = next(v for v in value if value.count(v) > 1)
            raise self.error(None, "entrants", f"{dup!r} is listed twice")
        return tuple(value)

    def sprt(self, data: Mapping[str, Any]) -> SprtConfig:
        """The ``[sprt]`` section; it replaces ``entrants`` and ``[schedule]``."""
        table = data["sprt"]
        self.unknown(table, "sprt", _SECTION_KEYS["sprt"])
        for key in ("entrants", "schedule"):
            if key in data:
                raise self.error(None, key, "an SPRT test names its two bots in [sprt] "
                                            "(candidate, baseline) and has no schedule")
        if not self.get(data, None, "duplicate", bool, True):
            raise self.error(None, "duplicate", "an SPRT test plays duplicate pairs")
        bots = []
        for key in ("candidate", "baseline"):
            ref = self.get(table, "sprt", key, str, required=True)
            if not ref.strip():
                raise self.error("sprt", key, "must be a bot directory or name")
            bots.append(ref)
        defaults = SprtParams(0.0, 1.0)
        numbers = {key: self.get(table, "sprt", key, float, getattr(defaults, key),
                                 required=key.startswith("elo"))
                   for key in _SPRT_PARAMS}
        model = self.get(table, "sprt", "model", str, str(EloModel.logistic))
        if model not in tuple(EloModel):
            raise self.error("sprt", "model", f"must be one of {', '.join(EloModel)}, "
                                              f"got {model!r}")
        try:
            params = SprtParams(model=EloModel(model), **numbers)
        except ConfigError as exc:
            named = [key for key in _SPRT_PARAMS if key in str(exc)]
            raise self.error("sprt", named[-1] if named else "", str(exc)) from None
        budget = self.positive(table, "sprt", "max_pairs", 1) if "max_pairs" in table else None
        return SprtConfig(bots[0], bots[1], params, budget)

    def kind(self, table: Mapping[str, Any]) -> str:
        """The schedule's type (checked before the entrants: it says what they may be)."""
        if not isinstance(table, dict):
            return ROUND_ROBIN  # parse() names the section
        kind: str = self.get(table, "schedule", "type", str, ROUND_ROBIN)
        if kind not in SCHEDULE_KINDS:
            raise self.error("schedule", "type", f"must be one of {', '.join(SCHEDULE_KINDS)}")
        return kind

    def schedule(self, table: Mapping[str, Any], kind: str,
                 entrants: tuple[str, ...]) -> ScheduleConfig:
        self.unknown(table, "schedule", _SECTION_KEYS["schedule"])
        for key, kinds in _KIND_KEYS.items():
            if key in table and kind not in kinds:
                raise self.error("schedule", key, f"belongs to a {' or '.join(kinds)} schedule, "
                                                  f"not to a {kind} one")
        if kind in FIXED_KINDS:
            return self.fixed_schedule(table, kind, entrants)
        if kind in (KNOCKOUT, SWISS) and not self.get(self.top, None, "duplicate", bool, True):
            raise self.error(None, "duplicate", f"every game of a {kind} is a duplicate "
                                                "encounter: leave duplicate = true")
        d = ScheduleConfig()
        return ScheduleConfig(
            kind,
            placement=self.positive(table, "schedule", "placement", d.placement),
            fairness=self.positive(table, "schedule", "fairness", 1) if "fairness" in table
            else 0,
            refresh_s=self.above_zero(table, "refresh_s", d.refresh_s),
            rest_s=self.at_least_zero(table, "rest_s", d.rest_s),
            catalogue=self.get(table, "schedule", "catalogue", bool, False),
            encounters=self.encounters(table, kind),
            confidence=self.confidence(table),
            seed_from=self.seed_from(table),
            rounds=self.rounds(table, kind, len(entrants)),
        )

    def fixed_schedule(self, table: Mapping[str, Any], kind: str,
                       entrants: tuple[str, ...]) -> ScheduleConfig:
        cycles = self.positive(table, "schedule", "cycles", 1)
        challenger = self.get(table, "schedule", "challenger", str)
        if kind == GAUNTLET and challenger is None:
            raise self.error("schedule", "challenger", "a gauntlet needs a challenger")
        if challenger is not None and challenger not in entrants:
            raise self.error("schedule", "challenger", "must be one of the entrants")
        return ScheduleConfig(kind, cycles, challenger)

    def encounters(self, table: Mapping[str, Any], kind: str) -> int:
        if kind == ADAPTIVE and "encounters" not in table:
            raise self.error("schedule", "encounters", "an adaptive ladder needs its budget of "
                                                       "encounters")
        return self.positive(table, "schedule", "encounters", 1)

    def confidence(self, table: Mapping[str, Any]) -> float:
        value: float = self.get(table, "schedule", "confidence", float, DEFAULT_CONFIDENCE)
        if not 0.5 < value < 1:
            raise self.error("schedule", "confidence", f"must be between 0.5 and 1 (both "
                                                       f"excluded), got {value}")
        return value

    def seed_from(self, table: Mapping[str, Any]) -> Path | None:
        value: str | None = self.get(table, "schedule", "seed_from", str)
        if value is None:
            return None
        path = self.base / value
        if not value.strip() or not path.is_file():
            raise self.error("schedule", "seed_from", f"{path} is not a ladder file")
        if self.source is not None and path.resolve() == self.source.resolve():
            raise self.error("schedule", "seed_from", "a knockout cannot be seeded from itself")
        return path

    def rounds(self, table: Mapping[str, Any], kind: str, players: int) -> int:
        if kind != SWISS:
            return 1
        rounds = self.positive(table, "schedule", "rounds", 1) if "rounds" in table else None
        if rounds is None:
            raise self.error("schedule", "rounds", "a Swiss needs its number of rounds")
        most = max_rounds(players)
        if rounds > most:
            raise self.error("schedule", "rounds", f"{rounds} rounds need more opponents than "
                             f"{players} players have: at most {most} rounds without a rematch")
        return rounds

    def at_least_zero(self, table: Mapping[str, Any], key: str, default: float) -> float:
        value: float = self.get(table, "schedule", key, float, default)
        if not value >= 0 or value == float("inf"):
            raise self.error("schedule", key, f"must be a number of seconds, 0 or more, got "
                                              f"{value}")
        return value

    def above_zero(self, table: Mapping[str, Any], key: str, default: float) -> float:
        value: float = self.get(table, "schedule", key, float, default)
        if not value > 0 or value == float("inf"):
            raise self.error("schedule", key, f"must be a number of seconds above 0, got {value}")
        return value

    def time_control(self, table: Mapping[str, Any]) -> TimeControl:
        self.unknown(table, "time_control", _SECTION_KEYS["time_control"])
        d = TimeControl()
        values = {name: self.get(table, "time_control", name, int, getattr(d, name))
                  for name in TimeControl.LIMITS}
        clock = self.clock(table)
        guard = self.get(table, "time_control", "wall_guard", float, d.wall_guard)
        tc = TimeControl(**values, clock="wall" if clock == "auto" else clock, wall_guard=guard)
        problem = tc.problem()
        if problem is not None:
            raise self.error("time_control", *problem)
        return tc

    def clock(self, table: Mapping[str, Any]) -> str:
        """The ``[time_control] clock`` asked for (``CLOCK_SETTINGS``, default "auto")."""
        clock: str = self.get(table, "time_control", "clock", str, "auto")
        if clock not in CLOCK_SETTINGS:
            raise self.error("time_control", "clock",
                             f"must be one of {', '.join(CLOCK_SETTINGS)}, got {clock!r}")
        return clock

    def rating(self, table: Mapping[str, Any]) -> RatingConfig:
        self.unknown(table, "rating", _SECTION_KEYS["rating"])
        d = RatingConfig()
        k = self.get(table, "rating", "elo_k", float, d.elo_k)
        if k <= 0:
            raise self.error("rating", "elo_k", "must be > 0")
        prior = self.get(table, "rating", "prior", float, d.prior)
        if prior < 0:
            raise self.error("rating", "prior", "must be >= 0")
        return RatingConfig(k, self.get(table, "rating", "start", float, d.start), prior)

    def cluster(self, table: Mapping[str, Any]) -> ClusterSettings:
        self.unknown(table, "cluster", _SECTION_KEYS["cluster"])
        scheduler = self.get(table, "cluster", "scheduler", str)
        listen = self.get(table, "cluster", "listen", str)
        if scheduler is not None and listen is not None:
            raise self.error("cluster", "listen", "name a scheduler or listen, not both")
        for key, value in (("scheduler", scheduler), ("listen", listen)):
            if value is not None and not re.fullmatch(r"tls://[^\s/]+:\d+", value):
                raise self.error("cluster", key, f"must be tls://HOST:PORT, got {value!r}")
        files = {key: self.get(table, "cluster", key, str) for key in ("ca", "cert", "key")}
        tls = None
        if any(v is not None for v in files.values()) or scheduler or listen:
            missing = next((k for k, v in files.items() if v is None), None)
            if missing is not None:
                raise self.error("cluster", missing, "is required: traffic between hosts is "
                                 "mutual TLS only (see `arena cluster certs`)")
            tls = TlsFiles(*(self.base / str(files[k]) for k in ("ca", "cert", "key")))
        defaults = ClusterSettings()
        ttl = self.get(table, "cluster", "worker_ttl_s", float, defaults.worker_ttl_s)
        wait = self.get(table, "cluster", "wait_s", float, defaults.wait_s)
        for key, value in (("worker_ttl_s", ttl), ("wait_s", wait)):
            if value <= 0:
                raise self.error("cluster", key, "must be > 0")
        return ClusterSettings(scheduler, listen, tls, ttl, wait)
