"""What the watch app shows, without the app: a match as a line of positions, each the board one
decision was made on (pure: events and engine states in, text and renderables out).

Position ``i`` is the match after ``i`` decisions: the board decision ``i + 1`` was made on (its
mover's view of it in a seat view), that decision's move and times; the last position is the
match as it ends (or as far as a running log goes). A view is ``None`` (everything) or a seat.

Two sources: a match log (``Timeline.add`` with each ``ReplayStep`` of ``replay_events``, so
every position was checked by the rules engine), and a seat view, downloaded with `arena logs`
or sent by a competition server as the match is watched (``Timeline.of_seat_view``, then
``add_seen``: only that seat's observations, before each of its decisions).

Seeking is fast on long matches through keyframes: the engine state is kept every
``KEYFRAME_EVERY`` decisions; a position between two is rebuilt from the one before by applying
at most ``KEYFRAME_EVERY - 1`` actions (the states are immutable, so a keyframe is a reference).
A seat view shows only what its seat saw: the board from ``game.observation(state, seat)``, the
other seat's moves in the text the game shows that seat (``action_text_for``), and no time of
the other seat's decisions (its bot never sees them, and a downloaded seat view has none).
"""

from __future__ import annotations

import bisect
import dataclasses
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.console import RenderableType
from rich.text import Text

from arena.games import get_game
from arena.model import (
    DecisionEvent,
    HeaderEvent,
    MatchEndEvent,
    MatchEvent,
    RoundEndEvent,
    plain_text,
)
from arena.record.log import seat_log_path
from arena.record.replay import ReplayStep
from arena.render import renderer_for

KEYFRAME_EVERY = 16
"""Decisions between two kept engine states: a seek applies at most 15 actions."""
OUTPUT_TAIL_BYTES = 16 << 10
"""How much of the end of a bot's output file the app reads."""

View = int | None
"""None: everything (the omniscient view); 0 or 1: what that seat saw."""


def view_name(view: View) -> str:
    return "everything" if view is None else f"seat {view}"


@dataclass(frozen=True)
class Move:
    """One decision as the app lists it."""

    n: int
    """1-based decision number."""
    round: int
    seat: int
    texts: tuple[str, str, str]
    """The action as shown in each view: everything, seat 0's, seat 1's (the other seat's move
    as the game shows it to that seat); a forfeit's fault follows its answer."""
    ms: float | None
    """Wall time of the decision (None: not in this source)."""
    cpu_ms: float | None
    fault: str | None = None
    action: str | None = None
    """The canonical action text (a match log's; None: a forfeit, or not in this source)."""

    def text(self, view: View) -> str:
        return self.texts[0 if view is None else view + 1]


@dataclass(frozen=True)
class SeatTime:
    """What one seat's clock says at a position: its latest decision so far (the current one
    included) and its totals."""

    seat: int
    last_n: int | None
    """The latest decision of this seat up to the current one (None: none yet)."""
    ms: float | None
    cpu_ms: float | None
    total_ms: float
    total_cpu_ms: float | None
    hidden: bool = False
    """The view is the other seat's: nothing of this seat's clock is shown."""


@dataclass
class Timeline:
    """A match as positions (see the module docstring). Built event by event (``add``), so a log
    still being written grows it while it is watched."""

    header: HeaderEvent
    views: tuple[View, ...] = (None, 0, 1)
    """The views the source allows (a seat view: only its seat)."""
    moves: list[Move] = field(default_factory=list)
    round_ends: list[tuple[int, RoundEndEvent]] = field(default_factory=list)
    """Each round end with the number of decisions made when it came."""
    end: MatchEndEvent | None = None
    keyframe_every: int = KEYFRAME_EVERY
    log: Path | None = None
    """The match log (its bots' output files are beside it), if any."""
    seat_view: bool = False
    """Built from a seat view: observations, no engine states."""
    hidden_move: str = ""
    """A seat view's text for the other seat's moves."""
    events: int = 0
    """The events of the log added so far (a follower skips as many)."""
    _keyframes: list[Any] = field(default_factory=list)
    """The engine state after ``k * keyframe_every`` decisions, for every k so far."""
    _state: Any = None
    """The engine state after the last decision added."""
    _cache: tuple[int, Any] | None = None
    """The last state rebuilt (position, state): stepping on from it applies one action."""
    _observations: list[tuple[int, Any]] = field(default_factory=list)
    """A seat view's boards: (position, the seat's observation there), in order."""

    def __post_init__(self) -> None:
        self.game = get_game(self.header.game)
        self.renderer = renderer_for(self.header.game)
        self._shows = getattr(self.game, "action_text_for", None)
        self._round_starts: list[int] = [0]

    # building

    @classmethod
    def of_steps(cls, steps: Iterable[ReplayStep], log: Path | None = None,
                 keyframe_every: int = KEYFRAME_EVERY) -> Timeline:
        """The timeline of a match log's replay (``replay_events``): every view allowed."""
        iterator = iter(steps)
        first = next(iterator)
        assert isinstance(first.event, HeaderEvent), "replay_events starts with the header"
        timeline = cls(first.event, log=log, keyframe_every=keyframe_every)
        timeline.add(first)
        for step in iterator:
            timeline.add(step)
        return timeline

    def add(self, step: ReplayStep) -> None:
        """The next event of a match log with the engine state after it."""
        event = step.event
        self.events += 1
        if isinstance(event, HeaderEvent):
            self._state = step.state
            self._keyframes.append(step.state)
        elif isinstance(event, DecisionEvent):
            self._add_move(event, self._texts(event))
            self._state = step.state
            if len(self.moves) % self.keyframe_every == 0:
                self._keyframes.append(step.state)
        elif isinstance(event, RoundEndEvent):
            self.round_ends.append((len(self.moves), event))
        elif isinstance(event, MatchEndEvent):
            self.end = event

    def _texts(self, event: DecisionEvent) -> tuple[str, str, str]:
        shown = _answer(event)
        if self._shows is None or event.fault is not None or event.action is None:
            return (shown, shown, shown)
        action = self.game.parse_action(event.action)
        seen = tuple(shown if seat == event.seat else self._shows(self._state, action, seat)
                     for seat in (0, 1))
        return (shown, seen[0], seen[1])

    def _add_move(self, event: DecisionEvent, texts: tuple[str, str, str]) -> None:
        if self.moves and event.round != self.moves[-1].round:
            self._round_starts.append(len(self.moves))
        self.moves.append(Move(event.n, event.round, event.seat, texts,
                               event.ms, event.cpu_ms,
                               None if event.fault is None else str(event.fault),
                               event.action if event.fault is None else None))

    @classmethod
    def of_seat_view(cls, header: HeaderEvent, seat: int,
                     events: Iterable[tuple[MatchEvent, Any]], hidden_move: str,
                     log: Path | None = None) -> Timeline:
        """The timeline of a seat view (downloaded with `arena logs`, or coming from a
        competition server as it is watched): ``events`` as the seat view holds them, each with
        the seat's observation before its own decisions (None for the other events); the other
        seat's moves are ``hidden_move`` (the view records only that they happened). More
        events come with ``add_seen``."""
        timeline = cls(header, views=(seat,), log=log, seat_view=True, hidden_move=hidden_move)
        for event, observation in events:
            timeline.add_seen(event, observation)
        return timeline

    def add_seen(self, event: MatchEvent, observation: Any) -> None:
        """The next event of a seat view, with the seat's observation before it (its own
        decisions; None otherwise)."""
        seat = self.views[0]
        self.events += 1
        if isinstance(event, DecisionEvent):
            if observation is not None:
                self._observations.append((len(self.moves), observation))
            mine = event.seat == seat
            shown = _answer(event) if mine else self.hidden_move
            texts = (shown, shown, shown)
            self._add_move(event, texts)
            if not mine:  # the view has no time of the other seat's moves
                last = self.moves[-1]
                self.moves[-1] = Move(last.n, last.round, last.seat, texts, None, None)
            else:  # nor any state to rebuild
                self.moves[-1] = dataclasses.replace(self.moves[-1], action=None)
        elif isinstance(event, RoundEndEvent):
            self.round_ends.append((len(self.moves), event))
        elif isinstance(event, MatchEndEvent):
            self.end = event

    # reading

    @property
    def last(self) -> int:
        """The last position (after every decision so far)."""
        return len(self.moves)

    def state_at(self, position: int) -> Any:
        """The engine state after ``position`` decisions (a match log only)."""
        if not 0 <= position <= self.last:
            raise IndexError(position)
        if position == self.last:
            return self._state
        cached = self._cache
        index = position // self.keyframe_every
        start, state = index * self.keyframe_every, self._keyframes[index]
        if cached is not None and start <= cached[0] <= position:
            start, state = cached
        for move in self.moves[start:position]:
            if move.action is not None:  # a forfeit changes nothing (and ends the match)
                state = self.game.apply(state, self.game.parse_action(move.action))
        self._cache = (position, state)
        return state

    def board(self, position: int, view: View) -> tuple[RenderableType, str]:
        """The board at ``position`` in ``view`` (the game's terminal renderer) and a line about
        it ("" or which earlier board a seat view shows)."""
        if view not in self.views:
            raise ValueError(f"this source has no {view_name(view)} view")
        if not self.seat_view:
            state = self.state_at(position)
            if view is None:
                return self.renderer.render_state(state), ""
            return self.renderer.render_view(self.game.observation(state, view)), ""
        index = bisect.bisect_right(self._observations, position, key=lambda e: e[0]) - 1
        if index < 0:
            return Text("(this seat's first view comes with its first decision)",
                        style="dim"), ""
        at, observation = self._observations[index]
        note = "" if at == position else (f"as seat {view} was shown it for decision "
                                           f"{at + 1}")
        return self.renderer.render_view(observation), note

    def round_of(self, position: int) -> int:
        """The round of the decision at ``position`` (at the end: the last decision's)."""
        if not self.moves:
            return 0
        return self.moves[min(position, self.last - 1)].round

    def round_start(self, position: int, step: int) -> int:
        """The first position of the round ``step`` rounds from ``position``'s: -1 the previous
        round's start, or this round's when ``position`` is past it (as a player's "previous
        track"); +1 the next round's (the end after the last)."""
        starts = self._round_starts
        here = bisect.bisect_right(starts, position) - 1
        if step < 0:
            if position > starts[here] or here == 0:
                return starts[here]
            return starts[here - 1]
        return starts[here + 1] if here + 1 < len(starts) else self.last

    def scores(self, position: int) -> list[RoundEndEvent]:
        """The rounds ended by ``position``."""
        return [event for made, event in self.round_ends if made <= position]

    def times(self, position: int, view: View) -> tuple[SeatTime, SeatTime]:
        """Each seat's latest decision up to the current one (``position + 1``) and totals."""
        upto = self.moves[:position + 1]
        out = []
        for seat in (0, 1):
            mine = [m for m in upto if m.seat == seat]
            if view is not None and view != seat:
                out.append(SeatTime(seat, mine[-1].n if mine else None, None, None, 0.0, None,
                                    hidden=True))
                continue
            last = mine[-1] if mine else None
            cpus = [m.cpu_ms for m in mine]
            out.append(SeatTime(
                seat, None if last is None else last.n, None if last is None else last.ms,
                None if last is None else last.cpu_ms,
                sum(m.ms or 0.0 for m in mine),
                None if not mine or None in cpus else sum(c or 0.0 for c in cpus)))
        return out[0], out[1]

    def output_tail(self, seat: int, lines: int = 200) -> str | None:
        """The end of seat ``seat``'s bot output beside the log (``<match>.seat<n>.log``) as
        plain text (no control characters: escape sequences never reach the terminal); None
        when there is no such file."""
        if self.log is None:
            return None
        path = seat_log_path(self.log, seat)
        try:
            with path.open("rb") as f:
                size = f.seek(0, 2)
                f.seek(max(0, size - OUTPUT_TAIL_BYTES))
                data = f.read(OUTPUT_TAIL_BYTES)
        except OSError:
            return None
        text = data.decode("utf-8", errors="replace")
        if size > OUTPUT_TAIL_BYTES:  # the first line read is cut
            text = text.partition("\n")[2]
        return "\n".join(plain_text(line) for line in text.splitlines()[-lines:])


def _answer(event: DecisionEvent) -> str:
    """A decision's action as listed; a forfeit: what the bot answered and the fault."""
    if event.fault is None:
        return plain_text(event.action or "")
    answer = "(no answer)" if event.action is None else repr(plain_text(event.action))
    return f"{answer} {event.fault}: forfeit"
