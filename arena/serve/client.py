"""Talk to a running `arena serve` (synchronous gRPC, used by the CLI).

The client finds its credentials itself (``arena.serve.access.client_credentials``): the
address ``default`` is the server's default socket; a Unix socket is used only when no other
user could have put it where it is; a loopback port's calls carry the token the server wrote for
this user (or ``ARENA_REFEREE_TOKEN``)."""

from __future__ import annotations

from collections.abc import Iterator

import grpc

from arena.errors import ArenaError, ConfigError
from arena.model import MatchEvent, MatchResult, TimeControl, plain_text
from arena.serve.access import Metadata, client_credentials
from arena.v1 import admin_pb2, admin_pb2_grpc
from arena.wire.admin import event_from_proto, result_from_proto


def _stub(address: str) -> tuple[grpc.Channel, admin_pb2_grpc.RefereeServiceStub, Metadata]:
    target, metadata = client_credentials(address)
    channel = grpc.insecure_channel(target)
    return channel, admin_pb2_grpc.RefereeServiceStub(channel), metadata


def _explain(address: str, exc: grpc.RpcError) -> ArenaError:
    code = exc.code() if hasattr(exc, "code") else None
    if code == grpc.StatusCode.UNAVAILABLE:
        return ConfigError(f"no referee answers at {address} (start one with `arena serve`)")
    details = exc.details() if hasattr(exc, "details") else str(exc)
    return ConfigError(f"the referee at {address} refused: {plain_text(details or '')}")


def run_on_referee(
    address: str, bots: list[str], game: str | None, seed: int, options: dict[str, str],
    time_control: TimeControl, sandbox: str, clock: str = "",
) -> MatchResult:
    """Start a match on the referee, wait for it and return the result. ``sandbox`` "" (or
    "auto") plays in the referee's own; another is refused unless its operator allowed it.
    ``clock`` "" plays on the referee's clock setting; "auto", "cpu" or "wall" asks for one
    (the referee resolves it against its sandbox)."""
    channel, stub, metadata = _stub(address)
    with channel:
        try:
            started = stub.StartMatch(admin_pb2.StartMatchRequest(
                bots=bots, game=game or "", seed=seed, has_seed=True, options=options,
                move_time_ms=time_control.move_time_ms, time_bank_ms=time_control.time_bank_ms,
                startup_ms=time_control.startup_ms, sandbox=sandbox, clock=clock,
                wall_guard=time_control.wall_guard,
            ), timeout=30, metadata=metadata)
            done = stub.GetMatch(admin_pb2.GetMatchRequest(match_id=started.match_id, wait=True),
                                 metadata=metadata)
        except grpc.RpcError as exc:
            raise _explain(address, exc) from None
    return result_from_proto(done.result)


def watch_on_referee(address: str, match_id: str) -> Iterator[MatchEvent]:
    """The match's events as the referee streams them, until the match ends."""
    channel, stub, metadata = _stub(address)
    with channel:
        try:
            for event in stub.WatchMatch(admin_pb2.WatchMatchRequest(match_id=match_id),
                                         metadata=metadata):
                yield event_from_proto(event)
        except grpc.RpcError as exc:
            raise _explain(address, exc) from None
