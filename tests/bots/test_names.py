"""Bot names and versions are identifiers (arena.bots.names): one alphabet for bot.toml, `arena
submit --name/--version` and the catalogue, so the tag that keeps a submitted image is the name
and version themselves (no two names collapse into one tag) and nothing in a name is markup or
an escape sequence."""

from __future__ import annotations

import pytest

from arena.bots.images.tags import bot_tag
from arena.bots.names import (
    NAME_RULE,
    check_name,
    check_version,
    name_key,
    name_problem,
    version_key,
    version_problem,
)
from arena.errors import ConfigError

pytestmark = pytest.mark.unit

GOOD_NAMES = ["a", "random", "cpp-greedy", "js-random", "fork_bomb", "v1.strong", "a__b", "a---b",
              "Victim", "X" * 64, "0"]
BAD_NAMES = ["", "vic tim", "vic-", "-vic", ".vic", "vic..tim", "a___b", "vic/tim", "vic@1",
             "[/]", "[b][/b]victim", "[link=http://127.0.0.1:1/]x[/link]", "vic\x1b[2Jtim",
             "vic\ttim", "vïc", "vic\u202etim", "x" * 65]


@pytest.mark.parametrize("name", GOOD_NAMES)
def test_identifiers_are_names(name: str) -> None:
    assert name_problem(name) is None
    assert check_name("'name'", name, "bot.toml") == name
    assert name_key(name) == name.lower()  # the tag's repository is the name itself


@pytest.mark.parametrize("name", BAD_NAMES)
def test_everything_else_is_refused_in_one_line_quoting_the_alphabet(name: str) -> None:
    assert name_problem(name) is not None
    with pytest.raises(ConfigError) as refused:
        check_name("--name", name, "arena submit")
    said = str(refused.value)
    assert said.startswith("arena submit: --name ") and said.endswith(NAME_RULE)
    assert "\n" not in said and "\x1b" not in said and "\u202e" not in said
    assert len(said) < 400


@pytest.mark.parametrize("version", ["1", "1.0", "1.2-rc1", "_x", "20240101120000", "V" * 64])
def test_versions_are_docker_tags(version: str) -> None:
    assert version_problem(version) is None and version_key(version) == version


@pytest.mark.parametrize("version", ["", ".1", "-1", "1 0", "1+build", "1@2", "v" * 65, "é"])
def test_other_versions_are_refused(version: str) -> None:
    with pytest.raises(ConfigError, match="'version' .* a bot version is"):
        check_version("'version'", version, "bot.toml")


def test_the_tag_is_the_name_lowercased_and_the_version() -> None:
    """Before, `vic tim` and `vic-tim` (and `Victim` and `victim`) shared one tag: a second
    submission moved the first one's tag and `docker image prune` took its image."""
    assert bot_tag("Vic-Tim", "1.0") == "arena-bot/vic-tim:1.0"
    assert bot_tag("vic_tim", "1") != bot_tag("vic-tim", "1") != bot_tag("vic.tim", "1")
    for name in ("vic tim", "My Bot!", "___"):
        with pytest.raises(ConfigError, match="a bot name is"):
            bot_tag(name, "1")
    with pytest.raises(ConfigError, match="a bot version is"):
        bot_tag("ok", "1.0+build 7")


def test_legacy_names_map_as_their_tags_did() -> None:
    """A catalogue row written before the alphabet keeps its name; what it would share a tag
    with is computed as the tag was then."""
    assert name_key("vic tim") == name_key("Vic-Tim") == "vic-tim"
    assert name_key("[/]") == "bot" and version_key("1 0") == "1-0"
