"""Issue 25 point 3: the SDK decodes a decision's observation when the policy first reads it.

A bot that only picks among the legal actions no longer pays for decoding the view (50-140 µs
of a round trip, measured). What must hold: a policy that reads the observation gets exactly
the view an eager decode gives, whichever decisions it skipped before and in whatever order it
reads them (the history decoder is incremental), and nothing is decoded for a policy that does
not look. Real requests: encoded by the referee's codec, serialized and parsed as on the wire,
fed to the SDK's real session."""

from __future__ import annotations

import copy
import pickle
import random
from typing import Any

import pytest

from arena.games import get_game
from arena.sdk.client import _Session
from arena.sdk.decision import Decision
from arena.v1 import bot_pb2
from arena.wire import ObservationDecoder, decode_observation, encode_observation
from arena.wire.legal import fill_legal_actions

pytestmark = pytest.mark.unit


class _Counting(ObservationDecoder):
    """The SDK's decoder, counting its decodes."""

    decodes = 0

    def decode(self, message: bot_pb2.Observation) -> Any:
        type(self).decodes += 1
        return super().decode(message)


def _request(game_id: str, state: Any, seat: int, number: int) -> bot_pb2.DecisionRequest:
    """A decision request as the referee sends it, through its wire bytes."""
    game = get_game(game_id)
    request = bot_pb2.DecisionRequest(
        decision_id=number, round=game.round_index(state),
        observation=encode_observation(game_id, game.observation(state, seat)))
    fill_legal_actions(request, [game.format_action(a) for a in game.legal_actions(state)])
    wire = bot_pb2.RefereeMessage(decision=request).SerializeToString()
    return bot_pb2.RefereeMessage.FromString(wire).decision


def _play(game_id: str, seed: int, look: Any, late: float = 0.2
          ) -> tuple[int, int, list[tuple[Any, Any]]]:
    """A whole random match where seat 0 is the SDK's session and its policy reads the
    observation of a decision when ``look(rng)`` says so, and with probability ``late`` that of
    an older decision; returns the decisions, the decodes and (read view, eager view) pairs."""
    game = get_game(game_id)
    rng = random.Random(seed)
    seen: list[tuple[Decision, bot_pb2.DecisionRequest]] = []
    compared: list[tuple[Any, Any]] = []
    asked: list[bot_pb2.DecisionRequest] = []

    def policy(decision: Decision) -> str:
        seen.append((decision, asked[-1]))
        if look(rng):
            compared.append((decision.observation,
                             decode_observation(game_id, asked[-1].observation)))
        if len(seen) > 3 and rng.random() < late:  # an older decision, read late
            old, request = seen[rng.randrange(len(seen) - 1)]
            compared.append((old.observation, decode_observation(game_id, request.observation)))
        return rng.choice(decision.legal_texts)

    session = _Session(policy, "lazy", "")
    session.on_match_start(bot_pb2.MatchStart(match_id="m", game=game_id, seat=0))
    _Counting.decodes = 0
    session.observations = _Counting(game_id)
    state = game.new_match(seed)
    while (seat := game.to_move(state)) is not None:
        if seat == 0:
            asked.append(_request(game_id, state, 0, len(asked) + 1))
            session.on_decision(asked[-1])
            answer = session.pending()[-1].decision
            assert answer.decision_id == len(asked)
            action = game.parse_action(answer.action_text)
        else:
            action = rng.choice(game.legal_actions(state))
        state = game.apply(state, action)
    return len(seen), _Counting.decodes, compared


@pytest.mark.integration
@pytest.mark.parametrize("game_id", ["lost-cities", "haggis", "portas"])
def test_a_view_read_late_or_after_skips_is_the_eager_one(game_id: str) -> None:
    for seed in range(3):
        decisions, decodes, compared = _play(game_id, seed, lambda rng: rng.random() < 0.4)
        assert decisions > 5 and compared
        for read, eager in compared:
            assert read == eager
        assert decodes <= len(compared)  # once per decision read, at most


@pytest.mark.parametrize("game_id", ["lost-cities", "portas"])
def test_a_policy_that_never_looks_decodes_nothing(game_id: str) -> None:
    decisions, decodes, compared = _play(game_id, 7, lambda rng: False, late=0.0)
    assert decisions > 5 and decodes == 0 and not compared


def test_a_received_decision_prints_compares_and_copies_as_a_plain_one() -> None:
    captured: list[Decision] = []
    session = _Session(lambda decision: captured.append(decision) or decision.legal_texts[0],
                       "lazy", "")
    session.on_match_start(bot_pb2.MatchStart(match_id="m", game="lost-cities", seat=0))
    game = get_game("lost-cities")
    session.on_decision(_request("lost-cities", game.new_match(3), 0, 1))
    decision = captured[0]
    plain = Decision(match=decision.match, round=decision.round,
                     observation=decision.observation, legal_texts=decision.legal_texts,
                     time_left_ms=decision.time_left_ms, decision_id=decision.decision_id)
    assert decision == plain and plain == decision
    assert repr(decision) == repr(plain) and repr(decision).startswith("Decision(")
    for copied in (copy.copy(decision), copy.deepcopy(decision),
                   pickle.loads(pickle.dumps(decision))):
        assert type(copied) is Decision and copied == plain
