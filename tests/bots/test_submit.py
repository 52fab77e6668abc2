"""The submission workflow (arena.bots.submit): its acceptance rule, its smoke match, and whole
submissions on the real engine with a real smoke match. It imports no referee, sandbox or
terminal library: the caller plays the smoke match and shows the progress."""

from __future__ import annotations

import asyncio
import dataclasses
import importlib
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import docker.errors
import pytest

from arena.bots import catalogue
from arena.bots.images import BaseImage
from arena.bots.manifest import load_bot_dir
from arena.bots.submit import check_smoke_match, smoke_opponent, submit_bot
from arena.errors import ConfigError
from arena.games import plugin, registered
from arena.model import BotSpec, MatchResult, Termination
from tests.support.containers import SmokeMatch
from tests.support.goofspiel import GREEDY as GOOF_GREEDY
from tests.support.goofspiel import goofspiel

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parents[2]
RANDOM = ROOT / "sample_bots" / "lost-cities" / "random"
ILLEGAL = ROOT / "sample_bots" / "hostile" / "illegal"


def _result(termination: Termination, faulty_seat: int | None = None) -> MatchResult:
    return MatchResult(
        "m-1", "lost-cities", 1, 7, {}, ("cand", "random"), ((10, 5),), (10, 5), 0,
        termination, faulty_seat, "what happened", "/logs/m-1.jsonl", 1.0, 40,
    )


@pytest.mark.parametrize(
    ("termination", "faulty_seat"),
    [(Termination.NORMAL, None), (Termination.TIMEOUT, 1), (Termination.CRASH, 1)],
)
def test_a_legal_match_or_the_sample_bots_fault_accepts(
    termination: Termination, faulty_seat: int | None
) -> None:
    check_smoke_match(_result(termination, faulty_seat), "cand")


@pytest.mark.parametrize(
    ("termination", "faulty_seat"),
    [
        (Termination.ILLEGAL_ACTION, 0),
        (Termination.NO_START, 0),
        (Termination.CRASH, None),
        (Termination.CANCELLED, None),
    ],
)
def test_the_candidates_fault_refuses(termination: Termination, faulty_seat: int | None) -> None:
    with pytest.raises(ConfigError) as refused:
        check_smoke_match(_result(termination, faulty_seat), "cand")
    assert str(refused.value) == (
        f"refused: cand could not play a legal match ({termination}: what happened); "
        "log: /logs/m-1.jsonl"
    )


def test_an_arena_failure_is_not_a_refusal() -> None:
    with pytest.raises(ConfigError, match=r"could not be played \(arena failure\): what happened"):
        check_smoke_match(_result(Termination.INTERNAL), "cand")


@pytest.mark.parametrize("game", ["lost-cities", "haggis", "portas"])
def test_the_smoke_match_is_against_the_games_random_sample_bot(game: str) -> None:
    opponent = smoke_opponent(game)
    assert opponent.directory == str(ROOT / "sample_bots" / game / "random")
    assert opponent.game == game and opponent.name == "random"


def test_an_unknown_game_has_no_smoke_match() -> None:
    with pytest.raises(ConfigError, match="unknown game 'no-such-game'; known games: "):
        smoke_opponent("no-such-game")


def test_a_plugin_games_smoke_match_is_against_the_reference_bot_it_declares() -> None:
    goofspiel()
    opponent = smoke_opponent("goofspiel")
    declared = plugin("goofspiel").reference_bot_dir()
    assert declared is not None and opponent.directory == str(declared)
    assert (opponent.name, opponent.game) == ("random", "goofspiel")
    package = Path(str(importlib.import_module("arena_goofspiel").__file__)).parent
    assert declared == package / "bots" / "random"  # in the installed package
    assert (declared / "Dockerfile").is_file()  # it ships as a whole bot directory


@pytest.mark.parametrize(
    ("reference", "refusal"),
    [("", r"game goofspiel \(arena-goofspiel\) declares no reference bot "
          r"\(GamePlugin.reference_bot\) to play the smoke match against: its bots cannot be "
          r"submitted until its package declares one"),
     ("arena_goofspiel:bots/nothing", r"game goofspiel's plugin declares the reference bot "
                                      r"'arena_goofspiel:bots/nothing', but its package has no "
                                      r"bot.toml there \(arena-goofspiel\): reinstall it")],
)
def test_a_plugin_game_without_a_reference_bot_is_refused_in_one_line_before_any_build(
        reference: str, refusal: str, tmp_path: Path) -> None:
    goofspiel()

    def never(bot: BotSpec) -> MatchResult:
        raise AssertionError("no smoke match without a reference bot")

    with registered(dataclasses.replace(plugin("goofspiel"), reference_bot=reference)):
        with pytest.raises(ConfigError, match=refusal) as refused:
            submit_bot(str(GOOF_GREEDY), smoke_match=never, home=tmp_path)
    assert "\n" not in str(refused.value) and "sample_bots" not in str(refused.value)


@pytest.mark.integration
def test_a_plugin_games_bot_plays_its_smoke_match_in_the_process_sandbox(tmp_path: Path) -> None:
    """The smoke match as `arena submit` prepares it (the match service's line-up, the
    candidate in seat 0), played in the process sandbox: the plugin's reference bot runs from
    the installed package."""
    from arena.referee.match import play_match
    from arena.referee.service import line_up
    from arena.sandbox.process import ProcessSandbox

    goofspiel()
    lineup = line_up([load_bot_dir(GOOF_GREEDY), smoke_opponent("goofspiel")],
                     sandbox=ProcessSandbox())
    result = asyncio.run(play_match(lineup.match(options={"rounds": 1}), sandbox=lineup.sandbox,
                                    log_dir=tmp_path))
    assert result.termination is Termination.NORMAL, result.detail
    assert result.bots == ("greedy", "random") and result.decisions == 26
    check_smoke_match(result, "greedy")


@pytest.mark.integration
def test_the_bots_package_imports_no_referee_sandbox_or_terminal() -> None:
    code = (
        "import json, sys; import arena.bots, arena.bots.submit, arena.bots.images; "
        "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in "
        "('docker', 'rich', 'typer') or m.startswith(('arena.referee', 'arena.sandbox', "
        "'arena.cli', 'arena.ladder')))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert json.loads(out.stdout) == []


# --- whole submissions on the real engine (fixtures smoke and tags: conftest.py) -----------
@pytest.mark.docker
def test_a_legal_bot_is_accepted_kept_and_catalogued(
    base_image: BaseImage,
    docker_client: Any,
    smoke: tuple[SmokeMatch, list[BotSpec]],
    tags: list[str],
    tmp_path: Path,
) -> None:
    play, played = smoke
    steps: list[str] = []
    home = tmp_path / "home"
    done = submit_bot(str(RANDOM), smoke_match=play, name="rnd", version="7",
                      progress=steps.append, client=docker_client, home=home)
    tags.append(done.tag)
    assert done.tag == "arena-bot/rnd:7"
    assert (done.bot.name, done.bot.version, done.bot.game) == ("rnd", "7", "lost-cities")
    assert docker_client.images.get(done.tag).id == done.bot.image
    assert catalogue.lookup("rnd", home=home) == done.bot.spec()
    assert [(b.image, b.digest) for b in played] == [(done.bot.image, done.bot.digest)]
    assert done.smoke.termination is Termination.NORMAL and done.smoke.bots == ("rnd", "random")
    assert steps[-2:] == [
        f"building the image of {RANDOM}", "smoke match: rnd vs random in containers"
    ]

    # An existing local image: --game is needed, the name comes from the reference (--name
    # to add it to a catalogued bot).
    with pytest.raises(ConfigError, match="give --game for an image"):
        submit_bot(done.tag, smoke_match=play, client=docker_client, home=home)
    with pytest.raises(ConfigError, match="the catalogue already holds 'rnd'"):
        submit_bot(done.tag, smoke_match=play, game="lost-cities", client=docker_client,
                   home=home)  # a name read from the image never adds a version
    again = submit_bot(done.tag, smoke_match=play, game="lost-cities", name="rnd",
                       client=docker_client, home=home)
    tags.append(again.tag)
    assert again.bot.name == "rnd" and again.bot.image == done.bot.image
    assert again.bot.version.isdigit() and len(again.bot.version) == 14  # a timestamp
    assert [b.version for b in catalogue.list_bots(home=home)] == [again.bot.version, "7"]


@pytest.mark.docker
def test_a_plugin_games_bot_is_submitted(
    base_image: BaseImage,
    docker_client: Any,
    smoke: tuple[SmokeMatch, list[BotSpec]],
    tags: list[str],
    tmp_path: Path,
) -> None:
    """A Goofspiel bot submits unchanged: its smoke match, in containers, is against the
    reference bot the plugin declares (built from the installed package's directory)."""
    goofspiel()
    play, played = smoke
    steps: list[str] = []
    done = submit_bot(str(GOOF_GREEDY), smoke_match=play, name="goofy", version="1",
                      progress=steps.append, client=docker_client, home=tmp_path / "home")
    tags.append(done.tag)
    assert (done.bot.name, done.bot.game) == ("goofy", "goofspiel")
    assert done.smoke.termination is Termination.NORMAL, done.smoke.detail
    assert done.smoke.bots == ("goofy", "random") and done.smoke.decisions == 26
    assert [b.image for b in played] == [done.bot.image]
    assert steps[-1] == "smoke match: goofy vs random in containers"


@pytest.mark.docker
def test_an_illegal_bot_is_refused_and_not_catalogued(
    base_image: BaseImage,
    docker_client: Any,
    smoke: tuple[SmokeMatch, list[BotSpec]],
    tmp_path: Path,
) -> None:
    play, played = smoke
    home = tmp_path / "home"
    with pytest.raises(ConfigError, match=r"refused: illegal could not play a legal match "
                                          r"\(illegal_action: "):
        submit_bot(str(ILLEGAL), smoke_match=play, version="1", client=docker_client, home=home)
    assert len(played) == 1 and played[0].name == "illegal"
    assert catalogue.list_bots(home=home) == []
    with pytest.raises(docker.errors.ImageNotFound):
        docker_client.images.get("arena-bot/illegal:1")


def test_a_name_over_64_characters_is_refused_before_anything_is_built() -> None:
    def never(bot: BotSpec) -> MatchResult:
        raise AssertionError("no smoke match for a refused name")

    with pytest.raises(ConfigError, match="--name .* 65 characters long"):
        submit_bot("no/such/bot/dir", smoke_match=never, name="x" * 65)
