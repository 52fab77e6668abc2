"""A long-lived competition (``arena host FILE``): the public API over TLS, one continuous ladder
per game, the submission pipeline, the public page and the metrics, in one process.

Threads, each with one job:

* the gRPC server (TLS always: the certificate and key the competition file names; contestants
  pin the CA that signed it) with a bounded pool of handler threads (``HANDLER_THREADS``; open
  streams may hold at most ``[server] max_streams`` of them, the rest is for unary calls), and
  the streams' reaper (``arena.host.service.Streams``);
* one ladder thread per game, running ``run_ladder`` on its own event loop over the
  competition's database: a continuous ladder built in code (``ladder_config``) whose entrants
  the server hands over in memory (``arena.ladder.entrants.EntryFeed``): the house bots and
  every entered submission's version, read from the database at the start, then each
  submission the pipeline enters, as an ``Entered`` event that wakes the ladder at once (a new
  version first plays its placement encounters). ``<state>/ladders/<game>.toml`` is the same
  ladder written for people (``arena ladder standings FILE``); nothing reads it back;
* the pipeline thread: uploaded submissions, one at a time (build, validation, entry);
* the season thread (``arena.host.season``): records each phase as its time comes and acts on
  each phase entered, whoever started it (its time, or the operator's ``arena phase`` in
  another process, seen in the database within ``SEASON_POLL_S``): in ``frozen`` the ladders'
  entrants become the house bots and the selected versions (``Withdrawn`` and ``Entered``
  events: ``name@version`` entrants, so two versions of one bot may both play), in ``final``
  and ``closed`` the ladders stop (matches in flight are dropped, never recorded); then the
  ``phase_listeners`` are told;
* the results thread: reads new results into memory (``arena.host.results``), marks each entered
  submission RATED at its first rated match, and rewrites the public page at most every
  ``site_refresh_s`` seconds while results arrive;
* the final thread: once a game's final tournament has begun (``arena.host.final``: `arena
  final FILE`, or the season entering ``final``: ``begin_final`` among the selected versions),
  plays what it has not recorded yet on the competition's players, then publishes its signed
  results on the public page: at once, or in a season once it closes (``closed`` stops a final
  still playing and publishes what it played); after a restart it takes the final up where it
  was.

The admin socket of ``arena serve`` and the bots' seat sockets are not part of this process's
public side: the API can only do what ``CompetitionService`` says.

Every ladder match log is signed with the competition's referee key (``[competition]
signing_key``, else ``keys/referee.key`` in the state directory, made at the first start): the
start line and ``server.json`` name its key id and public key, which the public page offers as
``referee.pub`` (``arena replay LOG --key referee.pub``).

Restarted after a crash or ``kill -9``, the server loses nothing recorded: it is in the phase it
was in (or a later one whose time came meanwhile: ``Season``), the ladder resumes
(matches in flight are replayed with their deals) with its entrants read from the database
(``SubmissionBook.entries``), the pipeline's ``recover`` cancels uploads
that were half-way (their files removed) and takes up submissions that were uploaded but not
yet entered again, and quotas are counted from the database.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import queue
import re
import signal
import threading
import time
from collections.abc import Callable, Sequence
from concurrent import futures
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc

from arena.bots.home import HOME_ENV
from arena.bots.names import check_name, name_key
from arena.errors import ArenaError, ConfigError
from arena.gate import require_gated
from arena.host import views
from arena.host.accounts import Accounts
from arena.host.audit import (
    DISQUALIFY,
    RERUN,
    RERUNS,
    SCRIMMAGES,
    AuditLog,
    Entry,
    Moderation,
    entrant_name,
    extra_ladder,
)
from arena.host.config import HANDLER_THREADS, Competition, ladder_config, ladder_file
from arena.host.errors import QuotaRefusal
from arena.host.extras import Extra, ExtraMatches, ExtraSource, Seat, wrap_with
from arena.host.final import Final
from arena.host.metrics import Metrics
from arena.host.names import name_refusal
from arena.host.pipeline import Pipeline
from arena.host.results import LadderResults, bot_name
from arena.host.scrimmages import Scrimmage, ScrimmageBook
from arena.host.season import (
    LADDER_STOPS,
    PHASES,
    Phase,
    Season,
    SeasonRefusal,
    Transition,
)
from arena.host.service import CompetitionService
from arena.host.site import refresh_competition_site
from arena.host.submissions import StageEvent, SubmissionBook
from arena.ladder.config import LadderConfig
from arena.ladder.entrants import Entered, EntryFeed, Withdrawn
from arena.ladder.runner import (
    LadderEvent,
    LadderEventKind,
    ladder_secret,
    run_ladder,
    signing_of,
)
from arena.ladder.schedules.schedule import encounter_seed, slug
from arena.ladder.schedules.sources import write_private
from arena.ladder.store import LadderStore, StoredMatch
from arena.model import Termination
from arena.site.refresh import write_public
from arena.v1 import competition_pb2 as pb
from arena.v1 import competition_pb2_grpc as pb_grpc

log = logging.getLogger("arena.host")

MAX_MESSAGE = 2 * 1024 * 1024
"""The largest message a client may send (an upload chunk is at most 1 MiB)."""
OWNERS_TTL_S = 2.0
"""How long the standings' owner column may lag an `arena contestants assign`."""
RESULTS_POLL_S = 1.0
"""How often the results thread looks for new results."""
FINAL_POLL_S = 1.0
"""How often the final thread looks for a final begun."""
SEASON_POLL_S = 0.25
"""How often the season thread looks at the clock and the database for a new phase."""
PUBLIC_KEY_FILE = "referee.pub"
"""The referee's public key on the public page (a convenience: a verifier should get the key
from the operator)."""
SERVER_FILE = "server.json"
"""In the state directory while the server runs: its ports and process id (JSON)."""
_VALIDATION = re.compile(r"s([0-9]{1,12})-(self|reference)")


@dataclass(frozen=True)
class Found:
    """A match a caller asked about, and what they may see of it."""

    path: Path
    """Its log (growing while it runs)."""
    running: bool
    own_seats: frozenset[int]
    sight: views.Sight


NOWHERE = Found(Path(), False, frozenset(), views.Sight(frozenset(), False))
"""What ``locate`` finds of a match that does not exist: one its caller may see nothing of."""


class CompetitionServer:
    """One competition's server (module doc)."""

    def __init__(self, competition: Competition) -> None:
        """Open what the server keeps; ``ConfigError`` first of all for a hosted game that
        fails the conformance gate (``require_gated``, unless ``allow_ungated_games``)."""
        for settings in competition.games:
            require_gated(settings.game, allow=competition.allow_ungated_games,
                          override="[competition] allow_ungated_games = true")
        self.competition = competition
        self.metrics = Metrics()
        self.accounts = Accounts.open(competition.database)
        self.store = LadderStore(competition.database)
        self.book = SubmissionBook(self.store.engine)
        self.signing = signing_of(competition.signing_key, competition.state_dir)
        """The key every ladder signs its logs with (a bad one: ``ConfigError`` here)."""
        self.configs: dict[str, LadderConfig] = {
            g.game: ladder_config(competition, g.game) for g in competition.games}
        self.entries: dict[str, EntryFeed] = {}
        """Each game's ladder entrants (``start``), fed as the pipeline enters submissions."""
        self.audit = AuditLog(self.store.engine)
        self.moderation = Moderation()
        """What the audit log says (``_apply_audit``, every ``RESULTS_POLL_S``)."""
        self._audit_seq = 0
        self.reruns = {game: LadderResults(game, config, self.store, kind="rerun",
                                           ladder=extra_ladder(config.name, RERUNS))
                       for game, config in self.configs.items()}
        """Each game's reruns of void matches (``arena host rerun``)."""
        self.scrimmage_results = {
            game: LadderResults(game, config, self.store, kind="scrimmage",
                                ladder=extra_ladder(config.name, SCRIMMAGES))
            for game, config in self.configs.items()}
        """Each game's scrimmages (``arena challenge``): never fitted."""
        self.results = {game: LadderResults(game, config, self.store,
                                            reruns=self.reruns[game])
                        for game, config in self.configs.items()}
        self.scrimmages = ScrimmageBook(self.store.engine)
        self.extras = {game: ExtraMatches(self._dropped) for game in self.configs}
        """Each game's reruns and scrimmages waiting for the ladder's players."""
        self.sources: dict[str, ExtraSource] = {}
        """Each game's running ladder source (the lineup the extras are played from)."""
        self.pipeline = Pipeline(competition, self.accounts, self.book)
        self.finals = {game: Final(competition, game, self.store, self.signing)
                       for game in self.configs}
        """Each game's final tournament (begun by `arena final` or the season)."""
        self._finals_linked: set[str] = set()
        self._final_runs: list[tuple[asyncio.AbstractEventLoop, asyncio.Event]] = []
        """The final's run in progress (stopped when the season closes)."""
        self.season = Season(self.store.engine, competition.season, competition.selections)
        self.phase = Phase.OPEN
        """The phase the server acts in (``_enter_phase``); ``season.phase()`` is the truth."""
        self.phase_listeners: list[Callable[[Transition], None]] = []
        """Called with each phase the server enters (a ``Transition``, every phase passed, in
        order), after its own acts, in the season thread; at the start, with the phase it
        starts in (how: "start"). Add to it before ``start``."""
        self._phase_lock = threading.Lock()
        self.phase_listeners.append(self._final_phase)  # the finals: begun, stopped
        self.port = 0
        self.metrics_port = 0
        self._grpc: grpc.Server | None = None
        self.service: CompetitionService | None = None
        self._stop = threading.Event()
        self._queue: queue.Queue[tuple[int, Path] | None] = queue.Queue()
        self._threads: list[threading.Thread] = []
        self._ladder_stops: list[tuple[asyncio.AbstractEventLoop, asyncio.Event]] = []
        self._continuous: list[tuple[asyncio.AbstractEventLoop, asyncio.Event]] = []
        """The continuous ladders' runs (the season's final stops them)."""
        self._site_written = 0.0
        self._site_due = True
        self._owners: tuple[float, dict[str, str]] = (-OWNERS_TTL_S, {})

    # --- life --------------------------------------------------------------------------------
    def start(self) -> None:
        """Start every part (module doc); returns once the API listens."""
        c = self.competition
        os.environ[HOME_ENV] = str(c.home)  # the catalogue: the pipeline writes, ladders read
        for path in (c.state_dir, c.home, c.uploads, c.logs_dir):
            path.mkdir(parents=True, exist_ok=True, mode=0o700)
        self._apply_audit()  # before the ladders: a disqualified bot never enters again
        for results in self._all_results():
            results.refresh()
        self.season.advance()
        self.phase = self.season.phase()
        for game in self.configs:
            self.entries[game] = EntryFeed(self.entrants(game))
            self._queue_reruns(game)
            self._export(game)
        self._scrimmages_played(queue=True)
        for sid in self.pipeline.recover():
            self._queue.put((sid, self.pipeline.payload(sid)))
        server = grpc.server(
            futures.ThreadPoolExecutor(max_workers=HANDLER_THREADS,
                                       thread_name_prefix="api"),
            maximum_concurrent_rpcs=HANDLER_THREADS,
            options=[("grpc.max_receive_message_length", MAX_MESSAGE),
                     ("grpc.max_send_message_length", 4 * 1024 * 1024)])
        self.service = CompetitionService(self)
        pb_grpc.add_CompetitionServiceServicer_to_server(self.service, server)
        credentials = grpc.ssl_server_credentials(
            [(c.tls_key.read_bytes(), c.tls_cert.read_bytes())])
        self.port = server.add_secure_port(c.listen, credentials)
        if self.port == 0:
            raise ConfigError(f"[server] listen: cannot listen on {c.listen}")
        server.start()
        self._grpc = server
        if c.metrics:
            self.metrics_port = self.metrics.serve(c.metrics)
        self._spawn("pipeline", self._pipeline_loop)
        self._spawn("results", self._results_loop)
        self._spawn("season", self._season_loop)
        if self.phase not in LADDER_STOPS:
            for game in self.configs:
                self._spawn(f"ladder-{game}", self._ladder_loop, game)
        self._spawn("final", self._final_loop)
        public = self.signing.public_key
        started = {"competition": c.name, "port": self.port, "metrics_port": self.metrics_port,
                   "pid": os.getpid(), "phase": self.phase.value, "key_id": self.signing.key_id,
                   "public_key": None if public is None else str(public)}
        write_private(c.state_dir / SERVER_FILE, json.dumps(started) + "\n")
        log.info(json.dumps({"event": "started", **started}))

    def entrants(self, game: str) -> list[Entered]:
        """The game's ladder entrants as the database has them in the server's phase: the
        house bots, then, while open, every entered submission's latest version (pinned:
        ``name@s<id>``), once frozen the selected versions (each its own entrant,
        ``name@s<id>``); none in final and closed (the ladder does not run); none of a
        disqualified contestant's."""
        settings = self.competition.game(game)
        house = [Entered(str(d)) for d in settings.house_dirs]
        if self.phase is Phase.OPEN:
            out = [*house, *(Entered(name, f"{name}@{version}")
                             for name, version in self.book.entries(game))]
        elif self.phase is Phase.FROZEN:
            out = [*house, *(Entered(s.ref, s.ref) for s in self.season.selected(game))]
        else:
            return []
        return [e for e in out if self.moderation.out([entrant_name(e.ref)]) is None]

    def sync_entries(self, game: str) -> None:
        """Bring the game's running ladder to ``entrants``: ``Withdrawn`` for each entrant it
        should no longer have (first), then ``Entered`` for each new or changed one."""
        feed = self.entries.get(game)
        if feed is None:
            return
        wanted = {e.ref: e.pinned or e.ref for e in self.entrants(game)}
        for ref in feed.refs():
            if ref not in wanted:
                feed.send(Withdrawn(ref))
        have = set(feed.refs())
        for ref, pinned in wanted.items():
            if ref not in have or feed.pinned(ref) != pinned:
                feed.send(Entered(ref, pinned))

    # --- the season --------------------------------------------------------------------------
    def _season_loop(self) -> None:
        for listener in self.phase_listeners:  # the phase the server starts in
            self._tell(listener, Transition(self.phase, time.time(), "start"))
        while not self._stop.wait(SEASON_POLL_S):
            try:
                self.season.advance()
                phase = self.season.phase()
                if phase.rank > self.phase.rank:
                    self._enter_phase(phase)
            except (ArenaError, OSError) as exc:
                log.error(json.dumps({"event": "season_error", "error": str(exc)}))
            except Exception as exc:  # the database away: say so, look again
                log.error(json.dumps({"event": "season_error", "error": repr(exc)}))

    def _enter_phase(self, phase: Phase) -> None:
        """Act on the season reaching ``phase`` (module doc), then tell the listeners."""
        with self._phase_lock:
            before, self.phase = self.phase, phase
        recorded = {t.phase: t for t in self.season.transitions()}
        passed = [recorded.get(p) or Transition(p, time.time(), "")
                  for p in PHASES[before.rank + 1:phase.rank + 1]]
        entered = passed[-1]
        log.info(json.dumps({"event": "phase", "phase": phase.value, "was": before.value,
                             "at": entered.at, "how": entered.how}))
        if phase in LADDER_STOPS:
            for loop, event in list(self._continuous):  # the ladders, not a final
                with contextlib.suppress(RuntimeError):  # that run has ended
                    loop.call_soon_threadsafe(event.set)
        else:
            for game in self.configs:
                self.sync_entries(game)
        for transition in passed:  # each phase passed, in order (open to final: two)
            for listener in self.phase_listeners:
                self._tell(listener, transition)

    @staticmethod
    def _tell(listener: Callable[[Transition], None], transition: Transition) -> None:
        try:
            listener(transition)
        except Exception:  # a listener's failure is its own
            log.exception("a phase listener failed on %s", transition.phase.value)

    def _export(self, game: str) -> None:
        """Write the game's ladder file for people (``ladder_file``); one warning line when it
        cannot be written: the ladder does not need it."""
        try:
            ladder_file(self.competition, game)
        except OSError as exc:
            log.warning(json.dumps({"event": "ladder_file_not_written", "game": game,
                                    "error": str(exc)}))

    def _spawn(self, name: str, target: Any, *args: Any) -> None:
        thread = threading.Thread(target=target, args=args, name=name, daemon=True)
        thread.start()
        self._threads.append(thread)

    def stop(self, grace: float = 5.0) -> None:
        """Stop accepting calls, stop the ladders (matches in flight are dropped: replayed at
        the next start) and the pipeline (a submission half-way is taken up again)."""
        self._stop.set()
        if self._grpc is not None:
            self._grpc.stop(grace)
        for loop, event in self._ladder_stops:
            loop.call_soon_threadsafe(event.set)
        self._queue.put(None)
        for thread in self._threads:
            thread.join(timeout=60)
        if self.service is not None:
            self.service.feeds.close()
            self.service.streams.close()
        self.metrics.close()

    def wait(self) -> None:
        """Block until ``stop``."""
        self._stop.wait()

    # --- ladders -----------------------------------------------------------------------------
    def _ladder_loop(self, game: str) -> None:
        config = self.configs[game]
        results = self.results[game]
        by_ladder = {config.name: results, self.reruns[game].ladder: self.reruns[game],
                     self.scrimmage_results[game].ladder: self.scrimmage_results[game]}
        kinds = {self.reruns[game].ladder: "rerun",
                 self.scrimmage_results[game].ladder: "scrimmage"}

        def on_event(event: LadderEvent) -> None:
            match = event.match
            if match is not None:
                kept = by_ladder.get(match.ladder or config.name, results)
                if event.kind is LadderEventKind.MATCH_STARTED:
                    flight = next((f for f in event.progress.in_flight
                                   if f.match_id == match.match_id), None)
                    if flight is not None:
                        kept.started(flight.match_id, flight.bots)
                elif event.kind is LadderEventKind.MATCH_FINISHED:
                    kept.finished(match.match_id, recorded=event.applied)
                    if event.result is not None:
                        outcome = kinds.get(match.ladder) or (
                            "void" if event.result.void else "rated")
                        self.metrics.matches.labels(game, outcome).inc()
                        if event.result.termination is Termination.TIMEOUT:
                            self.metrics.time_losses.labels(game).inc()
            self.metrics.in_flight.labels(game).set(
                sum(r.in_flight() for r in by_ladder.values()))

        def opened(source: ExtraSource) -> None:
            self.sources[game] = source

        async def main() -> None:
            stop = asyncio.Event()
            entry = (asyncio.get_running_loop(), stop)
            self._ladder_stops.append(entry)
            self._continuous.append(entry)
            try:
                if self._stop.is_set() or self.phase in LADDER_STOPS:
                    return
                await run_ladder(config, sandbox=self.competition.sandbox, on_event=on_event,
                                 stop=stop, store=self.store, signing=self.signing,
                                 entries=self.entries[game],
                                 wrap=wrap_with(self.extras[game],
                                                self.competition.scrimmages.share, opened))
            finally:  # its loop closes: nothing to stop (`stop` would find it closed)
                self._ladder_stops.remove(entry)
                self._continuous.remove(entry)
                source = self.sources.pop(game, None)
                if source is not None:
                    source.close()

        while not self._stop.is_set() and self.phase not in LADDER_STOPS:
            try:
                asyncio.run(main())
            except ArenaError as exc:  # e.g. the cluster could not start: say so, try again
                log.error(json.dumps({"event": "ladder_error", "game": game,
                                      "error": str(exc)}))
                self._stop.wait(10.0)
        if self.phase in LADDER_STOPS:  # for good: what was in flight is never recorded
            for kept in by_ladder.values():  # its scrimmages and reruns too
                kept.dropped()
            self.metrics.in_flight.labels(game).set(0)
            log.info(json.dumps({"event": "ladder_stopped", "game": game,
                                 "phase": self.phase.value}))

    # --- finals ------------------------------------------------------------------------------
    def _final_loop(self) -> None:
        """Play and publish each game's final once it has begun (module doc)."""
        while not self._stop.wait(FINAL_POLL_S):
            for game, final in self.finals.items():
                if self._stop.is_set():
                    return
                try:
                    self._final_step(game, final)
                except ArenaError as exc:
                    log.error(json.dumps({"event": "final_error", "game": game,
                                          "error": str(exc)}))
                    self._stop.wait(10.0)

    def _final_phase(self, transition: Transition) -> None:
        """The season's phases for the finals: entering ``final`` (or starting in it) begins
        each game's final among the selected versions (``begin_final``); entering ``closed``
        stops a final still playing (the final thread then publishes what it played)."""
        if transition.phase is Phase.FINAL:
            for game, final in self.finals.items():
                if final.state() is None:
                    self.begin_final(game)
        elif transition.phase is Phase.CLOSED:
            for loop, event in list(self._final_runs):
                with contextlib.suppress(RuntimeError):  # that run has ended
                    loop.call_soon_threadsafe(event.set)

    def final_entrants(self, game: str) -> list[str]:
        """Who plays the season's final of ``game``: each contestant's selected versions
        (``arena.host.season``; ``name@s<id>``), after the house bots when ``[final] house``;
        none of a disqualified contestant (``arena.host.audit``: one would stop the final from
        beginning)."""
        house = [str(d) for d in self.competition.game(game).house_dirs] \
            if self.competition.final.house else []
        refs = [*house, *(s.ref for s in self.season.selected(game))]
        return [ref for ref in refs if self.moderation.out([entrant_name(ref)]) is None]

    def begin_final(self, game: str) -> None:
        """Begin the game's final (``Final.begin``) among ``final_entrants``, the ladder's
        ratings choosing ``[final] top``; one error line when it cannot (fewer than two
        entrants: no final)."""
        standings = self.results[game].snapshot.standings  # the results thread's last fit
        ratings = {} if standings is None else {r.name: r.rating
                                                 for r in standings.fit.ratings}
        try:
            state = self.finals[game].begin(self.final_entrants(game), ratings)
        except ArenaError as exc:
            log.error(json.dumps({"event": "final_not_begun", "game": game,
                                  "error": str(exc)}))
            return
        log.info(json.dumps({"event": "final_begun", "game": game,
                             "entrants": [e.key for e in state.entrants],
                             "commitment": state.commitment}))

    def _closed(self) -> bool:
        """Whether the season has closed (nothing plays)."""
        return self.phase is Phase.CLOSED

    def _final_step(self, game: str, final: Final) -> None:
        """Play what the game's final has not recorded yet, then publish it (once): at once
        when it is complete, in a season's ``final`` phase only once it closes (``closed``
        publishes, what was played, complete or not; nothing plays then)."""
        state = final.state()
        if state is None or final.published():
            return
        final.publish_commitment(state)
        if game not in self._finals_linked:  # the front page links the commitment
            self._finals_linked.add(game)
            self._site_due = True
        if final.remaining(state) and not self._closed():
            log.info(json.dumps({"event": "final_playing", "game": game,
                                 "remaining": final.remaining(state),
                                 "commitment": state.commitment}))

            async def main() -> None:
                stop = asyncio.Event()
                entry = (asyncio.get_running_loop(), stop)
                self._ladder_stops.append(entry)
                self._final_runs.append(entry)
                try:
                    if not self._stop.is_set() and not self._closed():
                        await final.play(stop=stop)
                finally:
                    self._ladder_stops.remove(entry)  # its loop closes: nothing to stop
                    self._final_runs.remove(entry)

            asyncio.run(main())
            if self._stop.is_set() or (final.remaining(state) and not self._closed()):
                return
        if self.phase is Phase.FINAL:
            return  # played: published when the season closes
        publication = final.publish()
        log.info(json.dumps({"event": "final_published", "game": game,
                             "directory": str(publication.directory),
                             "matches": publication.matches}))
        self._site_due = True
        self._site_written = 0.0

    # --- moderation --------------------------------------------------------------------------
    def _all_results(self) -> list[LadderResults]:
        """Every game's results: reruns first (a ladder's fit reads its reruns')."""
        return [*self.reruns.values(), *self.scrimmage_results.values(),
                *self.results.values()]

    def _apply_audit(self) -> None:
        """Apply the audit log's new entries (``arena.host.audit``): at the start, the whole
        log; then what an operator's command appended since the last look."""
        new = self.audit.entries(self._audit_seq)
        if not new:
            return
        self.moderation = self.audit.moderation()
        for entry in new:
            self._audit_seq = entry.seq
            self.metrics.moderation.labels(entry.action).inc()
            if entry.action == DISQUALIFY:
                self._withdraw(entry)
            elif entry.action == RERUN:
                for game in self.configs:
                    self._queue_reruns(game)
            log.info(json.dumps({"event": "moderation", **entry.public()}))
        for results in self.results.values():
            results.moderate(self.moderation)
        self._site_due = True

    def _withdraw(self, entry: Entry) -> None:
        """A disqualified contestant's bots leave every running ladder (``Withdrawn``) and
        every final begun (``Final.withdraw``: its matches not played yet never are; applied
        again at each start, a final takes each withdrawal once)."""
        for feed in self.entries.values():
            for ref in feed.refs():
                if self.moderation.out([entrant_name(ref)]) == entry.subject:
                    feed.send(Withdrawn(ref))
        for game, final in self.finals.items():
            try:
                state = final.state()
                keys = {} if state is None else {
                    e.key: f"disqualified: {entry.why}" for e in state.entrants
                    if self.moderation.out([e.name]) == entry.subject}
                if keys:
                    final.withdraw(keys)
            except ArenaError as exc:  # a final's state the server cannot read: said
                log.error(json.dumps({"event": "final_error", "game": game,
                                      "error": str(exc)}))

    def _queue_reruns(self, game: str) -> None:
        """Every rerun of the game's ladder the audit log asks for and the store does not
        hold yet, queued for its players (at the start: those a kill -9 left unplayed)."""
        if game not in self.entries:  # before the start: ``start`` queues them
            return
        ladder = self.configs[game].name
        recorded = self.store.recorded_ids(extra_ladder(ladder, RERUNS))
        for original, reruns in self.moderation.reruns.items():
            match = self.results[game].find(original)
            if match is None or not reruns or reruns[-1] in recorded:
                continue
            seats = tuple(Seat(match.bots[s].split("@", 1)[0], match.versions[s],
                               match.identities[s]) for s in (0, 1))
            self.extras[game].add(Extra(
                reruns[-1], match.encounter_id, match.cycle, match.leg, match.seed,
                (seats[0], seats[1]), extra_ladder(ladder, RERUNS), "rerun"))

    # --- results -----------------------------------------------------------------------------
    def _results_loop(self) -> None:
        for results in self.results.values():  # a first rated match recorded before a crash
            self._mark_rated(results, results.snapshot.matches)
        while not self._stop.wait(RESULTS_POLL_S):
            try:
                self._apply_audit()
                for game, reruns in self.reruns.items():
                    if reruns.refresh():
                        self.results[game].stale()
                if sum([r.refresh() for r in self.scrimmage_results.values()]):
                    self._scrimmages_played()
                for results in self.results.values():
                    new = results.refresh()
                    if new:
                        self._mark_rated(results, results.snapshot.matches[-new:])
                        self._site_due = True
                self._refresh_site()
            except (ArenaError, OSError) as exc:
                log.error(json.dumps({"event": "results_error", "error": str(exc)}))

    def _mark_rated(self, results: LadderResults, matches: Sequence[StoredMatch]) -> None:
        """Each entered submission of the game that played a rated match among ``matches``
        reaches RATED with its first two."""
        waiting = [row for row in self.book.unfinished()
                   if row.stage == "ENTERED" and row.game == results.game]
        for row in waiting:
            played = [m.match_id for m in matches if not m.void and any(
                bot_name(b).lower() == row.name.lower() and v == row.version
                for b, v in zip(m.bots, m.versions, strict=True))]
            if played:
                event = self.book.advance(row.id, "RATED", f"first rated match {played[0]}",
                                          match_ids=played[:2])
                self.ended(event)

    def _refresh_site(self) -> None:
        c = self.competition
        if not self._site_due or time.monotonic() - self._site_written < c.site_refresh_s:
            return
        refresh_competition_site(c, self.configs, self.store, self._site_views(),
                                 self.audit.published())
        key = c.site_dir / PUBLIC_KEY_FILE
        pem = self.signing.signer.public.pem()
        if not key.is_file() or key.read_bytes() != pem:
            write_public(key, pem)
        self._site_written = time.monotonic()
        self._site_due = False

    # --- scrimmages -------------------------------------------------------------------------
    def challenge(self, caller: str, game: str, bot: str, rival: str
                  ) -> tuple[Scrimmage, list[str], int]:
        """Record and queue a scrimmage (``arena.host.scrimmages``): returns it, its match ids
        and how many more the caller may ask for this hour. ``ConfigError`` (one line) for
        one that may not be played, ``QuotaExceeded`` over the quota."""
        c = self.competition
        quota = c.scrimmages
        if quota.per_hour == 0:
            raise ConfigError("this competition has no scrimmages ([scrimmages] per_hour = 0)")
        refusal = self.disqualified(caller)
        if refusal is not None:
            raise ConfigError(refusal)
        if game:
            game = c.game(game).game
        elif len(c.games) == 1:
            game = c.games[0].game
        else:
            raise ConfigError("this competition hosts several games: say which (--game)")
        name, _, version = bot.partition("@")
        name = check_name("your bot", name, "challenge")
        mine = {name_key(b): b for b in self.accounts.bots_of(caller)}
        if name_key(name) not in mine:
            owned = ", ".join(mine.values()) or "none yet"
            raise ConfigError(f"{name} is not one of your bots (yours: {owned})")
        rival = check_name("the rival", rival, "challenge")
        if name_key(rival) == name_key(name):
            raise ConfigError("a bot does not challenge itself: name another bot of the ladder "
                              "(`arena standings --server ...` lists them)")
        feed = self.entries.get(game)
        players = {name_key(entrant_name(ref)): entrant_name(ref)
                   for ref in (feed.refs() if feed is not None else ())}
        if name_key(rival) not in players or self.moderation.out([rival]) is not None:
            raise ConfigError(f"no bot {rival} plays in the {game} ladder now (`arena standings "
                              "--server ...` lists those that do)")
        if self.phase in LADDER_STOPS:
            raise ConfigError(f"the {game} ladder has stopped (the season is in its "
                              f"{self.phase.value} phase): no scrimmage is played now")
        source = self.sources.get(game)
        if source is None:
            raise ConfigError(f"the {game} ladder is starting: try again in a minute")
        versions = source.versions(name)
        if version and version not in versions:
            played = ", ".join(versions) or "none"
            raise ConfigError(f"{name}@{version} has not played in the {game} ladder (its "
                              f"versions there: {played})")
        if not version and name_key(name) not in players:
            raise ConfigError(f"{name} does not play in the {game} ladder now: name one of "
                              f"its versions ({name}@VERSION)")
        scrimmage, left = self.scrimmages.open(caller, game, mine[name_key(name)], version,
                                               players[name_key(rival)], quota)
        return scrimmage, self._queue_scrimmage(scrimmage), left

    def _queue_scrimmage(self, scrimmage: Scrimmage, skip: frozenset[str] = frozenset()
                         ) -> list[str]:
        """Queue a scrimmage's two matches for its ladder's players (but those in ``skip``:
        recorded already); returns their ids."""
        config = self.configs[scrimmage.game]
        ladder = extra_ladder(config.name, SCRIMMAGES)
        encounter = scrimmage.encounter(slug(config.name))
        seed = encounter_seed(ladder, config.seed, 0, encounter, ladder_secret(config))
        own, rival = Seat(scrimmage.bot, scrimmage.version), Seat(scrimmage.rival)
        ids = [f"{encounter}-l0", f"{encounter}-l1"]
        for leg, seats in enumerate(((own, rival), (rival, own))):
            if ids[leg] not in skip:
                self.extras[scrimmage.game].add(Extra(ids[leg], encounter, 0, leg, seed, seats,
                                                      ladder, "scrimmage", scrimmage.id))
        return ids

    def _scrimmages_played(self, queue: bool = False) -> None:
        """End the waiting scrimmages whose two matches are recorded; with ``queue`` (at the
        start), queue the matches of the others that are not."""
        waiting = self.scrimmages.waiting()
        if not waiting:
            return
        recorded = {game: self.store.recorded_ids(r.ladder)
                    for game, r in self.scrimmage_results.items()}
        for scrimmage in waiting:
            if scrimmage.game not in self.configs:
                self.scrimmages.end(scrimmage.id, "its game is no longer hosted")
                continue
            slug_ = slug(self.configs[scrimmage.game].name)
            encounter = scrimmage.encounter(slug_)
            ids = {f"{encounter}-l0", f"{encounter}-l1"}
            done = ids & recorded[scrimmage.game]
            if done == ids:
                self.scrimmages.end(scrimmage.id, "played")
            elif queue:
                self._queue_scrimmage(scrimmage, frozenset(done))

    def _dropped(self, extra: Extra, why: str) -> None:
        """An extra match could not be played: its scrimmage ends, saying why."""
        if extra.kind == "scrimmage":
            self.scrimmages.end(extra.ref, f"dropped: {why}")

    def _site_views(self) -> dict[str, Any]:
        """Each game's matches as its public page shows them (moderated: ``site``)."""
        moderation = self.moderation

        def view(game: str) -> Any:
            reruns = {m.match_id: m for m in self.reruns[game].snapshot.matches}
            return lambda matches: moderation.standing(matches, reruns, drop=False)

        return {game: view(game) for game in self.configs}

    # --- submissions -------------------------------------------------------------------------
    def admit(self, caller: str, start: pb.SubmitStart) -> tuple[str, str, int]:
        """Check a submission's start (before any byte): its game, kind and name (not the
        house's nor another contestant's; it is claimed only when a submission under it is
        entered, ``Pipeline``) and the announced size. Returns (game, name, byte limit); raises
        ``ConfigError`` (a refused name or game) or ``QuotaRefusal``. The quotas are checked as
        the submission is recorded (``SubmissionBook.open``)."""
        c = self.competition
        refusal = self.season.submission_refusal()
        if refusal is not None:
            raise SeasonRefusal(refusal)
        if start.kind not in ("directory", "image"):
            raise ConfigError("kind: 'directory' or 'image'")
        if start.game:
            game = c.game(start.game).game
        elif len(c.games) == 1:
            game = c.games[0].game
        else:
            raise ConfigError("this competition hosts several games: say which (--game)")
        if not start.name:
            raise ConfigError("the bot's name is missing (bot.toml's name, or --name)")
        name = check_name("the bot's name", start.name, "submit")
        refusal = self.disqualified(caller)
        if refusal is not None:
            raise ConfigError(refusal)
        taken = name_refusal(self.accounts, self.pipeline.house_names(game), name, caller)
        if taken is not None:
            raise ConfigError(taken)
        q = c.quotas
        limit = q.max_upload_bytes if start.kind == "directory" else q.max_image_upload_bytes
        if start.size > limit:
            raise QuotaRefusal(f"the upload is {start.size} bytes; the quota is {limit} bytes "
                               "per submission")
        return game, name, limit

    def uploaded(self, sid: int) -> None:
        """An upload is complete: into the pipeline."""
        self.metrics.upload_bytes.inc(self.pipeline.payload(sid).stat().st_size)
        self._queue.put((sid, self.pipeline.payload(sid)))

    def ended(self, event: StageEvent) -> None:
        """A submission reached ``event``'s stage outside the pipeline thread (its upload was
        cut or broken off): counted and logged."""
        self.metrics.submissions.labels(event.stage.lower()).inc()
        log.info(json.dumps({"event": "submission_" + event.stage.lower(),
                             "id": event.submission_id, "message": event.message[:500]}))

    def _pipeline_loop(self) -> None:
        while True:
            item = self._queue.get()
            if item is None or self._stop.is_set():
                return
            sid, path = item
            try:
                event = self.pipeline.process(sid, path)
            except Exception as exc:  # the pipeline's own failure: the server's fault
                log.exception("submission %s failed", sid)
                event = self.book.advance(sid, "FAILED", f"the server failed: {exc}")
            if event.stage == "ENTERED":
                self.enter(sid)
            self.ended(event)

    def enter(self, sid: int) -> None:
        """An entered submission joins its game's ladder (an ``Entered`` event: the ladder
        takes it at once)."""
        row = self.book.get(sid)
        if row is None or row.game not in self.entries:
            return
        if self.moderation.out([row.name]) is not None:
            return  # disqualified meanwhile: it stays out
        if self.phase is Phase.OPEN:
            self.entries[row.game].send(Entered(row.name, f"{row.name}@{row.version}"))
        else:  # sent before the deadline, entered after it: a selection by default may change
            self.sync_entries(row.game)

    def disqualified(self, contestant: str) -> str | None:
        """Why ``contestant`` may not submit nor challenge (disqualified), else None."""
        entry = self.moderation.disqualified.get(name_key(contestant))
        if entry is None:
            return None
        return f"you are disqualified from this competition: {entry.why}"

    # --- lookups -----------------------------------------------------------------------------
    def owners(self) -> dict[str, str]:
        """Bot name (lower case) → its owner: read at most every ``OWNERS_TTL_S`` seconds (a
        standings call names the owner of every row)."""
        cached = self._owners
        if time.monotonic() - cached[0] > OWNERS_TTL_S:
            owners = {bot.lower(): c.name for c in self.accounts.list() for bot in c.bots}
            cached = self._owners = (time.monotonic(), owners)
        return cached[1]

    def locate(self, match_id: str, caller: str) -> Found:
        """A match by id (ladder or validation) and what ``caller`` may see of it. Every id
        costs the same two reads (the caller's bot names; the submission a validation id would
        name, none for another id) before anything depends on it, and a match that does not
        exist is found as one the caller may see nothing of: an unknown id and a forbidden one
        take one path, in the same time."""
        setting = self.competition.logs
        mine = {name_key(bot) for bot in self.accounts.bots_of(caller)}
        validation = _VALIDATION.fullmatch(match_id)
        row = self.book.get(int(validation.group(1)) if validation else 0)  # ids start at 1

        def own(names: Sequence[str]) -> frozenset[int]:
            return frozenset(seat for seat, name in enumerate(names) if name_key(name) in mine)

        for results in self._all_results():
            match = results.find(match_id)
            if match is not None and match.log_path:
                seats = own([bot_name(b) for b in match.bots])
                return Found(Path(match.log_path), False, seats,
                             views.sight(setting, seats, False))
            running = results.running(match_id)
            if running is not None:
                seats = own(running.names)
                path = results.config.match_log_dir / f"{match_id}.jsonl"
                return Found(path, True, seats, views.sight(setting, seats, True))
        path = self.competition.logs_dir / "validation" / f"{match_id}.jsonl"
        if validation is None or row is None or row.contestant != caller or not path.is_file():
            return NOWHERE
        names, ended = _log_state(path)
        seats = frozenset(s for s, n in enumerate(names) if n.lower() == row.name.lower())
        return Found(path, not ended, seats, views.sight(setting, seats, not ended))


def _log_state(path: Path) -> tuple[list[str], bool]:
    """A log's seat names (from its header) and whether it has its match end."""
    with path.open("rb") as handle:
        first = handle.readline()
        handle.seek(0, os.SEEK_END)
        size = handle.tell()
        handle.seek(max(0, size - 64 * 1024))
        tail = handle.read()
    try:
        names = [b.get("name", "") for b in json.loads(first).get("bots", [])]
    except (ValueError, AttributeError):
        names = []
    return names, b'"type":"match_end"' in tail or b'"type": "match_end"' in tail


def serve(competition: Competition) -> None:
    """Run the competition until SIGINT or SIGTERM."""
    server = CompetitionServer(competition)
    server.start()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: server._stop.set())
    try:
        server.wait()
    finally:
        server.stop()
