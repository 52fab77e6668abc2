"""The head trusts nothing a worker returns: each outcome is checked against the spec the head
submitted before anything is written or recorded.

- A played match (``MatchOutput``): its result names the spec's match id, game, seed and bots;
  its match log and seat logs inflate within their caps (checked while inflating: a zlib bomb
  stops at the cap); the log is the spec's match (header: match id, game, seed, bots) and
  replays through the rules engine and the clocks exactly as ``arena replay`` checks it
  (``arena.record.replay``), ending with the very result the worker returned. Seat logs (a
  bot's own output) are kept as plain text (``arena.model.plain_text``).
- A host's void result (``MatchResult``): the spec's match, void (``internal``), no winner.
- ``Needs``: only the spec's bot directories and the spec's images (a worker cannot make the head
  ``docker save`` another author's image or pack another directory).

What fails is ``Inconsistent``: the head records the match void (``internal``: never rated) and
logs it with the worker's address. Log paths are the head's own (``write_outputs``).
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from typing import Any

from arena.cluster import LIVE_LOG_CAP
from arena.cluster.live import inflate
from arena.cluster.shipping import Needs
from arena.cluster.task import MatchOutput
from arena.errors import ArenaError
from arena.model import (
    HeaderEvent,
    MatchEndEvent,
    MatchResult,
    MatchSpec,
    Termination,
    event_from_json,
    plain_text,
)
from arena.record.log import with_seed
from arena.record.replay import replay_events
from arena.sandbox.api import LOG_TAIL_BYTES

MATCH_LOG_CAP = LIVE_LOG_CAP
"""The most bytes of a match log the head inflates."""
SEAT_LOG_CAP = 4 * LOG_TAIL_BYTES
"""The most bytes of a seat log the head inflates (a kept output tail, each undecodable byte of
it one three-byte replacement character at worst)."""


class Inconsistent(Exception):
    """What a worker returned does not hold together with the spec: the match is void."""


@dataclass(frozen=True)
class CheckedOutput:
    """A played match that passed ``check_output``: what ``write_outputs`` writes."""

    result: MatchResult
    log: str
    """The match log, inflated and replayed."""
    seat_logs: tuple[str | None, str | None]
    """Each seat's output tail as plain text (None: none was kept)."""
    worker: str
    attempt: str


def check_output(output: Any, spec: MatchSpec) -> CheckedOutput:
    """``output`` checked against ``spec`` (see the module doc); ``Inconsistent`` if not."""
    if not isinstance(output, MatchOutput) or not isinstance(output.result, MatchResult):
        raise Inconsistent(f"it returned a {type(output).__name__}, not a played match")
    _check_identity(output.result, spec)
    if not (isinstance(output.worker, str) and isinstance(output.attempt, str)
            and isinstance(output.seat_logs, tuple) and len(output.seat_logs) == 2):
        raise Inconsistent("its played match is malformed")
    text = _text(output.log, MATCH_LOG_CAP, "match log")
    seats = tuple(None if data is None else plain_text(_text(data, SEAT_LOG_CAP, "seat log",
                                                             strict=False))
                  for data in output.seat_logs)
    _check_log(text, output.result, spec)
    detail = output.result.detail
    result = dataclasses.replace(output.result, detail=plain_text(detail)
                                 if isinstance(detail, str) else "")
    return CheckedOutput(result, text, (seats[0], seats[1]), output.worker, output.attempt)


def check_void(result: Any, spec: MatchSpec) -> MatchResult:
    """A host's void result (a match it could not start) checked against ``spec``."""
    if not isinstance(result, MatchResult):
        raise Inconsistent(f"it returned a {type(result).__name__}")
    _check_identity(result, spec)
    if result.termination is not Termination.INTERNAL or result.winner is not None:
        raise Inconsistent(f"it returned a {result.termination} result without a match log")
    return dataclasses.replace(result, detail=plain_text(str(result.detail)), log=None)


def check_needs(needs: Any, spec: MatchSpec) -> Needs:
    """What a worker asked to be shipped, if the spec names all of it."""
    if not isinstance(needs, Needs):
        raise Inconsistent(f"it returned a {type(needs).__name__}")
    directories = {bot.digest for bot in spec.bots if bot.directory and not bot.image}
    images = {bot.image for bot in spec.bots if bot.image}
    for digest in needs.bots:
        if digest not in directories:
            raise Inconsistent(f"it asked for a bot directory the match does not name: "
                               f"{plain_text(str(digest))[:80]!r}")
    for image in needs.images:
        if image not in images:
            raise Inconsistent(f"it asked for an image the match does not name: "
                               f"{plain_text(str(image))[:80]!r}")
    return needs


def _check_identity(result: MatchResult, spec: MatchSpec) -> None:
    names = (spec.bots[0].name, spec.bots[1].name)
    found = (result.match_id, result.game, result.seed, tuple(result.bots))
    wanted = (spec.match_id, spec.game, spec.seed, names)
    if found != wanted:
        raise Inconsistent(f"its result is of match {plain_text(repr(found))[:200]}, "
                           f"not of {wanted!r}")


def _text(data: Any, cap: int, what: str, *, strict: bool = True) -> str:
    raw = inflate(data, cap) if isinstance(data, bytes) else None
    if raw is None:
        raise Inconsistent(f"its {what} is not zlib data of at most {cap} bytes")
    try:
        return raw.decode("utf-8", "strict" if strict else "replace")
    except UnicodeDecodeError:
        raise Inconsistent(f"its {what} is not UTF-8 text") from None


def _check_log(text: str, result: MatchResult, spec: MatchSpec) -> None:
    """The log is ``spec``'s match, replays, and ends with ``result``."""
    try:
        events = with_seed([event_from_json(json.loads(line))
                            for line in text.splitlines() if line])
        header = events[0] if events else None
        if not isinstance(header, HeaderEvent):
            raise Inconsistent("its match log has no header")
        bots = tuple((b.name, b.digest) for b in header.bots)
        options = {key: header.options.get(key) for key in spec.options}
        if (header.match_id, header.game, header.seed, bots, header.time_control, options) != (
                spec.match_id, spec.game, spec.seed, tuple((b.name, b.digest) for b in spec.bots),
                spec.time_control, dict(spec.options)):
            raise Inconsistent("its match log is of another match (header: match id, game, "
                               "seed, bots, time control or options)")
        for _ in replay_events(events):
            pass
    except (ArenaError, ValueError, TypeError, KeyError, AttributeError) as exc:
        raise Inconsistent(f"its match log does not replay: {plain_text(str(exc))[:300]}"
                           ) from None
    end = events[-1]
    if not isinstance(end, MatchEndEvent):
        raise Inconsistent("its match log does not end with the match end")
    if _outcome(end.result) != _outcome(result):
        raise Inconsistent("its result differs from its match log's")


def _outcome(result: MatchResult) -> tuple[Any, ...]:
    """What a result says of its match (not the paths, the rounded duration or the detail)."""
    return (result.match_id, result.game, result.game_version, result.seed, result.options,
            tuple(result.bots), result.rounds, result.totals, result.winner,
            result.termination, result.faulty_seat, result.decisions)
