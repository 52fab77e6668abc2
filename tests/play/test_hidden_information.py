"""`arena play` shows a person only what their seat may see (issue 35, "Hidden information"):
the screen of the terminal app, and the line mode's text, are the same when only what the
person's seat cannot see differs — the opponent's hand and the deck's order (Lost Cities), the
bot's bid still face down (Goofspiel) — and differ when something the seat sees does (the
control that shows the comparison can tell). Each match runs on the real loop, the person's
seat a ``HumanPlayer``, the bot an in-process policy."""

from __future__ import annotations

import asyncio
import dataclasses
import io
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from arena.games import get_game
from arena.model import BotSpec, HumanSeat, MatchResult, MatchSpec, TimeControl
from arena.referee.human import HumanPlayer
from arena.referee.local import LocalPlayer
from arena.referee.match import Match
from arena.tui.play import PlayApp
from arena.tui.play_plain import PlainSide
from tests.support.goofspiel import goofspiel

pytestmark = pytest.mark.unit

Tamper = Callable[[Any], Any]
"""What is changed in the dealt state before the first decision."""


def _spec(game: str, seat: int, options: dict[str, Any]) -> MatchSpec:
    person, bot = BotSpec("human:ada", game), BotSpec("bot", game)
    return MatchSpec(game, 21, (person, bot) if seat == 0 else (bot, person), options,
                     TimeControl(), match_id=f"hidden-{game}", humans=(HumanSeat(seat, None),))


def _runner(spec: MatchSpec, tamper: Tamper, policy: Callable[[Any], Any]
            ) -> Callable[[HumanPlayer], Any]:
    async def run(person: HumanPlayer) -> MatchResult:
        match = Match(spec, sandbox_name="in-process", log_dir=None)
        match.state = tamper(match.state)
        bot = LocalPlayer(1 - person.seat, policy)
        return await match.run((person, bot) if person.seat == 0 else (bot, person))
    return run


def app_screen(spec: MatchSpec, tamper: Tamper, policy: Callable[[Any], Any]) -> str:
    """The app's whole screen (its SVG screenshot, ids aside) at the person's first decision."""
    async def run() -> str:
        app = PlayApp(spec, None, None, runner=_runner(spec, tamper, policy))
        async with app.run_test(size=(100, 45)) as pilot:
            deadline = time.monotonic() + 30
            while app.pending is None:
                assert time.monotonic() < deadline and not app.over
                await pilot.pause(0.02)
            shot = await _settled(app, pilot)
            await pilot.press("ctrl+q")
        return shot
    return asyncio.run(run())


async def _settled(app: PlayApp, pilot: Any) -> str:
    """The screen once it stops changing (two screenshots 0.1 s apart the same, ids aside): the
    first frame after the decision arrives may still be mid-layout (a scrollbar, a width not
    yet final), and a screenshot of it differed from run to run under load."""
    deadline = time.monotonic() + 30
    last = ""
    while True:
        await pilot.pause(0.1)
        shot = re.sub(r"terminal-\d+", "terminal", app.export_screenshot(title="play"))
        if shot == last:
            return shot
        assert time.monotonic() < deadline, "the screen never settled"
        last = shot


def plain_screen(spec: MatchSpec, tamper: Tamper, policy: Callable[[Any], Any]) -> str:
    """The line mode's text up to the person's first decision (then it quits)."""
    out = io.StringIO()
    side = PlainSide(io.StringIO(":q\n"), Console(file=out, width=80, color_system=None))
    person = HumanPlayer(spec.humans[0].seat, side)
    try:
        asyncio.run(_runner(spec, tamper, policy)(person))
    except asyncio.CancelledError:
        pass
    return out.getvalue()


SCREENS = [app_screen, plain_screen]


def _first(decision: Any) -> Any:
    return decision.legal_texts[0]


def _swap_hidden(state: Any) -> Any:
    """Lost Cities: one card of seat 1's hand swapped with one of the deck (seat 0 sees
    neither: only how many cards each holds)."""
    hand, deck = list(state.hands[1]), list(state.deck)
    at = len(deck) - 1
    hand[0], deck[at] = deck[at], hand[0]
    return dataclasses.replace(state, hands=(state.hands[0], tuple(sorted(hand))),
                               deck=tuple(deck))


def _swap_own(state: Any) -> Any:
    """The control: one card of seat 0's own hand swapped with one of the deck."""
    hand, deck = list(state.hands[0]), list(state.deck)
    at = len(deck) - 1
    hand[0], deck[at] = deck[at], hand[0]
    return dataclasses.replace(state, hands=(tuple(sorted(hand)), state.hands[1]),
                               deck=tuple(deck))


@pytest.mark.parametrize("screen", SCREENS)
def test_lost_cities_the_opponents_hand_and_the_deck(screen: Callable[..., str]) -> None:
    game = get_game("lost-cities")
    spec = _spec("lost-cities", 0, {"rounds": 1})
    state = game.new_match(spec.seed, spec.options)
    assert game.to_move(state) == 0
    hidden = _swap_hidden(state)
    assert hidden.hands[1] != state.hands[1]  # the states differ, seat 0's view does not
    assert game.observation(hidden, 0) == game.observation(state, 0)
    assert game.observation(_swap_own(state), 0) != game.observation(state, 0)

    same = screen(spec, lambda s: s, _first)
    assert screen(spec, _swap_hidden, _first) == same
    assert screen(spec, _swap_own, _first) != same  # what the seat sees does change it


@pytest.mark.parametrize("screen", SCREENS)
def test_goofspiel_the_bots_bid_face_down(screen: Callable[..., str]) -> None:
    goofspiel()
    spec = _spec("goofspiel", 1, {"rounds": 1})  # the bot (seat 0) bids first, face down
    low = screen(spec, lambda s: s, lambda d: d.legal_texts[0])
    high = screen(spec, lambda s: s, lambda d: d.legal_texts[-1])
    assert low == high
    assert "face" in low  # "has bid (face down)"


def test_the_control_of_goofspiel_a_revealed_bid_shows() -> None:
    """Once both have bid, the bids are public: the second decision's screens differ."""
    goofspiel()
    spec = _spec("goofspiel", 1, {"rounds": 1})
    outs = []
    for pick in (0, -1):
        out = io.StringIO()
        side = PlainSide(io.StringIO("1\n:q\n"), Console(file=out, width=80, color_system=None))
        try:
            asyncio.run(_runner(spec, lambda s: s, lambda d, p=pick: d.legal_texts[p])(
                HumanPlayer(1, side)))
        except asyncio.CancelledError:
            pass
        outs.append(out.getvalue())
    assert outs[0] != outs[1]


def test_a_swap_of_a_deal_keeps_the_game_playable(tmp_path: Path) -> None:
    """The tampered state is a real one: the match plays on from it to its end."""
    game = get_game("lost-cities")
    spec = _spec("lost-cities", 0, {"rounds": 1})
    hidden = _swap_hidden(game.new_match(spec.seed, spec.options))
    while game.to_move(hidden) is not None:
        hidden = game.apply(hidden, game.legal_actions(hidden)[0])
