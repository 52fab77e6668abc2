"""The interactive `arena watch` driven key by key with Textual's pilot (``App.run_test``) on
real match logs of every game, a downloaded seat view, a log still being written, and hostile
strings (bot names, answers and output that rich or a terminal would act on)."""

from __future__ import annotations

import asyncio
import io
import json
import random
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from textual.pilot import Pilot

from arena.games import get_game
from arena.host.views import Sight, download
from arena.model import DecisionEvent
from arena.record.log import read_events, seat_log_path, write_seed_sidecar
from arena.record.replay import ReplayStep, replay_events
from arena.render import renderer_for
from arena.render.seat_view import HIDDEN_MOVE, read_seat_view
from arena.tui.model import Timeline
from arena.tui.watch import SPEEDS, WatchApp, open_log
from arena.tui.widgets import BoardView, MoveList, OutputPane
from tests.support.pages import play_logged, random_policy
from tests.support.terminal import ESCAPES, MARKUP_ANSWER, MARKUP_NAMES, assert_text
from tests.support.tui import screen_text
from tests.tui.conftest import GAMES

pytestmark = pytest.mark.integration
SIZE = (120, 40)


def drive(app: WatchApp, script: Callable[[Pilot[None]], Awaitable[None]],
          size: tuple[int, int] = SIZE) -> None:
    async def run() -> None:
        async with app.run_test(size=size) as pilot:
            await pilot.pause()
            await script(pilot)

    asyncio.run(run())


def text_of(renderable: Any, width: int = 100) -> str:
    console = Console(file=io.StringIO(), width=width, record=True)
    console.print(renderable)
    return console.export_text()


def expected_board(timeline: Timeline, position: int, view: int | None) -> str:
    """The game's own renderer on the engine's state (or the seat's observation of it)."""
    state = timeline.state_at(position)
    renderer, game = renderer_for(timeline.header.game), get_game(timeline.header.game)
    return text_of(renderer.render_state(state) if view is None
                   else renderer.render_view(game.observation(state, view)))


def shown_board(app: WatchApp) -> str:
    return text_of(app.query_one(BoardView).board)


WHOLE_SCRIPT = "haggis"
"""The game whose log also drives the keys that do not depend on the game (the box's errors,
speeds, playing, the move list and the mouse, following): its log has the most
rounds (five)."""


@pytest.mark.slow
@pytest.mark.parametrize("game", GAMES)
def test_every_key_on_a_real_log(logs: dict[str, Path], game: str) -> None:
    """Every game's log: the keys that move through it (a decision, a round, the ends, a
    decision by number) and change the view, each board checked against the game's own
    renderer. The keys whose effect is the app's own, whatever the game, on one game's log
    (``WHOLE_SCRIPT``): its boards are checked there as well."""
    timeline = open_log(logs[game])
    last = timeline.last
    starts = [0] + [i for i in range(1, last)
                    if timeline.moves[i].round != timeline.moves[i - 1].round]
    app = WatchApp(timeline, delay=0.05)

    async def script(pilot: Pilot[None]) -> None:
        async def press(*keys: str) -> str:
            await pilot.press(*keys)
            await pilot.pause()
            return screen_text(app)

        screen = screen_text(app)
        assert app.position == 0 and f"decision 1/{last} · round 1" in screen
        assert "view: everything" in screen and shown_board(app) == expected_board(
            timeline, 0, None)
        await press("right", "right", "right")
        assert app.position == 3 and shown_board(app) == expected_board(timeline, 3, None)
        screen = await press("left")
        assert app.position == 2 and f"decision 3/{last}" in screen
        screen = await press("end")
        assert app.position == last and "end: " in screen
        assert shown_board(app) == expected_board(timeline, last, None)
        await press("right")
        assert app.position == last  # nothing after the end
        await press("home")
        assert app.position == 0
        await press("left")
        assert app.position == 0
        await press("right_square_bracket")
        assert app.position == starts[1]
        screen = await press("shift+right")
        assert app.position == (starts[2] if len(starts) > 2 else last)
        await press("right", "shift+left")
        assert app.position == (starts[2] if len(starts) > 2 else last - 1) or (
            len(starts) <= 2)
        await press("home", "right_square_bracket", "right", "left_square_bracket")
        assert app.position == starts[1]  # back to the start of this round
        await press("left_square_bracket")
        assert app.position == starts[0]  # at its start: the previous round
        screen = await press("colon", "1", "2", "enter")
        assert app.position == 11 and f"decision 12/{last}" in screen
        assert shown_board(app) == expected_board(timeline, 11, None)
        if game == WHOLE_SCRIPT:
            await press("colon", "9", "9", "9", "9", "enter")
            assert app.position == 11 and "no decision 9999" in screen_text(app)
            await press("colon", "3", "escape", "right")
            assert app.position == 12  # Esc closed the box: the arrows move again
        else:
            await press("right")
            assert app.position == 12
        for view in (0, 1, None):
            screen = await press("tab")
            assert app.view == view
            name = "everything" if view is None else f"seat {view}"
            assert f"view: {name}" in screen
            assert shown_board(app) == expected_board(timeline, 12, view)
        if game == WHOLE_SCRIPT:
            await the_apps_own_keys(pilot, press)
        await press("q")
        assert not app.is_running

    async def the_apps_own_keys(pilot: Pilot[None],
                                 press: Callable[..., Awaitable[str]]) -> None:
        speed = app.speed
        screen = await press("minus")
        assert app.speed == speed - 1 and f"{SPEEDS[speed - 1]:g} s" in screen
        await press("plus", "plus")
        assert app.speed == speed + 1
        await press("minus", "space")
        assert app.playing and "playing" in screen_text(app)
        for _ in range(100):  # 0.05 s a decision: a few steps in well under 5 s
            await pilot.pause(0.05)
            if app.position >= 15:
                break
        assert app.position >= 15
        await press("space")
        assert not app.playing
        paused = app.position
        await pilot.pause(0.2)
        assert app.position == paused
        moves = app.query_one(MoveList)
        assert moves.has_focus and moves.option_count == last + 1
        await press("down", "down")  # the move list: a row selected is a position
        assert app.position == paused + 2 and moves.highlighted == paused + 2
        await pilot.click(MoveList, offset=(10, 1))
        await pilot.pause()
        assert app.position == moves.highlighted
        await press(*["minus"] * len(SPEEDS))
        assert app.speed == 0  # 2 s a decision
        await press("end", "space")  # play at the end starts again from the beginning
        assert app.playing and app.position < 3
        await press("space", "o", "f")
        assert not app.following  # a finished match: nothing to follow

    drive(app, script)


def test_a_narrow_terminal_shows_the_board_moves_and_figures(logs: dict[str, Path]) -> None:
    app = WatchApp(open_log(logs["haggis"]))

    async def script(pilot: Pilot[None]) -> None:
        await pilot.press("right", "tab")
        await pilot.pause()
        screen = screen_text(app)
        lines = screen.splitlines()
        assert len(lines) == 24 and all(len(line) <= 80 for line in lines)
        for shown in ("view: seat 0", "seat 0 (you)", "decision 2/", "scores", "time"):
            assert shown in screen, shown
        assert app.query_one(MoveList).region.width > 30

    drive(app, script, size=(80, 24))


def test_a_short_terminal_gives_its_rows_to_the_board(logs: dict[str, Path]) -> None:
    # at 80x24 the board comes first: the move list and figures take what is left, and output
    # panes with nothing in them take no room (the board had one row of 24 before)
    app = WatchApp(open_log(logs["lost-cities"]))

    async def script(pilot: Pilot[None]) -> None:
        await pilot.press("right")
        await pilot.pause()
        board = app.query_one(BoardView)
        assert board.region.height >= 12, board.region
        assert "seat 0 hand" in screen_text(app)

    drive(app, script, size=(80, 24))


def _seat_view(log: Path, seat: int, out: Path) -> Path:
    data, kind = download(log, Sight(frozenset({seat}), False), frozenset({seat}), None)
    assert kind == "seat-view"
    out.write_bytes(data)
    return out


@pytest.mark.parametrize("game", GAMES)
def test_a_seat_view_file_offers_only_its_seat(logs: dict[str, Path], game: str,
                                               tmp_path: Path) -> None:
    path = _seat_view(logs[game], 1, tmp_path / f"{game}.seat-view.jsonl")
    view = read_seat_view(path)
    timeline = Timeline.of_seat_view(view.header, view.seat, view.events, HIDDEN_MOVE)
    full = open_log(logs[game])
    game_of = get_game(game)
    renderer = renderer_for(game)
    app = WatchApp(timeline)
    own = next(i for i, m in enumerate(timeline.moves) if m.seat == 1)

    async def script(pilot: Pilot[None]) -> None:
        assert app.view == 1
        await pilot.press("tab")
        await pilot.pause()
        assert app.view == 1 and "holds only seat 1's view" in screen_text(app)
        await pilot.press(*["right"] * own)
        await pilot.pause()
        screen = screen_text(app)
        assert app.position == own and "view: seat 1" in screen and "Tab:" not in screen
        expected = renderer.render_view(game_of.observation(full.state_at(own), 1))
        assert shown_board(app) == text_of(expected)
        rows = app.query_one(MoveList)
        for index, move in enumerate(timeline.moves[:own + 2]):
            prompt = str(rows.get_option_at_index(index).prompt)
            assert (HIDDEN_MOVE in prompt) == (move.seat == 0), prompt
        times = app.timeline.times(own, 1)
        assert times[0].hidden and not times[1].hidden and times[1].ms is not None
        await pilot.press("end")
        await pilot.pause()
        assert "end: " in screen_text(app)

    drive(app, script)


@pytest.mark.slow
@pytest.mark.parametrize("game", GAMES)
def test_seat_0s_screen_is_the_same_whatever_it_cannot_see(logs: dict[str, Path],
                                                           game: str) -> None:
    """Everything seat 0 cannot see redrawn (``determinize``: the other hand, the deck, hidden
    treasures) at the positions visited: seat 0's screen does not change; everything's does."""
    engine = get_game(game)
    steps = list(replay_events(read_events(logs[game])))
    real = Timeline.of_steps(steps, keyframe_every=1)
    positions = [1, 2, real.last // 3, real.last // 2, real.last - 1]
    rng = random.Random(3)
    made, other_steps = -1, []
    for step in steps:
        made += step is steps[0] or isinstance(step.event, DecisionEvent)
        state = step.state
        if made in positions and engine.to_move(state) is not None:
            step = ReplayStep(step.event, engine.determinize(engine.observation(state, 0), rng))
        other_steps.append(step)
    other = Timeline.of_steps(other_steps, keyframe_every=1)
    screens: dict[str, list[str]] = {}
    for name, timeline in (("real", real), ("other", other)):
        app = WatchApp(timeline)
        shots: list[str] = []
        screens[name] = shots

        async def script(pilot: Pilot[None], app: WatchApp = app,
                         shots: list[str] = shots) -> None:
            for view in (0, None):
                for position in positions:  # (every key is driven in the test above)
                    app.seek(position)
                    await pilot.pause()
                    shots.append(screen_text(app))
                await pilot.press("tab", "tab")  # seat 0 → seat 1 → everything
                await pilot.pause()
                assert app.view == (None if view == 0 else 1)

        app.view = 0
        drive(app, script)
    count = len(positions)
    assert screens["real"][:count] == screens["other"][:count]  # seat 0's view
    assert screens["real"][count:] != screens["other"][count:]  # everything


def test_hostile_names_answers_and_output_show_as_the_characters_they_are(
        tmp_path: Path) -> None:
    rng_policy = random_policy(4)
    calls = {"n": 0}

    def hostile(decision: Any) -> Any:
        calls["n"] += 1
        return MARKUP_ANSWER if calls["n"] == 6 else rng_policy(decision)

    log = play_logged(tmp_path, "lost-cities", 4, options={"rounds": 1},
                      policies=(random_policy(5), hostile), names=MARKUP_NAMES)
    seat_log_path(log, 0).write_text(f"ok\n[bold]x[/bold] [red]y[/] {ESCAPES} \x1b[31mred\n")
    seat_log_path(log, 1).write_text("[link=http://127.0.0.1:1/]z[/link]\n")
    timeline = open_log(log)
    assert timeline.moves[-1].fault == "invalid_action"
    app = WatchApp(timeline)

    async def script(pilot: Pilot[None]) -> None:
        await pilot.press("end", "left")  # the forfeit: its answer in the status line
        await pilot.pause()
        screen = screen_text(app)
        assert_text(screen, "the screen")
        for literal in (MARKUP_ANSWER, "[bold]x[/bold] [red]y[/]", "[31mred",
                        "[link=http://127.0.0.1:1/]z[/link]", MARKUP_NAMES[0]):
            assert literal in screen, literal
        assert "seat 1 output ([link=http://127.0.0.1:1/]victim" in screen
        output = app.query_one("#output0", OutputPane)
        assert "\x1b" not in output.shown and "[bold]x[/bold]" in output.shown
        await pilot.press("tab")  # seat 0's view: seat 0's output only
        await pilot.pause()
        assert app.query_one("#output0").display and not app.query_one("#output1").display
        await pilot.press("o")
        await pilot.pause()
        assert "[bold]x[/bold]" not in screen_text(app)

    drive(app, script)


def test_following_a_growing_log_keeps_the_chosen_position(logs: dict[str, Path],
                                                          tmp_path: Path) -> None:
    source = logs["haggis"].read_text().splitlines(keepends=True)
    decisions = [i for i, line in enumerate(source) if json.loads(line)["type"] == "decision"]
    log = tmp_path / logs["haggis"].name
    log.write_text("".join(source[:decisions[20]]))  # 20 decisions written
    write_seed_sidecar(log, json.loads(source[-1])["result"]["seed"])  # as a running match
    app = WatchApp(open_log(log))

    async def wait_for(check: Callable[[], bool], pilot: Pilot[None]) -> None:
        for _ in range(200):  # up to 20 s on a loaded machine; a few polls normally
            if check():
                return
            await pilot.pause(0.1)
        raise AssertionError("the followed log's new moves never arrived")

    async def script(pilot: Pilot[None]) -> None:
        rows = app.query_one(MoveList)
        assert app.timeline.last == 20
        assert "the log ends here" in str(rows.get_option_at_index(20).prompt)
        await pilot.press("colon", "6", "enter", "f")
        await pilot.pause()
        assert app.following and app.position == 5 and "following" in screen_text(app)
        assert "the match goes on" in str(rows.get_option_at_index(20).prompt)
        with log.open("a") as f:
            f.write("".join(source[decisions[20]:decisions[40]]))
        await wait_for(lambda: app.timeline.last == 40, pilot)
        await pilot.pause()
        assert app.position == 5  # kept while the moves arrived
        assert app.query_one(MoveList).option_count == 41
        await pilot.press("end")
        assert app.position == 40 and app.pinned
        with log.open("a") as f:
            f.write("".join(source[decisions[40]:decisions[60]]))
            f.write(source[decisions[60]][:30])  # half a line: not an event yet
        await wait_for(lambda: app.timeline.last == 60, pilot)
        await pilot.pause()
        assert app.position == 60  # at the newest by End: stays with the newest
        await pilot.press("left")
        with log.open("a") as f:  # up to the last decision; then the round's and match's end
            f.write("".join(source[:decisions[-1] + 1])[len("".join(source[:decisions[60]]))
                                                        + 30:])
        await wait_for(lambda: app.timeline.last == len(decisions), pilot)
        with log.open("a") as f:
            f.write("".join(source[decisions[-1] + 1:]))  # no decision in this one
        await wait_for(lambda: app.timeline.end is not None, pilot)
        await wait_for(lambda: not app.following, pilot)
        assert app.position == 59 and app.timeline.last == len(decisions)
        await pilot.press("end")
        await pilot.pause()
        assert "end: " in screen_text(app)

    drive(app, script)
