"""Compact legal actions (issue 25, point 2): every DecisionRequest of every game stays within
64 kB, the worst Haggis lead included, and expanding the compact form gives exactly the legal
action texts in the game's order; small lists still travel as the plain text list, and the
sample left in ``legal_actions`` beside a compact form is legal, ordered and within its budget.
"""

from __future__ import annotations

import random
import zlib
from collections.abc import Iterator
from typing import Any

import pytest

from arena.games import game_ids, get_game, haggis
from arena.sdk.client import _Session
from arena.sdk.decision import Decision
from arena.v1 import bot_pb2
from arena.wire import ObservationEncoder
from arena.wire.legal import (
    REQUEST_LIMIT,
    SAMPLE_BUDGET,
    TEXTS_BUDGET,
    compact_legal_actions,
    expand_legal_actions,
    factor_suffixes,
    fill_legal_actions,
    legal_texts,
)
from tests.support.compact_legal import worst_haggis_lead

pytestmark = pytest.mark.unit

SEEDS = range(4)


def playout_positions(game_id: str, seed: int) -> Iterator[tuple[Any, list[str]]]:
    """Every position of a random match: the state and its legal texts."""
    game = get_game(game_id)
    state = game.new_match(seed)
    rng = random.Random(seed)
    while game.to_move(state) is not None:
        legal = game.legal_actions(state)
        yield state, [game.format_action(a) for a in legal]
        state = game.apply(state, rng.choice(legal))


def request_bytes(game_id: str, encoder: ObservationEncoder, state: Any,
                  texts: list[str]) -> bytes:
    """The referee's message for a position, built as the referee builds it."""
    game = get_game(game_id)
    message = bot_pb2.RefereeMessage()
    decision = message.decision
    decision.decision_id = 4_000_000
    decision.round = game.round_index(state)
    encoder.encode_into(decision.observation, game.observation(state, game.to_move(state)))
    fill_legal_actions(decision, texts)
    decision.time_left_ms = decision.time_bank_ms = 4_000_000
    data: bytes = message.SerializeToString()
    return data


def received(data: bytes) -> bot_pb2.DecisionRequest:
    return bot_pb2.RefereeMessage.FromString(data).decision


def assert_sample(request: bot_pb2.DecisionRequest, texts: list[str]) -> None:
    """The sample beside a compact form: the first text, then others in the game's order, all
    legal, within its budget."""
    sample = list(request.legal_actions)
    assert sample and sample[0] == texts[0]
    where = {text: index for index, text in enumerate(texts)}
    positions = [where[text] for text in sample]  # KeyError: a text that is not legal
    assert positions == sorted(set(positions))
    assert sum(len(text.encode()) + 2 for text in sample) <= SAMPLE_BUDGET


@pytest.mark.integration
@pytest.mark.parametrize("game_id", game_ids())
def test_every_request_of_random_playouts_fits_and_expands_exactly(game_id: str) -> None:
    compact = 0
    for seed in SEEDS:
        encoder = ObservationEncoder(game_id)
        for state, texts in playout_positions(game_id, seed):
            data = request_bytes(game_id, encoder, state, texts)
            assert len(data) <= REQUEST_LIMIT, (game_id, seed, len(texts))
            request = received(data)
            assert legal_texts(request) == tuple(texts)
            if request.HasField("legal_actions_compact"):
                compact += 1
                assert_sample(request, texts)
            else:  # the plain list, complete, as every bot before the compact form read it
                assert list(request.legal_actions) == texts
    if game_id == "haggis":
        assert compact > 0  # the compact form was exercised (every round's first leads)
    if game_id == "lost-cities":
        assert compact == 0


def test_the_worst_haggis_lead_fits_in_64_kB_and_expands_to_every_action() -> None:
    state, texts = worst_haggis_lead()
    assert len(texts) == 19_026 and sum(map(len, texts)) > 800_000
    data = request_bytes("haggis", ObservationEncoder("haggis"), state, texts)
    assert len(data) <= REQUEST_LIMIT
    request = received(data)
    assert request.HasField("legal_actions_compact")
    assert list(request.legal_actions_compact.suffixes) == ["", " bet 15", " bet 30"]
    assert request.legal_actions_compact.count == len(texts)
    assert legal_texts(request) == tuple(texts)
    assert_sample(request, texts)


def test_lost_cities_always_sends_the_plain_list() -> None:
    """Lost Cities offers at most 8 cards x 2 plays x 6 draws, each text at most
    ``discard Y10 draw Y``: far under the budget, so bots on older code (the C++ and JS
    samples) always see exactly what they always saw."""
    worst = [f"{verb} {colour}10 draw {pile}" for verb in ("play", "discard")
             for colour in "YBWGRY" + "YB" for pile in ("deck", "Y", "B", "W", "G", "R")]
    assert len(worst) == 8 * 2 * 6
    request = bot_pb2.DecisionRequest()
    fill_legal_actions(request, worst)
    assert list(request.legal_actions) == worst
    assert not request.HasField("legal_actions_compact")


def test_the_sdk_gives_a_python_bot_every_legal_action_of_a_compact_request() -> None:
    """The SDK's session, fed the referee's bytes: ``legal_texts`` is the whole list, and
    ``legal_actions`` the whole list parsed."""
    state, texts = worst_haggis_lead()
    seen: list[Decision] = []
    session = _Session(lambda decision: seen.append(decision) or decision.legal_texts[-1],
                       "probe", "1")
    session.on_match_start(bot_pb2.MatchStart(match_id="m", game="haggis", seat=state.leader))
    session.on_decision(received(request_bytes("haggis", ObservationEncoder("haggis"), state,
                                               texts)))
    (decision,) = seen
    assert decision.legal_texts == tuple(texts)
    assert decision.legal_actions == tuple(haggis.GAME.legal_actions(state))
    session.outbox.get_nowait()  # the Hello
    answer = session.outbox.get_nowait()
    assert answer is not None and answer.decision.action_text == texts[-1]


@pytest.mark.parametrize("texts", [
    ["a"] * 3,  # repeats: every text its own body, or one body and suffixes "" "" ""
    ["", "x", "", "x"],  # an empty body
    ["ab", "abc", "abd", "x", "xc", "xd", "q", "qc"],  # suffixes that stop fitting
    ["ab", "abc", "abd", "x", "xc", "xe"],  # the last suffix differs
    ["pass", "pass bet 15"] * 2,
    ["é", "é ü", "€ 2", "€ 2 ü"],  # UTF-8 beyond ASCII
    ["lead " + "x" * 40_000],  # one long text
])
def test_factoring_and_compacting_are_exact_on_awkward_lists(texts: list[str]) -> None:
    bodies, suffixes = factor_suffixes(texts)
    assert suffixes[0] == ""
    assert [b + s for b in bodies for s in suffixes] == texts
    many = texts * (1 + 4 * TEXTS_BUDGET // sum(len(text) + 1 for text in texts))
    compact = compact_legal_actions(many)  # large enough to be worth compacting
    assert compact is not None
    assert expand_legal_actions(compact) == tuple(many)


def test_random_lists_round_trip() -> None:
    rng = random.Random(25)
    words = ["set", "run", "4G", "J=4", "bet", "15", "30", "", "pass", "ü"]
    for _ in range(200):
        bodies = [" ".join(rng.choices(words, k=rng.randint(0, 6)))
                  for _ in range(rng.randint(1, 40))]
        suffixes = rng.choice([[""], ["", " bet 15", " bet 30"], ["", "x"], ["y"]])
        texts = [b + s for b in bodies for s in suffixes]
        if rng.random() < 0.3:
            texts.pop(rng.randrange(len(texts)))
        if not texts:
            continue
        compact = compact_legal_actions(texts * 50)
        expanded = texts * 50 if compact is None else list(expand_legal_actions(compact))
        assert expanded == texts * 50


def test_texts_over_the_budget_are_sent_plainly_when_compacting_cannot_help() -> None:
    """A text holding a line feed cannot be a line of the bodies; texts that do not compress
    are no smaller compact: both go as the plain (complete) list."""
    with_newline = ["a\nb"] + [f"t{i}" for i in range(TEXTS_BUDGET)]
    request = bot_pb2.DecisionRequest()
    fill_legal_actions(request, with_newline)
    assert not request.HasField("legal_actions_compact")
    assert list(request.legal_actions) == with_newline
    rng = random.Random(7)
    noise = [rng.randbytes(64).hex() for _ in range(1000)]  # hex of random bytes
    request = bot_pb2.DecisionRequest()
    fill_legal_actions(request, noise)
    assert legal_texts(request) == tuple(noise)


def test_a_malformed_compact_form_is_an_error_not_a_wrong_list() -> None:
    texts = ["set 4: 4G", "set 4: 4G bet 15", "set 5: 5G", "set 5: 5G bet 15"] * 3000
    compact = compact_legal_actions(texts)
    assert compact is not None
    for change in (
        {"bodies_zlib": b"not zlib"},
        {"bodies_zlib": zlib.compress(b"set 4: 4G")},  # the size does not agree
        {"count": compact.count + 1},
    ):
        broken = bot_pb2.CompactLegalActions()
        broken.CopyFrom(compact)
        for name, value in change.items():
            setattr(broken, name, value)
        with pytest.raises(ValueError, match="compact legal actions"):
            expand_legal_actions(broken)
