"""`arena submit` / `arena bots list` / `arena images prune` with the real engine (the
catalogue and the submission workflow alone: tests/bots)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import docker.errors
import pytest
from typer.testing import CliRunner

from arena.bots import catalogue
from arena.bots.home import HOME_ENV
from arena.bots.images import BaseImage
from arena.sandbox import get_sandbox

pytestmark = pytest.mark.docker
ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.serial  # `arena images prune`: removes every arena build no one pinned, host-wide
def test_submit_accepts_a_legal_bot_and_refuses_an_illegal_one(
    base_image: BaseImage, docker_client: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from arena.cli.main import app

    monkeypatch.setenv(HOME_ENV, str(tmp_path))
    runner = CliRunner()
    ok = runner.invoke(
        app, ["submit", str(ROOT / "sample_bots/lost-cities/random"), "--name", "rnd"]
    )
    assert ok.exit_code == 0, ok.output
    spec = catalogue.lookup("rnd")
    assert spec is not None and spec.image and spec.image.startswith("sha256:")
    assert spec.digest.startswith("sha256:") and spec.game == "lost-cities"
    assert spec.digest == spec.image  # a submitted bot's identity is its image id
    assert docker_client.images.get(spec.image).id == spec.image
    assert "arena-bot/rnd:1" in docker_client.images.get(spec.image).tags  # spared by prune

    # The same name and version again: refused in one line, unless --replace.
    again = runner.invoke(app, ["submit", str(ROOT / "sample_bots/lost-cities/random"),
                                "--name", "rnd"], env={"COLUMNS": "400"})
    assert again.exit_code == 2, again.output
    assert again.output.strip().splitlines() == [
        "error: refused: 'rnd'@'1' is already in the catalogue (image "
        f"{spec.image[:19]}): give another --version, or --replace to replace it"]
    replaced = runner.invoke(app, ["submit", str(ROOT / "sample_bots/lost-cities/random"),
                                   "--name", "rnd", "--replace"])
    assert replaced.exit_code == 0, replaced.output
    assert f"replaced rnd@1 (was image {spec.image[:19]})" in " ".join(replaced.output.split())
    assert catalogue.lookup("rnd") is not None

    bad = runner.invoke(app, ["submit", str(ROOT / "sample_bots/hostile/illegal")])
    assert bad.exit_code == 2
    assert "refused" in bad.output and "illegal_action" in bad.output
    assert catalogue.lookup("illegal") is None

    listing = runner.invoke(app, ["bots", "list", "--format", "json"])
    assert listing.exit_code == 0 and '"name": "rnd"' in listing.output

    # The submitted bot is usable by name: in `arena match` ...
    greedy = str(ROOT / "sample_bots/lost-cities/greedy")
    played = runner.invoke(app, ["match", "rnd", greedy, "--sandbox", "docker", "-o", "rounds=1",
                                 "--format", "json", "--log-dir", str(tmp_path / "logs")])
    assert played.exit_code == 0, played.output
    result = json.loads(played.stdout)
    assert result["termination"] == "normal" and result["bots"] == ["rnd", "greedy"]
    # ... and in a ladder.
    ladder = tmp_path / "sub.toml"
    ladder.write_text(f'name = "sub"\ngame = "lost-cities"\nentrants = ["rnd", "{greedy}"]\n'
                      'sandbox = "docker"\n[options]\nrounds = 1\n[schedule]\ncycles = 1\n')
    ran = runner.invoke(app, ["run-ladder", str(ladder)])
    assert ran.exit_code == 0, ran.output
    standings = runner.invoke(app, ["standings", str(ladder), "--format", "json"])
    assert sorted(r["bot"] for r in json.loads(standings.stdout)["standings"]) == ["greedy", "rnd"]


    # `arena images prune` removes the directory build of greedy, keeps the submitted bot, and
    # a later match in the same process builds greedy again.
    from arena.sandbox.docker import DockerSandbox

    sandbox = get_sandbox("docker")
    assert isinstance(sandbox, DockerSandbox)
    greedy_image = sandbox.built_image(greedy)
    assert greedy_image is not None
    pruned = runner.invoke(app, ["images", "prune"])
    assert pruned.exit_code == 0, pruned.output
    assert docker_client.images.get(spec.image).id == spec.image
    with pytest.raises(docker.errors.ImageNotFound):
        docker_client.images.get(greedy_image)
    again = runner.invoke(app, ["match", "rnd", greedy, "--sandbox", "docker", "-o", "rounds=1",
                                "--format", "json", "--log-dir", str(tmp_path / "logs")])
    assert again.exit_code == 0 and json.loads(again.stdout)["termination"] == "normal"

    # A submitted bot whose image was removed behind the arena's back: one clear error.
    catalogue.add("ghost", "1", "lost-cities", "sha256:" + "f" * 64, "sha256:f")
    ghost = runner.invoke(app, ["match", "ghost", greedy, "--sandbox", "docker",
                                "--log-dir", str(tmp_path / "ghost-logs")])
    assert ghost.exit_code == 2
    assert "submit the bot again" in " ".join(ghost.output.split())
    assert not (tmp_path / "ghost-logs").exists()


def test_auto_sandbox_picks_docker_when_an_engine_answers(docker_client: Any) -> None:
    assert get_sandbox("auto").name == "docker"



def test_a_catalogue_of_todays_main_still_lists_resolves_and_runs(
    base_image: BaseImage, docker_client: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """MIGRATION: a catalogue row as today's main wrote it (a name with a space, a version with
    one, the layer digest as identity) lists, resolves, passes the sandbox's check and plays,
    under the identity it was recorded with (so existing ladders and SPRT keys do not change)."""
    import sqlite3

    from arena.bots.images import build_bot_image, layer_digest
    from arena.cli.main import app
    from tests.support.catalogue import LEGACY_SCHEMA

    random = ROOT / "sample_bots/lost-cities/random"
    built = build_bot_image(random, client=docker_client)
    layers = layer_digest(docker_client.images.get(built.image_id).attrs)
    home = tmp_path / "home"
    home.mkdir()
    conn = sqlite3.connect(home / catalogue.DB_NAME)
    conn.execute(LEGACY_SCHEMA)
    conn.execute("INSERT INTO bots VALUES ('old random', '1 0', 'lost-cities', ?, ?, 1.0)",
                 (built.image_id, layers))
    conn.commit()
    conn.close()
    monkeypatch.setenv(HOME_ENV, str(home))
    runner = CliRunner()
    listing = runner.invoke(app, ["bots", "list", "--format", "json"])
    assert listing.exit_code == 0, listing.output
    assert [(b["name"], b["digest"]) for b in map(json.loads, listing.stdout.splitlines())] == [
        ("old random", layers)]
    played = runner.invoke(app, ["match", "old random@1 0", str(random), "--sandbox", "docker",
                                 "-o", "rounds=1", "--format", "json",
                                 "--log-dir", str(tmp_path / "logs")])
    assert played.exit_code == 0, played.output
    result = json.loads(played.stdout)
    assert result["termination"] == "normal" and result["bots"] == ["old random", "random"]
    header = json.loads(Path(result["log"]).read_text(encoding="utf-8").splitlines()[0])
    assert header["bots"][0]["digest"] == layers
