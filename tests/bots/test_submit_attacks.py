"""Submissions as a hostile author makes them (real engine, real smoke matches): a bot.toml naming
another author's bot cannot take over its catalogue entry, its tag or its image (hole 3), and a
submitted image's identity is its image id, so the same layers under another CMD or ENV are
another bot (hole 10)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from arena.bots import bot_identity, catalogue
from arena.bots.images import BaseImage, layer_digest, prune_images
from arena.bots.submit import submit_bot
from arena.errors import ConfigError
from arena.model import BotSpec, MatchResult
from tests.support.containers import SmokeMatch, config_variant

pytestmark = pytest.mark.docker
ROOT = Path(__file__).resolve().parents[2]
RANDOM = ROOT / "sample_bots" / "lost-cities" / "random"
GREEDY = ROOT / "sample_bots" / "lost-cities" / "greedy"


def _never(bot: BotSpec) -> MatchResult:
    raise AssertionError(f"a refused submission plays no smoke match ({bot.name})")


def _impostor(root: Path, name: str, version: str = "1") -> Path:
    """Another author's code (greedy) whose bot.toml claims ``name``@``version``."""
    directory = root / f"impostor-{len(list(root.glob('impostor-*')))}"
    shutil.copytree(GREEDY, directory, ignore=shutil.ignore_patterns("__pycache__"))
    manifest = directory / "bot.toml"
    text = manifest.read_text(encoding="utf-8").replace('name = "greedy"', f'name = "{name}"')
    manifest.write_text(text.replace('version = "1"', f'version = "{version}"'), encoding="utf-8")
    return directory


def test_a_bot_toml_naming_another_bot_cannot_take_it_over(
    base_image: BaseImage,
    docker_client: Any,
    smoke: tuple[SmokeMatch, list[BotSpec]],
    tags: list[str],
    tmp_path: Path,
) -> None:
    """ATTACK (hole 3): `name = "victim"` in bot.toml over an existing victim@1 used to replace
    victim's row (INSERT OR REPLACE: its ladder entry and rating), move its tag, and let
    pruning delete its image; with another version it would become the newest victim, the one a
    ladder naming victim plays. Now a name the bot gives itself never adds to or replaces a
    catalogued bot, and it is refused before anything is built; only the operator's --name adds
    a version, and only with --replace does it replace one (saying what it replaced)."""
    play, played = smoke
    home = tmp_path / "home"
    victim = submit_bot(str(RANDOM), smoke_match=play, name="victim", version="1",
                        client=docker_client, home=home)
    tags.append(victim.tag)
    assert victim.tag == "arena-bot/victim:1"
    before = catalogue.list_bots(home=home)

    steps: list[str] = []
    held = "the catalogue already holds 'victim' (1 version), and a name read from the bot"
    for name, version, replace, says in (
        ("victim", "1", False, held),
        ("victim", "2", False, held),  # the newest version: what a ladder naming victim plays
        ("victim", "1", True, held),   # --replace does not let the bot pick whom it replaces
        ("Victim", "1", False, "the name 'Victim' is taken by the catalogued bot 'victim'"),
        ("VICTIM", "1", False, "the name 'VICTIM' is taken by the catalogued bot 'victim'"),
    ):
        with pytest.raises(ConfigError) as refused:
            submit_bot(str(_impostor(tmp_path, name, version)), smoke_match=_never,
                       replace=replace, progress=steps.append, client=docker_client, home=home)
        assert str(refused.value).startswith("refused: ") and says in str(refused.value)
    with pytest.raises(ConfigError, match="victim'@'1' is already in the catalogue"):
        submit_bot(str(_impostor(tmp_path, "victim")), smoke_match=_never, name="victim",
                   progress=steps.append, client=docker_client, home=home)
    with pytest.raises(ConfigError, match="'name' 'vic tim' holds characters"):
        submit_bot(str(_impostor(tmp_path, "vic tim")), smoke_match=_never, client=docker_client,
                   home=home)
    with pytest.raises(ConfigError, match="--name 'vic tim' holds characters"):
        submit_bot(str(RANDOM), smoke_match=_never, name="vic tim", client=docker_client,
                   home=home)
    assert steps == []  # nothing built, no base image looked for, no smoke match
    assert catalogue.list_bots(home=home) == before
    assert docker_client.images.get(victim.tag).id == victim.bot.image
    kept = {c.image_id: c.reason for c in prune_images({b.image for b in before}, dry_run=True,
                                                       client=docker_client)}
    assert kept.get(victim.bot.image, "a submitted bot") == "a submitted bot"

    replaced = submit_bot(str(_impostor(tmp_path, "victim")), smoke_match=play, name="victim",
                          replace=True, client=docker_client, home=home)
    assert replaced.replaced == victim.bot and replaced.tag == victim.tag
    assert replaced.bot.image != victim.bot.image
    assert catalogue.lookup("victim", "1", home=home) == replaced.bot.spec()
    assert docker_client.images.get(victim.tag).id == replaced.bot.image
    assert [bot.name for bot in played] == ["victim", "victim"]


def test_the_same_layers_under_another_cmd_or_env_are_another_bot(
    base_image: BaseImage,
    docker_client: Any,
    smoke: tuple[SmokeMatch, list[BotSpec]],
    tags: list[str],
    tmp_path: Path,
) -> None:
    """HOLE 10: a submitted image was identified by its layer digest, which ignores CMD,
    ENTRYPOINT and ENV: two images that run differently shared one identity (one ladder row,
    one SPRT key). Now a submission's identity is its image id."""
    play, _ = smoke
    home = tmp_path / "home"
    original = submit_bot(str(RANDOM), smoke_match=play, name="variant", version="0",
                          client=docker_client, home=home)
    tags.append(original.tag)
    lines = ('ENV ARENA_VARIANT="b"', 'CMD ["python3", "-B", "bot.py"]')
    variants = [config_variant(docker_client, original.bot.image, line) for line in lines]
    try:
        attrs = [docker_client.images.get(i).attrs for i in [original.bot.image, *variants]]
        assert len({layer_digest(a) for a in attrs}) == 1  # what identified them before
        for version, image in zip(("env", "cmd"), variants, strict=True):
            done = submit_bot(image, smoke_match=play, game="lost-cities", name="variant",
                              version=version, client=docker_client, home=home)
            tags.append(done.tag)
            assert done.bot.digest == image
        specs = [b.spec() for b in catalogue.list_bots(home=home)]
        assert sorted(bot_identity(s) for s in specs) == sorted([original.bot.image, *variants])
    finally:
        for image in variants:
            docker_client.images.remove(image, force=True)
