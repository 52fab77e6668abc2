"""Helpers of the twin-probe tests: a copy of the twin bot with its settings, the two legs of a
duplicate encounter played at once (or one after the other, outside the host's epochs: the
sandbox alone is tested), and what each leg's twin printed.

The twin (``bots/twin``) plays seat 0 of leg 0 and seat 1 of leg 1 of the same deal, against
the random bot: from seat 0 it sends bits of its hand over the channels it is given, from seat
1 it decodes what it can (its module doc says how)."""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import uuid
from pathlib import Path
from typing import Any

from arena.bots import load_bot_dir
from arena.model import MatchResult, MatchSpec, TimeControl
from arena.referee.match import Match
from arena.referee.remote import remote_players
from arena.sandbox import get_sandbox
from tests.support.paths import ROOT, SAMPLE_BOTS

TWIN = ROOT / "tests" / "sandbox" / "bots" / "twin"
RANDOM_BOT = SAMPLE_BOTS / "lost-cities" / "random"
SLOT_MS = 250
"""A slot of the twin's frames: 6 slots (a high and a low marker, 4 bits) make 1.5 s."""
SEND_S = 8.0
"""How long the sender sends: five frames, so the receiver, started up to about a second
earlier or later (container and process starts differ), hears at least three whole ones."""
LISTEN_S = 6.5
"""How long the receiver listens (four frames)."""
MOVE_TIME_MS = 20_000
"""The first decision holds the whole send or listen."""


def twin_copy(work: Path, channels: str, *, send_s: float = SEND_S, listen_s: float = LISTEN_S,
              slot_ms: int = SLOT_MS) -> Path:
    """A copy of the twin in ``work`` (world-readable: a separated bot's user and a container's
    read it) with its ``probe.txt`` and ``markN`` files (last read long ago); a fresh nonce
    names its keys."""
    bot = work / f"twin-{uuid.uuid4().hex[:6]}"
    shutil.copytree(TWIN, bot, ignore=shutil.ignore_patterns("__pycache__"))
    (bot / "probe.txt").write_text(
        f"channels={channels}\nslot_ms={slot_ms}\nsend_s={send_s}\nlisten_s={listen_s}\n"
        f"nonce={uuid.uuid4().hex[:8]}\n", encoding="utf-8")
    for index in range(4):  # the atime channel's files, last read in 2019
        mark = bot / f"mark{index}"
        mark.write_text("mark\n", encoding="utf-8")
        os.utime(mark, (1_560_000_000, mark.stat().st_mtime))
    for path in [work, bot, *bot.iterdir()]:
        path.chmod(0o755)
    return bot


def work_dir() -> Path:
    """A directory outside /tmp (a separated bot never sees the host's /tmp)."""
    path = ROOT / f".twin-{uuid.uuid4().hex[:8]}"
    path.mkdir(mode=0o755)
    return path


def _spec(bots: tuple[Path, Path], seed: int, leg: int) -> MatchSpec:
    return MatchSpec("lost-cities", seed, (load_bot_dir(bots[0]), load_bot_dir(bots[1])),
                     {"rounds": 1}, TimeControl(move_time_ms=MOVE_TIME_MS, startup_ms=20_000),
                     f"twin-{uuid.uuid4().hex[:8]}-l{leg}")


async def _leg(spec: MatchSpec, sandbox: Any, log_dir: Path) -> MatchResult:
    """One leg as the referee plays it, but outside the host's epochs: those keep the legs of
    one deal apart in time, not the instances of one bot in other matches (a relay); what is
    tested here is that the sandbox keeps any two instances apart."""
    box = get_sandbox(sandbox) if isinstance(sandbox, str) else sandbox
    match = Match(spec, sandbox_name=box.name, log_dir=log_dir)
    with remote_players(spec.bots, box, spec.match_id, Path("/tmp")) as players:
        return await match.run(players)


async def _legs(twin: Path, sandbox: Any, log_dir: Path, seed: int,
                concurrent: bool) -> tuple[MatchResult, MatchResult]:
    leg0 = _leg(_spec((twin, RANDOM_BOT), seed, 0), sandbox, log_dir)
    leg1 = _leg(_spec((RANDOM_BOT, twin), seed, 1), sandbox, log_dir)
    if concurrent:
        first, second = await asyncio.gather(leg0, leg1)
        return first, second
    return await leg0, await leg1


def play_legs(twin: Path, sandbox: Any, log_dir: Path, *, seed: int = 7,
              concurrent: bool = True) -> tuple[str, dict[str, str]]:
    """Both legs of one deal (at once, or leg 0 then leg 1); (the bits the sender sent, what
    the receiver says of each channel: ``decoded BITS``, ``none``, ``blocked ERRNO``...)."""
    first, second = asyncio.run(_legs(twin, sandbox, log_dir, seed, concurrent))
    for result in (first, second):
        assert str(result.termination) == "normal", (result.termination, result.detail)
    sent_log = seat_log(first, 0)
    heard_log = seat_log(second, 1)
    sent = re.search(r"\[twin\] sent (\d+)", sent_log)
    assert sent, sent_log[-2000:]
    heard = dict(re.findall(r"^\[twin\] ([\w ]+): (.+)$", heard_log, re.MULTILINE))
    return sent.group(1), heard


def seat_log(result: MatchResult, seat: int) -> str:
    """The bot log tail the referee stored with the match."""
    assert result.log
    path = Path(result.log).with_name(f"{result.match_id}.seat{seat}.log")
    return path.read_text(encoding="utf-8") if path.exists() else ""
