"""What a contestant may see of a match, and the views the server sends them.

The rule (``sight``) is one pure function of the competition's ``logs`` setting, the seats the
caller's bots played and whether the match still runs:

* while a match runs, a contestant sees only the seats their own bots play, each from that
  seat's own view (what its bot is told): never the deal, the seed or the other hand;
* after it ends, ``public`` shows the whole match to anyone, ``participants`` the whole match to
  the owners of the bots that played it and nothing to others, ``own-seat`` each owner their own
  seat's view and nothing to others;
* a bot's output tail is its owner's only (and the operator's, on the host).

A seat's view is built from ``game.observation(state, seat)`` alone (the frames a watcher
gets, ``arena.render.frames``; the file a contestant downloads, ``seat_view_lines``): the engine
decides what a seat sees, so no hidden card can slip through a caption or a header (the seed,
which determines every deal, is never in a seat's view; the opponent's moves are captioned
"moved", the board shows what of them the seat saw).

What a watcher of a match gets as records (``watch_records``, the app of `arena watch --server`
builds from them) is the same, one event at a time: a seat's view line by line (the fault's
detail left out: the owner and an audience share one feed), or the log as shared with someone
who owns neither seat, its header with the seed (a whole board is only ever shown of a finished
match, whose end reveals the seed anyway).

What a contestant downloads of a finished match (``download``) is the log as they may have it
(``shared_log``) or their seat's view, ending with the referee's signed statement of exactly
those bytes (``arena.record.signing.statement_for``), so they can check it offline with the
competition's public key (``verify_download``, `arena verify FILE --key referee.pub`). The
statement is made as the file is sent, with the key that signed the match log, and only of a
log that key signed and that still verifies; each seat's view gets a statement of that view
alone (no digest of the other seat's view: a view has too little entropy to hide behind a
hash).
"""

from __future__ import annotations

import io
import json
import logging
import warnings
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from google.protobuf import json_format

from arena.errors import LogFormatError, SignatureError
from arena.games import get_game
from arena.model import (
    DecisionEvent,
    HeaderEvent,
    MatchEndEvent,
    MatchEvent,
    RoundEndEvent,
    plain_text,
)
from arena.record.log import read_events
from arena.record.replay import ReplayStep, SeedCheck, replay_events, replay_log, verify_log
from arena.record.signing import (
    LOG_DOCUMENT,
    SEAT_VIEW_DOCUMENT,
    Signer,
    Statement,
    TrustedKeys,
    check_statement,
    is_statement,
    parse_log_signature,
    statement_for,
)
from arena.render import frames
from arena.wire import encode_observation

OWN_SEAT, PARTICIPANTS, PUBLIC = "own-seat", "participants", "public"

log = logging.getLogger("arena.host")


@dataclass(frozen=True)
class Sight:
    """What a caller may see of one match."""

    seats: frozenset[int]
    """The seats whose own view they may see."""
    full: bool
    """The whole match: the omniscient log and board."""

    @property
    def nothing(self) -> bool:
        """They may see nothing of it."""
        return not self.seats and not self.full


def sight(setting: str, own_seats: Iterable[int], running: bool) -> Sight:
    """What a caller whose bots played ``own_seats`` may see of a match (module doc)."""
    own = frozenset(own_seats)
    if running:
        return Sight(own, False)
    if setting == PUBLIC:
        return Sight(frozenset((0, 1)), True)
    if setting == PARTICIPANTS:
        return Sight(frozenset((0, 1)), True) if own else Sight(frozenset(), False)
    return Sight(own, False)


def seat_view_lines(events: Iterable[MatchEvent], seat: int) -> Iterator[bytes]:
    """A finished match as one seat saw it, JSON lines: a header without the seed, every
    observation that seat was given before its decisions (the wire's JSON form) with the action
    it took, each round's scores and the result (no seed, no head paths; a fault's detail, the
    faulty bot's last output, only for the seat's own fault)."""
    return (line for line in seat_view_records(replay_events(events), seat) if line)


def seat_view_records(steps: Iterable[ReplayStep], seat: int, *, start: int = 0,
                      detail: bool = True) -> Iterator[bytes]:
    """``seat_view_lines`` one step of a replay (``replay_events``) at a time, from the
    ``start``-th step: the step's line, or ``b""`` for an event the seat's view has no line
    for (a deal). Without ``detail``, a fault's detail is left out even for the seat's own
    fault (what a watcher of the seat gets: the owner and a public audience share one feed)."""
    header: HeaderEvent | None = None
    game: Any = None
    before: Any = None
    for number, step in enumerate(steps):
        event = step.event
        if isinstance(event, HeaderEvent):
            header, game = event, get_game(event.game)
        if number < start:
            before = step.state
            continue
        if isinstance(event, HeaderEvent):
            data = event.to_json()
            data.pop("seed", None)
            data.update(type="seat_header", seat=seat)
            yield _line(data)
        elif isinstance(event, DecisionEvent) and event.seat == seat and before is not None:
            message = encode_observation(header.game, game.observation(before, seat))  # type: ignore[union-attr]
            yield _line({"type": "observation", "n": event.n, "round": event.round,
                         "observation": json_format.MessageToDict(message),
                         "action": event.action, "ms": event.ms,
                         "fault": None if event.fault is None else str(event.fault)})
        elif isinstance(event, DecisionEvent):
            yield _line({"type": "opponent_moved", "n": event.n, "round": event.round})
        elif isinstance(event, RoundEndEvent):  # the scores; the game's account may tell more
            yield _line({"type": event.type, "round": event.round,
                         "scores": list(event.scores), "totals": list(event.totals)})
        elif isinstance(event, MatchEndEvent):
            result = event.result
            shown = detail and result.faulty_seat == seat
            yield _line({"type": event.type, "result": {
                "winner": result.winner, "totals": list(result.totals),
                "rounds": [list(r) for r in result.rounds],
                "termination": str(result.termination), "faulty_seat": result.faulty_seat,
                "void": result.void,
                "detail": plain_text(result.detail) if shown else ""}})
        else:
            yield b""
        before = step.state


def log_records(steps: Iterable[ReplayStep], *, start: int = 0) -> Iterator[bytes]:
    """The match log's records one step of a replay at a time, from the ``start``-th step, as
    ``shared_log`` gives them to someone who owns neither seat (a fault's detail and the head's
    paths left out), the header with its seed: a watcher of the whole board (a finished match
    only, ``sight``) replays the match as the records come, before the match end's reveal."""
    for number, step in enumerate(steps):
        if number < start:
            continue
        event = step.event
        data = event.to_json()
        if isinstance(event, HeaderEvent) and event.seed is not None:
            data["seed"] = event.seed
        yield _shared_line(_line(data), frozenset())


def watch_records(steps: Iterable[ReplayStep], seat: int | None, *, start: int = 0
                  ) -> Iterator[bytes]:
    """The records a watcher of ``seat`` (None: the whole board) gets, one a step (module doc):
    ``log_records`` or ``seat_view_records`` without a fault's detail."""
    if seat is None:
        return log_records(steps, start=start)
    return seat_view_records(steps, seat, start=start, detail=False)


def _line(data: dict[str, Any]) -> bytes:
    return (json.dumps(data, separators=(",", ":")) + "\n").encode()


# --- downloads -------------------------------------------------------------------------------
def shared_log(data: bytes, own_seats: frozenset[int]) -> bytes:
    """A finished match log's bytes as a contestant gets them: the signature record left out,
    and in the match end the head's paths (the output tails', the log's own) null and a fault's
    detail (the faulty bot's last output) kept only for its owner (``own_seats``); every other
    line as it is."""
    out: list[bytes] = []
    for line in io.BytesIO(data):  # lines end at "\n" only, as the referee writes them
        if b'"signature"' in line and line.startswith(b'{"type":"signature"'):
            continue
        out.append(_shared_line(line, own_seats))
    return b"".join(out)


def _shared_line(line: bytes, own_seats: frozenset[int]) -> bytes:
    """One line of a log as ``shared_log`` gives it."""
    if b'"match_end"' in line:
        record = json.loads(line)
        if record.get("type") == "match_end":
            record["bot_logs"] = [None, None]
            result = record.get("result") or {}
            if "log" in result:
                result["log"] = None
            if result.get("faulty_seat") not in own_seats:
                result["detail"] = ""
            line = _line(record)
    return line


def download(path: Path, seen: Sight, own_seats: frozenset[int], signer: Signer | None
             ) -> tuple[bytes, str]:
    """What a caller who may see ``seen`` of the finished match logged at ``path`` downloads,
    and its kind: the whole log (``log``: ``shared_log``) or their seat's view (``seat-view``,
    the lowest of their seats), ending with ``signer``'s statement of those bytes when the log
    is signed by that key (else without one: a log signed by a key since rotated out, a
    validation match's, a log changed after it was signed; said in the server's log)."""
    data = path.read_bytes()
    if seen.full:
        kind, seat = LOG_DOCUMENT, None
        document = shared_log(data, own_seats)
    else:
        kind, seat = SEAT_VIEW_DOCUMENT, min(seen.seats)
        document = b"".join(seat_view_lines(read_events(path), seat))
    if signer is None:
        return document, kind
    try:
        signed = parse_log_signature(data) is not None
        statement = statement_for(data, kind, seat, document, signer) if signed else b""
    except SignatureError as exc:
        log.warning(json.dumps({"event": "no_statement", "log": str(path), "why": str(exc)}))
        statement = b""
    return document + statement, kind


@dataclass(frozen=True)
class Checked:
    """A downloaded file that verified (``verify_download``)."""

    kind: str
    """``log`` or ``seat-view`` (a download with a statement), or ``signed log`` (a match log
    with its signature record, as `arena ladder publish` gives them)."""
    key_id: str
    match_id: str
    game: str
    seat: int | None
    """The seat of a seat's view."""
    bots: tuple[str, ...]
    result: dict[str, Any]
    """The result as signed (winner, totals, rounds, termination, faulty seat, void)."""
    seed_commitment: str | None
    seed: SeedCheck | None
    """What replay said of the seed (a log; None: a seat's view, which holds no seed)."""
    decisions: int
    """The decisions the file holds: all of a log's, a seat view's own."""


def verify_download(path: Path, trusted: TrustedKeys) -> Checked:
    """Check a file a contestant downloaded (`arena logs`, the public page) offline against
    ``trusted``: its statement (signed by a trusted key, the SHA-256 of every byte before it,
    what it states of the match the file's own header and match end), and a whole log replayed
    under the rules (the seed's reveal against its commitment, every deal, action, clock and
    score). A signed match log (its signature record last) is checked as `arena replay --key`
    does. Raises ``SignatureError`` or ``ReplayMismatchError`` (one line) for a file that does
    not verify, ``LogFormatError`` for one that cannot be read or is no log or seat view at
    all."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise LogFormatError(f"cannot read {path}: {exc.strerror}") from None
    if not is_statement(data):
        if parse_log_signature(data) is None:
            if not _looks_like_a_log(data):
                raise LogFormatError(f"{path} is not a match log or a seat view (nor a "
                                     "published directory): give a file `arena logs` wrote")
            raise SignatureError("the file's last line is no signed statement (nor a log's "
                                 "signature): it was changed, or the file was sent without "
                                 "one (an unsigned log, or downloaded before the server "
                                 "signed downloads)")
        checked = verify_log(path, trusted)
        report = checked.report
        result = report.result
        assert checked.signature is not None and result is not None
        return Checked("signed log", checked.signature.key_id, report.match_id, report.game,
                       None, result.bots, {"winner": result.winner,
                                           "totals": list(result.totals),
                                           "termination": str(result.termination)},
                       None, report.seed, report.decisions)
    statement = check_statement(data, trusted)
    _agrees(statement)
    seed: SeedCheck | None = None
    decisions = sum(1 for line in statement.document.splitlines()
                    if line.startswith(b'{"type":"observation"'))
    if statement.kind == LOG_DOCUMENT:
        report = replay_log(path)
        seed, decisions = report.seed, report.decisions
    content = statement.content
    return Checked(statement.kind, statement.key_id, str(content["match_id"]),
                   str(content["game"]), statement.seat,
                   tuple(str(b.get("name")) for b in content["bots"]), content["result"],
                   content["seed_commitment"], seed, decisions)


def _looks_like_a_log(data: bytes) -> bool:
    """Whether the first line of ``data`` is a log's header or a seat view's."""
    try:
        first = json.loads(data.split(b"\n", 1)[0])
    except ValueError:
        return False
    return isinstance(first, dict) and first.get("type") in ("header", "seat_header")


def _agrees(statement: Statement) -> None:
    """The file's header and match end, which must say what its statement says (they do
    unless the referee that signed it is broken: the statement holds their SHA-256)."""
    document, content = statement.document, statement.content
    try:
        header = json.loads(document.split(b"\n", 1)[0])
        end = json.loads(document.rstrip(b"\n").rsplit(b"\n", 1)[-1])
    except ValueError:
        header = end = None
    kind = "header" if statement.kind == LOG_DOCUMENT else "seat_header"
    if not (isinstance(header, dict) and isinstance(end, dict)) or header.get("type") != kind \
            or end.get("type") != "match_end" or not isinstance(end.get("result"), dict):
        raise SignatureError(f"the signed file is not a whole {statement.kind} (its {kind} to "
                             "its match end)")
    said: dict[str, Any] = {k: content[k] for k in ("match_id", "game", "game_version",
                                                    "options", "ladder", "seed_commitment")}
    found: dict[str, Any] = {k: header.get(k) for k in said}
    said["bots"] = content["bots"]
    found["bots"] = [{k: b.get(k) for k in ("name", "version", "digest")}
                     for b in header.get("bots", []) if isinstance(b, dict)]
    for key, value in content["result"].items():
        if key in end["result"]:
            said[key], found[key] = value, end["result"][key]
    if statement.kind == SEAT_VIEW_DOCUMENT:
        said["seat"], found["seat"] = statement.seat, header.get("seat")
    for key, value in said.items():
        if found[key] != value:
            raise SignatureError(f"the statement says {key} {value!r}, the file "
                                 f"{found[key]!r}")


MOVED = ("Frame", "seat_frames", "BOARD_WIDTH")
"""Names that moved to ``arena.render.frames`` (the frames are presentation), still found here
for one release (with a warning)."""

if not TYPE_CHECKING:  # the type checker sees the new paths only
    def __getattr__(name: str) -> Any:
        if name not in MOVED:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        warnings.warn(f"{__name__}.{name} is deprecated: import {frames.__name__}.{name}",
                      DeprecationWarning, stacklevel=2)
        return getattr(frames, name)
