"""The `arena` command line, run in-process with typer's runner (real matches, real logs)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.bots import catalogue
from arena.bots.home import HOME_ENV
from arena.cli.main import app

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
RANDOM_BOT = str(ROOT / "sample_bots" / "lost-cities" / "random")
GREEDY_BOT = str(ROOT / "sample_bots" / "lost-cities" / "greedy")
runner = CliRunner(env={"COLUMNS": "200"})  # a message's path is never cut by a wrap


def test_match_json_has_the_documented_fields(tmp_path: Path) -> None:
    out = runner.invoke(app, ["match", RANDOM_BOT, GREEDY_BOT, "--seed", "5", "--format", "json",
                              "--log-dir", str(tmp_path)])
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    for key in ("match_id", "game", "seed", "rounds", "totals", "winner", "termination",
                "faulty_seat", "log"):
        assert key in data
    assert data["game"] == "lost-cities" and data["seed"] == 5
    assert len(data["rounds"]) == 3 and data["termination"] == "normal"
    assert Path(data["log"]).is_file()

    replayed = runner.invoke(app, ["replay", data["log"]])
    assert replayed.exit_code == 0, replayed.output
    assert "agree" in replayed.stdout

    watched = runner.invoke(app, ["watch", data["log"], "--delay", "0"])
    assert watched.exit_code == 0, watched.output
    assert "match over" in watched.stdout
    seat_view = runner.invoke(app, ["watch", data["log"], "--seat", "1", "--delay", "0"])
    assert seat_view.exit_code == 0, seat_view.output
    assert "seat 1 view" in seat_view.stdout


def test_match_human_summary(tmp_path: Path) -> None:
    out = runner.invoke(app, ["match", RANDOM_BOT, RANDOM_BOT, "--seed", "2", "-o", "rounds=1",
                              "--log-dir", str(tmp_path)])
    assert out.exit_code == 0, out.output
    assert "winner" in out.stdout and "termination" in out.stdout and "total" in out.stdout


def test_bad_input_is_one_clear_error(tmp_path: Path) -> None:
    missing = runner.invoke(app, ["match", str(tmp_path), RANDOM_BOT])
    assert missing.exit_code == 2
    assert "bot.toml" in missing.output
    bad_option = runner.invoke(app, ["match", RANDOM_BOT, RANDOM_BOT, "-o", "rounds=7",
                                     "--log-dir", str(tmp_path)])
    assert bad_option.exit_code == 2
    assert "rounds" in bad_option.output
    no_log = runner.invoke(app, ["replay", str(tmp_path / "nope.jsonl")])
    assert no_log.exit_code == 2
    binary = tmp_path / "binary.jsonl"
    binary.write_bytes(b"\x89PNG\r\n\x1a\n\xff\xfe")
    for command in (["replay", str(binary)], ["watch", str(binary), "--delay", "0"]):
        out = runner.invoke(app, command)
        assert out.exit_code == 2 and "not UTF-8" in out.output, out.output
    bad_seed = tmp_path / "seed.jsonl"
    bad_seed.write_text('{"type": "header", "match_id": "m", "game": "lost-cities", '
                        '"game_version": 1, "seed": "7", "bots": []}\n')
    for command in (["replay", str(bad_seed)], ["watch", str(bad_seed), "--delay", "0"]):
        out = runner.invoke(app, command)
        assert out.exit_code == 2 and "seed.jsonl:1" in out.output, out.output
    bad_base = tmp_path / "badbase"
    bad_base.mkdir()
    (bad_base / "bot.toml").write_text('name = "b"\ngame = "lost-cities"\nbase = "java"\n')
    wrong = runner.invoke(app, ["match", str(bad_base), RANDOM_BOT])
    assert wrong.exit_code == 2
    assert "'base' must be one of python, node, lab" in " ".join(wrong.output.split())
    # A submitted (image-only) bot cannot run in the process sandbox: said before playing.
    catalogue.add("imgonly", "1", "lost-cities", "sha256:" + "0" * 64, "sha256:0",
                      home=tmp_path / "home")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(HOME_ENV, str(tmp_path / "home"))
        image_only = runner.invoke(app, ["match", "imgonly", RANDOM_BOT, "--sandbox", "process",
                                         "--log-dir", str(tmp_path / "logs")])
    assert image_only.exit_code == 2
    assert "runs only in the Docker sandbox" in " ".join(image_only.output.split())
    assert not (tmp_path / "logs").exists()


@pytest.mark.unit
def test_help_explains_every_command() -> None:
    out = runner.invoke(app, ["--help"])
    assert out.exit_code == 0
    for command in ("match", "replay", "watch", "serve"):
        assert command in out.stdout
