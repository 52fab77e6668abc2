"""The SDK's connection loop: one bidirectional gRPC stream per match, read and written by a
coroutine on an event loop in the bot's main thread, the policy called between a read and the
next write.

Why not gRPC's synchronous API: its bidirectional stream reads on one thread and consumes the
request iterator on another, so every decision crossed threads twice in the bot (the message
handed from gRPC's thread to the main one, the answer from the main thread to the sender's);
on a busy host each crossing can wait for the scheduler (measured: single decisions of 3-50 ms
where the median took 0.7 ms), and the median round trip was 10-15% longer. The policy is
called with no running event loop (``_without_running_loop``), as before: a policy may run
asyncio itself (``asyncio.run`` inside ``decide``), and ``run`` may be called from code that
has a loop running.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import os
import queue
import sys
from collections.abc import Callable
from typing import Any

import grpc

from arena.games import get_game
from arena.sdk.collect import collect_if_due
from arena.sdk.decision import MatchInfo, received
from arena.sdk.policy import PolicyCalls
from arena.v1 import bot_pb2, bot_pb2_grpc
from arena.wire import ObservationDecoder, conversation, encode_action, encode_observation
from arena.wire.legal import fill_legal_actions, legal_texts

MAX_RECEIVE_BYTES = 16 * 1024 * 1024
"""Largest message the SDK accepts from the referee (the referee never sends more)."""


class _Session:
    """State of one match as seen by the bot."""

    def __init__(self, policy: Any, name: str, version: str) -> None:
        self.policy = PolicyCalls(policy)
        self.outbox: queue.SimpleQueue[bot_pb2.BotMessage | None] = queue.SimpleQueue()
        self.outbox.put(conversation.hello(name, version))
        self.info: MatchInfo | None = None
        self.observations: ObservationDecoder | None = None

    def pending(self) -> list[bot_pb2.BotMessage]:
        """The messages the bot has to send, in order (taken from the outbox)."""
        messages = []
        with contextlib.suppress(queue.Empty):
            while (message := self.outbox.get_nowait()) is not None:
                messages.append(message)
        return messages

    def on_match_start(self, message: bot_pb2.MatchStart) -> None:
        start = conversation.seat_start(message)
        self.observations = ObservationDecoder(start.game)
        tc = start.time_control
        self.info = MatchInfo(
            match_id=start.match_id,
            game=start.game,
            game_version=start.game_version,
            seat=start.seat,
            options=start.options,
            move_time_ms=tc.move_time_ms,
            time_bank_ms=tc.time_bank_ms,
            bot_names=start.bot_names,
            clock=tc.clock,
            wall_guard=tc.wall_guard,
        )
        self.policy.match_start(self.info)

    def on_decision(self, request: bot_pb2.DecisionRequest) -> None:
        if self.info is None or self.observations is None:
            raise RuntimeError("decision request before match start")
        decision = received(  # the observation decoded when the policy first reads it
            self.observations.decode, request.observation,
            match=self.info,
            round=request.round,
            legal_texts=legal_texts(request),  # the whole list, also when sent compact
            time_left_ms=request.time_left_ms,
            decision_id=request.decision_id,
            parsed_actions=None,
        )
        choice = self.policy.decide(decision)
        message = bot_pb2.BotMessage()  # the answer built in place (no copy into the envelope)
        response = message.decision
        response.decision_id = request.decision_id
        if isinstance(choice, str):
            response.action_text = choice
        else:
            response.action.CopyFrom(encode_action(self.info.game, choice))
        self.outbox.put(message)

    def on_round_end(self, end: bot_pb2.RoundEnd) -> None:
        self.policy.round_end(end.round, tuple(end.scores), tuple(end.totals))

    def on_match_end(self, message: bot_pb2.MatchEnd) -> None:
        end = conversation.match_ending(message)
        self.policy.match_end(end.result, end.termination, end.totals, detail=end.detail,
                              faulty_seat=end.faulty_seat)


def _warm_up(game_id: str | None) -> None:
    """Run the whole decision path once on a real observation before connecting (imports,
    protobuf classes, first-call caches), so the first decision, whose clock is already
    running, costs what every other decision costs (measured: ~1 ms -> ~0.1 ms)."""
    if not game_id:
        return
    try:
        game = get_game(game_id)
        state = game.new_match(0)
        request = bot_pb2.DecisionRequest(
            decision_id=1,
            observation=encode_observation(game_id, game.observation(state, 0)),
        )
        fill_legal_actions(request, [game.format_action(a) for a in game.legal_actions(state)])
        wire = bot_pb2.RefereeMessage(decision=request).SerializeToString()
        session = _Session(lambda decision: (decision.observation, decision.legal_texts[0])[1],
                           "warm-up", "")
        session.on_match_start(bot_pb2.MatchStart(match_id="warm-up", game=game_id, seat=0))
        session.on_decision(bot_pb2.RefereeMessage.FromString(wire).decision)
        for _ in range(2):  # the Hello and the answer
            message = session.outbox.get_nowait()
            if message is not None:
                message.SerializeToString()
    except Exception:  # noqa: BLE001 — warming up is best effort; MatchStart reports problems
        return
    # Keep the long-lived start-up objects out of later collections, so no full collection
    # lands inside a timed decision. (A gc.collect() first cost 5 ms of every bot start and
    # found nothing to free, measured.)
    gc.freeze()


def _without_running_loop(func: Callable[..., Any], *args: Any) -> Any:
    """Call ``func(*args)`` as if no event loop were running in this thread (the SDK's own, or
    a caller's): asyncio refuses to start a loop where one runs, and a policy or the code
    around ``run`` may start one."""
    running = asyncio._get_running_loop()
    asyncio._set_running_loop(None)
    try:
        return func(*args)
    finally:
        asyncio._set_running_loop(running)


async def _play(session: _Session, target: str) -> None:
    """Play the match on ``target``: send what the session has to say, read the referee's next
    message, hand it to the session (the policy runs there), until the match end."""
    options = [("grpc.max_receive_message_length", MAX_RECEIVE_BYTES)]
    async with grpc.aio.insecure_channel(target, options=options) as channel:
        call = bot_pb2_grpc.BotServiceStub(channel).Play()
        handlers: dict[str, Callable[[Any], None]] = {
            "match_start": session.on_match_start,
            "decision": session.on_decision,
            "round_end": session.on_round_end,
            "match_end": session.on_match_end,
        }
        while True:
            for outgoing in session.pending():
                await call.write(outgoing)
            collect_if_due()  # while no clock runs: the answer is out (arena.sdk.collect)
            message = await call.read()
            if message is grpc.aio.EOF:  # the referee ended the stream
                return
            kind = message.WhichOneof("kind")
            handler = handlers.get(kind)
            if handler is not None:
                _without_running_loop(handler, getattr(message, kind))
            if kind == "match_end":
                await call.done_writing()
                return


def run(policy: Any, *, name: str, version: str = "", target: str | None = None) -> None:
    """Play one match on the socket in ``$ARENA_SOCKET`` (or ``target``) and return at its end."""
    target = target or os.environ.get("ARENA_SOCKET")
    if not target:
        sys.exit("ARENA_SOCKET is not set: run this bot through the arena (`arena match ...`)")
    _warm_up(os.environ.get("ARENA_GAME"))
    session = _Session(policy, name, version)
    loop = asyncio.new_event_loop()
    try:
        _without_running_loop(loop.run_until_complete, _play(session, target))
    finally:
        try:
            _without_running_loop(_cancel_leftovers, loop)
        finally:
            loop.close()


def _cancel_leftovers(loop: asyncio.AbstractEventLoop) -> None:
    """Cancel the tasks still pending on ``loop`` and let them finish, as ``asyncio.run`` does:
    gRPC leaves its call's status task waiting when the bot returns at MatchEnd before the
    referee ends the stream, and a loop closed over a pending task makes asyncio print "Task was
    destroyed but it is pending!" into the bot's output when the task is collected."""
    leftovers = asyncio.all_tasks(loop)
    if not leftovers:
        return
    for task in leftovers:
        task.cancel()
    loop.run_until_complete(asyncio.gather(*leftovers, return_exceptions=True))
