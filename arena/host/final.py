"""A competition's final tournament: a fixed schedule among the versions it is given, on fresh
seeds committed before it starts, played as the ladder plays its matches, published as signed
results that `arena verify` checks.

``Final(competition, game, store, signing)``:

- ``begin(refs)`` (idempotent: a final begun stays as it began) fixes the entrants (``[final]
  top = N``: the N of ``refs`` the game's ladder rates highest, from ``ratings``), draws a fresh
  secret (``<state>/finals/<game>/deal-secret``, the operator's only) from which every deal of
  the final comes, records the final (``final.json``) and publishes the signed commitment
  (``<site>/final/<game>-commitment.json``: the entrants, the format and the SHA-256 of the
  secret, signed by the referee's key) before any match is played;
- ``play(stop)`` plays what is not recorded yet: a round robin of every pair, ``[final]
  encounters`` duplicate encounters each, through the ladder's runner (``run_matches``: the
  competition's sandbox and cluster, each log signed, each result recorded in the
  competition's database the moment it lands). After a ``kill -9`` it plays only the matches
  the store does not hold (ids and seeds come from the schedule; a match cut in flight is
  played again with its deal);
- ``publish()`` writes ``<site>/final/<game>/``: the signed publication
  (``arena.site.publish`` with its ``final`` section, ``arena.site.final``): every log, the
  manifest with the commitment, the revealed secret, the standings with 95% intervals and the
  places under the tie rule (``arena.stats.places``), the competition's audit log (every
  moderation action, ``arena.host.audit``), and the page that shows them.

The final's ladder is ``<competition>-<game>-final``; its logs go to ``<logs>/<game>-final/``.
Every version is a player of its own (two selected versions of one bot are two rows).
"""

from __future__ import annotations

import asyncio
import json
import os
import secrets
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from arena.bots.home import HOME_ENV
from arena.bots.resolve import resolve_bot
from arena.errors import ConfigError
from arena.host.audit import AuditLog, entrant_name
from arena.host.config import Competition, ladder_config
from arena.host.submissions import SubmissionBook
from arena.ladder.config import LadderConfig
from arena.ladder.reports import iso_time, standings_of
from arena.ladder.runner import (
    LEG_BLOCK,
    SECRET_FILE,
    EventSink,
    PlannedMatches,
    PlayMatch,
    RunSummary,
    Signing,
    ladder_schedule,
    legs_in_blocks,
    plan_run,
    run_matches,
)
from arena.ladder.schedules.schedule import ROUND_ROBIN, ScheduledMatch
from arena.ladder.schedules.sources import write_private
from arena.ladder.store import LadderStore
from arena.model import BotSpec
from arena.record.log import open_private, private_dir
from arena.referee.service import Lineup, line_up
from arena.render.html.competition import final_page
from arena.site.final import Entrant, commitment_record, secret_commitment
from arena.site.publish import MANIFEST, Publication, publish
from arena.site.refresh import write_public

FINALS_DIR = "finals"
"""The finals' private state under the competition's state directory: one folder a game."""
STATE_FILE = "final.json"
WITHDRAWN_FILE = "withdrawn.json"
"""Entrants taken out of the final after it began (a disqualification): key → why."""
SITE_DIR = "final"
"""The finals on the public site: ``<game>/`` (the publication), ``<game>-commitment.json``."""
COMMITMENT_SUFFIX = "-commitment.json"


@dataclass(frozen=True)
class FinalState:
    """A final as it was begun (``final.json``)."""

    ladder: str
    game: str
    format: str
    encounters: int
    duplicate: bool
    seed: int
    tie_break: str
    entrants: tuple[Entrant, ...]
    refs: tuple[str, ...]
    """What each entrant resolves from (a house bot's directory, ``name@s<id>``): private."""
    commitment: str
    """The SHA-256 of the secret (hex)."""
    began_at: str
    commitment_record: Mapping[str, Any]
    """The signed commitment, as published before the first match."""

    def committed(self) -> dict[str, Any]:
        """What the commitment fixes (``arena.site.final.COMMITTED``) and when it began."""
        return {"ladder": self.ladder, "game": self.game,
                "entrants": [e.to_json() for e in self.entrants], "format": self.format,
                "encounters": self.encounters, "duplicate": self.duplicate, "seed": self.seed,
                "commitment": self.commitment, "began_at": self.began_at}

    def to_json(self) -> dict[str, Any]:
        """The public part (``committed``, the tie rule and the signed commitment)."""
        return {**self.committed(), "tie_break": self.tie_break,
                "commitment_record": dict(self.commitment_record)}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> FinalState:
        return cls(str(data["ladder"]), str(data["game"]), str(data["format"]),
                   int(data["encounters"]), bool(data["duplicate"]), int(data["seed"]),
                   str(data["tie_break"]),
                   tuple(Entrant(e["name"], e["version"]) for e in data["entrants"]),
                   tuple(str(r) for r in data["refs"]),
                   str(data["commitment"]), str(data["began_at"]),
                   dict(data["commitment_record"]))


def default_entrants(competition: Competition, game: str, store: LadderStore) -> list[str]:
    """What the game's ladder plays now: the house bots' directories, then every entered
    submission's latest version (``name@s<id>``); none of a disqualified contestant
    (``arena.host.audit``)."""
    book = SubmissionBook(store.engine)
    moderation = AuditLog(store.engine).moderation()  # a disqualified contestant's: left out
    refs = [*(str(d) for d in competition.game(game).house_dirs),
            *(f"{name}@{version}" for name, version in book.entries(game))]
    return [ref for ref in refs if moderation.out([entrant_name(ref)]) is None]


def ladder_ratings(competition: Competition, game: str, store: LadderStore) -> dict[str, float]:
    """The game's ladder's rating of every version that played in it (``name@version``)."""
    matches = store.matches(competition.ladder_name(game))
    if not matches:
        return {}
    fit = standings_of(competition.ladder_name(game), matches, versions=True).fit
    return {r.name: r.rating for r in fit.ratings}


class Final:
    """One game's final tournament in a competition (module doc)."""

    def __init__(self, competition: Competition, game: str, store: LadderStore,
                 signing: Signing) -> None:
        self.competition = competition
        self.game = competition.game(game).game
        self.store = store
        self.signing = signing
        self.directory = competition.state_dir / FINALS_DIR / self.game
        self.ladder = f"{competition.ladder_name(self.game)}-final"
        self.out = competition.site_dir / SITE_DIR / self.game
        self.commitment_file = competition.site_dir / SITE_DIR / f"{self.game}{COMMITMENT_SUFFIX}"

    # --- state -------------------------------------------------------------------------------
    def state(self) -> FinalState | None:
        """The final as begun, None before ``begin``."""
        path = self.directory / STATE_FILE
        try:
            return FinalState.from_json(json.loads(path.read_text(encoding="utf-8")))
        except FileNotFoundError:
            return None
        except (ValueError, KeyError, TypeError) as exc:
            raise ConfigError(f"{path}: not a final's state ({exc}): the final cannot go "
                              "on") from None

    def withdrawn(self) -> dict[str, str]:
        """The entrants taken out since the final began (``withdraw``): ``name@version`` →
        why."""
        try:
            data = json.loads((self.directory / WITHDRAWN_FILE).read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except ValueError as exc:
            raise ConfigError(f"{self.directory / WITHDRAWN_FILE}: not a list of withdrawn "
                              f"entrants ({exc})") from None
        return {str(k): str(v) for k, v in data.items()}

    def withdraw(self, keys: Mapping[str, str]) -> list[str]:
        """Take entrants (``name@version`` → why) out of the final begun: their matches not
        played yet never are, those played stay listed in its results and its standings are
        fitted without them. Returns the keys newly withdrawn (those of no entrant, or out
        already, are left)."""
        state = self.state()
        if state is None:
            return []
        known = {e.key for e in state.entrants}
        out = self.withdrawn()
        new = [k for k in keys if k in known and k not in out]
        if new:
            out.update({k: keys[k] for k in new})
            write_private(self.directory / WITHDRAWN_FILE, json.dumps(out, indent=1) + "\n")
        return new

    def secret(self, state: FinalState) -> str:
        """The final's secret, checked against its commitment."""
        secret = (self.directory / SECRET_FILE).read_text().strip()
        if secret_commitment(secret) != state.commitment:
            raise ConfigError(f"{self.directory / SECRET_FILE} is not the secret the final "
                              f"committed to ({state.commitment[:16]}...): it cannot go on")
        return secret

    def begin(self, refs: Sequence[str], ratings: Mapping[str, float] | None = None,
              now: float | None = None) -> FinalState:
        """Begin the final among ``refs`` (module doc); the final already begun, as it is.
        ``ratings``: the game's ladder's rating of each version (``name@version``), for
        ``[final] top``. ``ConfigError`` (one line) for fewer than two entrants, one that
        does not resolve to a bot of the game, or one of a disqualified contestant."""
        found = self.state()
        if found is not None:
            self.publish_commitment(found)
            return found
        settings = self.competition.final
        entrants = self.entrants(refs)
        moderation = AuditLog(self.store.engine).moderation()
        for _, entrant in entrants:
            who = moderation.out([entrant.name])
            if who is not None:
                raise ConfigError(f"{entrant.key} is a bot of {who}, who is disqualified: "
                                  "leave it out of the final")
        if settings.top:
            rated = ratings or {}
            ranked = sorted(entrants, key=lambda e: -rated.get(e[1].key, float("-inf")))
            chosen = {ref for ref, _ in ranked[:settings.top]}
            entrants = [e for e in entrants if e[0] in chosen]
        if len(entrants) < 2:
            raise ConfigError(f"the final of {self.game} needs at least two entrants, got "
                              f"{len(entrants)}")
        private_dir(self.directory)
        secret_path = self.directory / SECRET_FILE
        if not secret_path.exists():  # one left by a begin cut short was never published
            with open_private(secret_path) as handle:
                handle.write(secrets.token_hex(32))
        secret = secret_path.read_text().strip()
        base = ladder_config(self.competition, self.game)
        partial = FinalState(self.ladder, self.game, settings.format, settings.encounters,
                             base.duplicate, base.seed, settings.tie_break,
                             tuple(e for _, e in entrants), tuple(r for r, _ in entrants),
                             secret_commitment(secret),
                             iso_time(time.time() if now is None else now), {})
        state = replace(partial, commitment_record=commitment_record(
            self.signing.signer, partial.committed()))
        self.publish_commitment(state)  # public before the server can see the final begun
        write_private(self.directory / STATE_FILE,
                      json.dumps({**state.to_json(), "refs": list(state.refs)}, indent=1) + "\n")
        return state

    def entrants(self, refs: Sequence[str]) -> list[tuple[str, Entrant]]:
        """Each reference resolved (a bot directory, or ``name@version`` in the competition's
        catalogue) to a bot of the game, once each: (reference, entrant)."""
        if len(set(refs)) != len(refs):
            raise ConfigError("the final's entrants list a version twice")
        found = []
        for ref in refs:
            spec = self._resolve(ref)
            if spec.game != self.game:
                raise ConfigError(f"entrant {ref!r} plays {spec.game}, not {self.game}")
            found.append((ref, Entrant(spec.name, spec.version)))
        keys = [e.key for _, e in found]
        twice = next((k for k in keys if keys.count(k) > 1), None)
        if twice is not None:
            raise ConfigError(f"the final's entrants name {twice} twice")
        return found

    def _resolve(self, ref: str) -> BotSpec:
        os.environ[HOME_ENV] = str(self.competition.home)  # the catalogue of submissions
        return resolve_bot(ref)

    def publish_commitment(self, state: FinalState) -> None:
        """The signed commitment on the public site (written again if it is missing)."""
        data = (json.dumps(dict(state.commitment_record), indent=1) + "\n").encode()
        if not self.commitment_file.is_file() or self.commitment_file.read_bytes() != data:
            self.commitment_file.parent.mkdir(parents=True, exist_ok=True)
            write_public(self.commitment_file, data)

    # --- playing -----------------------------------------------------------------------------
    def config(self, state: FinalState) -> LadderConfig:
        """The final as a ladder: the game's ladder's options, time control, rating and
        cluster; a round robin of the entrants over ``encounters`` cycles, its own state
        directory (the secret) and log directory."""
        base = ladder_config(self.competition, self.game)
        return replace(
            base, name=state.ladder, entrants=tuple(e.key for e in state.entrants),
            state_dir=self.directory, log_dir=self.competition.logs_dir / f"{self.game}-final",
            duplicate=state.duplicate, seed=state.seed,
            schedule=replace(base.schedule, kind=ROUND_ROBIN, cycles=state.encounters,
                             catalogue=False))

    def lineup(self, state: FinalState, check: bool = True) -> Lineup:
        """The entrants lined up in the competition's sandbox (two versions of one bot may
        both play)."""
        return line_up([self._resolve(ref) for ref in state.refs], game=self.game,
                       sandbox=self.competition.sandbox, check=check)

    def remaining(self, state: FinalState) -> int:
        """Scheduled matches not recorded yet (of entrants not withdrawn)."""
        self.secret(state)
        return len(self._planned(state, self.store.recorded_ids(state.ladder)))

    def _planned(self, state: FinalState, recorded: set[str]) -> list[ScheduledMatch]:
        """The matches to play: not recorded, no withdrawn entrant in them."""
        out = self.withdrawn()
        seats_out = {n for n, e in enumerate(state.entrants) if e.key in out}
        return [m for m in plan_run(ladder_schedule(self.config(state)), recorded)
                if not seats_out & set(m.seats)]

    async def play(self, *, stop: asyncio.Event | None = None, on_event: EventSink | None = None,
                   play: PlayMatch | None = None) -> RunSummary:
        """Play the final's unrecorded matches (module doc); returns when all are recorded or
        ``stop`` is set. ``play``: the match player (default: the competition's cluster)."""
        state = self.state()
        if state is None:
            raise ConfigError(f"the final of {self.game} has not begun")
        self.secret(state)  # the deals are the committed secret's, or nothing is played
        config = self.config(state)
        schedule = ladder_schedule(config)
        recorded = self.store.recorded_ids(config.name)
        planned = self._planned(state, recorded)
        block = LEG_BLOCK * max(1, config.concurrency)
        return await run_matches(
            config, self.lineup(state, check=play is None),
            PlannedMatches(legs_in_blocks(planned, block)), self.store, play=play,
            on_event=on_event, stop=stop, scheduled=sum(len(e.matches) for e in schedule),
            already=sum(1 for e in schedule for m in e.matches if m.match_id in recorded),
            planned=len(planned), signing=self.signing)

    # --- results -----------------------------------------------------------------------------
    def published(self) -> bool:
        """Whether the final's results are on the site (this final's: its commitment)."""
        state = self.state()
        try:
            manifest = json.loads((self.out / MANIFEST).read_bytes())
        except (OSError, ValueError):
            return False
        return state is not None and manifest.get("final", {}).get("commitment") == \
            state.commitment

    def publish(self) -> Publication:
        """Publish the final's results (module doc), revealing its secret; complete or not (a
        final closed before its end says so). ``ConfigError`` when it has not begun or its
        publication does not verify."""
        state = self.state()
        if state is None:
            raise ConfigError(f"the final of {self.game} has not begun: nothing to publish")
        withdrawn = self.withdrawn()
        section = {**state.to_json(), "secret": self.secret(state),
                   "complete": self.remaining(state) == 0,
                   "withdrawn": [{"name": e.name, "version": e.version, "why": withdrawn[e.key]}
                                 for e in state.entrants if e.key in withdrawn],
                   # the operator's moderation (arena.host.audit), signed with the results
                   "audit": [entry.public() for entry in AuditLog(self.store.engine).entries()]}
        section.pop("began_at")

        def site(directory: Path, manifest: dict[str, Any]) -> None:
            write_public(directory / "index.html", final_page(manifest).encode())

        self.out.parent.mkdir(parents=True, exist_ok=True)
        return publish(self.config(state), self.out, final=section, site=site)
