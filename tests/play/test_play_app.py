"""`arena play`'s terminal app (issue 35 point 2), driven by Textual's pilot: a whole Lost
Cities match against sample_bots/lost-cities/greedy in the process sandbox (typed text refused
with the engine's reason, typed text completed by the suggester, the list, the end with every
card), and quitting mid-match."""

from __future__ import annotations

import asyncio
import io
import re
import time
from pathlib import Path

import pytest
from rich.console import Console
from textual.pilot import Pilot
from textual.widgets import Input, OptionList, Static

from arena.model import Termination, TimeControl
from arena.record.replay import replay_log
from arena.referee.human import human_match
from arena.tui.play import PlayApp
from arena.tui.widgets import BoardView
from tests.support.paths import SAMPLE_BOTS
from tests.support.tui import screen_text

pytestmark = pytest.mark.integration

GREEDY = SAMPLE_BOTS / "lost-cities" / "greedy"
WAIT_S = 60.0
"""The longest wait for the bot (it starts in a sandbox; a loaded machine is slow)."""


async def your_move(pilot: Pilot[object], app: PlayApp) -> bool:
    """Wait until the app asks the person (True) or the match is over (False); then the screen
    is brought up to date (the polls only read the app's state: a pilot pause a poll waited
    for every widget and redrew the screen, ~1 CPU-s and a third of the wall time of a whole
    match)."""
    deadline = time.monotonic() + WAIT_S
    while app.pending is None and not app.over:
        assert time.monotonic() < deadline, "the app never asked nor ended"
        await asyncio.sleep(0.05)
    await pilot.pause()
    return not app.over


def _text(app: PlayApp, selector: str) -> str:
    """What a Static (or the board) shows, as plain text (rendered 100 wide)."""
    shown = (app.query_one(selector, BoardView).board if selector == "#board"
             else app.query_one(selector, Static).content)
    out = io.StringIO()
    Console(file=out, width=100, color_system=None).print(shown)
    return out.getvalue()


@pytest.mark.slow
def test_a_whole_match_against_greedy(tmp_path: Path) -> None:
    asyncio.run(_whole_match(tmp_path))


async def _whole_match(tmp_path: Path) -> None:
    spec, box = human_match(str(GREEDY), user="ada", seed=5, options={"rounds": 1},
                            time_control=TimeControl(move_time_ms=2000))
    app = PlayApp(spec, box, tmp_path)
    async with app.run_test(size=(100, 45)) as pilot:
        assert await your_move(pilot, app)
        assert app.prompt is not None and app.prompt.decision == 1
        assert "you (seat 0) against greedy" in _text(app, "#status")
        # typed text that is no action, then one that is not legal: refused, asked again
        await pilot.press(*"play Z9 deck", "enter")
        assert await your_move(pilot, app)
        assert "'play Z9 deck' is not a lost-cities action" in _text(app, "#message")
        hand = {str(c) for c in app.prompt.observation.hand}
        missing = next(f"{c}{v}" for c in "YBWGR" for v in range(2, 11)
                       if f"{c}{v}" not in hand)
        typed = app.query_one("#typed", Input)
        typed.value = ""
        await pilot.press(*f"play {missing} deck", "enter")
        assert await your_move(pilot, app)
        assert (f"'play {missing} deck' is not legal now: {missing} is not in your hand"
                in _text(app, "#message"))
        assert app.prompt.decision == 1  # still the first decision: nobody forfeited
        # typed text completed by the suggester: "pla" + → is a whole legal action
        typed.value = ""
        await pilot.press("p", "l", "a")
        await pilot.pause(0.2)
        await pilot.press("right")
        assert typed.value in app.prompt.legal_texts
        # the list keeps the legal actions that contain the typed text
        assert app.query_one("#actions", OptionList).option_count == len(app.shown)
        assert 0 < len(app.shown) < len(app.prompt.legal_texts)
        assert all(typed.value.casefold() in text.casefold() for text in app.shown)
        await pilot.press("enter")
        decisions = 1
        while await your_move(pilot, app):  # then the list, to the end: ↓ into it, Enter
            decisions += 1
            await pilot.press("down", "enter")
            assert decisions < 200
        assert app.result is not None and app.result.termination is Termination.NORMAL
        board = _text(app, "#board")
        assert "seat 1 hand:" in board and "opponent hand" not in board  # every card shown
        assert any(said in board for said in ("You won", "You lost", "A draw"))
        assert "arena watch" in _text(app, "#status")
        await pilot.press("enter")
    assert app.return_value is app.result
    assert app.result.bots[0] == "human:ada"
    replay_log(Path(app.result.log or ""))
    # every screen of the person's was their seat's: never the opponent's hand
    assert app.screens and all("opponent hand: " in screen for screen in app.screens)


def test_quitting_mid_match_cancels_it(tmp_path: Path) -> None:
    asyncio.run(_quit(tmp_path))


async def _quit(tmp_path: Path) -> None:
    spec, box = human_match(str(GREEDY), user="ada", seed=5, options={"rounds": 1})
    app = PlayApp(spec, box, tmp_path)
    async with app.run_test(size=(100, 45)) as pilot:
        assert await your_move(pilot, app)
        await pilot.press("ctrl+q")
        deadline = time.monotonic() + WAIT_S
        while app.is_running:
            assert time.monotonic() < deadline
            await asyncio.sleep(0.05)
    result = app.return_value
    assert result is not None and result.termination is Termination.CANCELLED
    report = replay_log(Path(result.log or ""))
    assert report.result is not None and report.result.termination is Termination.CANCELLED


def test_a_person_with_a_clock_sees_it_and_loses_on_time() -> None:
    asyncio.run(_on_time())


async def _on_time() -> None:
    from arena.model import BotSpec, HumanSeat, MatchResult, MatchSpec
    from arena.referee.human import HumanPlayer
    from arena.referee.local import LocalPlayer
    from arena.referee.match import Match

    spec = MatchSpec("lost-cities", 5, (BotSpec("human:ada", "lost-cities"),
                                        BotSpec("first", "lost-cities")), {"rounds": 1},
                     TimeControl(), match_id="on-time",
                     humans=(HumanSeat(0, TimeControl(move_time_ms=1500)),))

    async def runner(person: HumanPlayer) -> MatchResult:
        match = Match(spec, sandbox_name="in-process", log_dir=None)
        return await match.run((person, LocalPlayer(1, lambda d: d.legal_texts[0])))

    app = PlayApp(spec, None, None, runner=runner)
    async with app.run_test(size=(100, 45)) as pilot:
        assert await your_move(pilot, app)
        assert re.search(r"decision 1 .* \d s left", _text(app, "#status"))
        deadline = time.monotonic() + WAIT_S
        while not app.over:  # nobody answers
            assert time.monotonic() < deadline
            await asyncio.sleep(0.05)
        await pilot.pause()
        assert app.result is not None and app.result.termination is Termination.TIMEOUT
        assert app.result.faulty_seat == 0 and app.result.winner == 1
        assert "You lost" in _text(app, "#board")
        assert "no answer within 1500 ms" in _text(app, "#board")


@pytest.mark.parametrize("game", ["lost-cities", "haggis", "portas"])
def test_every_part_is_reachable_on_an_80x24_terminal(game: str) -> None:
    asyncio.run(_small_terminal(game))


async def _small_terminal(game: str) -> None:
    """At 80x24 (the bot in-process: this is about the screen): the board, the status, the
    message, the typed input and the list are all on screen, the input with the focus; a board
    taller than its room scrolls with PgUp/PgDn (its last line comes into view) while the input
    keeps the focus, and what is typed then plays."""
    from arena.model import BotSpec, HumanSeat, MatchResult, MatchSpec
    from arena.referee.human import HumanPlayer
    from arena.referee.local import LocalPlayer
    from arena.referee.match import Match

    spec = MatchSpec(game, 5, (BotSpec("human:ada", game), BotSpec("first", game)), {},
                     TimeControl(), match_id="small", humans=(HumanSeat(0),))

    async def runner(person: HumanPlayer) -> MatchResult:
        match = Match(spec, sandbox_name="in-process", log_dir=None)
        return await match.run((person, LocalPlayer(1, lambda d: d.legal_texts[0])))

    app = PlayApp(spec, None, None, runner=runner)
    async with app.run_test(size=(80, 24)) as pilot:
        scrolled = False
        for _ in range(2):
            assert await your_move(pilot, app)
            assert app.prompt is not None
            typed, board = app.query_one("#typed", Input), app.query_one("#board", BoardView)
            for selector in ("#board", "#status", "#message", "#typed", "#actions"):
                region = app.query_one(selector).region
                assert region.height >= 1 and region.y >= 0 and region.bottom <= 23, selector
            assert app.query_one("#actions").region.height >= 2
            screen = screen_text(app)
            assert typed.has_focus and "your move" in screen and "PgUp/PgDn" in screen
            assert app.prompt.legal_texts[0] in screen  # the list
            if game == "lost-cities":  # the hand, without scrolling
                assert "seat 0 (you) hand:" in screen
            if board.max_scroll_y:
                width = board.scrollable_content_region.width
                lines = [line for line in _text_at(board.board, width).splitlines()
                         if any(c.isalnum() for c in line)]
                assert lines[-1].strip() not in screen
                for _ in range(10):  # a page at a time, to the bottom
                    await pilot.press("pagedown")
                    await pilot.pause()
                assert board.scroll_y == board.max_scroll_y
                assert lines[-1].strip() in screen_text(app) and typed.has_focus
                await pilot.press("pageup")
                await pilot.pause()
                assert board.scroll_y < board.max_scroll_y
                scrolled = True
            decision = app.prompt.decision
            typed.value = app.prompt.legal_texts[-1]  # (typing key by key: the tests above)
            await pilot.press("enter")
            await _until_asked_past(pilot, app, decision)
        assert scrolled or game == "haggis"  # Haggis's first boards fit in 14 lines
        await pilot.press("ctrl+q")


async def _until_asked_past(pilot: Pilot[object], app: PlayApp, decision: int) -> None:
    deadline = time.monotonic() + WAIT_S
    while not app.over and (app.prompt is None or app.prompt.decision <= decision
                            or app.pending is None):
        assert time.monotonic() < deadline, "the typed action was not played"
        await asyncio.sleep(0.05)
    await pilot.pause()


def _text_at(shown: object, width: int) -> str:
    out = io.StringIO()
    Console(file=out, width=width, color_system=None).print(shown)
    return out.getvalue()
