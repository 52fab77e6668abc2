"""A match replay as one HTML page (pure: replayed steps in, a string out): self-contained, or
a page of a site that links the site's shared player and style (``arena.render.html.page``).

The caller replays the log with the rules engine (``arena.record.replay.replay_events``, what
``arena watch`` renders) and hands over each event with the engine's state after it. A frame is
made at the start and after every decision (and at the match end): the board of every view the
page offers — the omniscient one and exactly what each seat saw (``game.observation``) — with
the round scores and, at the end, the result. The page's player only shows these frames.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from arena.games import game_part, get_game, plugin
from arena.games.api import Game, totals_of
from arena.model import (
    DecisionEvent,
    HeaderEvent,
    MatchEndEvent,
    MatchEvent,
    MatchResult,
    RoundEndEvent,
    Termination,
    plain_text,
)
from arena.render.html.api import HtmlBoard, seat_label
from arena.render.html.assets import PLAYER
from arena.render.html.markup import FragmentTable, Markup, el, leaf, render
from arena.render.html.page import SiteLinks, document

Step = tuple[MatchEvent, Any]
"""An event of the log and the engine's state after it."""

SPEEDS = (1, 2, 4, 8, 16, 32)
"""Moves per second the player offers."""
DEFAULT_SPEED = 4

_FAULTS = {
    Termination.TIMEOUT: "no answer in time",
    Termination.ILLEGAL_ACTION: "an illegal action",
    Termination.INVALID_ACTION: "an answer that is not an action of the game",
    Termination.CRASH: "the bot crashed",
    Termination.PROTOCOL_VIOLATION: "a protocol violation",
    Termination.OVERSIZED_MESSAGE: "an oversized message",
    Termination.NO_START: "the bot never started",
    Termination.MEMORY: "the bot ran out of memory",
}


def board_for(game_id: str) -> HtmlBoard:
    """The HTML board of an installed game (its plugin's ``board``), or, for a game that brings
    none, its terminal drawing as text (:class:`~arena.render.html.generic.TextBoard`)."""
    if not plugin(game_id).board:
        from arena.render import renderer_for
        from arena.render.html.generic import TextBoard

        return TextBoard(renderer_for(game_id), game_id)
    board: HtmlBoard = game_part(game_id, "board")
    return board


@dataclass
class _Replay:
    """What the page is built from, gathered step by step."""

    header: HeaderEvent
    game: Game[Any, Any, Any]
    board: HtmlBoard
    seats: tuple[int | None, ...]
    """The views, in the page's order (None: omniscient)."""
    table: FragmentTable = field(default_factory=FragmentTable)
    frames: list[list[int]] = field(default_factory=list)
    """Per frame, the table index of each view's HTML."""
    round_starts: list[int] = field(default_factory=lambda: [0])
    """The frame each round starts at."""
    moves: list[Markup] = field(default_factory=list)
    """The move list's items (moves, round ends, round heads, the end)."""
    decisions: int = 0
    rounds_done: int = 0
    """Rounds finished so far."""
    end: MatchResult | None = None
    """The result, once the log's match end is read."""
    detail: bool = True
    """Show the result's detail (it may quote a crashed bot's last output line)."""

    @property
    def names(self) -> tuple[str, str]:
        """The bots' names, by seat."""
        return self.header.bot_names

    @property
    def word(self) -> str:
        """What the game calls a round, capitalised (``Round``, ``Game``)."""
        return self.board.round_name.capitalize()

    def frame(self, state: Any, result: MatchResult | None = None) -> int:
        """Add the frame of ``state`` (every view) and return its index."""
        boards = [self.board.state(state, self.names) if seat is None
                  else self.board.view(self.game.observation(state, seat), self.names)
                  for seat in self.seats]
        return self.add(boards, self.game.finished_rounds(state), result)

    def add(self, boards: Sequence[Markup], finished: tuple[tuple[int, int], ...],
            result: MatchResult | None = None) -> int:
        """Add a frame (a board per view, the finished rounds' scores, the result once over)
        and return its index."""
        scores = _scores(finished, self.names, self.board.round_name)
        ending = _result(result, self.names, self.detail) if result is not None else ""
        self.frames.append([self.table.add((board, scores, ending)) for board in boards])
        return len(self.frames) - 1

    def step(self, event: MatchEvent, state: Any) -> None:
        """Take the next event and the engine's state after it."""
        if isinstance(event, DecisionEvent):
            self.decided(event, self.frame(state), self.game.finished_rounds(state),
                         self.game.to_move(state) is not None)
        elif isinstance(event, MatchEndEvent):
            self.ended(event.result, self.frame(state, event.result))

    def decided(self, event: DecisionEvent, index: int,
                finished: tuple[tuple[int, int], ...], running: bool, timed: bool = True
                ) -> None:
        """A decision shown at frame ``index``, the finished rounds after it (a round that
        ended with it is listed, and the next one's head while the match goes on); ``timed``:
        its time is known (a seat view knows only its own seat's)."""
        self.decisions += 1
        self.moves.append(_move(event, index, self.names, timed))
        if len(finished) > self.rounds_done:
            self.rounds_done = len(finished)
            self.moves.append(_round_end(finished, self.names, self.board.round_name))
            if running:
                self.round_starts.append(index)
                self.moves.append(leaf("li", "round", f"{self.word} {len(finished) + 1}",
                                       data_frame=index))

    def ended(self, result: MatchResult, index: int) -> None:
        """The match end, shown at frame ``index``."""
        self.end = result
        bad = result.void or result.termination.is_fault
        self.moves.append(leaf("li", "end bad" if bad else "end", _verdict(result),
                               data_frame=index))


@dataclass(frozen=True)
class ReplayPage:
    """A match's replay page and what it holds."""

    html: str
    """The whole page."""
    decisions: int
    """The moves it shows."""
    finished: bool
    """False: the log ended before the match end (the page says the match is unfinished)."""


def replay_page(steps: Iterable[Step], *, seats: Sequence[int | None] = (None, 0, 1),
                site: SiteLinks | None = None, detail: bool = True) -> ReplayPage:
    """The replay page of a match. ``seats``: the views the page offers, None being the
    omniscient one (a page of seat views only leaves out the seed and every hidden card).
    ``site``: the page links the site's shared player and style (else they are inline); it
    holds only its own match's data either way. ``detail``: False leaves out the result's
    detail (it may quote a crashed bot's last output line: not for a public page)."""
    iterator = iter(steps)
    first = next(iterator, None)
    if first is None or not isinstance(first[0], HeaderEvent):
        raise ValueError("a replay starts with the match header")
    header, state = first
    assert isinstance(header, HeaderEvent)
    replay = _Replay(header, get_game(header.game), board_for(header.game), tuple(seats),
                     detail=detail)
    replay.frame(state)
    for event, after in iterator:
        replay.step(event, after)
    return ReplayPage(_page(replay, site), replay.decisions, replay.end is not None)


def seat_view_page(header: HeaderEvent, seat: int,
                   events: Sequence[tuple[MatchEvent, Any]]) -> ReplayPage:
    """The replay page of one seat's view of a match (``arena logs``' seat view: no seed, no
    state, ``arena.render.seat_view``): ``events`` are the file's events, each with the seat's
    observation when it is one of the seat's own decisions (the view it decided on), else
    None. The page offers that seat's view only; each frame's board is the last observation the
    seat was given, the scores are the round ends the file holds: nothing the seat did not
    see is on the page."""
    game_id = header.game
    board = board_for(game_id)
    replay = _Replay(header, get_game(game_id), board, (seat,))
    shown: Markup = leaf("p", "dim", "(this seat's first view comes with its first decision)")
    finished: tuple[tuple[int, int], ...] = ()
    replay.add([shown], finished)
    for number, (event, observation) in enumerate(events):
        if isinstance(event, RoundEndEvent):
            finished += (event.scores,)
        elif isinstance(event, DecisionEvent):
            if observation is not None:
                shown = board.view(observation, replay.names)
            after = finished + tuple(  # (the round ends recorded after this decision)
                e.scores for e in _until_decision(events, number + 1))
            replay.decided(event, replay.add([shown], after), after,
                           not _ends_next(events, number + 1), timed=event.seat == seat)
        elif isinstance(event, MatchEndEvent):
            replay.ended(event.result, replay.add([shown], finished, event.result))
    return ReplayPage(_page(replay, None), replay.decisions, replay.end is not None)


def _until_decision(events: Sequence[tuple[MatchEvent, Any]], start: int
                    ) -> Iterator[RoundEndEvent]:
    """The round ends from ``start`` up to the next decision."""
    for event, _ in events[start:]:
        if isinstance(event, DecisionEvent):
            return
        if isinstance(event, RoundEndEvent):
            yield event


def _ends_next(events: Sequence[tuple[MatchEvent, Any]], start: int) -> bool:
    """Whether the match end comes before any other decision from ``start`` on."""
    for event, _ in events[start:]:
        if isinstance(event, DecisionEvent):
            return False
        if isinstance(event, MatchEndEvent):
            return True
    return False


# --- parts of a frame ------------------------------------------------------------------------
def _scores(finished: tuple[tuple[int, int], ...], names: tuple[str, str], word: str
            ) -> Markup:
    rows: list[Markup] = [
        el("tr", None, leaf("td", None, f"{word} {i}"), leaf("td", "num", a), leaf("td", "num", b))
        for i, (a, b) in enumerate(finished, start=1)
    ]
    totals = totals_of(finished)
    rows.append(el("tr", "total", leaf("td", None, "total"),
                   leaf("td", "num", totals[0], data_total="0"),
                   leaf("td", "num", totals[1], data_total="1")))
    head = el("tr", None, leaf("th", None, "scores"), leaf("th", "num seat0", names[0]),
              leaf("th", "num seat1", names[1]))
    return el("div", "scores", el("table", "grid", head, *rows), data_zone="scores")


def _verdict(result: MatchResult) -> str:
    names = result.bots
    totals = f"{result.totals[0]} – {result.totals[1]}"
    if result.void:
        return f"Void match ({result.termination}): not rated · totals {totals}"
    if result.winner is None:
        return f"Draw · {totals} · {result.termination}"
    return f"{seat_label(names, result.winner)} wins · {totals} · {result.termination}"


def _result(result: MatchResult, names: tuple[str, str], detail: bool) -> Markup:
    lines: list[Markup] = [leaf("p", None, "Match over: " + _verdict(result))]
    kind = "result"
    if result.termination.is_fault and result.faulty_seat is not None:
        kind = "result forfeit"
        why = _FAULTS.get(result.termination, str(result.termination))
        lines.append(leaf("p", None, f"{seat_label(names, result.faulty_seat)} forfeited: {why}."))
    elif result.void:
        kind = "result void"
    if result.detail and detail:
        first = plain_text(result.detail.splitlines()[0][:300])
        lines.append(leaf("p", "dim", "detail: " + first))
    return el("div", kind, *lines, data_zone="result", data_termination=str(result.termination))


# --- the move list ---------------------------------------------------------------------------
def _move(event: DecisionEvent, frame: int, names: tuple[str, str], timed: bool = True
          ) -> Markup:
    cls = f"move s{event.seat}"
    if event.fault is None:
        action: Markup = leaf("span", "act", event.action)
    else:
        cls += " fault"
        answer = "no answer" if event.action is None else f"answered {event.action!r}"
        action = leaf("span", "act", f"{answer} — {event.fault}: forfeit")
    return el("li", cls, leaf("span", "n", event.n), leaf("span", "who", names[event.seat]),
              action, leaf("span", "ms", _times(event) if timed else ""), data_frame=frame,
              title=f"move {event.n}, round {event.round + 1}, seat {event.seat}")


def _times(event: DecisionEvent) -> str:
    """The decision's wall time, and its CPU time beside it when it was recorded."""
    wall = f"{event.ms:.1f} ms"
    return wall if event.cpu_ms is None else f"{wall} · CPU {event.cpu_ms:.1f} ms"


def _round_end(finished: tuple[tuple[int, int], ...], names: tuple[str, str], word: str
               ) -> Markup:
    scores, totals = finished[-1], totals_of(finished)
    return leaf("li", "roundend", f"{word} {len(finished)} over: {scores[0]} – {scores[1]} "
                f"(totals {names[0]} {totals[0]}, {names[1]} {totals[1]})")


def _move_items(replay: _Replay) -> Markup:
    return (leaf("li", "round", f"{replay.word} 1", data_frame=0), *replay.moves)


# --- the page --------------------------------------------------------------------------------
def _meta(header: HeaderEvent, omniscient: bool) -> str:
    tc = header.time_control
    parts = [f"match {header.match_id}"]
    if omniscient:  # the seed determines every deal: only a page with the full view shows it
        parts.append("seed committed" if header.seed is None else f"seed {header.seed}")
    options = ", ".join(f"{k}={v}" for k, v in sorted(header.options.items()))
    parts += [f"options {options}" if options else "", f"{tc.move_time_ms} ms per move"
              + (f" + {tc.time_bank_ms} ms bank" if tc.time_bank_ms else "")
              + (f" on the CPU clock (wall guard {tc.wall_guard:g}×)" if tc.clock == "cpu"
                 else ""),
              f"sandbox {header.sandbox}" if header.sandbox else "",
              f"started {header.started_at}" if header.started_at else "",
              f"arena {header.arena_version}" if header.arena_version else ""]
    return " · ".join(p for p in parts if p)


def _view_options(seats: tuple[int | None, ...], names: tuple[str, str]) -> Markup:
    options = []
    for index, seat in enumerate(seats):
        label = "omniscient (everything)" if seat is None else (
            f"what seat {seat} saw ({names[seat]})")
        options.append(leaf("option", None, label, value=index,
                            data_key="all" if seat is None else str(seat)))
    return el("select", None, *options, id="view", title="whose view (o, 0, 1, v)")


def _controls(replay: _Replay) -> Markup:
    word = replay.board.round_name
    rounds = tuple(leaf("option", None, f"{word} {i + 1}", value=i)
                   for i in range(len(replay.round_starts)))
    speeds = tuple(
        f'<option value="{s}"{" selected" if s == DEFAULT_SPEED else ""}>{s} moves/s</option>'
        for s in SPEEDS)
    buttons = (("first", "⇤", "first frame (Home)"), ("back", "←", "back one move (←)"),
               ("play", "▶", "play / pause (space)"), ("fwd", "→", "forward one move (→)"),
               ("last", "⇥", "last frame (End)"))
    return el(
        "div", "controls",
        *(leaf("button", None, face, id=name, title=title, type="button", aria_label=title)
          for name, face, title in buttons),
        '<input id="pos" type="range" min="0" max="0" value="0" aria-label="move">',
        leaf("span", None, "start", id="counter"),
        el("label", None, f"{word} ", el("select", None, *rounds, id="round", title="↑ ↓")),
        el("label", None, "speed ", el("select", None, *speeds, id="speed", title="+ −")),
        el("label", None, "view ", _view_options(replay.seats, replay.names)),
    )


def _page(replay: _Replay, site: SiteLinks | None) -> str:
    header, names = replay.header, replay.names
    title = f"{replay.game.title}: {names[0]} vs {names[1]}"
    notes: list[Markup] = []
    if replay.end is None:
        notes.append(leaf("p", "note", f"Unfinished match: the log ends after move "
                          f"{replay.decisions} without a match end (the match was still running "
                          "or its log was cut short). The replay shows every complete move.",
                          id="unfinished"))
    body = (
        el("header", "top", leaf("h1", None, title),
           leaf("p", "meta", _meta(header, None in replay.seats))),
        *notes,
        el("section", "player", _controls(replay),
           leaf("p", "keys", "Keys: ← → step · space play/pause · ↑ ↓ round · Home End · "
                "o 0 1 or v: view · + − speed · click a move to jump to it")),
        el("main", "layout", el("section", "board", id="board", aria_live="polite"),
           el("aside", "side", leaf("h2", None, "Moves"),
              el("ol", None, *(() if site else (_move_items(replay),)), id="moves"))),
    )
    data: dict[str, object] = {
        "game": header.game,
        "match_id": header.match_id,
        "views": ["all" if s is None else s for s in replay.seats],
        "decisions": replay.decisions,
        "ended": replay.end is not None,
        "rounds": replay.round_starts,
        "frames": replay.frames,
        "t": replay.table.entries,
    }
    if site is not None:  # packed with the frames: the player fills the list in
        data["moves"] = render(_move_items(replay))
    return document(title, body, script=PLAYER, data=data, site=site)
