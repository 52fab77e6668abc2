"""Submitting a bot (``arena submit``): build its image (or pin an existing one), check that the
image runs bot.toml's ``command``, play a smoke match against the game's reference bot (a
built-in game's random sample bot, the one a plugin game declares), accept or refuse the bot by
that match, keep its image and enter it in the catalogue.

The workflow sits below the referee and the sandboxes: the caller passes the function that plays
the smoke match (:data:`SmokeMatch`: the candidate in seat ``CANDIDATE_SEAT`` against
:func:`smoke_opponent`, prepared by the match service like every match) and receives the steps
as :data:`~arena.bots.images.tools.Progress` lines. No terminal output here.
"""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.bots import catalogue
from arena.bots.catalogue import SubmittedBot
from arena.bots.images.build import (
    FLAVORS,
    BotImage,
    build_base_image,
    build_bot_image,
    docker_client,
    find_base_image,
    pin_image,
)
from arena.bots.images.policy import image_problem
from arena.bots.images.tags import keep_bot_image
from arena.bots.images.tools import Progress, quiet
from arena.bots.images.wheels import source_root
from arena.bots.manifest import MANIFEST, load_bot_dir
from arena.bots.names import check_name, check_version
from arena.errors import ConfigError, UnknownGameError
from arena.games import plugin
from arena.model import BotSpec, MatchResult, Termination, plain_text

SmokeMatch = Callable[[BotSpec], MatchResult]
"""Plays the smoke match of a candidate bot against :func:`smoke_opponent` in the Docker
sandbox."""
CANDIDATE_SEAT = 0
"""The submitted bot's seat in its smoke match (the sample bot plays the other)."""
SMOKE_OPPONENT = "random"
"""The sample bot (``sample_bots/<game>/random``) every submitted bot of a built-in game plays
first (a plugin game's: the reference bot its plugin declares)."""


@dataclass(frozen=True)
class Submission:
    """An accepted bot."""

    bot: SubmittedBot
    """Its catalogue entry."""
    tag: str
    """The Docker tag that keeps its image (``arena-bot/NAME:VERSION``)."""
    smoke: MatchResult
    """The smoke match it played."""
    replaced: SubmittedBot | None = None
    """The entry of the same name and version it replaced (``replace=True``), else None."""


@dataclass(frozen=True)
class _Plan:
    """What is submitted, known before anything is built."""

    target: str
    directory: Path | None
    """The bot directory, or None for an image."""
    manifest: BotSpec | None
    """Its bot.toml, if it has one."""
    game: str
    name: str
    version: str


def smoke_opponent(game: str) -> BotSpec:
    """The bot every submitted bot of ``game`` plays its smoke match against: the reference bot
    the game's plugin declares (``GamePlugin.reference_bot``), else, for a built-in game, its
    random sample bot from the arena's source tree. ``ConfigError`` (one line) for a game that
    has neither, or whose declared bot is missing."""
    try:
        found = plugin(game)
    except UnknownGameError as exc:
        raise ConfigError(str(exc)) from None
    declared = found.reference_bot_dir()
    if declared is not None:
        if not (declared / MANIFEST).is_file():
            raise ConfigError(f"game {game}'s plugin declares the reference bot "
                              f"{found.reference_bot!r}, but its package has no {MANIFEST} there "
                              f"({found.distribution or found.entry_point}): reinstall it")
        return load_bot_dir(declared)
    if not found.builtin:
        raise ConfigError(f"game {game} ({found.distribution or found.entry_point}) declares no "
                          "reference bot (GamePlugin.reference_bot) to play the smoke match "
                          "against: its bots cannot be submitted until its package declares one")
    path = source_root() / "sample_bots" / game / SMOKE_OPPONENT
    if not (path / MANIFEST).is_file():
        raise ConfigError(f"no sample bot {path} to run the smoke match against")
    return load_bot_dir(path)


def check_smoke_match(result: MatchResult, name: str) -> None:
    """The acceptance rule: the bot played a legal match (a fault of the sample bot is not the
    candidate's). Raises ``ConfigError`` refusing the bot, or saying that the arena failed."""
    if result.termination is Termination.INTERNAL:
        raise ConfigError(f"the smoke match could not be played (arena failure): {result.detail}")
    if result.termination is not Termination.NORMAL and result.faulty_seat != 1 - CANDIDATE_SEAT:
        raise ConfigError(
            f"refused: {name} could not play a legal match ({result.termination}: "
            f"{result.detail}); log: {result.log}"
        )


def submit_bot(
    target: str,
    *,
    smoke_match: SmokeMatch,
    name: str | None = None,
    version: str | None = None,
    game: str | None = None,
    replace: bool = False,
    progress: Progress = quiet,
    client: Any = None,
    home: Path | None = None,
) -> Submission:
    """Submit ``target`` (a bot directory with a Dockerfile, or a local image: then ``game`` is
    needed) under ``name``/``version`` (default: bot.toml's, or the directory's or image's
    name; a timestamp for the version).

    The name and version are checked first (identifiers, :mod:`arena.bots.names`; an existing
    (name, version) only with ``replace``; no name another bot holds ignoring case; a
    catalogued name only when ``name`` gives it, never from the bot's own bot.toml), before
    anything is built; the catalogue checks again as it writes, and the image's tag moves only
    then. Builds the missing base image of the bot's flavor first. Raises ``ConfigError`` when
    the bot is refused (with the reason and the smoke match's log) or cannot be built,
    ``SandboxError`` when the engine fails. ``home`` is the arena's data directory (default:
    ``$ARENA_HOME``)."""
    for what, check, value in (("--name", check_name, name), ("--version", check_version, version)):
        if value is not None:  # refused before anything is read or built
            check(what, value, "arena submit")
    plan = _plan(target, game, name, version)
    named = name is not None  # the operator's --name, not a name the bot gives itself
    catalogue.check_new(plan.name, plan.version, replace=replace, named=named, home=home)
    opponent = smoke_opponent(plan.game)  # a game without one is refused before any build
    image = _image(plan, progress, client)
    bot = BotSpec(plan.name, plan.game, image=image.image_id, version=plan.version,
                  digest=image.image_id)
    progress(f"smoke match: {bot.name} vs {opponent.name} in containers")
    result = smoke_match(bot)
    check_smoke_match(result, plan.name)
    addition, tag = enter_bot(plan.name, plan.version, plan.game, image.image_id,
                              replace=replace, named=named, home=home, client=client)
    return Submission(addition.bot, tag, result, addition.replaced)


def enter_bot(name: str, version: str, game: str, image_id: str, *, replace: bool = False,
              named: bool = True, home: Path | None = None,
              client: Any = None) -> tuple[catalogue.Addition, str]:
    """Enter an accepted bot's image in the catalogue (its identity: the image id) and tag it so
    that prunes spare it, in the catalogue's one write transaction
    (:func:`arena.bots.catalogue.adding`: ``ConfigError`` for what it refuses, nothing written
    then); the entry and the tag."""
    with catalogue.adding(name, version, game, image_id, image_id, replace=replace, named=named,
                          home=home) as addition:
        tag = keep_bot_image(image_id, name, version, client)  # spared by prune
    return addition, tag


def _plan(target: str, game: str | None, name: str | None, version: str | None) -> _Plan:
    """The name, version and game of a submission, from the flags, bot.toml or the target; a
    default name outside the alphabet is refused here, saying to give ``--name``."""
    directory = Path(target)
    if directory.is_dir():
        plan = _directory_plan(directory, game)
        source = f"{MANIFEST}'s 'name'" if plan.manifest else "the directory's name"
    elif game is None:
        raise ConfigError(f"{target!r} is not a directory: give --game for an image")
    else:
        plan = _Plan(target, None, None, game, target.split(":")[0].rsplit("/")[-1], "")
        source = "the image's name"
    if name is None:
        check_name(f"{source} (or give --name)", plan.name, "arena submit")
    return dataclasses.replace(plan, name=name or plan.name,
                               version=version or plan.version or time.strftime("%Y%m%d%H%M%S"))


def _directory_plan(directory: Path, game: str | None) -> _Plan:
    manifest = load_bot_dir(directory) if (directory / MANIFEST).is_file() else None
    if manifest is None:
        if game is None:
            raise ConfigError(f"{directory} has no {MANIFEST}: give --game")
        return _Plan(str(directory), directory, None, game, directory.name, "")
    return _Plan(str(directory), directory, manifest, game or manifest.game, manifest.name,
                 manifest.version)


def _image(plan: _Plan, progress: Progress, client: Any) -> BotImage:
    """Build the bot directory's image (or pin the given one) and check it may be a bot's
    (:func:`~arena.bots.images.policy.image_problem`; its command is bot.toml's)."""
    if plan.directory is None:
        image = pin_image(plan.target, client)
    else:
        image = _build(plan.directory, plan.manifest, progress, client)
    attrs = (client or docker_client()).images.get(image.image_id).attrs
    problem = image_refusal(attrs, plan.manifest)
    if problem is not None:
        raise ConfigError(f"refused: {plain_text(plan.target)}: {problem}")
    return image


def image_refusal(attrs: dict[str, Any], manifest: BotSpec | None) -> str | None:
    """Why an image (its ``docker image inspect`` attributes) may not be this bot's, or None:
    the image policy (:func:`~arena.bots.images.policy.image_problem`) and, for a bot
    directory's image, that it runs bot.toml's ``command`` (:func:`command_mismatch`)."""
    problem = image_problem(attrs)
    if problem is None and manifest is not None:
        problem = command_mismatch(manifest.command, attrs.get("Config") or {})
    return problem


def command_mismatch(command: tuple[str, ...], config: dict[str, Any]) -> str | None:
    """Why an image would not run bot.toml's ``command``, or None. ``config`` is the image's
    ``Config`` (``docker image inspect``): in containers the image's ENTRYPOINT + CMD runs,
    bot.toml's ``command`` only in the process sandbox, so the two must be the same argv."""
    runs = [*(config.get("Entrypoint") or []), *(config.get("Cmd") or [])]
    if runs == list(command):
        return None
    return (f"bot.toml's command {list(command)} is not what its image runs ({runs}: the "
            "Dockerfile's ENTRYPOINT + CMD). In containers the image's command runs, bot.toml's "
            f"only in the process sandbox: make them the same argv (CMD {json.dumps(list(command))}"
            " in the Dockerfile, run from a WORKDIR laid out like the bot directory)")


def _build(directory: Path, manifest: BotSpec | None, progress: Progress,
           client: Any) -> BotImage:
    flavor = manifest.base if manifest else "python"
    if find_base_image(FLAVORS[flavor].tag, client) is None:
        _build_base(flavor, progress, client)
    progress(f"building the image of {directory}")
    return build_bot_image(directory, flavor_name=flavor, client=client)


def _build_base(flavor: str, progress: Progress, client: Any) -> None:
    progress(f"building the {flavor} base image")
    base = build_base_image(flavor_name=flavor, progress=progress, client=client)
    verb = "reused" if base.reused else "built"
    progress(f"{verb} {base.tag} id {base.image_id[:19]} layer {base.digest[:19]}")
