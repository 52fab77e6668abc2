"""The game-protocol contract (arena/games/api.py), checked on every installed game (the three
built-ins, and any game package installed here, e.g. examples/goofspiel): first each check of the
conformance gate (``arena.gate``, what ladders require of a game), then deeper sweeps of
the same contract (every legal action of every position, many matches)."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from arena.errors import IllegalActionError, InvalidActionError, OptionsError
from arena.games import game_ids, get_game, plugin
from arena.games.api import Game
from arena.games.builtin import BUILTIN_ORDER
from arena.gate import CHECK_FUNCTIONS, CHECKS, Subject, run_gate
from arena.wire import codec_for, decode_action, encode_action, observation_bytes

pytestmark = pytest.mark.unit

SEEDS = (1, 2, 3)
GAME_IDS = game_ids()
"""Every installed game: the built-ins first."""
assert GAME_IDS[:3] == BUILTIN_ORDER, "the built-in games are always installed"
_subjects: dict[str, Subject] = {}


@pytest.fixture(scope="module")
def gate_dir(tmp_path_factory: pytest.TempPathFactory) -> Any:
    return tmp_path_factory.mktemp("gate")


@pytest.mark.integration
@pytest.mark.parametrize("check", CHECKS)
@pytest.mark.parametrize("game_id", GAME_IDS)
def test_the_gate_check(game_id: str, check: str, gate_dir: Any) -> None:
    """One check of the conformance gate (the playouts and logs shared by a game's checks)."""
    subject = _subjects.setdefault(game_id, Subject(game_id, 3))
    subject.workdir = gate_dir / game_id
    CHECK_FUNCTIONS[check](subject)


@pytest.mark.integration
def test_the_gate_runs_every_check_in_order() -> None:
    report = run_gate(plugin("portas"), matches=1)
    assert tuple(c.name for c in report.checks) == CHECKS and report.passed


def playout(game: Game[Any, Any, Any], seed: int, policy_seed: int, check: bool = True
            ) -> list[Any]:
    """A uniform-random match; returns every state. Checks the contract at each step."""
    rng = random.Random(policy_seed)
    state = game.new_match(seed)
    states = [state]
    for _ in range(20_000):
        seat = game.to_move(state)
        if seat is None:
            break
        if check:
            check_state(game, state, seat)
        legal = game.legal_actions(state)
        state = game.apply(state, rng.choice(legal))
        states.append(state)
    else:
        pytest.fail(f"{game.id}: a random match did not end in 20000 decisions")
    return states


def check_state(game: Game[Any, Any, Any], state: Any, seat: int) -> None:
    legal = game.legal_actions(state)
    assert seat in (0, 1)
    assert legal, "a running match must offer at least one legal action"
    assert len(set(legal)) == len(legal), "legal actions must be distinct"
    assert tuple(game.legal_actions(state)) == tuple(legal), "legal actions must be stable"
    assert game.round_index(state) == len(game.finished_rounds(state))
    assert game.outcome(state) is None
    for action in legal:
        assert game.is_legal(state, action)
        text = game.format_action(action)
        assert game.parse_action(text) == action, text
        assert game.format_action(game.parse_action(text)) == text
    for seat_ in (0, 1):
        view = game.observation(state, seat_)
        codec = codec_for(game.id)
        assert codec.observation_from_proto(codec.observation_to_proto(view)) == view


@pytest.mark.integration
@pytest.mark.parametrize("game_id", GAME_IDS)
def test_random_playouts_keep_the_contract(game_id: str) -> None:
    game = get_game(game_id)
    for seed in SEEDS[:2]:
        states = playout(game, seed, seed + 100)
        final = states[-1]
        result = game.outcome(final)
        assert result is not None
        assert game.to_move(final) is None
        rounds = game.finished_rounds(final)
        assert result.rounds == rounds
        assert result.totals == (sum(r[0] for r in rounds), sum(r[1] for r in rounds))
        if result.totals[0] != result.totals[1]:
            assert result.winner == (0 if result.totals[0] > result.totals[1] else 1)
        else:
            assert result.winner is None


@pytest.mark.integration
@pytest.mark.parametrize("game_id", GAME_IDS)
def test_every_offered_action_is_accepted_over_many_matches(game_id: str) -> None:
    """Cheap and wide: 40 random matches where each chosen action must pass ``is_legal`` (the
    full per-state checks above run on fewer matches)."""
    game = get_game(game_id)
    for seed in range(100, 140):
        rng = random.Random(seed)
        state = game.new_match(seed)
        while game.to_move(state) is not None:
            action = rng.choice(game.legal_actions(state))
            assert game.is_legal(state, action), (seed, game.format_action(action))
            state = game.apply(state, action)


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_rounds_finish_one_at_a_time(game_id: str) -> None:
    game = get_game(game_id)
    states = playout(game, 7, 8, check=False)
    counts = [len(game.finished_rounds(s)) for s in states]
    assert all(b - a in (0, 1) for a, b in zip(counts, counts[1:], strict=False))
    assert counts[-1] >= 1


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_same_seed_same_match(game_id: str) -> None:
    game = get_game(game_id)
    first = playout(game, 42, 5, check=False)
    second = playout(game, 42, 5, check=False)
    assert len(first) == len(second)
    for a, b in zip(first[::7], second[::7], strict=True):
        assert game.deal_record(a) == game.deal_record(b)
        for seat in (0, 1):
            assert observation_bytes(game_id, game.observation(a, seat)) == observation_bytes(
                game_id, game.observation(b, seat)
            )
    other = game.new_match(43)
    assert game.deal_record(other) != game.deal_record(first[0])


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_apply_does_not_mutate_and_rejects_illegal(game_id: str) -> None:
    game = get_game(game_id)
    rng = random.Random(3)
    state = game.new_match(11)
    rejected = 0
    for _ in range(60):
        if game.to_move(state) is None:
            break
        before = [observation_bytes(game_id, game.observation(state, s)) for s in (0, 1)]
        legal = game.legal_actions(state)
        nxt = game.apply(state, rng.choice(legal))
        after = [observation_bytes(game_id, game.observation(state, s)) for s in (0, 1)]
        assert before == after, "apply must not change the state it was given"
        if game.to_move(nxt) is not None:
            now_legal = set(game.legal_actions(nxt))
            for action in legal:
                if action not in now_legal:
                    assert not game.is_legal(nxt, action)
                    with pytest.raises(IllegalActionError):
                        game.apply(nxt, action)
                    rejected += 1
                    break
        state = nxt
    assert rejected > 0


@pytest.mark.parametrize("game_id", GAME_IDS)
@pytest.mark.parametrize(
    "text", ["", " ", "xyzzy", "play", "\x00\x01\x02", "9" * 5000, "pass pass pass pass"]
)
def test_garbage_action_text_is_invalid(game_id: str, text: str) -> None:
    game = get_game(game_id)
    try:
        action = game.parse_action(text)
    except InvalidActionError:
        return
    # A text that parses must be canonical (e.g. "pass" is an action in some games).
    assert game.format_action(action) == text


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_typed_actions_round_trip(game_id: str) -> None:
    game = get_game(game_id)
    state = game.new_match(5)
    for action in game.legal_actions(state):
        assert decode_action(game_id, encode_action(game_id, action)) == action


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_options_are_validated(game_id: str) -> None:
    game = get_game(game_id)
    with pytest.raises(OptionsError):
        game.new_match(1, {"no_such_option": 1})
    defaults = game.options_of(game.new_match(1))
    assert set(defaults) == {spec.name for spec in game.option_specs}
    assert game.options_of(game.new_match(1, defaults)) == defaults


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_deal_record_is_json(game_id: str) -> None:
    game = get_game(game_id)
    record = game.deal_record(game.new_match(9))
    assert json.loads(json.dumps(record)) == record


def sampled_views(game: Game[Any, Any, Any]) -> list[tuple[Any, int, Any]]:
    """(state, seat, that seat's observation) at about 25 points of a seeded random match,
    for both seats, running states only."""
    states = playout(game, 23, 24, check=False)
    return [
        (state, seat, game.observation(state, seat))
        for state in states[:: max(1, len(states) // 25)]
        if game.to_move(state) is not None
        for seat in (0, 1)
    ]


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_resampled_hidden_information_leaves_the_observation_unchanged(game_id: str) -> None:
    """A generic leak test: ``game.determinize`` redraws everything a seat cannot see
    (opponent's cards, deck order, hidden treasures); that seat's observation bytes must not
    move."""
    game = get_game(game_id)
    rng = random.Random(17)
    checked = 0
    for _, seat, view in sampled_views(game):
        twin = game.determinize(view, rng)
        assert observation_bytes(game_id, game.observation(twin, seat)) == observation_bytes(
            game_id, view
        )
        checked += 1
    assert checked >= 20


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_determinized_states_are_playable(game_id: str) -> None:
    """A determinized state is a real running state: the same seat to move, legal actions
    offered (the mover's are exactly the real ones: they are sent to it, so they may depend only
    on what it sees), and any of them can be applied."""
    game = get_game(game_id)
    rng = random.Random(19)
    for state, seat, view in sampled_views(game):
        twin = game.determinize(view, rng)
        mover = game.to_move(state)
        assert game.to_move(twin) == mover
        assert game.outcome(twin) is None
        legal = game.legal_actions(twin)
        assert legal
        if seat == mover:
            assert tuple(legal) == tuple(game.legal_actions(state))
        action = rng.choice(legal)
        assert game.is_legal(twin, action)
        after = game.apply(twin, action)
        assert game.round_index(after) >= game.round_index(twin)


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_determinize_varies_what_the_seat_cannot_see(game_id: str) -> None:
    """Resampling really resamples: a few draws from one observation give different deals
    (always at the start of the match, where nearly everything is hidden, and at most other
    sampled points), so the leak test above compares different hidden parts."""
    game = get_game(game_id)
    rng = random.Random(23)

    def deals(view: Any) -> set[str]:
        return {
            json.dumps(game.deal_record(game.determinize(view, rng)), sort_keys=True)
            for _ in range(3)
        }

    start = game.new_match(23)
    for seat in (0, 1):
        assert len(deals(game.observation(start, seat))) > 1
    views = sampled_views(game)
    varied = sum(len(deals(view)) > 1 for _, _, view in views)
    assert varied > len(views) // 2
