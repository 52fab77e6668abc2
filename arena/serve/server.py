"""`arena serve`: a long-lived referee with an admin gRPC service and gRPC health checking.

The admin endpoint (a Unix socket or a loopback port) is separate from the per-seat bot sockets
that every match creates: bots never see it. Only the user who started the server may use it (a
private socket directory, a token on a loopback port: ``arena.serve.access``), and the server,
not the request, decides which sandboxes its matches may use: its own (``--sandbox``) and those
the operator allows (``--allow-sandbox``). The servicer is thin: decode → one call → encode.
With a signing key (``arena serve --sign-key``) every finished match log is signed before the
match is reported finished (``GetMatch`` with ``wait`` returns once it is signed). The clock
model of a match is the request's (``StartMatchRequest.clock``) or the server's (``arena serve
--clock``), resolved against the match's sandbox before it starts (``resolve_clock``): ``cpu``
where the sandbox cannot meter CPU is refused (INVALID_ARGUMENT, one line).
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc

from arena.errors import ArenaError, ConfigError
from arena.model import MatchEndEvent, MatchEvent, MatchResult, MatchSpec, TimeControl
from arena.record.log import read_events
from arena.record.signing import Signer, sign_played
from arena.referee.match import new_match_id, play_match
from arena.referee.service import prepare_match, resolve_clock
from arena.sandbox import get_sandbox
from arena.sandbox.api import Sandbox
from arena.serve import access
from arena.serve.access import check_listen_address
from arena.v1 import admin_pb2, admin_pb2_grpc
from arena.wire.admin import event_to_proto, result_to_proto, termination_to_proto

log = logging.getLogger(__name__)
SERVICE_NAME = "arena.v1.RefereeService"
KEEP_IN_MEMORY = 50
"""Finished matches whose events stay in memory; older ones are streamed from their logs, so a
long-lived referee does not grow with every match it has played."""
Announce = Callable[[str, Path | None], None]
"""Told once the server listens: its address (a loopback port as bound) and its token file."""


def check_sandboxes(sandbox: str, allow: Iterable[str] = ()) -> tuple[str, frozenset[str]]:
    """The server's sandbox (``auto`` decided now) and the others the operator allows, each
    checked (``Sandbox.check`` with no bots: e.g. the process sandbox as root without
    separation); ``ConfigError`` before anything listens."""
    chosen = get_sandbox(sandbox).name
    extra = frozenset(allow) - {chosen}
    if "auto" in extra:
        raise ConfigError("--allow-sandbox names a sandbox (process or docker), not auto")
    for name in sorted({chosen, *extra}):  # an unknown name is refused here too
        get_sandbox(name).check(())
    return chosen, extra


@dataclass
class _Running:
    match_id: str
    game: str
    bots: list[str]
    log_path: Path
    events: list[MatchEvent] = field(default_factory=list)
    """The match's events while it is among the KEEP_IN_MEMORY latest; later read from its log."""
    on_disk: bool = False
    changed: asyncio.Condition = field(default_factory=asyncio.Condition)
    result: MatchResult | None = None
    task: asyncio.Task[MatchResult] | None = None


class RefereeService(admin_pb2_grpc.RefereeServiceServicer):  # type: ignore[misc]  # generated
    """Runs matches concurrently in the server's event loop."""

    def __init__(self, log_dir: Path, sandbox: str = "process",
                 allowed: Iterable[str] = (), signer: Signer | None = None,
                 clock: str = "auto") -> None:
        self.log_dir = log_dir
        self.clock = clock
        """The clock a request that names none plays on (``auto``, ``cpu`` or ``wall``)."""
        self.sandbox = sandbox
        """Where matches play unless a request names another the operator allowed."""
        self.allowed = frozenset({sandbox, *allowed})
        self.signer = signer
        """The key that signs every finished log (None: logs stay unsigned)."""
        self.matches: dict[str, _Running] = {}

    def sandbox_for(self, requested: str) -> str | None:
        """The sandbox a request plays in: the server's for "" (or "auto"), the one it names
        when the operator allowed it; None: refused."""
        if requested in ("", "auto"):
            return self.sandbox
        return requested if requested in self.allowed else None

    def _refusal(self, requested: str) -> str:
        allowed = " or ".join(sorted(self.allowed))
        return (f"this referee plays only in the {allowed} sandbox: a request for "
                f"{requested[:40]!r} is refused (its operator may allow it with "
                "`arena serve --allow-sandbox NAME`)")

    async def StartMatch(self, request: Any, context: Any) -> Any:  # noqa: N802
        sandbox_name = self.sandbox_for(request.sandbox)
        if sandbox_name is None:
            await context.abort(grpc.StatusCode.PERMISSION_DENIED,
                                self._refusal(request.sandbox))
            raise AssertionError("abort returned")  # abort always raises
        try:
            spec, sandbox = await asyncio.to_thread(self._prepare, request, sandbox_name)
        except ArenaError as exc:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(exc))
        running = _Running(spec.match_id, spec.game, [b.name for b in spec.bots],
                           self.log_dir / f"{spec.match_id}.jsonl")
        self.matches[spec.match_id] = running

        def on_event(event: MatchEvent) -> None:
            running.events.append(event)
            asyncio.get_running_loop().create_task(_notify(running))

        running.task = asyncio.create_task(self._play(spec, sandbox, on_event))
        running.task.add_done_callback(lambda t: self._finished(running, t))
        return admin_pb2.StartMatchResponse(match_id=spec.match_id, log_path=str(running.log_path))

    async def _play(self, spec: MatchSpec, sandbox: Sandbox,
                    on_event: Callable[[MatchEvent], None]) -> MatchResult:
        """Play the match; its finished log signed when the server has a key."""
        result = await play_match(spec, sandbox=sandbox, log_dir=self.log_dir, on_event=on_event)
        if self.signer is not None:
            sign_played(result, self.signer, log)
        return result

    def _prepare(self, request: Any, sandbox_name: str) -> tuple[MatchSpec, Sandbox]:
        """The match service's spec and sandbox for a request (blocking: it may ask Docker)."""
        if len(request.bots) != 2:
            raise ConfigError("a match needs exactly two bots")
        clock, _ = resolve_clock(request.clock or self.clock, sandbox_name)
        tc = TimeControl(request.move_time_ms or 1000, request.time_bank_ms,
                         request.startup_ms or 10_000, clock,
                         request.wall_guard or TimeControl.wall_guard)
        if (problem := tc.problem()) is not None:
            raise ConfigError(f"{problem[0]} {problem[1]}")
        spec, sandbox = prepare_match(
            (request.bots[0], request.bots[1]), game=request.game or None,
            sandbox=sandbox_name,
            seed=request.seed if request.has_seed else None, options=dict(request.options),
            time_control=tc,
        )
        return dataclasses.replace(spec, match_id=new_match_id(spec.game)), sandbox

    def _finished(self, running: _Running, task: asyncio.Task[MatchResult]) -> None:
        if not task.cancelled() and task.exception() is None:
            running.result = task.result()
        else:
            log.error("match %s failed: %s", running.match_id, task.exception())
        finished = [r for r in self.matches.values() if r.result is not None and not r.on_disk]
        for old in finished[:-KEEP_IN_MEMORY]:
            old.on_disk = True
            old.events = []
        asyncio.get_running_loop().create_task(_notify(running))

    async def _lookup(self, match_id: str, context: Any) -> _Running:
        running = self.matches.get(match_id)
        if running is None:
            await context.abort(grpc.StatusCode.NOT_FOUND, f"no match {match_id!r}")
            raise AssertionError("abort returned")  # abort always raises
        return running

    async def WatchMatch(self, request: Any, context: Any) -> Any:  # noqa: N802
        running = await self._lookup(request.match_id, context)
        sent = 0
        while True:
            async with running.changed:
                await running.changed.wait_for(functools.partial(_has_news, running, sent))
            if running.on_disk:  # finished long ago: the log holds every event
                for event in list(read_events(running.log_path))[sent:]:
                    yield event_to_proto(event)
                return
            while sent < len(running.events):
                event = running.events[sent]
                sent += 1
                yield event_to_proto(event)
                if isinstance(event, MatchEndEvent):
                    return
            if running.result is not None and sent >= len(running.events) and not running.on_disk:
                return

    async def GetMatch(self, request: Any, context: Any) -> Any:  # noqa: N802
        running = await self._lookup(request.match_id, context)
        if request.wait and running.task is not None:
            await asyncio.shield(running.task)
        if running.result is None:
            return admin_pb2.GetMatchResponse(match_id=running.match_id,
                                              status=admin_pb2.MATCH_STATUS_RUNNING)
        return admin_pb2.GetMatchResponse(
            match_id=running.match_id, status=admin_pb2.MATCH_STATUS_FINISHED,
            result=result_to_proto(running.result),
        )

    async def ListMatches(self, request: Any, context: Any) -> Any:  # noqa: N802
        summaries = [
            admin_pb2.MatchSummary(
                match_id=r.match_id, game=r.game, bots=r.bots, log_path=str(r.log_path),
                status=(admin_pb2.MATCH_STATUS_FINISHED if r.result
                        else admin_pb2.MATCH_STATUS_RUNNING),
                termination=(termination_to_proto(r.result.termination) if r.result
                             else "TERMINATION_UNSPECIFIED"),
            )
            for r in self.matches.values()
        ]
        return admin_pb2.ListMatchesResponse(matches=summaries)


def _has_news(running: _Running, sent: int) -> bool:
    return len(running.events) > sent or running.result is not None or running.on_disk


async def _notify(running: _Running) -> None:
    async with running.changed:
        running.changed.notify_all()


async def serve(address: str, log_dir: Path, sandbox: str = "process",
                ready: asyncio.Event | None = None, allow: Iterable[str] = (),
                announce: Announce | None = None, signer: Signer | None = None,
                clock: str = "auto") -> None:
    """Serve until cancelled; health status SERVING for "" and the referee service. ``address``
    is checked and bound as ``arena.serve.access`` says (a loopback port gets a token, written
    for this user and removed at exit); ``sandbox`` and ``allow`` as ``check_sandboxes``;
    ``signer`` signs every finished match log; ``clock`` is the clock of a request that names
    none."""
    address = check_listen_address(address)
    sandbox, allowed = check_sandboxes(sandbox, allow)
    token = None if access.socket_of(address) else access.new_token()
    server = grpc.aio.server(interceptors=None if token is None else [access.TokenCheck(token)])
    admin_pb2_grpc.add_RefereeServiceServicer_to_server(
        RefereeService(log_dir, sandbox, allowed, signer, clock), server)
    health_servicer = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    listening, port = _listen(server, address)
    token_file = None if token is None else access.publish_token(port, token)
    try:
        await server.start()
        for name in ("", SERVICE_NAME):
            await health_servicer.set(name, health_pb2.HealthCheckResponse.SERVING)
        if announce is not None:
            announce(listening, token_file)
        if ready is not None:
            ready.set()
        await server.wait_for_termination()
    finally:
        if token is not None:  # first: nothing below may be cut short by a cancellation
            access.withdraw_token(port, token)
        for name in ("", SERVICE_NAME):
            await health_servicer.set(name, health_pb2.HealthCheckResponse.NOT_SERVING)
        await server.stop(2.0)


def _listen(server: Any, address: str) -> tuple[str, int]:
    """Bind ``address`` (a socket only where ``access.server_socket`` allows, umask 077); the
    address it listens on (a loopback port as bound) and the bound port."""
    socket_path = access.socket_of(address)
    target = address if socket_path is None else f"unix://{access.server_socket(address)}"
    bound = access.bind_private(server, target)
    if bound == 0:
        raise ConfigError(
            f"cannot listen on {address}: is the port free, or does the socket's directory "
            "exist and is it writable?"
        )
    return (target if socket_path is not None else f"{address.rpartition(':')[0]}:{bound}",
            bound)
