"""One way to prepare a match: every caller (`arena match`, a ladder, `arena serve`, the smoke
match of `arena submit`, a cluster task) goes through here before ``play_match``.

Preparing is two steps:

1. ``line_up(refs, game=..., sandbox=...)``: resolve the bots (directories or submitted names),
   check they all play one game, fill in each bot's code identity, pick the sandbox ("auto" is
   decided once, here) and let it check that every bot can run in it at all (a missing base image
   is one clear ``ConfigError`` before anything is played, not a series of void matches).
2. ``Lineup.match(seats, seed=..., options=..., time_control=...)``: validate the rules options
   and the time control and build the ``MatchSpec``.

A ladder lines up its entrants once and builds a spec per scheduled match; a single match does
both at once with ``prepare_match``.

The clock model is decided once too, before the first match (``resolve_clock``): what a user
asks for (``auto``, ``cpu`` or ``wall``) against what the sandbox can meter. A resolved time
control only ever holds ``cpu`` or ``wall``.
"""

from __future__ import annotations

import dataclasses
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.bots import bot_identity, resolve_bot
from arena.errors import ConfigError
from arena.games import get_game
from arena.games.api import validate_options
from arena.model import CLOCKS, BotSpec, MatchSpec, TimeControl
from arena.sandbox import get_sandbox
from arena.sandbox.api import Sandbox

SEED_BITS = 64
"""Bits of a random default deal seed. A deal is a public function of its seed (anyone can
recompute it), so a seed a bot could guess gives the whole deal away: 64 random bits cannot be
searched, a small ``--seed`` stays possible for reproduction."""
DEFAULT_TIME_CONTROL = TimeControl()


def random_seed() -> int:
    """A fresh random deal seed."""
    return secrets.randbits(SEED_BITS)


REQUESTED_CLOCKS = ("auto", *CLOCKS)
"""What a user may ask for: ``auto`` is ``cpu`` where the sandbox meters CPU, else ``wall``."""


def resolve_clock(requested: str, sandbox: str | Sandbox,
                  bots: Sequence[BotSpec] = ()) -> tuple[str, str]:
    """The clock model to play ``bots`` on in ``sandbox`` for a request of ``auto``, ``cpu`` or
    ``wall``, and a note for the caller to print once before the first match ("" for none):
    ``auto`` where CPU cannot be metered falls back to ``wall`` and the note says why; ``cpu``
    there is a ``ConfigError`` (one line: nothing is played). ``bots`` are those that will play
    (the sandboxes meter every bot alike today)."""
    if requested not in REQUESTED_CLOCKS:
        raise ConfigError(f"clock must be one of {', '.join(REQUESTED_CLOCKS)}, got "
                          f"{requested[:40]!r}")
    if requested == "wall":
        return "wall", ""
    box = get_sandbox(sandbox) if isinstance(sandbox, str) else sandbox
    problem = box.cpu_meter_problem()
    if problem is None:
        return "cpu", ""
    if requested == "cpu":
        raise ConfigError(f"clock cpu: the {box.name} sandbox cannot meter CPU here: {problem}")
    return "wall", f"clock auto: the wall clock ({box.name} sandbox: {problem})"


def check_time_control(time_control: TimeControl) -> TimeControl:
    """The time control, or ``ConfigError`` naming the field out of range."""
    problem = time_control.problem()
    if problem is not None:
        raise ConfigError(f"time control: {problem[0]} {problem[1]}")
    return time_control


@dataclass(frozen=True)
class Lineup:
    """Bots resolved and checked for one game in one sandbox, ready to be matched."""

    game: str
    bots: tuple[BotSpec, ...]
    """In the order they were given (seat indices of ``match`` refer to it)."""
    sandbox: Sandbox

    def match(
        self,
        seats: tuple[int, int] = (0, 1),
        *,
        seed: int | None = None,
        options: Mapping[str, Any] | None = None,
        time_control: TimeControl = DEFAULT_TIME_CONTROL,
        match_id: str = "",
    ) -> MatchSpec:
        """The spec of a match between ``bots[seats[0]]`` and ``bots[seats[1]]``. Raises
        ``ConfigError`` for a bad seed or time control, ``OptionsError`` for bad options."""
        if seed is None:
            seed = random_seed()
        if seed < 0 or seed >= 2**64:
            raise ConfigError(f"a deal seed is an integer from 0 to 2**64 - 1, got {seed}")
        game = get_game(self.game)
        checked = validate_options(game.option_specs, options)  # OptionsError names the key
        return MatchSpec(
            game=self.game,
            seed=seed,
            bots=(self.bots[seats[0]], self.bots[seats[1]]),
            options=checked,
            time_control=check_time_control(time_control),
            match_id=match_id,
        )


def line_up(
    refs: Sequence[str | BotSpec],
    *,
    game: str | None = None,
    sandbox: str | Sandbox = "process",
    base_dir: Path | None = None,
    check: bool = True,
) -> Lineup:
    """Resolve, identify and check bots for one game (see the module doc). ``game`` None: the
    first bot's game. Raises ``ConfigError`` (``UnknownGameError`` for an unknown game)."""
    if game is not None:
        get_game(game)  # UnknownGameError names the known games
    bots = [ref if isinstance(ref, BotSpec) else resolve_bot(ref, base_dir=base_dir)
            for ref in refs]
    if not bots:
        raise ConfigError("no bots to line up")
    game_id = game or bots[0].game
    for bot in bots:
        if bot.game != game_id:
            raise ConfigError(f"bot {bot.name} plays {bot.game}, not {game_id}")
    bots = [bot if bot.digest else dataclasses.replace(bot, digest=bot_identity(bot))
            for bot in bots]
    box = get_sandbox(sandbox) if isinstance(sandbox, str) else sandbox
    if check:
        box.check(bots)
    return Lineup(game_id, tuple(bots), box)


def prepare_match(
    bots: tuple[str | BotSpec, str | BotSpec],
    *,
    game: str | None = None,
    sandbox: str | Sandbox = "process",
    seed: int | None = None,
    options: Mapping[str, Any] | None = None,
    time_control: TimeControl = DEFAULT_TIME_CONTROL,
    match_id: str = "",
) -> tuple[MatchSpec, Sandbox]:
    """Line up two bots and build their match: the spec and the sandbox to play it in."""
    lineup = line_up(bots, game=game, sandbox=sandbox)
    spec = lineup.match(seed=seed, options=options, time_control=time_control,
                        match_id=match_id)
    return spec, lineup.sandbox
