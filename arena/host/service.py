"""The public API of a competition (``CompetitionService``, proto/arena/v1/competition.proto).

Every method is wrapped by ``api_call``: the caller's token is checked first (``Auth``: a
missing, malformed, wrong or revoked token is UNAUTHENTICATED and nothing else), and the call is
counted by method and status. A test calls every method of the service without a token, so no
method can be added without the check.

The brake on refused tokens holds back only refused tokens: a valid token is checked first and
always served, so nobody sharing an address (a NAT, a proxy, a host) with someone failing can
shut them out. Once an address, or a token's contestant id (``arena.host.accounts.token_id``:
guesses at one contestant's secret from many addresses), has had ``ARENA_MAX_FAILED_TOKENS``
refused tokens in a minute, its further refused tokens are answered RESOURCE_EXHAUSTED with the
seconds to wait, at once: a brake that slept would hold a handler thread per attempt.

Every stream (an upload, a follow, a watch, a log download) holds a handler thread while it is
open, so ``Streams`` bounds them (the competition's ``[server]`` settings, ``StreamLimits``):
``max_streams`` on the whole server, below the handler threads so unary calls always find one;
``streams_per_contestant``; a stream waiting ``stream_idle_s`` on its client (an upload's next
chunk, a message the client does not take) is closed, any stream after ``stream_max_s``; and a
stream whose token has been revoked or replaced is closed within ``TOKEN_RECHECK_S``.

What a caller may see of a match is ``arena.host.views.sight`` (the competition's ``logs``
setting, the seats their bots played, whether it runs). A match that does not exist and one the
caller may not see get the same answer (PERMISSION_DENIED, "no match ... you may see") by the
same path and the same reads (``CompetitionServer.locate``), so ids cannot be probed by the
answer nor by its time; the same for submissions. Another contestant's bot output (the output
tails, a crash's last line in a result's detail) is never sent to anyone but its owner.
"""

from __future__ import annotations

import collections
import contextlib
import dataclasses
import functools
import inspect
import json
import logging
import os
import threading
import time
from collections.abc import Callable, Generator, Iterator
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar

import grpc

from arena.errors import ConfigError
from arena.host import views
from arena.host.accounts import token_id
from arena.host.audit import Moderation
from arena.host.config import StreamLimits
from arena.host.errors import FeedsFull, QuotaExceeded, QuotaRefusal, Revoked
from arena.host.feeds import LOWEST_NICE, Feeds, Pacer
from arena.host.metrics import Metrics
from arena.host.results import LadderResults, bot_name
from arena.ladder.store import StoredMatch
from arena.model import plain_text
from arena.record.log import seat_log_path
from arena.v1 import competition_pb2 as pb
from arena.v1 import competition_pb2_grpc as pb_grpc

if TYPE_CHECKING:
    from arena.host.server import CompetitionServer

log = logging.getLogger("arena.host")

FAILURE_WINDOW_S = 60.0
"""Refused tokens are counted per address and per token id over this window."""
BRAKE_KEYS = 10_000
"""The most addresses (and token ids) the brake remembers: beyond, the oldest are forgotten."""
TOKEN_RECHECK_S = 5.0
"""How often the token of every open stream is checked again (at most: the idle limit, if it
is shorter)."""
WATCH_FPS_ENV = "ARENA_WATCH_FPS"
"""Environment variable: frames a second one watch stream receives at most (default 10)."""
WATCH_TOTAL_FPS_ENV = "ARENA_WATCH_TOTAL_FPS"
"""Environment variable: frames a second all watch streams together receive (default 100)."""
WATCH_NICE_ENV = "ARENA_WATCH_NICE"
"""Environment variable: the nice value (0-19) of the process that draws watched frames (default
19, the lowest priority: an audience gets only the CPU the matches leave)."""
MAX_FAILURES_ENV = "ARENA_MAX_FAILED_TOKENS"
"""Environment variable: refused tokens an address (or a token id) may send in the window
(default 10); its further refused tokens are turned away until the oldest leaves it."""
CHUNK = 64 * 1024
"""Bytes per LogChunk."""
MAX_PAGE = 500
"""The most matches or submissions one call returns."""
POLL_S = 0.25
"""How often a follower of a submission looks for its next stage."""
FINAL_STAGES = frozenset({"RATED", "REFUSED", "FAILED", "CANCELLED"})
NOT_YOURS = "no {what} {ident} that you may see"
GONE = "the upload stopped half-way: nothing was kept (send it again)"
"""A submission whose call ended before its upload began."""

F = TypeVar("F", bound=Callable[..., Any])
T = TypeVar("T")


class Brake:
    """Refused tokens per key over ``FAILURE_WINDOW_S``: a key with ``limit`` of them is braked
    until the oldest leaves the window. Not thread-safe (``Auth`` holds the lock)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._failures: dict[str, collections.deque[float]] = {}

    def wait(self, key: str, now: float) -> float:
        """Seconds ``key`` is braked for (0: it is not)."""
        failures = self._failures.get(key)
        if failures is None:
            return 0.0
        while failures and failures[0] <= now - FAILURE_WINDOW_S:
            failures.popleft()
        if not failures:
            del self._failures[key]
            return 0.0
        return failures[0] + FAILURE_WINDOW_S - now if len(failures) >= self.limit else 0.0

    def fail(self, key: str, now: float) -> None:
        """One more refused token of ``key``."""
        if key not in self._failures and len(self._failures) >= BRAKE_KEYS:
            self._failures.pop(next(iter(self._failures)))  # bounded: forget the oldest
        self._failures.setdefault(key, collections.deque()).append(now)

    def braked(self, now: float) -> int:
        """How many keys are braked now."""
        return sum(1 for key in list(self._failures) if self.wait(key, now) > 0)


class Auth:
    """Token checks, with a brake on refused tokens per address and per token id (module
    doc)."""

    SCOPES = {"address": "from your address", "token": "naming this token's contestant"}
    """The brake's scopes, and how a refusal names each."""

    def __init__(self, authenticate: Callable[[str], str | None], metrics: Metrics) -> None:
        self._authenticate = authenticate
        self._metrics = metrics
        self._lock = threading.Lock()
        limit = _env_int(MAX_FAILURES_ENV, 10)
        self._brakes = {scope: Brake(limit) for scope in self.SCOPES}
        for scope in self.SCOPES:
            metrics.auth_braking.labels(scope).set_function(functools.partial(self.braked,
                                                                              scope))

    def check(self, context: grpc.ServicerContext) -> str:
        """The caller's contestant name, or the call aborted."""
        token = bearer(context)
        contestant = self._authenticate(token) if token else None
        if contestant is not None:
            return contestant  # a valid token is never braked
        keys = {"address": _peer_host(context.peer()), "token": token_id(token)}
        now = time.monotonic()
        with self._lock:
            waits = {scope: self._brakes[scope].wait(key, now)
                     for scope, key in keys.items() if key}
            braked = max(waits, key=waits.__getitem__) if any(waits.values()) else None
            if braked is None:
                for scope, key in keys.items():
                    if key:
                        self._brakes[scope].fail(key, now)
        if braked is not None:
            self._metrics.auth_braked.labels(braked).inc()
            _abort(context, grpc.StatusCode.RESOURCE_EXHAUSTED,
                   f"too many refused tokens {self.SCOPES[braked]}: a wrong token is turned "
                   f"away for {max(1, round(waits[braked]))} s more (a valid one is served)")
        self._metrics.auth_failures.inc()
        _abort(context, grpc.StatusCode.UNAUTHENTICATED, "unknown or revoked token")

    def valid(self, token: str, caller: str) -> bool:
        """Whether ``token`` is still ``caller``'s valid token (not revoked, not replaced)."""
        return bool(token) and self._authenticate(token) == caller

    def braked(self, scope: str) -> int:
        """How many addresses (``scope`` "address") or token ids ("token") are braked now."""
        with self._lock:
            return self._brakes[scope].braked(time.monotonic())


def bearer(context: grpc.ServicerContext) -> str:
    """The call's token ("" when it has none)."""
    token = ""
    for key, value in context.invocation_metadata() or ():
        if key == "authorization" and isinstance(value, str) and value.startswith("Bearer "):
            token = value[len("Bearer "):]
    return token


@dataclasses.dataclass(eq=False)
class Stream:
    """One open stream, as ``Streams`` watches it."""

    caller: str
    """Whose it is."""
    token: str
    """The token it was opened with (checked again every ``TOKEN_RECHECK_S``)."""
    context: grpc.ServicerContext
    """Its call."""
    opened: float
    """When it opened (``time.monotonic``)."""
    waiting: float | None = None
    """Since when it waits on its client (an upload's next chunk, a message being taken);
    None while the server itself works or waits for news."""
    closed: str = ""
    """The status code's name the server closed it with ("" while open)."""

    def received(self, requests: Iterator[T]) -> Iterator[T]:
        """The client's messages, each wait for one timed."""
        while True:
            self.waiting = time.monotonic()
            try:
                request = next(requests)
            except StopIteration:
                return
            finally:
                self.waiting = None
            yield request

    def sent(self, replies: Generator[T, None, None]) -> Iterator[T]:
        """The server's messages, each wait until the client took it timed."""
        with contextlib.closing(replies):  # GeneratorExit at a yield closes the method too
            for reply in replies:
                self.waiting = time.monotonic()
                yield reply
                self.waiting = None


class Streams:
    """The open streams (module doc): at most ``max_streams`` on the server and
    ``per_contestant`` per contestant; a reaper thread closes those idle or open too long
    and those whose token no longer opens anything."""

    def __init__(self, limits: StreamLimits, metrics: Metrics,
                 valid: Callable[[str, str], bool]) -> None:
        self.limits = limits
        self._metrics = metrics
        self._valid = valid
        self._open: list[Stream] = []
        self._per: collections.Counter[str] = collections.Counter()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._reaper: threading.Thread | None = None

    @contextlib.contextmanager
    def open(self, caller: str, token: str, context: grpc.ServicerContext) -> Iterator[Stream]:
        """One more stream of ``caller`` while the block runs (or the call refused)."""
        limits = self.limits
        with self._lock:
            full = "server" if len(self._open) >= limits.max_streams else \
                "contestant" if self._per[caller] >= limits.per_contestant else ""
            if not full:
                stream = Stream(caller, token, context, time.monotonic())
                self._open.append(stream)
                self._per[caller] += 1
                if self._reaper is None:
                    self._reaper = threading.Thread(target=self._reap, name="streams",
                                                    daemon=True)
                    self._reaper.start()
        if full:
            self._metrics.streams_refused.labels(full).inc()
            _abort(context, grpc.StatusCode.RESOURCE_EXHAUSTED,
                   f"you have {limits.per_contestant} streams open (uploads, follows, watches, "
                   "log downloads): close one" if full == "contestant" else
                   f"the server has {limits.max_streams} streams open, as many as it allows: "
                   "try again in a minute")
        self._metrics.streams_open.inc()
        try:
            yield stream
        finally:
            with self._lock:
                self._open.remove(stream)
                self._per[caller] -= 1
                if not self._per[caller]:
                    del self._per[caller]
            self._metrics.streams_open.dec()

    def close(self) -> None:
        """Stop the reaper (the server is stopping)."""
        self._stop.set()

    def _reap(self) -> None:
        limits = self.limits
        tick = min(1.0, max(0.05, min(limits.idle_s, limits.total_s) / 4))
        every = min(TOKEN_RECHECK_S, limits.idle_s)  # a stream may be as silent anyway
        recheck = time.monotonic() + every
        while not self._stop.wait(tick):
            now = time.monotonic()
            with self._lock:
                streams = [s for s in self._open if not s.closed]
            for stream in streams:
                waiting = stream.waiting
                if waiting is not None and now - waiting >= limits.idle_s:
                    self._close(stream, "idle", grpc.StatusCode.RESOURCE_EXHAUSTED,
                                f"the stream was idle for {limits.idle_s:g} s (nothing sent or "
                                "taken): closed by the server, a limit of the competition")
                elif now - stream.opened >= limits.total_s:
                    self._close(stream, "total", grpc.StatusCode.RESOURCE_EXHAUSTED,
                                f"the stream was open for {limits.total_s:g} s: closed by the "
                                "server, a limit of the competition (open it again; `arena "
                                "submissions --follow ID` follows a submission again)")
            if now >= recheck:
                recheck = now + every
                verdicts: dict[tuple[str, str], bool] = {}
                for stream in streams:
                    key = (stream.token, stream.caller)
                    if key not in verdicts:
                        verdicts[key] = self._valid(*key)
                    if not verdicts[key] and not stream.closed:
                        self._close(stream, "revoked", grpc.StatusCode.UNAUTHENTICATED,
                                    "unknown or revoked token")

    def _close(self, stream: Stream, why: str, code: grpc.StatusCode, details: str) -> None:
        stream.closed = code.name
        self._metrics.streams_closed.labels(why).inc()
        _cancel(stream.context, code, details)


def _cancel(context: grpc.ServicerContext, code: grpc.StatusCode, details: str) -> None:
    """End a call from another thread with ``code`` and ``details``: the handler's next read
    or write fails, the client gets the status. (The public ``cancel`` sends a bare CANCELLED;
    the call object under it takes a status, as gRPC's own server does when it aborts.)"""
    call = getattr(getattr(context, "_rpc_event", None), "call", None)
    try:
        call.cancel(code.value[0], details)  # type: ignore[union-attr]
    except Exception:  # noqa: BLE001 — another gRPC: the bare cancel
        context.cancel()


def _abort(context: grpc.ServicerContext, code: grpc.StatusCode, details: str) -> NoReturn:
    """End the call with ``code`` (``context.abort`` raises)."""
    context.abort(code, details)
    raise AssertionError("context.abort returned")  # pragma: no cover


def _env_int(name: str, default: int) -> int:
    value = os.environ.get(name, "")
    try:
        return max(1, int(value)) if value else default
    except ValueError:
        raise ConfigError(f"{name}={value!r} is not a whole number") from None


def _env_float(name: str, default: float) -> float:
    value = os.environ.get(name, "")
    try:
        number = float(value) if value else default
    except ValueError:
        raise ConfigError(f"{name}={value!r} is not a number") from None
    if number <= 0:
        raise ConfigError(f"{name}={value!r}: give a number above 0")
    return number


def _env_nice(name: str) -> int:
    value = os.environ.get(name, "")
    if not value:
        return LOWEST_NICE
    if not value.isdigit() or int(value) > LOWEST_NICE:
        raise ConfigError(f"{name}={value!r}: give a nice value from 0 to {LOWEST_NICE}")
    return int(value)


def _peer_host(peer: str) -> str:
    """``ipv4:127.0.0.1:5000`` → ``ipv4:127.0.0.1`` (the address without the port)."""
    return peer.rsplit(":", 1)[0] if peer.count(":") >= 2 else peer


def api_call(method: F) -> F:
    """Authenticate, then run the method with the caller's name (a stream within ``Streams``'
    limits); count it by status."""
    name = method.__name__

    @functools.wraps(method)
    def unary(self: CompetitionService, request: Any, context: grpc.ServicerContext) -> Any:
        code = "OK"
        try:
            caller = self.auth.check(context)
            return method(self, request, context, caller)
        except Exception:
            code = _code(context)
            raise
        finally:
            self.server.metrics.api_calls.labels(name, code).inc()

    @functools.wraps(method)
    def streaming(self: CompetitionService, request: Any, context: grpc.ServicerContext
                  ) -> Iterator[Any]:
        code = "OK"
        stream: Stream | None = None
        try:
            caller = self.auth.check(context)
            with self.streams.open(caller, bearer(context), context) as stream:
                if hasattr(request, "__next__"):  # the client streams: time its waits too
                    request = stream.received(request)
                yield from stream.sent(method(self, request, context, caller))
        except GeneratorExit:
            code = "CANCELLED"
            raise
        except Exception:
            code = _code(context)
            raise
        finally:
            if stream is not None and stream.closed:
                code = stream.closed
            self.server.metrics.api_calls.labels(name, code).inc()

    return (streaming if inspect.isgeneratorfunction(method) else unary)  # type: ignore[return-value]


def _code(context: grpc.ServicerContext) -> str:
    code = context.code() if hasattr(context, "code") else None
    return code.name if isinstance(code, grpc.StatusCode) else "UNKNOWN"


class CompetitionService(pb_grpc.CompetitionServiceServicer):  # type: ignore[misc]
    """The servicer (module doc); ``server`` holds everything it reads."""

    def __init__(self, server: CompetitionServer) -> None:
        self.server = server
        self.auth = Auth(server.accounts.authenticate, server.metrics)
        self.feeds = Feeds(_env_nice(WATCH_NICE_ENV))
        self.pacer = Pacer(_env_float(WATCH_FPS_ENV, 10.0), _env_float(WATCH_TOTAL_FPS_ENV, 100.0))
        self.streams = Streams(server.competition.streams, server.metrics, self.auth.valid)

    # --- who and what ------------------------------------------------------------------------
    @api_call
    def WhoAmI(self, request: pb.WhoAmIRequest, context: grpc.ServicerContext, caller: str
               ) -> pb.WhoAmIReply:
        c = self.server.competition
        q = c.quotas
        return pb.WhoAmIReply(
            contestant=caller, competition=c.name,
            games=[pb.GameInfo(game=g.game, reference=g.reference) for g in c.games],
            quotas=pb.Quotas(scrimmages_per_hour=c.scrimmages.per_hour,
                             scrimmages_outstanding=c.scrimmages.outstanding,
                             max_upload_bytes=q.max_upload_bytes,
                             max_image_upload_bytes=q.max_image_upload_bytes,
                             submissions_per_day=q.submissions_per_day,
                             active_bots=q.active_bots,
                             used_today=self.server.book.used_today(caller, time.time())),
            logs=c.logs, bots=list(self.server.accounts.bots_of(caller)),
            season=self._season(),
            selected=[s.ref for s in self.server.season.selection_of(caller)])

    def _season(self) -> pb.Season:
        season = self.server.season
        status = season.status()
        return pb.Season(phase=status.phase.value, since=status.since,
                         next=status.next.value if status.next is not None else "",
                         next_at=status.next_at or 0.0, seconds_left=status.left_s or 0.0,
                         selections=season.selections, seasonal=status.seasonal)

    @api_call
    def Select(self, request: pb.SelectRequest, context: grpc.ServicerContext, caller: str
               ) -> pb.SelectReply:
        try:
            chosen = self.server.season.select(caller, list(request.versions))
        except ConfigError as exc:
            log.info(json.dumps({"event": "selection_refused", "contestant": caller,
                                 "why": str(exc)}))
            _abort(context, grpc.StatusCode.FAILED_PRECONDITION, plain_text(str(exc)))
        log.info(json.dumps({"event": "selection", "contestant": caller,
                             "selected": [s.ref for s in chosen]}))
        return pb.SelectReply(selected=[s.ref for s in chosen], season=self._season())

    # --- submissions -------------------------------------------------------------------------
    @api_call
    def Submit(self, request_iterator: Iterator[pb.SubmitRequest],
               context: grpc.ServicerContext, caller: str) -> Iterator[pb.SubmissionEvent]:
        server = self.server
        first = next(request_iterator, None)
        if first is None or first.WhichOneof("part") != "start":
            _abort(context, grpc.StatusCode.INVALID_ARGUMENT, "a submission starts with its start")
        start = first.start
        try:
            game, name, _limit = server.admit(caller, start)
            sid = server.book.open(caller, game, name, start.kind, start.size, start.sha256,
                                   quotas=server.competition.quotas,
                                   owned_entered=server.accounts.bots_of(caller))
        except (QuotaRefusal, QuotaExceeded) as exc:
            log.info(json.dumps({"event": "submission_refused", "contestant": caller,
                                 "why": str(exc)}))
            _abort(context, grpc.StatusCode.RESOURCE_EXHAUSTED, str(exc))
        except ConfigError as exc:
            log.info(json.dumps({"event": "submission_refused", "contestant": caller,
                                 "why": str(exc)}))
            _abort(context, grpc.StatusCode.FAILED_PRECONDITION, str(exc))
        log.info(json.dumps({"event": "submission", "id": sid, "contestant": caller,
                             "game": game, "name": name, "kind": start.kind,
                             "size": start.size}))
        opened = server.book.events(sid)[-1]
        try:
            yield _event(opened, name)
        except GeneratorExit:  # the call ended at once (gRPC asks for nothing more): no upload
            server.ended(server.pipeline.drop(sid, GONE))
            raise
        chunks = (part.chunk for part in request_iterator if part.WhichOneof("part") == "chunk")
        event = server.pipeline.upload(sid, chunks)
        if event.stage != "UPLOADED":  # cut at the quota, or broken off: nothing was kept
            server.ended(event)
            yield _event(event, name)
            _abort(context, grpc.StatusCode.RESOURCE_EXHAUSTED if event.stage == "REFUSED"
                          else grpc.StatusCode.DATA_LOSS, plain_text(event.message))
        if not self.auth.valid(bearer(context), caller):  # revoked or replaced meanwhile
            event = server.pipeline.drop(sid, Revoked.message)
            server.ended(event)
            yield _event(event, name)
            _abort(context, grpc.StatusCode.UNAUTHENTICATED, "unknown or revoked token")
        server.uploaded(sid)
        yield from self._follow(sid, name, after=opened.seq, context=context)

    def _follow(self, sid: int, name: str, after: int, context: grpc.ServicerContext
                ) -> Iterator[pb.SubmissionEvent]:
        book = self.server.book
        while context.is_active():
            events = book.events(sid, after)
            for event in events:
                after = event.seq
                message = _event(event, name)
                yield message
                if message.final:
                    return
            if not events:
                time.sleep(POLL_S)

    @api_call
    def ListSubmissions(self, request: pb.SubmissionsRequest, context: grpc.ServicerContext,
                        caller: str) -> pb.SubmissionsReply:
        limit = min(request.limit or 20, MAX_PAGE)
        chosen = {(s.game, s.name.lower(), s.version)
                  for s in self.server.season.selection_of(caller)}
        return pb.SubmissionsReply(submissions=[
            pb.Submission(submission_id=row.id, game=row.game, name=row.name,
                          version=row.version or "", stage=pb.SubmissionStage.Value(row.stage),
                          message=plain_text(row.message), created=row.created,
                          updated=row.updated, size=row.size, match_ids=list(row.match_ids),
                          counted=bool(row.counted),
                          selected=(row.game, row.name.lower(), row.version) in chosen)
            for row in self.server.book.list(caller, limit)])

    @api_call
    def FollowSubmission(self, request: pb.FollowSubmissionRequest,
                         context: grpc.ServicerContext, caller: str
                         ) -> Iterator[pb.SubmissionEvent]:
        row = self.server.book.get(request.submission_id)
        if row is None or row.contestant != caller:
            _abort(context, grpc.StatusCode.PERMISSION_DENIED,
                          NOT_YOURS.format(what="submission", ident=request.submission_id))
        if not request.follow:
            for event in self.server.book.events(row.id):
                yield _event(event, row.name)
            return
        yield from self._follow(row.id, row.name, after=0, context=context)

    # --- results -----------------------------------------------------------------------------
    @api_call
    def Standings(self, request: pb.StandingsRequest, context: grpc.ServicerContext,
                  caller: str) -> pb.StandingsReply:
        reply = pb.StandingsReply(season=self._season())
        owners = self.server.owners()
        for results in self._ladders(request.game, context):
            snap = results.snapshot
            standings = snap.standings
            game = reply.games.add(game=results.game, ladder=results.config.name,
                                   matches=len(snap.matches))
            if standings is None:
                continue
            for row in standings.rows:
                name = row.name or bot_name(row.bot)
                game.rows.add(rank=row.rank, name=name, version=row.version,
                              rating=row.rating, low=row.rating - row.ci95,
                              high=row.rating + row.ci95, matches=row.matches, wins=row.wins,
                              draws=row.draws, losses=row.losses,
                              owner=owners.get(name.lower(), ""), current=True)
        return reply

    @api_call
    def ListMatches(self, request: pb.MatchesRequest, context: grpc.ServicerContext,
                    caller: str) -> pb.MatchesReply:
        ladders = self._ladders(request.game, context)
        if len(ladders) != 1:
            _abort(context, grpc.StatusCode.INVALID_ARGUMENT,
                          "this competition hosts several games: name one (--game)")
        kind = request.kind or "ladder"
        server = self.server
        if kind == "ladder":
            results = ladders[0]
        elif kind == "rerun":
            results = server.reruns[ladders[0].game]
        elif kind == "scrimmage":
            results = server.scrimmage_results[ladders[0].game]
        else:
            _abort(context, grpc.StatusCode.INVALID_ARGUMENT,
                   f"kind: \"ladder\", \"rerun\" or \"scrimmage\", not {plain_text(kind)[:40]!r}")
        names = [request.bot] if request.bot else []
        only: str | None = None
        if kind == "scrimmage" and server.competition.logs != views.PUBLIC:
            only, names = request.bot or None, list(server.accounts.bots_of(caller))
            if not names:  # the scrimmages of the caller's bots, and no others
                return pb.MatchesReply()
        if request.mine:
            mine = list(server.accounts.bots_of(caller))
            names = [n for n in names if n.lower() in {m.lower() for m in mine}] if names \
                else mine
            if not names:
                return pb.MatchesReply()
        before: int | None = None
        if request.before:
            try:
                before = int(request.before)
            except ValueError:
                _abort(context, grpc.StatusCode.INVALID_ARGUMENT, "not a page cursor")
        page, after = results.page(names=names, limit=min(request.limit or 50, MAX_PAGE),
                                   before=before)
        if only is not None:
            page = [m for m in page if only.lower() in {bot_name(b).lower() for b in m.bots}]
        moderation = server.moderation
        return pb.MatchesReply(matches=[_match_row(m, kind, moderation) for m in page],
                               next="" if after is None else str(after))

    def _ladders(self, game: str, context: grpc.ServicerContext) -> list[LadderResults]:
        ladders = self.server.results
        if not game:
            return list(ladders.values())
        if game not in ladders:
            _abort(context, grpc.StatusCode.NOT_FOUND, f"this competition hosts no game {game!r}")
        return [ladders[game]]

    # --- one match ---------------------------------------------------------------------------
    @api_call
    def WatchMatch(self, request: pb.WatchRequest, context: grpc.ServicerContext, caller: str
                   ) -> Iterator[pb.WatchFrame]:
        found = self.server.locate(request.match_id, caller)
        seat = None if request.seat < 0 else request.seat
        if not _may_watch(found.sight, seat):
            _abort(context, grpc.StatusCode.PERMISSION_DENIED,
                          NOT_YOURS.format(what="match", ident=plain_text(request.match_id)[:80]))
        try:
            # a running match is followed to its end (its frames come as they are played)
            feed = self.feeds.feed(request.match_id, found.path, seat, found.running,
                                   boards=not request.records)
        except FeedsFull as exc:
            _abort(context, grpc.StatusCode.RESOURCE_EXHAUSTED, str(exc))
        metrics = self.server.metrics
        metrics.watchers.inc()
        try:
            sent = 0.0
            for frame in feed.read(context.is_active):
                sent = self.pacer.wait(sent, context.is_active)
                yield pb.WatchFrame(board=frame.board, caption=frame.caption,
                                    seat=-1 if frame.seat is None else frame.seat,
                                    final=frame.final, record=frame.record)
            if feed.done and feed.error and not (feed.frames and feed.frames[-1].final):
                _abort(context, grpc.StatusCode.UNAVAILABLE,
                              f"the match's log ended early: {plain_text(feed.error)[:200]}")
        finally:
            metrics.watchers.dec()

    @api_call
    def GetLog(self, request: pb.LogRequest, context: grpc.ServicerContext, caller: str
               ) -> Iterator[pb.LogChunk]:
        found = self.server.locate(request.match_id, caller)
        if found.sight.nothing:
            _abort(context, grpc.StatusCode.PERMISSION_DENIED,
                          NOT_YOURS.format(what="match", ident=plain_text(request.match_id)[:80]))
        if found.running:
            _abort(context, grpc.StatusCode.FAILED_PRECONDITION,
                          "the match is still running: watch it (arena watch --server ... "
                          "--match ...); its log comes when it ends")
        data, kind = views.download(found.path, found.sight, found.own_seats,
                                    self.server.signing.signer)
        for offset in range(0, max(len(data), 1), CHUNK):
            yield pb.LogChunk(data=data[offset:offset + CHUNK], kind=kind)

    # --- scrimmages ---------------------------------------------------------------------------
    @api_call
    def Challenge(self, request: pb.ChallengeRequest, context: grpc.ServicerContext,
                  caller: str) -> pb.ChallengeReply:
        metrics = self.server.metrics
        try:
            scrimmage, ids, left = self.server.challenge(caller, request.game, request.bot,
                                                         request.rival)
        except QuotaExceeded as exc:
            metrics.scrimmages.labels("refused").inc()
            _abort(context, grpc.StatusCode.RESOURCE_EXHAUSTED, str(exc))
        except ConfigError as exc:
            metrics.scrimmages.labels("refused").inc()
            _abort(context, grpc.StatusCode.FAILED_PRECONDITION, plain_text(str(exc)))
        metrics.scrimmages.labels("accepted").inc()
        ahead = self.server.extras[scrimmage.game].waiting() - 2
        version = f"@{scrimmage.version}" if scrimmage.version else ""
        log.info(json.dumps({"event": "scrimmage", "id": scrimmage.id, "contestant": caller,
                             "bot": scrimmage.bot + version, "rival": scrimmage.rival}))
        return pb.ChallengeReply(
            scrimmage_id=scrimmage.id, match_ids=ids, left_this_hour=max(0, left),
            message=plain_text(
                f"scrimmage {scrimmage.id}: {scrimmage.bot}{version} against "
                f"{scrimmage.rival}, one deal with the seats swapped, unrated; "
                f"{max(0, ahead)} other extra match(es) ahead of it"))

    @api_call
    def GetBotOutput(self, request: pb.BotOutputRequest, context: grpc.ServicerContext,
                     caller: str) -> pb.BotOutputReply:
        found = self.server.locate(request.match_id, caller)
        if not found.own_seats or found.running:
            _abort(context, grpc.StatusCode.PERMISSION_DENIED,
                          NOT_YOURS.format(what="finished match of your bots",
                                           ident=plain_text(request.match_id)[:80]))
        seat = min(found.own_seats)
        path = seat_log_path(found.path, seat)
        try:
            output = path.read_bytes()[-64 * 1024:].decode("utf-8", "replace")
        except OSError:
            output = ""
        return pb.BotOutputReply(seat=seat, output=plain_text(output))


def _may_watch(seen: views.Sight, seat: int | None) -> bool:
    if seat is None:
        return seen.full
    return seen.full or seat in seen.seats


def _event(event: Any, name: str) -> pb.SubmissionEvent:
    return pb.SubmissionEvent(
        submission_id=event.submission_id, stage=pb.SubmissionStage.Value(event.stage),
        message=plain_text(event.message), detail=plain_text(event.detail), name=name,
        version=event.version or "", match_ids=list(event.match_ids), at=event.at,
        final=event.stage in FINAL_STAGES)


def _match_row(m: StoredMatch, kind: str = "ladder",
               moderation: Moderation | None = None) -> pb.MatchRow:
    note = "" if moderation is None or kind == "scrimmage" else moderation.mark(m)
    void = m.void or (moderation is not None and m.match_id in moderation.voided)
    return pb.MatchRow(
        match_id=m.match_id, game=m.game, names=[bot_name(b) for b in m.bots],
        versions=list(m.versions), points=list(m.totals),
        winner=-1 if m.winner is None or void else m.winner, termination=str(m.termination),
        finished_at=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(m.finished_at)),
        void=void, kind=kind, note=plain_text(note))

