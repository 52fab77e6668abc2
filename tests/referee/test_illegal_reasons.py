"""An illegal action's termination names the engine's reason (issue 25, point 5): in the
result, the log, the terminal and the HTML replay, for every game, with in-process seats and a
hostile bot over the real gRPC path; a game's explanation can neither break the verdict nor
smuggle terminal controls or a long text into it."""

from __future__ import annotations

import asyncio
import io
import random
import re
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from arena.cli.watch_cmds import html_replay, play
from arena.games import game_ids, get_game
from arena.games.builtin import BUILTIN_ORDER
from arena.games.lost_cities import COLOURS
from arena.model import (
    BotSpec,
    DecisionEvent,
    MatchEndEvent,
    MatchResult,
    MatchSpec,
    Termination,
    TimeControl,
)
from arena.record.log import read_events
from arena.record.replay import replay_log
from arena.referee.local import LocalPlayer
from arena.referee.match import REASON_CHARS, Match, illegal_detail
from arena.render.match import render_match_result
from tests.support.matches import run_match
from tests.support.paths import RANDOM_BOT, TEST_BOTS

pytestmark = pytest.mark.unit


def _first_legal(decision: Any) -> Any:
    return decision.legal_texts[0]


def _discard_and_take_back(decision: Any) -> str:
    card = decision.observation.hand[0]
    return f"discard {card} draw {COLOURS[card.colour]}"


def _pass(decision: Any) -> str:
    return "pass"


CASES = [
    # game, the seat that misbehaves, its policy, the detail the result must carry
    ("lost-cities", 1, _discard_and_take_back,
     r"illegal action 'discard \w+ draw \w': cannot draw from the pile just discarded onto"),
    ("haggis", 0, _pass, r"illegal action 'pass': the leader must play a combination"),
    ("portas", 0, _pass, r"illegal action 'pass': pass only when no hand card fits an open "
                         r"chest, and \d@1\d fits"),
]


def _play(game_id: str, seat: int, policy: Any, log_dir: Path) -> MatchResult:
    bots = (BotSpec("alice", game_id), BotSpec("bob", game_id))
    spec = MatchSpec(game_id, 7, bots, {}, TimeControl(), match_id=f"illegal-{game_id}")
    policies = [_first_legal, _first_legal]
    policies[seat] = policy
    match = Match(spec, sandbox_name="in-process", log_dir=log_dir)
    players = (LocalPlayer(0, policies[0]), LocalPlayer(1, policies[1]))
    return asyncio.run(match.run(players))


@pytest.mark.parametrize(("game_id", "seat", "policy", "detail"), CASES)
def test_an_illegal_action_names_its_reason_everywhere(game_id: str, seat: int, policy: Any,
                                                       detail: str, tmp_path: Path) -> None:
    result = _play(game_id, seat, policy, tmp_path)
    assert result.termination is Termination.ILLEGAL_ACTION, result.detail
    assert result.faulty_seat == seat and result.winner == 1 - seat
    assert re.fullmatch(detail, result.detail), result.detail
    events = list(read_events(Path(result.log or "")))
    end = events[-1]
    assert isinstance(end, MatchEndEvent) and end.result.detail == result.detail
    last = events[-2]
    assert isinstance(last, DecisionEvent) and last.fault is Termination.ILLEGAL_ACTION
    assert replay_log(Path(result.log or "")).finished  # the reason changes nothing replayed
    reason = result.detail.split("': ", 1)[1]
    terminal = io.StringIO()
    Console(file=terminal, width=200, color_system=None).print(render_match_result(result))
    assert reason in terminal.getvalue()
    assert reason in html_replay(events).html
    watched = io.StringIO()
    play(events, seat=None, delay=0, out=Console(file=watched, width=200, color_system=None))
    assert reason in watched.getvalue()  # `arena watch`'s last frame


@pytest.mark.integration
def test_a_hostile_bot_over_grpc_gets_its_reason(log_dir: Path, socket_root: Path) -> None:
    """The test bot ``illegal`` answers a well-formed action it may not play (a card it does
    not hold): the result says so, and the log keeps it."""
    for bad_seat in (0, 1):
        bots = [RANDOM_BOT, RANDOM_BOT]
        bots[bad_seat] = TEST_BOTS / "illegal"
        result = run_match(bots[0], bots[1], log_dir, socket_root, move_time_ms=2000)
        assert result.termination is Termination.ILLEGAL_ACTION, result.detail
        assert result.faulty_seat == bad_seat
        assert re.fullmatch(r"illegal action '(discard|play) (\w+) deck': \2 is not in your hand",
                            result.detail), result.detail
        end = list(read_events(Path(result.log or "")))[-1]
        assert isinstance(end, MatchEndEvent) and end.result.detail == result.detail


class _Explaining:
    """A game's ``explain_illegal`` as a plugin could write it (only what the referee calls)."""

    id = "plugin-game"

    def __init__(self, explanation: Any) -> None:
        self.explanation = explanation

    def explain_illegal(self, state: Any, action: Any) -> str:
        if isinstance(self.explanation, Exception):
            raise self.explanation
        return self.explanation  # type: ignore[no-any-return]


@pytest.mark.parametrize(
    ("explanation", "detail"),
    [
        ("you hold no such card", "illegal action 'x': you hold no such card"),
        ("", "illegal action 'x'"),
        (RuntimeError("the explanation broke"), "illegal action 'x'"),
        ("\x1b[2J\x1b]0;pwned\x07 cleared\nsecond line", "illegal action 'x': [2J]0;pwned cleared"),
        ("why " * 200, "illegal action 'x': " + ("why " * 200)[:REASON_CHARS].strip()),
        (42, "illegal action 'x': 42"),
    ],
)
def test_a_games_explanation_cannot_break_or_flood_the_detail(explanation: Any,
                                                              detail: str) -> None:
    assert illegal_detail(_Explaining(explanation), None, None, "x") == detail  # type: ignore[arg-type]


def test_a_game_without_explanations_keeps_the_plain_detail() -> None:
    class Silent:
        id = "silent"

    assert illegal_detail(Silent(), None, None, "x") == "illegal action 'x'"  # type: ignore[arg-type]


def _explaining() -> list[str]:
    """The installed games that explain illegal actions: every built-in game does."""
    assert all(hasattr(get_game(g), "explain_illegal") for g in BUILTIN_ORDER)
    return [g for g in game_ids() if hasattr(get_game(g), "explain_illegal")]


@pytest.mark.parametrize("game_id", _explaining())
def test_every_explaining_game_explains_its_illegal_actions(game_id: str) -> None:
    """Over a random match: one short line for every action that was legal a moment ago and
    is not any more, and "" for a legal action (the contract of the optional
    ``explain_illegal``)."""
    game = get_game(game_id)
    explain = game.explain_illegal  # type: ignore[attr-defined]
    rng = random.Random(5)
    state, previous, explained = game.new_match(5), (), 0
    while game.to_move(state) is not None:
        legal = tuple(game.legal_actions(state))
        for action in previous:
            if not game.is_legal(state, action):
                reason = explain(state, action)
                assert reason and "\n" not in reason and len(reason) <= REASON_CHARS, reason
                explained += 1
        previous = legal[:50]
        assert explain(state, legal[0]) == "" and explain(state, legal[-1]) == ""
        state = game.apply(state, rng.choice(legal))
    assert explained > 0
