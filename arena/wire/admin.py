"""Codecs of the admin service (arena.v1 ``admin.proto``): typed match events and results <->
protobuf messages. Pure; the referee's admin server and its client call nothing else of
protobuf."""

from __future__ import annotations

from typing import Any

from google.protobuf import json_format, struct_pb2

from arena.model import (
    BotRecord,
    DealEvent,
    DecisionEvent,
    HeaderEvent,
    LadderSlot,
    MatchEndEvent,
    MatchEvent,
    MatchResult,
    RoundEndEvent,
    SeatStats,
    Termination,
    TimeControl,
)
from arena.v1 import admin_pb2, bot_pb2

_PREFIX = "TERMINATION_"


def termination_to_proto(termination: Termination) -> str:
    """The name of the arena.v1 ``Termination`` value (protobuf accepts enum names)."""
    return f"{_PREFIX}{termination.name}"


def termination_from_proto(value: int) -> Termination:
    """``ValueError`` for an unknown or unspecified value."""
    name = bot_pb2.Termination.Name(value).removeprefix(_PREFIX)
    if name not in Termination.__members__:
        raise ValueError(f"unknown termination {value}")
    return Termination[name]


def _struct(data: dict[str, Any]) -> struct_pb2.Struct:
    message = struct_pb2.Struct()
    message.update(data)
    return message


def _from_struct(message: struct_pb2.Struct) -> dict[str, Any]:
    """A Struct back to JSON data. Struct numbers are doubles; the arena's options, deal
    records and round summaries hold only integers, so integral numbers come back as ``int``."""
    value: dict[str, Any] = _integral(json_format.MessageToDict(message))
    return value


def _integral(value: Any) -> Any:
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, list):
        return [_integral(v) for v in value]
    if isinstance(value, dict):
        return {k: _integral(v) for k, v in value.items()}
    return value


def result_to_proto(result: MatchResult) -> admin_pb2.MatchRecord:
    message = admin_pb2.MatchRecord(
        match_id=result.match_id, game=result.game, game_version=result.game_version,
        seed=result.seed, options=_struct(result.options), bots=list(result.bots),
        rounds=[admin_pb2.RoundScores(scores=list(r)) for r in result.rounds],
        totals=list(result.totals), termination=termination_to_proto(result.termination),
        void=result.void, detail=result.detail, duration_s=result.duration_s,
        decisions=result.decisions,
    )
    if result.winner is not None:
        message.winner = result.winner
    if result.faulty_seat is not None:
        message.faulty_seat = result.faulty_seat
    if result.log is not None:
        message.log = result.log
    return message


def result_from_proto(message: admin_pb2.MatchRecord) -> MatchResult:
    return MatchResult(
        match_id=message.match_id, game=message.game, game_version=message.game_version,
        seed=message.seed, options=_from_struct(message.options), bots=_pair(message.bots),
        rounds=tuple(_pair(r.scores) for r in message.rounds), totals=_pair(message.totals),
        winner=message.winner if message.HasField("winner") else None,
        termination=termination_from_proto(message.termination),
        faulty_seat=message.faulty_seat if message.HasField("faulty_seat") else None,
        detail=message.detail, log=message.log if message.HasField("log") else None,
        duration_s=message.duration_s, decisions=message.decisions,
    )


def _pair(values: Any) -> Any:
    if len(values) != 2:
        raise ValueError(f"expected two values, got {len(values)}")
    return (values[0], values[1])


def _bot_to_proto(bot: BotRecord) -> admin_pb2.BotRecord:
    message = admin_pb2.BotRecord(name=bot.name, version=bot.version, digest=bot.digest)
    if bot.image is not None:
        message.image = bot.image
    return message


def _bot_from_proto(message: admin_pb2.BotRecord) -> BotRecord:
    image = message.image if message.HasField("image") else None
    return BotRecord(message.name, message.version, message.digest, image)


def time_control_to_proto(tc: TimeControl) -> bot_pb2.TimeControl:
    """The arena.v1 ``TimeControl`` a bot's MatchStart and a match header carry."""
    return bot_pb2.TimeControl(move_time_ms=tc.move_time_ms, time_bank_ms=tc.time_bank_ms,
                               startup_ms=tc.startup_ms, clock=tc.clock,
                               wall_guard=tc.wall_guard)


def time_control_from_proto(message: bot_pb2.TimeControl) -> TimeControl:
    """A time control back from arena.v1: an empty clock (a sender before the CPU clock) is the
    wall clock, a zero guard the default."""
    default = TimeControl()
    return TimeControl(message.move_time_ms, message.time_bank_ms, message.startup_ms,
                       message.clock or default.clock, message.wall_guard or default.wall_guard)


def _stats_to_proto(stats: SeatStats) -> admin_pb2.SeatStats:
    message = admin_pb2.SeatStats(meter=stats.meter)
    for name in ("startup_ms", "cpu_ms", "peak_memory_bytes"):
        value = getattr(stats, name)
        if value is not None:
            setattr(message, name, value)
    return message


def _stats_from_proto(message: admin_pb2.SeatStats) -> SeatStats:
    def value(name: str) -> Any:
        return getattr(message, name) if message.HasField(name) else None

    return SeatStats(value("startup_ms"), value("cpu_ms"), value("peak_memory_bytes"),
                     message.meter)


def event_to_proto(event: MatchEvent) -> admin_pb2.MatchEvent:
    """One typed match event as an arena.v1 ``MatchEvent``."""
    if isinstance(event, HeaderEvent):
        tc = event.time_control
        return admin_pb2.MatchEvent(header=admin_pb2.MatchHeader(
            match_id=event.match_id, game=event.game, game_version=event.game_version,
            options=_struct(event.options), seed=event.seed or 0,
            bots=[_bot_to_proto(b) for b in event.bots],
            time_control=time_control_to_proto(tc),
            sandbox=event.sandbox, arena_version=event.arena_version,
            started_at=event.started_at, log_format=event.log_format,
            seed_commitment=event.seed_commitment,
            ladder=None if event.slot is None else admin_pb2.LadderSlot(
                name=event.slot.name, encounter_id=event.slot.encounter_id,
                cycle=event.slot.cycle, leg=event.slot.leg),
        ))
    if isinstance(event, DealEvent):
        return admin_pb2.MatchEvent(deal=admin_pb2.DealRecord(round=event.round,
                                                              deal=_struct(event.deal)))
    if isinstance(event, DecisionEvent):
        record = admin_pb2.DecisionRecord(n=event.n, round=event.round, seat=event.seat,
                                          ms=event.ms)
        if event.action is not None:
            record.action = event.action
        if event.fault is not None:
            record.fault = termination_to_proto(event.fault)  # type: ignore[assignment]
        if event.cpu_ms is not None:
            record.cpu_ms = event.cpu_ms
        return admin_pb2.MatchEvent(decision=record)
    if isinstance(event, RoundEndEvent):
        round_end = admin_pb2.RoundEndRecord(
            round=event.round, scores=list(event.scores), totals=list(event.totals))
        if event.summary is not None:
            round_end.summary.CopyFrom(_struct(event.summary))
        return admin_pb2.MatchEvent(round_end=round_end)
    end = admin_pb2.MatchEndRecord(result=result_to_proto(event.result),
                                   seed_salt=event.seed_salt)
    for seat, path in enumerate(event.bot_logs):
        if path is not None:
            setattr(end, f"bot_log_{seat}", path)
    for stats in event.seat_stats or ():
        end.seat_stats.append(_stats_to_proto(stats))
    return admin_pb2.MatchEvent(match_end=end)


def event_from_proto(message: admin_pb2.MatchEvent) -> MatchEvent:
    """The typed event of an arena.v1 ``MatchEvent``; ``ValueError`` when it holds none."""
    kind = message.WhichOneof("kind")
    if kind == "header":
        h = message.header
        tc = h.time_control
        bots = [_bot_from_proto(b) for b in h.bots]
        return HeaderEvent(
            match_id=h.match_id, game=h.game, game_version=h.game_version,
            options=_from_struct(h.options), seed=h.seed, bots=_pair(bots),
            time_control=time_control_from_proto(tc),
            sandbox=h.sandbox, arena_version=h.arena_version, started_at=h.started_at,
            log_format=h.log_format, seed_commitment=h.seed_commitment,
            slot=LadderSlot(h.ladder.name, h.ladder.encounter_id, h.ladder.cycle, h.ladder.leg)
            if h.HasField("ladder") else None,
        )
    if kind == "deal":
        return DealEvent(message.deal.round, _from_struct(message.deal.deal))
    if kind == "decision":
        d = message.decision
        return DecisionEvent(d.n, d.round, d.seat, d.action if d.HasField("action") else None,
                             d.ms, termination_from_proto(d.fault) if d.fault else None,
                             d.cpu_ms if d.HasField("cpu_ms") else None)
    if kind == "round_end":
        r = message.round_end
        summary = _from_struct(r.summary) if r.HasField("summary") else None
        return RoundEndEvent(r.round, _pair(r.scores), _pair(r.totals), summary)
    if kind == "match_end":
        e = message.match_end
        logs = tuple(getattr(e, f"bot_log_{seat}") if e.HasField(f"bot_log_{seat}") else None
                     for seat in (0, 1))
        stats = [_stats_from_proto(s) for s in e.seat_stats]
        return MatchEndEvent(result_from_proto(e.result), (logs[0], logs[1]), e.seed_salt,
                             _pair(stats) if stats else None)
    raise ValueError("a MatchEvent without an event")
