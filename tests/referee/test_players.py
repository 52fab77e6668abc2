"""The match loop over the ``Player`` seam, without processes or sockets: every fault a seat can
commit ends in its named termination, and the remote seat's classification of what a bot did is
checked as the pure functions it is."""

from __future__ import annotations

import asyncio
import random
import time
from pathlib import Path
from typing import Any

import grpc
import pytest

from arena.errors import BotFault, SandboxError
from arena.games import game_ids, get_game
from arena.model import (
    BotSpec,
    DecisionEvent,
    MatchEndEvent,
    MatchEvent,
    MatchResult,
    MatchSpec,
    Termination,
    TimeControl,
)
from arena.record.replay import replay_log
from arena.referee.local import LocalPlayer, local_match, play_local
from arena.referee.match import Match
from arena.referee.player import DecisionRequest
from arena.referee.remote import (
    classify_closed,
    classify_exit,
    classify_silence,
    read_answer,
    read_hello,
)
from arena.referee.seat import MAX_BOT_MESSAGE_BYTES, StreamClosed
from arena.sandbox.api import ExitInfo
from arena.v1 import bot_pb2
from arena.wire import encode_action
from arena.wire.conversation import SeatStart

pytestmark = pytest.mark.unit


def first_legal(decision: Any) -> Any:
    return decision.legal_actions[0]


def seeded_random(seed: int) -> Any:
    rng = random.Random(seed)
    return lambda decision: rng.choice(decision.legal_actions)


def after(n: int, then: Any) -> Any:
    """A policy that plays the first legal action ``n`` times, then ``then(decision)``."""
    count = 0

    def policy(decision: Any) -> Any:
        nonlocal count
        count += 1
        return first_legal(decision) if count <= n else then(decision)

    return policy


def run_local(policies: tuple[Any, Any], **kwargs: Any) -> MatchResult:
    return asyncio.run(local_match("lost-cities", policies, 5, {"rounds": 1}, **kwargs))


# --- faults through the loop, in both seats -------------------------------------------------
def illegal(decision: Any) -> Any:
    game = get_game("lost-cities")
    legal = set(decision.legal_texts)
    return next(t for t in (f"play {c}{v} deck" for c in "YBWGR" for v in range(2, 11))
                if t not in legal and game.parse_action(t) is not None)


def boom(decision: Any) -> Any:
    raise RuntimeError("boom")


def slow(decision: Any) -> Any:
    time.sleep(0.05)
    return first_legal(decision)


@pytest.mark.parametrize("seat", [0, 1])
@pytest.mark.parametrize(
    ("bad", "termination", "detail"),
    [
        (illegal, Termination.ILLEGAL_ACTION, "illegal action"),
        (lambda d: "discard nothing", Termination.INVALID_ACTION, "discard nothing"),
        (boom, Termination.CRASH, "boom"),
        (lambda d: 42, Termination.INVALID_ACTION, "not a lost-cities action"),
    ],
)
def test_a_faulty_seat_forfeits(seat: int, bad: Any, termination: Termination,
                                detail: str) -> None:
    policies = (after(2, bad), first_legal) if seat == 0 else (first_legal, after(2, bad))
    result = run_local(policies)
    assert result.termination is termination, result.detail
    assert detail in result.detail
    assert result.faulty_seat == seat and result.winner == 1 - seat and not result.void
    assert result.decisions == 5 + seat  # two good answers each, then the bad one


def test_a_slow_answer_is_a_timeout_even_in_process() -> None:
    result = run_local((first_legal, after(1, slow)),
                       time_control=TimeControl(move_time_ms=20, startup_ms=1000))
    assert result.termination is Termination.TIMEOUT and result.faulty_seat == 1
    assert "limit exceeded" in result.detail


@pytest.mark.integration
def test_the_bank_pays_for_overruns() -> None:
    result = run_local((first_legal, after(1, slow)),
                       time_control=TimeControl(move_time_ms=20, time_bank_ms=60_000,
                                                startup_ms=1000))
    assert result.termination is Termination.NORMAL, result.detail


class ScriptedPlayer(LocalPlayer):
    """An in-process seat that fails in ways only a remote seat can (start-up, sandbox)."""

    def __init__(self, seat: int, fail_connect: BaseException | None = None) -> None:
        super().__init__(seat, first_legal)
        self.fail_connect = fail_connect
        self.closed = False
        self.finished: MatchResult | None = None

    async def connect(self, timeout_s: float) -> None:
        if self.fail_connect is not None:
            raise self.fail_connect

    async def finish(self, result: MatchResult) -> None:
        self.finished = result

    async def close(self) -> None:
        self.closed = True


def _spec() -> MatchSpec:
    bots = (BotSpec("a", "lost-cities"), BotSpec("b", "lost-cities"))
    return MatchSpec("lost-cities", 3, bots, {"rounds": 1}, TimeControl(), match_id="seam")


def _run(players: tuple[Any, Any], log_dir: Path | None = None) -> tuple[MatchResult,
                                                                         list[MatchEvent]]:
    events: list[MatchEvent] = []
    match = Match(_spec(), sandbox_name="test", log_dir=log_dir, on_event=events.append)
    return asyncio.run(match.run(players)), events


def test_one_seat_that_never_starts_forfeits() -> None:
    players = (ScriptedPlayer(0), ScriptedPlayer(1, BotFault(Termination.NO_START, "gone", 1)))
    result, events = _run(players)
    assert result.termination is Termination.NO_START and result.faulty_seat == 1
    assert result.winner == 0 and result.decisions == 0
    assert all(p.closed and p.finished == result for p in players)
    assert isinstance(events[-1], MatchEndEvent) and events[-1].result == result


def test_both_seats_failing_to_start_is_void() -> None:
    players = (ScriptedPlayer(0, BotFault(Termination.NO_START, "x", 0)),
               ScriptedPlayer(1, BotFault(Termination.NO_START, "y", 1)))
    result, _ = _run(players)
    assert result.termination is Termination.NO_START and result.void
    assert result.faulty_seat is None and result.winner is None
    assert "both bots failed to start" in result.detail


def test_a_sandbox_failure_is_void_and_nobodys_fault() -> None:
    players = (ScriptedPlayer(0), ScriptedPlayer(1, SandboxError("the engine went away")))
    result, _ = _run(players)
    assert result.termination is Termination.INTERNAL and result.void
    assert result.faulty_seat is None and "engine went away" in result.detail
    assert all(p.closed for p in players)


def test_the_loop_logs_a_replayable_match(tmp_path: Path) -> None:
    players = (ScriptedPlayer(0), LocalPlayer(1, seeded_random(1)))
    result, events = _run(players, tmp_path)
    assert result.termination is Termination.NORMAL
    assert result.log == str(tmp_path / "seam.jsonl")
    decisions = [e for e in events if isinstance(e, DecisionEvent)]
    assert [e.n for e in decisions] == list(range(1, result.decisions + 1))
    report = replay_log(tmp_path / "seam.jsonl")
    assert report.finished and report.decisions == result.decisions


@pytest.mark.integration
@pytest.mark.parametrize("game_id", game_ids())
def test_play_local_is_the_loop_and_is_reproducible(game_id: str) -> None:
    policies = (seeded_random(1), seeded_random(2))
    first = play_local(game_id, policies, 11)
    again = play_local(game_id, (seeded_random(1), seeded_random(2)), 11)
    assert first == again
    assert first.totals == (sum(r[0] for r in first.rounds), sum(r[1] for r in first.rounds))


def test_play_local_raises_on_a_fault() -> None:
    with pytest.raises(Exception, match="illegal_action"):
        play_local("lost-cities", (after(0, illegal), first_legal), 1)


def test_local_player_calls_the_sdk_hooks() -> None:
    class Hooked:
        def __init__(self) -> None:
            self.calls: list[str] = []

        def match_start(self, info: Any) -> None:
            self.calls.append(f"start seat {info.seat}")

        def decide(self, decision: Any) -> Any:
            return first_legal(decision)

        def round_end(self, round_index: int, scores: Any, totals: Any) -> None:
            self.calls.append(f"round {round_index}")

        def match_end(self, result: str, termination: str, totals: Any) -> None:
            self.calls.append(f"{result} {termination}")

    policy = Hooked()
    result = run_local((first_legal, policy))
    outcome = result.outcome_for(1).name
    assert policy.calls == ["start seat 1", "round 0",
                            f"MATCH_RESULT_{outcome} TERMINATION_NORMAL"]


# --- the remote seat's classification (pure) -------------------------------------------------
def test_closed_streams_are_classified() -> None:
    too_big = classify_closed(StreamClosed("Received message larger than max (70000 vs. 65536)",
                                           grpc.StatusCode.RESOURCE_EXHAUSTED))
    assert too_big.termination is Termination.OVERSIZED_MESSAGE
    garbage = classify_closed(StreamClosed("Error parsing message with type BotMessage"))
    assert garbage.termination is Termination.PROTOCOL_VIOLATION
    assert "not an arena.v1 BotMessage" in garbage.detail
    ended = classify_closed(StreamClosed("the bot closed its stream"))
    assert ended.termination is Termination.PROTOCOL_VIOLATION
    assert "ended before the match did" in ended.detail


def test_silence_at_the_memory_limit_is_a_memory_fault() -> None:
    mib = 1 << 20
    at_limit = classify_silence(10.0, 510 * mib, 512)
    assert at_limit.termination is Termination.MEMORY
    assert at_limit.detail == ("no answer within 10000 ms: it reached its memory limit "
                               "(510 MiB of 512 MiB)")
    for peak, limit in ((100 * mib, 512), (None, 512), (510 * mib, None)):
        slow = classify_silence(10.0, peak, limit)
        assert (slow.termination, slow.detail) == (Termination.TIMEOUT,
                                                   "no answer within 10000 ms")


def test_exits_are_classified() -> None:
    assert classify_exit(ExitInfo(3), "; last output: x").termination is Termination.CRASH
    assert classify_exit(ExitInfo(None, 9, oom_killed=True)).termination is Termination.MEMORY
    with pytest.raises(SandboxError, match="daemon"):
        classify_exit(ExitInfo(-1, sandbox_error="the daemon died"))


def _answer(decision_id: int, **choice: Any) -> bot_pb2.BotMessage:
    return bot_pb2.BotMessage(decision=bot_pb2.DecisionResponse(decision_id=decision_id,
                                                                **choice))


def test_answers_are_read_or_named() -> None:
    game = get_game("lost-cities")
    action = game.legal_actions(game.new_match(1))[0]
    text = game.format_action(action)
    assert read_answer("lost-cities", _answer(4, action_text=text), 4) == action
    typed = encode_action("lost-cities", action)
    assert read_answer("lost-cities", _answer(4, action=typed), 4) == action
    cases = [
        (_answer(3, action_text=text), Termination.PROTOCOL_VIOLATION, "expected 4"),
        (_answer(4, action_text="fly away"), Termination.INVALID_ACTION, ""),
        (_answer(4), Termination.INVALID_ACTION, "no action"),
        (_answer(4, action=encode_action("portas", get_game("portas").legal_actions(
            get_game("portas").new_match(1))[0])), Termination.INVALID_ACTION, "portas"),
        (bot_pb2.BotMessage(hello=bot_pb2.Hello()), Termination.PROTOCOL_VIOLATION,
         "DecisionResponse"),
        (_answer(4, action_text="x" * (MAX_BOT_MESSAGE_BYTES + 1)),
         Termination.OVERSIZED_MESSAGE, "limit"),
    ]
    for message, termination, detail in cases:
        with pytest.raises(BotFault) as caught:
            read_answer("lost-cities", message, 4)
        assert caught.value.termination is termination and detail in caught.value.detail


def test_hellos_are_checked() -> None:
    import arena

    read_hello(bot_pb2.BotMessage(hello=bot_pb2.Hello(
        bot_name="x", protocol_version=arena.PROTOCOL_VERSION)))
    for message, detail in [
        (bot_pb2.BotMessage(hello=bot_pb2.Hello(protocol_version=99)), "protocol version 99"),
        (_answer(1, action_text="pass"), "first message was not Hello"),
        (bot_pb2.BotMessage(hello=bot_pb2.Hello(
            bot_name="x" * 65, protocol_version=arena.PROTOCOL_VERSION)), "65 characters"),
        (bot_pb2.BotMessage(hello=bot_pb2.Hello(
            bot_version="1\x1b[2J", protocol_version=arena.PROTOCOL_VERSION)), "non-printable"),
    ]:
        with pytest.raises(BotFault, match=detail) as caught:
            read_hello(message)
        assert caught.value.termination is Termination.PROTOCOL_VIOLATION


def test_local_player_speaks_the_player_protocol() -> None:
    """The in-process seat answers from the request it was asked (no hidden state)."""
    player = LocalPlayer(0, lambda d: d.legal_texts[-1])
    game = get_game("lost-cities")
    state = game.new_match(2)
    legal = tuple(game.legal_actions(state))

    async def scenario() -> Any:
        await player.start(SeatStart("m", game.id, game.version, game.options_of(state), 0,
                                     TimeControl(), ("a", "b")))
        await player.ask(DecisionRequest(1, 0, game.observation(state, 0), legal,
                                         tuple(game.format_action(a) for a in legal), 1000, 0))
        return await player.answer(1.0)

    assert asyncio.run(scenario()) == legal[-1]
