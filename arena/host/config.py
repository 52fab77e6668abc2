"""Competition files: a TOML file → a frozen ``Competition``, and the ladder of every game it
hosts built from it in code (``ladder_config``; ``ladder_file`` exports it as a ladder file for
people, which nothing reads back).

```toml
[competition]
name = "spring"                      # required; an identifier (names the ladders: spring-<game>)
state_dir = "spring-state"           # optional; relative to this file (default "<stem>-state")
database = "sqlite:////abs/c.db"     # optional; any SQLAlchemy URL (default: SQLite
                                     # <state_dir>/competition.sqlite3); a relative SQLite path
                                     # is relative to this file
sandbox = "docker"                   # "docker" (default) | "process" (tests only: no isolation
                                     # worth the name against an adversary)
signing_key = "keys/referee.key"     # optional; the Ed25519 key (`arena keys new DIR`) that
                                     # signs every ladder match log; relative to this file
                                     # (default <state_dir>/keys/referee.key, made at the start)
allow_ungated_games = false          # optional; true hosts games that fail the conformance
                                     # gate (`arena games check GAME`), with a warning line

[server]
listen = "127.0.0.1:7443"            # the public gRPC API (TLS always); port 0: any free port
tls_cert = "certs/server.pem"        # the server's certificate and key (`arena host-certs`),
tls_key = "certs/server.key"         # relative to this file
metrics = "127.0.0.1:9464"           # the Prometheus endpoint; "" turns it off
max_streams = 96                     # streams (uploads, follows, watches, log downloads) open at
                                     # once on the whole server; below the 128 handler threads,
                                     # so unary calls always find one (at most 120)
streams_per_contestant = 8           # streams one contestant may have open at once
stream_idle_s = 60                   # a stream whose client sends nothing (an upload) or takes
                                     # nothing (a download) for this long is closed
stream_max_s = 3600                  # any stream is closed after this long

[site]
dir = "spring-state/site"            # the public page (default <state_dir>/site)
refresh_s = 30                       # regenerated at most this often while results arrive

[visibility]
logs = "own-seat"                    # "own-seat" | "participants" | "public": who sees a
                                     # finished match's log (a running one: own seat only)

[quotas]
max_upload_mb = 5                    # a bot directory's tar (MiB)
max_image_upload_mb = 512            # a `docker save` stream (MiB); 0: no image submissions
submissions_per_day = 5              # per contestant, a rolling 24 hours
active_bots = 3                      # distinct bot names with an entered version, per contestant

[season]                             # optional: a competition that ends (arena.host.season);
frozen = 2027-03-01T12:00:00Z        # each phase's UTC time (a TOML date-time with its
final = 2027-03-08T12:00:00Z         # offset); one left out starts when the operator starts
closed = 2027-03-10T12:00:00Z        # it (`arena phase PHASE -c FILE`); without [season]:
                                     # open for good, a continuous ladder

[final]                              # the final tournament (arena.host.final), when it is played
selections = 2                       # versions a contestant may select per game (default 2)
format = "round-robin"               # every entrant meets every other (the one format so far)
top = 0                              # 0: every entrant given (the selected versions); N: the N
                                     # of them the game's ladder rates highest
encounters = 2                       # duplicate encounters (two matches, one deal) per pair
tie_break = "none"                   # "none": versions whose 95% intervals overlap share their
                                     # places; "rating": the rating estimate orders them (said)
house = false                        # true: the house bots play in the season's final too

[scrimmages]                         # unrated matches a contestant asks for (arena challenge)
per_hour = 10                        # challenges per contestant, a rolling hour (0: off)
outstanding = 3                      # challenges not played yet against one opponent
share = 0.25                         # the most of the ladder's matches that go to scrimmages
                                     # and reruns while the ladder has matches to play

[games.lost-cities]                  # one table per hosted game (at least one)
reference = "greedy"                 # sample_bots/<game>/<reference>: every submission's
                                     # validation opponent (default "greedy"); a game package's
                                     # game: a bot beside its declared reference bot (default:
                                     # that one, GamePlugin.reference_bot)
house = ["random", "greedy"]         # bots the house enters, named the same way (default:
                                     # [reference])

[games.lost-cities.ladder]           # the ladder file's own keys (arena.ladder.config) ...
concurrency = 2
[games.lost-cities.ladder.options]   # ... and its tables: options, schedule (placement,
rounds = 3                           # fairness, refresh_s), time_control, rating, cluster
[games.lost-cities.ladder.schedule]
placement = 4
[games.lost-cities.ladder.time_control]
move_time_ms = 1000
clock = "auto"                       # "auto" (default: the CPU clock where the sandbox meters
                                     # CPU, else wall, said once in the server's log) | "cpu"
                                     # (refused at the start where it cannot be had) | "wall"
wall_guard = 4.0                     # cpu clock: no answer after 4 × the allowance (+100 ms)
                                     # of wall time is a wall_timeout
```

The competition sets a ladder's ``name``, ``game``, ``entrants``, ``state_dir``, ``database``,
``log_dir``, ``sandbox``, ``signing_key``, ``allow_ungated_game`` (``allow_ungated_games``) and
its schedule's ``type`` (continuous) and ``catalogue`` (true); the rest is checked exactly as in
a ladder file. Any problem is one ``ConfigError`` naming the file, the key and the line.
"""

from __future__ import annotations

import json
import os
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import date, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import make_url
from sqlalchemy.exc import ArgumentError

from arena.bots.images.wheels import source_root
from arena.bots.names import name_problem
from arena.errors import ConfigError
from arena.games import game_ids, plugin
from arena.ladder.config import LadderConfig, LadderParser
from arena.ladder.schedules.schedule import CONTINUOUS
from arena.ladder.schedules.sources import write_private
from arena.ladder.toml_keys import TomlKeys
from arena.record.signing import DEFAULT_KEY_NAME, KEYS_DIR
from arena.stats.places import TIE_BREAKS

VISIBILITIES = ("own-seat", "participants", "public")
"""Who may read a finished match's log: its own seat's view only, every participant's
contestant, everybody."""
SANDBOXES = ("docker", "process")
"""The sandboxes a competition may run bots in."""
DATABASE_FILE = "competition.sqlite3"
"""The competition's SQLite file in its state directory (unless ``database`` names another)."""
MIB = 1024 * 1024
"""Bytes in the quotas' megabyte (a mebibyte)."""
DEFAULT_REFERENCE = "greedy"
"""The default validation opponent (a sample bot of every game)."""
HANDLER_THREADS = 128
"""The API's handler threads: calls served at once (each open stream holds one)."""
UNARY_RESERVE = 8
"""Handler threads streams can never take (``max_streams`` is at most the rest)."""
DEFAULT_SELECTIONS = 2
"""Versions a contestant may select per game for the final when ``[final] selections`` is not
set."""
SEASON_PHASES = ("frozen", "final", "closed")
"""The ``[season]`` keys: the phases that start at a time (``arena.host.season``)."""
_SECTIONS: dict[str, set[str]] = {
    "competition": {"name", "state_dir", "database", "sandbox", "signing_key",
                    "allow_ungated_games"},
    "server": {"listen", "tls_cert", "tls_key", "metrics", "max_streams",
               "streams_per_contestant", "stream_idle_s", "stream_max_s"},
    "site": {"dir", "refresh_s"},
    "visibility": {"logs"},
    "quotas": {"max_upload_mb", "max_image_upload_mb", "submissions_per_day", "active_bots"},
    "season": set(SEASON_PHASES),
    "final": {"selections", "format", "top", "encounters", "tie_break", "house"},
    "scrimmages": {"per_hour", "outstanding", "share"},
    "games": set(),
}
_GAME_KEYS = {"reference", "house", "ladder"}
_FIXED_LADDER_KEYS = ("name", "game", "entrants", "state_dir", "database", "log_dir", "sandbox",
                      "sprt", "signing_key", "allow_ungated_game")
"""Ladder keys the competition sets itself."""
_FIXED_SCHEDULE_KEYS = ("type", "catalogue")
_CLUSTER_FILES = ("ca", "cert", "key")
_ADDRESS = re.compile(r"(?:\[(?P<v6>[0-9A-Fa-f:.]+)\]|(?P<host>[A-Za-z0-9_.-]+)):(?P<port>\d{1,5})")


@dataclass(frozen=True)
class GameSettings:
    """One hosted game: its validation opponent, the house's entrants and its ladder's keys."""

    game: str
    """A registered game id (``arena.games``)."""
    reference: str = DEFAULT_REFERENCE
    """The bot (a directory name in :func:`bots_folder`) every submission is validated
    against."""
    house: tuple[str, ...] = (DEFAULT_REFERENCE,)
    """The bots the house enters in the ladder (directory names in :func:`bots_folder`)."""
    ladder: Mapping[str, Any] = field(default_factory=dict)
    """The ``[games.<game>.ladder]`` table: extra ladder-file keys (checked by the ladder's
    parser when the file is loaded)."""

    def sample_dir(self, bot: str) -> Path:
        """The directory of one of this game's bots (:func:`bots_folder`)."""
        return bots_folder(self.game) / bot

    @property
    def reference_dir(self) -> Path:
        """The validation opponent's bot directory."""
        return self.sample_dir(self.reference)

    @property
    def house_dirs(self) -> tuple[Path, ...]:
        """The house bots' directories (the ladder's entrants)."""
        return tuple(self.sample_dir(bot) for bot in self.house)


def bots_folder(game: str) -> Path:
    """Where a hosted game's bots are named: ``sample_bots/<game>`` of the arena's source tree
    for a built-in game; for a game package's, the folder of the reference bot its plugin
    declares (``GamePlugin.reference_bot``, shipped in the package: that bot and any beside it).
    ``ConfigError`` (one line) for a game package that declares none."""
    found = plugin(game)
    if found.builtin:
        return source_root() / "sample_bots" / game
    declared = found.reference_bot_dir()
    if declared is None:
        raise ConfigError(
            f"game {game} ({found.distribution or found.entry_point}) declares no reference bot "
            "(GamePlugin.reference_bot), which validates every submission: it cannot be hosted "
            "until its package declares one")
    return declared.parent


def default_reference(game: str) -> str:
    """A hosted game's validation opponent when its table names none: ``greedy`` of the
    built-in games, the reference bot a game package declares."""
    found = plugin(game)
    declared = found.reference_bot_dir()
    return DEFAULT_REFERENCE if found.builtin or declared is None else declared.name


@dataclass(frozen=True)
class Quotas:
    """What one contestant may send."""

    max_upload_bytes: int = 5 * MIB
    """The largest bot directory tar (``max_upload_mb``)."""
    max_image_upload_bytes: int = 512 * MIB
    """The largest ``docker save`` stream (``max_image_upload_mb``); 0: images refused."""
    submissions_per_day: int = 5
    """Submissions per contestant in a rolling 24 hours (refused ones count; failures of the
    server do not)."""
    active_bots: int = 3
    """Distinct bot names with an entered version, per contestant."""


@dataclass(frozen=True)
class Scrimmages:
    """What a contestant may ask of unrated matches (``[scrimmages]``,
    ``arena.host.scrimmages``)."""

    per_hour: int = 10
    """Challenges per contestant in a rolling hour (``per_hour``; 0: scrimmages are off)."""
    outstanding: int = 3
    """Challenges of one contestant against one opponent not played yet (``outstanding``)."""
    share: float = 0.25
    """The most of the matches the ladder's players take that go to scrimmages and reruns
    while the ladder has matches to play (``share``, above 0 and below 1): the ladder is never
    starved; an idle player takes them whatever the share."""


@dataclass(frozen=True)
class StreamLimits:
    """How many streams may be open and for how long (``[server]``): every open stream holds
    one of the server's ``HANDLER_THREADS`` until it ends."""

    max_streams: int = 96
    """Streams open at once on the whole server (``max_streams``); the other handler threads
    are left to unary calls (``WhoAmI``, ``Standings`` ...)."""
    per_contestant: int = 8
    """Streams one contestant may have open at once (``streams_per_contestant``)."""
    idle_s: float = 60.0
    """A stream waiting this long on its client (an upload's next chunk, a message the client
    does not take) is closed (``stream_idle_s``)."""
    total_s: float = 3600.0
    """Any stream is closed after this long (``stream_max_s``)."""


FINAL_FORMATS = ("round-robin",)
"""The final tournament's formats (``[final] format``)."""


@dataclass(frozen=True)
class FinalSettings:
    """The final tournament (``[final]``; ``arena.host.final`` plays it)."""

    format: str = "round-robin"
    """One of ``FINAL_FORMATS``."""
    top: int = 0
    """0: every entrant it is given plays; N: the N of them the game's ladder rates highest."""
    encounters: int = 2
    """Duplicate encounters per pair of entrants (each two matches on one deal)."""
    tie_break: str = "none"
    """One of ``arena.stats.places.TIE_BREAKS`` (the tie rule: its module doc)."""
    house: bool = False
    """The house bots play in the season's final beside the selected versions (a reference
    for the places)."""


@dataclass(frozen=True)
class SeasonPlan:
    """``[season]``: when each phase after ``open`` starts (UTC, seconds since the epoch; None:
    when the operator starts it). The phases themselves: ``arena.host.season``."""

    frozen: float | None = None
    final: float | None = None
    closed: float | None = None

    def start_of(self, phase: str) -> float | None:
        """When ``phase`` ("frozen", "final", "closed") is scheduled to start; None: by the
        operator (and for "open", the season's start)."""
        return getattr(self, phase) if phase in SEASON_PHASES else None


@dataclass(frozen=True)
class Competition:
    """A parsed, validated competition file."""

    name: str
    """The competition's identifier (its ladders are ``<name>-<game>``)."""
    path: Path
    """The competition file (absolute)."""
    state_dir: Path
    """Everything the server keeps (absolute): see the properties."""
    listen: str
    """The public API's address, ``host:port`` (port 0: any free port)."""
    tls_cert: Path
    """The server's certificate (PEM, absolute)."""
    tls_key: Path
    """The server's private key (PEM, absolute)."""
    database: str
    """The SQLAlchemy URL of the competition's database (ladders, contestants, submissions)."""
    metrics: str
    """The Prometheus endpoint's ``host:port``; "" when off."""
    site_dir: Path
    """Where the public page is written (absolute)."""
    site_refresh_s: float
    """The page is regenerated at most this often (seconds)."""
    sandbox: str
    """One of ``SANDBOXES``."""
    logs: str
    """Who sees a finished match's log: one of ``VISIBILITIES``."""
    games: tuple[GameSettings, ...]
    """The hosted games (at least one), in file order."""
    quotas: Quotas = Quotas()
    """What a contestant may send."""
    scrimmages: Scrimmages = Scrimmages()
    """What a contestant may ask of unrated matches."""
    streams: StreamLimits = StreamLimits()
    """How many streams may be open and for how long."""
    signing_key: Path | None = None
    """The private key that signs every ladder match log (absolute); None: ``referee_key``, made
    when the server starts."""
    season: SeasonPlan | None = None
    """``[season]``: when its phases start; None: no season (open for good)."""
    selections: int = DEFAULT_SELECTIONS
    """``[final] selections``: versions a contestant may select per game for the final."""
    allow_ungated_games: bool = False
    """Host a game that fails the conformance gate (``arena.gate``), with a warning
    line; by default the server refuses to start with one (and every ladder it runs has
    ``allow_ungated_game`` set to this)."""
    final: FinalSettings = FinalSettings()
    """The final tournament's format and tie rule (``[final]``)."""

    @property
    def referee_key(self) -> Path:
        """The key the ladders sign with: ``signing_key``, else ``keys/referee.key`` in the state
        directory."""
        return self.signing_key or self.state_dir / KEYS_DIR / f"{DEFAULT_KEY_NAME}.key"

    @property
    def home(self) -> Path:
        """The server's ARENA_HOME: the catalogue of submitted bots."""
        return self.state_dir / "home"

    @property
    def uploads(self) -> Path:
        """Uploads in flight and unpacked bot directories (private)."""
        return self.state_dir / "uploads"

    @property
    def ladders(self) -> Path:
        """The generated ladder files and their state directories."""
        return self.state_dir / "ladders"

    @property
    def logs_dir(self) -> Path:
        """Match logs (``<game>/`` of the ladders, ``validation/`` of the submissions)."""
        return self.state_dir / "logs"

    def game(self, name: str) -> GameSettings:
        """The settings of a hosted game; ``ConfigError`` if the competition does not host it."""
        for settings in self.games:
            if settings.game == name:
                return settings
        hosted = ", ".join(g.game for g in self.games)
        raise ConfigError(f"the competition {self.name!r} does not host the game {name!r} "
                          f"(it hosts: {hosted})")

    def ladder_name(self, game: str) -> str:
        """The name of the game's ladder (its match ids start with it)."""
        return f"{self.name}-{self.game(game).game}"


def host_port(address: str) -> tuple[str, int]:
    """``(host, port)`` of a ``host:port`` or ``[v6]:port`` address; ``ConfigError`` if it is
    neither."""
    m = _ADDRESS.fullmatch(address)
    if m is None or int(m["port"]) > 65535:
        raise ConfigError(f"{address!r} is not HOST:PORT (e.g. 127.0.0.1:7443, [::1]:7443)")
    return m["v6"] or m["host"], int(m["port"])


def load_competition(path: str | os.PathLike[str]) -> Competition:
    """Read and validate a competition file (also every hosted game's ladder keys). Raises
    ``ConfigError`` naming the file, the key and the line."""
    file = Path(path).absolute()
    try:
        text = file.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"{file}: cannot read the competition file: "
                          f"{exc.strerror or exc}") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{file}: invalid TOML: {exc}") from None
    competition = _CompetitionParser(text, file).competition(data)
    for settings in competition.games:
        keys = _LadderKeys(text, file, settings.game)
        keys.check_fixed(settings.ladder)
        keys.parse(ladder_data(competition, settings.game))
    return competition


def ladder_data(c: Competition, game: str) -> dict[str, Any]:
    """The ladder file of a hosted game as TOML data: a continuous ladder of the catalogue,
    the house bots as entrants, over the competition's database, plus the game's ladder keys."""
    settings = c.game(game)
    extra = settings.ladder
    data: dict[str, Any] = {
        "name": c.ladder_name(game),
        "game": game,
        "entrants": [str(d) for d in settings.house_dirs],
        "sandbox": c.sandbox,
        "state_dir": str(c.ladders / game),
        "log_dir": str(c.logs_dir / game),
        "database": c.database,
        "signing_key": str(c.referee_key),
    }
    if c.allow_ungated_games:  # only then: the ladder file of a competition stays as it was
        data["allow_ungated_game"] = True
    data.update({k: v for k, v in extra.items() if not isinstance(v, dict)})
    for table, value in extra.items():
        if isinstance(value, dict):
            data[table] = dict(value)
    data["schedule"] = {**data.get("schedule", {}), "type": CONTINUOUS, "catalogue": True}
    cluster = data.get("cluster")
    if isinstance(cluster, dict):  # certificate paths are the competition file's
        base = c.path.parent
        data["cluster"] = {k: str(base / v) if k in _CLUSTER_FILES and isinstance(v, str) else v
                           for k, v in cluster.items()}
    return data


ONE_HOST_DUPLICATES = (
    "{game}: duplicate deals on one host: a bot can still pass a few bits of its opponent's hand "
    "from one leg of a deal to the other through numbers the kernel hands out (about 4 bits an "
    "encounter, docs/containers.md#the-two-legs-of-a-deal); play on two or more hosts "
    "([games.{game}.ladder.cluster]) or set duplicate = false")
"""What the server says of a game whose ladder plays duplicate deals without a cluster."""


def deals_note(c: Competition, game: str) -> str | None:
    """One line when the game's ladder plays duplicate deals on this host alone (no cluster:
    the legs of a deal share a kernel, in different epochs), else None."""
    extra = c.game(game).ladder
    if extra.get("duplicate", True) is False or isinstance(extra.get("cluster"), dict):
        return None
    return ONE_HOST_DUPLICATES.format(game=game)


def ladder_config(c: Competition, game: str) -> LadderConfig:
    """The ladder of a hosted game, built in code from ``ladder_data`` (checked as the
    competition file's keys are): a continuous ladder whose entrants the server hands over in
    memory (``arena.ladder.entrants.EntryFeed``: the house bots, then every entered
    submission), so it reads neither a ladder file nor the catalogue. ``ConfigError`` if the
    competition does not host ``game``."""
    settings = c.game(game)
    config = _LadderKeys("", c.path, settings.game).parse(ladder_data(c, settings.game))
    return replace(config, base_dir=c.ladders, source=None,
                   schedule=replace(config.schedule, catalogue=False))


def ladder_file(c: Competition, game: str) -> Path:
    """Write ``<ladders>/<game>.toml`` (atomically, only if it changed) and return its path: the
    game's ladder as a ladder file, for people (``arena ladder standings FILE``); the server
    does not read it back (``ladder_config``)."""
    path = c.ladders / f"{c.game(game).game}.toml"
    text = "\n".join([
        f"# Written by `arena host` from {c.path}: edit that file, not this one. An export:",
        "# the server runs the ladder from the competition file and its database, not from this.",
        toml_text(ladder_data(c, game)),
    ])
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        write_private(path, text)
    return path


def toml_text(data: Mapping[str, Any]) -> str:
    """TOML of a table of scalars, lists and (one level of) tables."""
    top = [f"{key} = {_value(v)}" for key, v in data.items() if not isinstance(v, dict)]
    tables = [f"\n[{key}]\n" + "".join(f"{k} = {_value(x)}\n" for k, x in v.items())
              for key, v in data.items() if isinstance(v, dict)]
    return "\n".join(top) + "\n" + "".join(tables)


def _value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)  # TOML spells inf and nan as Python does
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{json.dumps(str(k))} = {_value(v)}"
                               for k, v in value.items()) + "}"
    return json.dumps(str(value))  # a JSON string is a TOML basic string


class _CompetitionParser(TomlKeys):
    """A competition file's keys (lookup, types, line numbers) read into a ``Competition``."""

    def __init__(self, text: str, file: Path) -> None:
        super().__init__(text, str(file), file)
        self.file = file

    def competition(self, data: Mapping[str, Any]) -> Competition:
        """The competition of the file's data (its games' ladder keys are checked apart)."""
        self.unknown(data, None, set(_SECTIONS))
        for section in _SECTIONS:
            if section in data and not isinstance(data[section], dict):
                raise self.error(None, section, "must be a table")
            if section != "games":
                self.unknown(data.get(section, {}), section, _SECTIONS[section])
        table = data.get("competition", {})
        name = self.get(table, "competition", "name", str, required=True)
        problem = name_problem(name)
        if problem is not None:
            raise self.error("competition", "name", f"{problem}: it is an identifier (letters "
                             "and digits with single '.', '_' or '-' between them)")
        state_dir = self.path(table, "competition", "state_dir", f"{self.file.stem}-state")
        server = data.get("server", {})
        site = data.get("site", {})
        return Competition(
            name=name,
            path=self.file,
            state_dir=state_dir,
            listen=self.address(server, "listen", "127.0.0.1:7443"),
            tls_cert=self.path(server, "server", "tls_cert", "certs/server.pem"),
            tls_key=self.path(server, "server", "tls_key", "certs/server.key"),
            database=self.database(table, state_dir),
            metrics=self.address(server, "metrics", "127.0.0.1:9464", optional=True),
            site_dir=self.path(site, "site", "dir", str(state_dir / "site")),
            site_refresh_s=self.seconds(site, "site", "refresh_s", 30.0),
            sandbox=self.one_of(table, "competition", "sandbox", SANDBOXES),
            logs=self.one_of(data.get("visibility", {}), "visibility", "logs", VISIBILITIES),
            games=self.games(data.get("games", {})),
            quotas=self.quotas(data.get("quotas", {})),
            scrimmages=self.scrimmages(data.get("scrimmages", {})),
            streams=self.streams(server),
            signing_key=(self.path(table, "competition", "signing_key", "")
                         if "signing_key" in table else None),
            allow_ungated_games=self.get(table, "competition", "allow_ungated_games", bool,
                                         False),
            final=self.final(data.get("final", {})),
            season=self.season(data["season"]) if "season" in data else None,
            selections=self.positive(data.get("final", {}), "final", "selections",
                                     DEFAULT_SELECTIONS),
        )

    def final(self, table: Mapping[str, Any]) -> FinalSettings:
        d = FinalSettings()
        top: int = self.get(table, "final", "top", int, d.top)
        if top < 0 or top == 1:
            raise self.error("final", "top", f"must be 0 (every entrant) or at least 2, got {top}")
        return FinalSettings(
            format=self.one_of(table, "final", "format", FINAL_FORMATS),
            top=top,
            encounters=self.positive(table, "final", "encounters", d.encounters),
            tie_break=self.one_of(table, "final", "tie_break", TIE_BREAKS),
            house=self.get(table, "final", "house", bool, d.house),
        )

    def season(self, table: Mapping[str, Any]) -> SeasonPlan:
        """``[season]``: a UTC time (with its offset) per phase given, in the phases' order."""
        times: dict[str, float] = {}
        for key in SEASON_PHASES:
            if key not in table:
                continue
            value = table[key]
            if not isinstance(value, datetime) or value.utcoffset() is None:
                got = value.isoformat() if isinstance(value, date) else repr(value)
                raise self.error("season", key, "must be a UTC date-time with its offset, "
                                 f"unquoted (e.g. 2027-03-01T12:00:00Z), got {got}")
            at = value.timestamp()
            earlier = [k for k in times if times[k] >= at]
            if earlier:
                raise self.error("season", key, f"must come after {earlier[0]} (the phases go "
                                 "open, frozen, final, closed)")
            times[key] = at
        return SeasonPlan(**times)

    def path(self, table: Mapping[str, Any], section: str, key: str, default: str) -> Path:
        value: str = self.get(table, section, key, str, default)
        if not value.strip():
            raise self.error(section, key, "must be a path (relative to the competition file)")
        return Path(os.path.normpath(self.file.parent / value))

    def address(self, table: Mapping[str, Any], key: str, default: str,
                optional: bool = False) -> str:
        value: str = self.get(table, "server", key, str, default)
        if optional and value == "":
            return value
        try:
            host_port(value)
        except ConfigError as exc:
            raise self.error("server", key, str(exc) + ("; \"\" turns it off" if optional
                                                         else "")) from None
        return value

    def database(self, table: Mapping[str, Any], state_dir: Path) -> str:
        value: str | None = self.get(table, "competition", "database", str)
        if value is None:
            return f"sqlite:///{state_dir / DATABASE_FILE}"
        try:
            url = make_url(value)
        except ArgumentError:
            raise self.error("competition", "database", "must be a SQLAlchemy URL (e.g. "
                             "postgresql+psycopg://user@host/db)") from None
        if url.get_backend_name() == "sqlite" and url.database not in (None, "", ":memory:"):
            database = Path(os.path.normpath(self.file.parent / str(url.database)))
            return f"sqlite:///{database}"
        return value

    def seconds(self, table: Mapping[str, Any], section: str, key: str, default: float) -> float:
        value: float = self.get(table, section, key, float, default)
        if not 0 < value < float("inf"):
            raise self.error(section, key, f"must be a number of seconds above 0, got {value}")
        return value

    def one_of(self, table: Mapping[str, Any], section: str, key: str,
               choices: tuple[str, ...]) -> str:
        value: str = self.get(table, section, key, str, choices[0])
        if value not in choices:
            raise self.error(section, key, f"must be one of {', '.join(choices)}, got {value!r}")
        return value

    def quotas(self, table: Mapping[str, Any]) -> Quotas:
        d = Quotas()
        return Quotas(
            max_upload_bytes=self.megabytes(table, "max_upload_mb", d.max_upload_bytes, 1),
            max_image_upload_bytes=self.megabytes(table, "max_image_upload_mb",
                                                  d.max_image_upload_bytes, 0),
            submissions_per_day=self.positive(table, "quotas", "submissions_per_day",
                                              d.submissions_per_day),
            active_bots=self.positive(table, "quotas", "active_bots", d.active_bots),
        )

    def scrimmages(self, table: Mapping[str, Any]) -> Scrimmages:
        d = Scrimmages()
        per_hour: int = self.get(table, "scrimmages", "per_hour", int, d.per_hour)
        if per_hour < 0:
            raise self.error("scrimmages", "per_hour", f"must be 0 (off) or more, got {per_hour}")
        share: float = self.get(table, "scrimmages", "share", float, d.share)
        if not 0 < share < 1:
            raise self.error("scrimmages", "share", f"must be above 0 and below 1, got {share}")
        return Scrimmages(per_hour=per_hour, share=share,
                          outstanding=self.positive(table, "scrimmages", "outstanding",
                                                    d.outstanding))

    def streams(self, table: Mapping[str, Any]) -> StreamLimits:
        d = StreamLimits()
        most = HANDLER_THREADS - UNARY_RESERVE
        total = self.positive(table, "server", "max_streams", d.max_streams)
        if total > most:
            raise self.error("server", "max_streams", f"must be at most {most} (the server has "
                             f"{HANDLER_THREADS} handler threads and keeps {UNARY_RESERVE} for "
                             f"unary calls), got {total}")
        return StreamLimits(
            max_streams=total,
            per_contestant=self.positive(table, "server", "streams_per_contestant",
                                         d.per_contestant),
            idle_s=self.seconds(table, "server", "stream_idle_s", d.idle_s),
            total_s=self.seconds(table, "server", "stream_max_s", d.total_s),
        )

    def megabytes(self, table: Mapping[str, Any], key: str, default: int, least: int) -> int:
        value: float = self.get(table, "quotas", key, float, default / MIB)
        size = value * MIB
        if not least <= size < 2**62:
            smallest = "0 or more" if least == 0 else "above 0"
            raise self.error("quotas", key, f"must be a number of MiB {smallest}, got {value}")
        return int(size)

    def games(self, table: Mapping[str, Any]) -> tuple[GameSettings, ...]:
        if not table:
            raise self.error(None, "games", "is required: at least one [games.<game>] table "
                             "(e.g. [games.lost-cities])")
        games = []
        for game, settings in table.items():
            section = f"games.{game}"
            if game not in game_ids():
                raise self.error("games", game, f"unknown game; known: {', '.join(game_ids())}")
            if not isinstance(settings, dict):
                raise self.error("games", game, "must be a table")
            games.append(self.game(game, section, settings))
        return tuple(games)

    def game(self, game: str, section: str, table: Mapping[str, Any]) -> GameSettings:
        self.unknown(table, section, _GAME_KEYS)
        try:
            bots_folder(game)
        except ConfigError as exc:
            raise self.error("games", game, str(exc)) from None
        reference = self.sample(game, section, "reference",
                                self.get(table, section, "reference", str,
                                         default_reference(game)))
        house = self.get(table, section, "house", list, [reference])
        if not all(isinstance(bot, str) for bot in house):
            raise self.error(section, "house", "must be a list of sample bot names")
        if len(set(house)) != len(house):
            raise self.error(section, "house", "names a sample bot twice")
        for bot in house:
            self.sample(game, section, "house", bot)
        ladder = self.get(table, section, "ladder", dict, {})
        return GameSettings(game, reference, tuple(house), ladder)

    def sample(self, game: str, section: str, key: str, bot: str) -> str:
        """``bot`` if it names a bot of ``game`` (:func:`bots_folder`)."""
        folder = bots_folder(game)
        if name_problem(bot) is not None or not (folder / bot / "bot.toml").is_file():
            known = sorted(p.name for p in folder.iterdir() if (p / "bot.toml").is_file()) \
                if folder.is_dir() else []
            kind = "a sample bot" if plugin(game).builtin else f"a bot of its package ({folder})"
            raise self.error(section, key, f"{bot!r} is not {kind} of {game} (known: "
                             f"{', '.join(known) or 'none'})")
        return bot


class _LadderKeys(LadderParser):
    """The ladder parser over a game's generated ladder data, its errors naming the
    ``[games.<game>.ladder]`` keys of the competition file."""

    def __init__(self, text: str, file: Path, game: str) -> None:
        super().__init__(text, str(file), file)
        self.prefix = f"games.{game}.ladder"

    def error(self, section: str | None, key: str, message: str) -> ConfigError:
        return super().error(f"{self.prefix}.{section}" if section else self.prefix, key,
                             message)

    def check_fixed(self, user: Mapping[str, Any]) -> None:
        """Refuse, in the user's ``[games.<game>.ladder]`` table, the keys the competition
        sets itself."""
        for key in _FIXED_LADDER_KEYS:
            if key in user:
                raise self.error(None, key, "is set by the competition: remove it")
        schedule = user.get("schedule", {})
        if not isinstance(schedule, dict):
            raise self.error(None, "schedule", "must be a table")
        for key in _FIXED_SCHEDULE_KEYS:
            if key in schedule:
                raise self.error("schedule", key, "is set by the competition (a continuous "
                                 "ladder of the catalogue): remove it")
