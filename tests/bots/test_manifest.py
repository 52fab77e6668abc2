"""bot.toml manifests and resolving a bot reference (a directory, relative to a base or not)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from arena.bots import DEFAULT_COMMAND, load_bot_dir, resolve_bot, resolve_match_bots
from arena.errors import ConfigError, UnknownGameError

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parents[2]
RANDOM = ROOT / "sample_bots" / "lost-cities" / "random"
JS_RANDOM = ROOT / "sample_bots" / "lost-cities" / "js-random"
LAB_EXAMPLE = ROOT / "examples" / "lab" / "openspiel-mcts"


def _manifest(tmp_path: Path, text: str) -> Path:
    directory = tmp_path / "bot"
    directory.mkdir(exist_ok=True)
    (directory / "bot.toml").write_text(text, encoding="utf-8")
    return directory


def test_sample_bots_load() -> None:
    python = load_bot_dir(RANDOM)
    assert (python.name, python.game, python.base) == ("random", "lost-cities", "python")
    assert python.directory == str(RANDOM) and python.image is None and python.digest == ""
    node = load_bot_dir(JS_RANDOM)
    assert (node.base, node.command) == ("node", ("node", "bot.js"))
    lab = load_bot_dir(LAB_EXAMPLE)  # OpenSpiel's MCTS: numpy and OpenSpiel from its base
    assert (lab.base, lab.command) == ("lab", ("python3", "bot.py"))


def test_the_lab_flavor_packs_the_installed_libraries_or_names_the_missing_one() -> None:
    from importlib.metadata import version

    from arena.bots.images.build import FLAVORS
    from arena.bots.images.wheels import library_requirements

    lab = FLAVORS["lab"]
    assert lab.tag == "arena/base:py311-lab" and lab.python_runtime
    assert library_requirements(lab.libraries) == tuple(
        f"{dist}=={version(dist)}" for dist in ("numpy", "open_spiel", "absl-py"))
    with pytest.raises(ConfigError) as caught:
        library_requirements(("numpy", "no-such-distribution"))
    message = str(caught.value)
    assert "\n" not in message and "no-such-distribution is not installed" in message
    assert "pip install 'arena[lab]'" in message


def test_defaults_and_normalisation(tmp_path: Path) -> None:
    bot = _manifest(tmp_path, 'name = "  spaced "\ngame = "haggis"\nversion = 3\n')
    spec = load_bot_dir(bot)
    assert (spec.name, spec.version, spec.command, spec.base) == (
        "spaced", "3", DEFAULT_COMMAND, "python"
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('game = "haggis"\n', "'name' must be a non-empty string"),
        ('name = "x"\ngame = "chess"\n', "'game' must be one of"),
        ('name = "x"\ngame = "haggis"\ncommand = []\n', "'command' must be a non-empty list"),
        ('name = "x"\ngame = "haggis"\ncommand = ["a", ""]\n', "'command' must be a non-empty"),
        ('name = "x"\ngame = "haggis"\nversion = [1]\n', "'version' must be a string"),
        ('name = "x"\ngame = "haggis"\nbase = "java"\n',
         "'base' must be one of python, node, lab"),
        ('name = "x\n', "bot.toml: "),
    ],
)
def test_bad_manifests_say_what_and_where(tmp_path: Path, text: str, message: str) -> None:
    bot = _manifest(tmp_path, text)
    with pytest.raises(ConfigError, match="bot.toml") as caught:
        load_bot_dir(bot)
    assert message in str(caught.value)


def test_a_directory_without_manifest(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="is not a bot directory: it has no bot.toml"):
        load_bot_dir(tmp_path)


def test_resolve_directories(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARENA_HOME", str(tmp_path / "home"))  # an empty catalogue
    assert resolve_bot(str(RANDOM)).directory == str(RANDOM)
    relative = resolve_bot("lost-cities/random", base_dir=ROOT / "sample_bots")
    assert relative.directory == str(RANDOM)
    with pytest.raises(ConfigError, match="no bot 'lost-cities/random'"):
        resolve_bot("lost-cities/random", base_dir=tmp_path)


def test_resolve_match_bots_checks_the_game(tmp_path: Path) -> None:
    haggis = _manifest(tmp_path, 'name = "h"\ngame = "haggis"\n')
    assert resolve_match_bots((str(RANDOM), str(RANDOM)), None)[0] == "lost-cities"
    with pytest.raises(ConfigError, match="bot h plays haggis, not lost-cities"):
        resolve_match_bots((str(RANDOM), str(haggis)), None)
    with pytest.raises(ConfigError, match="bot random plays lost-cities, not haggis"):
        resolve_match_bots((str(RANDOM), str(haggis)), "haggis")
    with pytest.raises(UnknownGameError):
        resolve_match_bots((str(RANDOM), str(RANDOM)), "chess")


@pytest.mark.integration
@pytest.mark.parametrize(
    ("line", "says"),
    [
        ('name = "' + "n" * (17 * 2**20) + '"', "17825792 characters long (at most 64)"),
        ('name = "' + "n" * 65 + '"', "65 characters long"),
        ('name = "evil\\u001b[2J"', "'evil[2J' holds characters"),
        ('name = "ok"\nversion = "' + "v" * 65 + '"', "'version'"),
    ],
)
def test_names_and_versions_a_bot_controls_are_bounded(tmp_path: Path, line: str,
                                                      says: str) -> None:
    """A 17 MiB name once made every MatchStart to the OTHER bot oversized (its forfeit): a
    name is at most 64 characters, refused at load (the refusal quotes it shortened and without
    the escape)."""
    (tmp_path / "bot.toml").write_text(line + '\ngame = "lost-cities"\n' if "game" not in line
                                       else line)
    with pytest.raises(ConfigError, match=re.escape(says)) as refused:
        load_bot_dir(tmp_path)
    assert len(str(refused.value)) < 400 and "\x1b" not in str(refused.value)


@pytest.mark.parametrize(
    ("line", "key"),
    [
        ('name = "victim "', None),  # surrounding spaces are trimmed, as before
        ('name = "vic tim"', "'name'"),
        ('name = "[/]"', "'name'"),
        ('name = "[b][/b]victim"', "'name'"),
        ('name = "vi\\u0441tim"', "'name'"),  # a Cyrillic letter that looks like "c"
        ('name = "ok"\nversion = "1 0"', "'version'"),
        ('name = "ok"\nversion = ".1"', "'version'"),
    ],
)
def test_names_and_versions_are_identifiers(tmp_path: Path, line: str, key: str | None) -> None:
    """HOLE 3/5: names are Docker repository components (so two names cannot share a tag or look
    alike) and never markup; the refusal is one line naming the key and the alphabet."""
    (tmp_path / "bot.toml").write_text(line + '\ngame = "lost-cities"\n')
    if key is None:
        assert load_bot_dir(tmp_path).name == "victim"
        return
    with pytest.raises(ConfigError) as refused:
        load_bot_dir(tmp_path)
    said = str(refused.value)
    assert said.startswith(f"{tmp_path / 'bot.toml'}: {key} ") and "\n" not in said
    assert ("a bot name is" if key == "'name'" else "a bot version is") in said


def test_every_sample_bot_has_an_identifier_name() -> None:
    for manifest in sorted((ROOT / "sample_bots").glob("*/*/bot.toml")):
        load_bot_dir(manifest.parent)
