"""Where an SPRT test started from the command line lives, and what it is called.

``arena sprt CANDIDATE BASELINE ...`` turns its arguments into a ladder file with an ``[sprt]``
section, ``<root>/<name>/sprt.toml`` (root: ``ladder/state`` of the current directory), whose
state (deal secret, SQLite store, match logs) is its own directory. The name says who plays
whom and ends in a key of everything that makes the test what it is: the game and the options
given, the time control, the design (bounds, α, β, model) and both bots' names, versions and
code identities (``bot_identity``: a directory's content hash, an image's digest). So:

* the same command, run again, continues the same test (also after ``kill -9``);
* a changed bot, bound or time control is another test, started from scratch: the pairs of one
  design never count towards another;
* the pair budget, the concurrency and the sandbox belong to a run, not to the test: raise
  ``--max-pairs`` to carry on an inconclusive test.

The file is written the first time, and written again only if the bots' references changed
(the same code found elsewhere, say from another directory); it is never read for the design,
which is in the name.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from arena.bots.identity import bot_identity
from arena.errors import ConfigError
from arena.games import get_game
from arena.games.api import validate_options
from arena.ladder.config import LadderConfig, load_ladder
from arena.ladder.entrants import ResolveBot, default_resolve
from arena.ladder.schedules.schedule import slug
from arena.model import BotSpec, TimeControl
from arena.record.log import private_dir
from arena.referee.service import check_time_control
from arena.stats.sprt import SprtParams

DEFAULT_ROOT = Path("ladder") / "state"
"""Where tests started from the command line live (relative to the current directory)."""
TEST_FILE = "sprt.toml"
"""The ladder file of a test, in its directory."""
ROLES = ("candidate", "baseline")


@dataclasses.dataclass(frozen=True)
class SprtDesign:
    """What makes a test: the game and its rules, the time control and the hypotheses."""

    params: SprtParams
    """Bounds, error rates and Elo model."""
    game: str | None = None
    """The game (None: the candidate's)."""
    options: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    """Rules options as given (the rest keep the game's defaults)."""
    time_control: TimeControl = TimeControl()
    """The time control of every match (its ``clock``: the one asked for, "wall" for
    "auto")."""
    clock: str = "auto"
    """The clock asked for (``CLOCK_SETTINGS``): resolved before the first match."""


def sprt_ladder(candidate: str, baseline: str, design: SprtDesign, *,
                root: Path = DEFAULT_ROOT, resolve: ResolveBot | None = None) -> LadderConfig:
    """The test of ``candidate`` against ``baseline`` (bot directories, relative to the current
    directory, or submitted names) under ``design``: its ladder file written if need be, then
    loaded. Raises ``ConfigError`` (bots of two games, a bad time control), ``UnknownGameError``
    and ``OptionsError`` before anything is written."""
    resolve = resolve or default_resolve
    here = Path.cwd()
    specs = (resolve(candidate, here), resolve(baseline, here))
    game = _game_of(specs, design.game)
    options = _checked_options(game, design.options)
    check_time_control(design.time_control)
    name = sprt_test_name(specs, dataclasses.replace(design, game=game, options=options))
    folder = root / name
    refs = (_ref_from(folder, candidate), _ref_from(folder, baseline))
    text = ladder_text(name, refs, specs, dataclasses.replace(design, game=game, options=options))
    path = folder / TEST_FILE
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        private_dir(folder)
        partial = path.with_suffix(".toml.partial")
        partial.write_text(text, encoding="utf-8")
        os.replace(partial, path)
    return load_ladder(path)


def _game_of(specs: tuple[BotSpec, BotSpec], game: str | None) -> str:
    chosen = game or specs[0].game
    get_game(chosen)  # UnknownGameError names the known games
    for role, spec in zip(ROLES, specs, strict=True):
        if spec.game != chosen:
            whose = "" if game is not None else " (the candidate's game)"
            raise ConfigError(f"the {role} {spec.name!r} plays {spec.game}, not {chosen}{whose}: "
                              "both bots of an SPRT test play one game")
    return chosen


def _checked_options(game: str, options: Mapping[str, Any]) -> dict[str, Any]:
    """The options given, checked and converted (``OptionsError`` names a bad one)."""
    checked = validate_options(get_game(game).option_specs, options)
    return {key: checked[key] for key in sorted(options)}


def sprt_test_name(specs: tuple[BotSpec, BotSpec], design: SprtDesign) -> str:
    """``sprt-<candidate>-vs-<baseline>-<key>``: the key is 8 hex digits of a hash of the
    design and both bots' names, versions and code identities."""
    params = design.params
    what = {
        "game": design.game,
        "options": dict(design.options),
        "time_control": _time_control_key(design),
        "design": [params.elo0, params.elo1, params.alpha, params.beta, str(params.model)],
        "bots": [[spec.name, spec.version, bot_identity(spec)] for spec in specs],
    }
    key = hashlib.sha256(json.dumps(what, sort_keys=True).encode()).hexdigest()[:8]
    return f"sprt-{slug(specs[0].name)}-vs-{slug(specs[1].name)}-{key}"


def _time_control_key(design: SprtDesign) -> dict[str, Any]:
    """The time control as the test's name hashes it: its limits, and the clock and the wall
    guard only where they are not the defaults ("auto", 4), so a test started before there
    was a clock keeps its name (and its pairs)."""
    tc = design.time_control
    key: dict[str, Any] = {name: getattr(tc, name) for name in TimeControl.LIMITS}
    return key | _clock_settings(design)


def _clock_settings(design: SprtDesign) -> dict[str, Any]:
    """The clock settings that differ from the defaults."""
    settings: dict[str, Any] = {}
    if design.clock != "auto":
        settings["clock"] = design.clock
    if design.time_control.wall_guard != TimeControl.wall_guard:
        settings["wall_guard"] = design.time_control.wall_guard
    return settings


def _ref_from(folder: Path, ref: str) -> str:
    """A bot directory under the current one as seen from the test's directory (the clone
    can move), another one as an absolute path; a submitted name as it is."""
    if not Path(ref).is_dir():
        return ref
    bot, here = Path(os.path.abspath(ref)), Path.cwd()
    if not bot.is_relative_to(here):
        return str(bot)
    return os.path.relpath(bot, os.path.abspath(folder))


def ladder_text(name: str, refs: tuple[str, str], specs: tuple[BotSpec, BotSpec],
                design: SprtDesign) -> str:
    """The ladder file of a test (TOML)."""
    params, tc = design.params, design.time_control
    lines = [
        "# An SPRT test written by `arena sprt`: run the same command again (or",
        "# `arena sprt --ladder THIS_FILE`) to continue it. Its results, deal secret and match",
        "# logs are in this directory; `arena ladder matches THIS_FILE` lists the matches.",
        *(f"# {role}: {spec.name} {spec.version} {bot_identity(spec)}"
          for role, spec in zip(ROLES, specs, strict=True)),
        f"name = {_toml(name)}",
        f"game = {_toml(design.game)}",
        'state_dir = "."',
        "",
        "[options]",
        *(f"{key} = {_toml(value)}" for key, value in design.options.items()),
        "",
        "[time_control]",
        *(f"{key} = {getattr(tc, key)}" for key in TimeControl.LIMITS),
        *(f"{key} = {_toml(value)}" for key, value in _clock_settings(design).items()),
        "",
        "[sprt]",
        f"candidate = {_toml(refs[0])}",
        f"baseline = {_toml(refs[1])}",
        f"elo0 = {params.elo0!r}",
        f"elo1 = {params.elo1!r}",
        f"alpha = {params.alpha!r}",
        f"beta = {params.beta!r}",
        f"model = {_toml(str(params.model))}",
    ]
    return "\n".join(lines) + "\n"


def _toml(value: object) -> str:
    """A TOML value: a JSON string is a TOML basic string, booleans are lower case."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    return json.dumps(str(value))
