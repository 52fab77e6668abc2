"""Issue 25 point 9: every game's board at 80, 100 and 120 columns (and inside `arena watch`'s
frame, piped) keeps every number of the position whole, and no line is wider than the terminal.

Each number the board shows (cards, pile sizes, expedition and round points, bets, captured
points, totals, deck and hand sizes, chest values...) is counted in the rendered text as a whole
token; a cut cell (rich's ``…``) or a number folded over two lines fails. Before, Lost Cities
at 80 columns lost its points columns (``p…``, ``-…``)."""

from __future__ import annotations

import dataclasses
import io
import random
import re
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from arena.cli.watch_cmds import frames, pace_line, play, replay_pace
from arena.games import game_ids, get_game
from arena.games import haggis as h
from arena.games import lost_cities as lc
from arena.games import portas as pt
from arena.games.api import totals_of
from arena.model import DecisionEvent
from arena.record.log import read_events
from arena.record.replay import replay_events
from arena.render import renderer_for
from tests.support.pages import play_logged

pytestmark = pytest.mark.integration

WIDTHS = (80, 100, 120)
GAMES = ("lost-cities", "haggis", "portas")


def render(renderable: object, width: int, terminal: bool = False) -> str:
    console = Console(file=io.StringIO(), width=width, color_system=None,
                      force_terminal=terminal)
    console.print(renderable)
    out = console.file.getvalue()  # type: ignore[attr-defined]
    assert isinstance(out, str)
    return out


def tokens(text: str) -> Counter[str]:
    """Whole words and numbers (a minus sign kept when it starts the token)."""
    return Counter(re.findall(r"(?<![\w-])-?\w+", text))


def check_fits(out: str, width: int, expected: Counter[str], names: tuple[str, ...] = ()
               ) -> None:
    """No line over ``width``, nothing cut (but a bot name among ``names``, abbreviated), and
    every ``expected`` token there at least as often."""
    wide = [line for line in out.splitlines() if len(line) > width]
    assert not wide, f"lines over {width} columns: {wide[:2]}"
    cut = [m for m in re.findall(r"(\S*)…", out) if not any(n.startswith(m) for n in names)]
    assert not cut, f"cut at {width} columns: {cut}\n{out}"
    missing = expected - tokens(out)
    assert not missing, f"missing at {width} columns: {dict(missing)}\n{out}"


# --- what each board must show ---------------------------------------------------------------
def _words(*items: object) -> Counter[str]:
    return tokens(" ".join(str(item) for item in items))


def lost_cities_numbers(position: Any) -> Counter[str]:
    if isinstance(position, lc.State):
        hands = [*position.hands[0], *position.hands[1]]
        header = (position.round_index + 1, position.rules.rounds, position.rules.stall_guard_turns)
        finished = position.finished
    else:
        hands = [*position.hand, position.opponent_hand_size]
        header = (position.round + 1, position.rounds, position.stall_guard_turns)
        finished = position.finished_rounds
    expected = _words(*hands, *header, position.deck_count, position.turn)
    for seat in (0, 1):
        for cards in position.expeditions[seat]:
            expected += _words(*cards, *([lc.expedition_score(cards)] if cards else []))
        expected += _words(lc.round_score(position.expeditions[seat]))
    for pile in position.piles:
        if pile:
            expected += _words(pile[-1], len(pile))
    for pair in finished:
        expected += _words(*pair)
    if finished:
        expected += _words(*totals_of(finished))
    return expected


def haggis_numbers(position: Any) -> Counter[str]:
    expected = _words(position.round + 1, position.target, *position.totals, *position.totals)
    if isinstance(position, h.State):
        for seat in (0, 1):
            hand = h.cards_of(position.hands[seat])
            expected += _words(*(h.card_text(c) for c in hand), len(hand))
        expected += _words(*(h.card_text(c) for c in h.cards_of(position.haggis)))
    else:
        expected += _words(*(h.card_text(c) for c in position.hand), *position.hand_sizes)
        for seat in (0, 1):
            if seat != position.seat:
                faces = position.face_cards[seat]
                expected += _words(position.hand_sizes[seat] - len(faces),
                                   *(h.card_text(c) for c in faces))
    for seat in (0, 1):
        bet = position.bets[seat]
        expected += _words(*([] if bet is None else [bet]),
                           h.points_of(position.captured[seat]))
    for _, combo in position.trick:
        expected += _words(*(h.card_text(c) for c in combo.cards))
    if position.summaries:
        last = position.summaries[-1]
        expected += _words(last.out, *last.scores, *last.bets,
                           *(h.card_text(c) for c in last.haggis))
    return expected


def portas_numbers(position: Any) -> Counter[str]:
    state = isinstance(position, pt.State)  # (a state's names are the engine's own)
    finished = position.finished if state else position.finished_rounds
    games = position.games if state else position.rounds
    totals = [sum(s[i] for s in finished) for i in (0, 1)]
    expected = _words(min(position.round + 1, games), games,
                      *position.scores, *position.scores, *totals,
                      *position.hands[0], *position.hands[1])
    if state:
        expected += _words(*(len(d) for d in position.decks), *position.decks[0],
                           *position.decks[1], len(position.hidden), *position.hidden)
    else:
        expected += _words(*position.deck_sizes, position.hidden_count, *position.hidden_values)
    for chest in position.chests:
        expected += _words(chest.value, chest.remaining, *chest.cards[0], *chest.cards[1],
                           *(sum(c) for c in chest.cards if c))
    for taken in position.taken:
        chest = taken.chest
        expected += _words(chest.value, *chest.cards[0], *chest.cards[1], taken.taker,
                           *(sum(c) for c in chest.cards if c))
    return expected


NUMBERS = {"lost-cities": lost_cities_numbers, "haggis": haggis_numbers,
           "portas": portas_numbers}


# --- positions -------------------------------------------------------------------------------
def positions(game_id: str, seeds: int = 2, every: int = 15) -> Iterator[Any]:
    """Positions of random playouts: the start, every ``every`` plies, the end."""
    game = get_game(game_id)
    for seed in range(seeds):
        rng = random.Random(seed)
        state, ply = game.new_match(seed), 0
        while True:
            if ply % every == 0 or game.to_move(state) is None:
                yield state
            if game.to_move(state) is None:
                break
            state = game.apply(state, rng.choice(game.legal_actions(state)))
            ply += 1


def crowded_lost_cities() -> lc.State:
    """Every expedition as long as it gets (three wagers, 2 to 10) on both sides, a pile of
    twelve on each colour: the widest board there is."""
    full = tuple(tuple([lc.card_of(c, 0)] * 3 + [lc.card_of(c, v) for v in range(2, 11)])
                 for c in range(lc.N_COLOURS))
    state = lc.GAME.new_match(4)
    piles = tuple(tuple([lc.card_of(c, 10)] * 12) for c in range(lc.N_COLOURS))
    return dataclasses.replace(state, expeditions=(full, full), piles=piles,
                               finished=((-120, 156), (140, -400)))


@pytest.mark.parametrize("game_id", game_ids())
@pytest.mark.parametrize("width", WIDTHS)
def test_every_number_of_every_board_fits(game_id: str, width: int) -> None:
    """The built-ins' numbers, counted; an installed game package's board (e.g. goofspiel)
    within the width and uncut."""
    game, renderer = get_game(game_id), renderer_for(game_id)
    numbers = NUMBERS.get(game_id, lambda position: Counter[str]())
    found = list(positions(game_id))
    if game_id == "lost-cities":
        found.append(crowded_lost_cities())
    for state in found:
        check_fits(render(renderer.render_state(state), width), width, numbers(state))
        for seat in (0, 1):
            view = game.observation(state, seat)
            check_fits(render(renderer.render_view(view), width), width, numbers(view))


# --- inside `arena watch` --------------------------------------------------------------------
NAMES = ("greedy-long-name", "strong.v2")


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("logs")
    return {g: play_logged(root, g, 7, names=NAMES) for g in GAMES}


@pytest.fixture(scope="module")
def final_frames(logs: dict[str, Path]) -> Callable[[str, int | None], Any]:
    """A log's final watch frame for a seat (None: everything), made once for every width (a
    frame is drawn to a width only when it is rendered)."""
    made: dict[tuple[str, int | None], Any] = {}

    def final_frame(game_id: str, seat: int | None) -> Any:
        if (game_id, seat) not in made:
            made[game_id, seat] = list(frames(read_events(logs[game_id]), seat))[-1][1]
        return made[game_id, seat]

    return final_frame


@pytest.mark.parametrize("game_id", GAMES)
@pytest.mark.parametrize("width", WIDTHS)
def test_the_watch_frame_fits(game_id: str, width: int, logs: dict[str, Path],
                              final_frames: Callable[[str, int | None], Any]) -> None:
    """The board in the frame (two panels deep, about 72 columns at 80) keeps every number
    (the moves and scores tables may abbreviate a bot's name, never a number)."""
    steps = list(replay_events(read_events(logs[game_id])))
    final = steps[-1].state
    game = get_game(game_id)
    for seat in (None, 0, 1):
        frame = final_frames(game_id, seat)
        position = final if seat is None else game.observation(final, seat)
        check_fits(render(frame, width), width, NUMBERS[game_id](position), NAMES)


def test_piped_watch_is_80_columns_with_every_number(logs: dict[str, Path]) -> None:
    """`arena watch LOG | cat`: not a terminal, no COLUMNS: the final frame at 80 columns."""
    env = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"}
    out = subprocess.run([sys.executable, "-m", "arena", "watch",
                          str(logs["lost-cities"])], capture_output=True, text=True,
                         check=True, env=env).stdout
    final = list(replay_events(read_events(logs["lost-cities"])))[-1].state
    check_fits(out, 80, lost_cities_numbers(final), NAMES)
    assert max(len(line) for line in out.splitlines()) == 80


# --- the pace --------------------------------------------------------------------------------
@pytest.mark.unit
def test_the_default_pace_bounds_a_long_replay() -> None:
    assert replay_pace(40) == 0.3  # a short match as before
    assert 14 <= 134 * replay_pace(134) <= 16  # the 134 moves: 40 s before
    assert replay_pace(100_000) > 0


def test_a_replay_on_a_terminal_says_its_pace_and_how_to_change_it(
        logs: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    slept: list[float] = []
    started = time.perf_counter()
    monkeypatch.setattr("arena.cli.watch_cmds.time.sleep", slept.append)  # time flies
    monkeypatch.setattr("arena.cli.watch_cmds.time.monotonic",
                        lambda: sum(slept) + time.perf_counter() - started)
    events = list(read_events(logs["portas"]))  # 75 moves: 0.2 s each
    moves = sum(isinstance(e, DecisionEvent) for e in events)
    assert moves > 50
    buffer = io.StringIO()
    play(events, seat=None, delay=None, out=Console(file=buffer, width=80, force_terminal=True,
                                                    color_system=None))
    assert len(slept) == moves and 0 < sum(slept) <= 15.5  # drawing is part of the delay
    line = pace_line(replay_pace(moves))
    assert line is not None and line.plain.startswith("0.2 s a move (--delay SECONDS")
    assert len(line.plain) <= 80
    assert line.plain in re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", buffer.getvalue())
    assert pace_line(0) is None


@pytest.mark.unit
def test_watch_help_says_how_to_change_the_pace() -> None:
    from typer.testing import CliRunner

    from arena.cli.main import app

    result = CliRunner().invoke(app, ["watch", "--help"], env={"COLUMNS": "80"})
    assert result.exit_code == 0
    text = " ".join(result.output.split())
    assert "--delay" in text and "about 15 s" in text
