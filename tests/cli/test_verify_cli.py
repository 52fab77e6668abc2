"""`arena run-ladder` (its signing line), `arena ladder publish` and `arena verify` as a user runs
them: a real two-bot ladder in the process sandbox, then exit codes and one-line refusals."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli.main import app

pytestmark = [pytest.mark.integration, pytest.mark.slow]

SAMPLES = Path(__file__).resolve().parents[2] / "sample_bots" / "lost-cities"
runner = CliRunner()


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """A ladder file played with `arena run-ladder` (one encounter: 2 matches) and what the
    command printed."""
    root = tmp_path_factory.mktemp("verify-cli")
    ladder = root / "duel.toml"
    ladder.write_text(f'name = "duel"\ngame = "lost-cities"\nentrants = ["{SAMPLES / "random"}", '
                      f'"{SAMPLES / "greedy"}"]\nconcurrency = 2\nseed = 4\nsandbox = "process"\n'
                      "[options]\nrounds = 1\n")
    out = runner.invoke(app, ["run-ladder", str(ladder)])
    assert out.exit_code == 0, out.output
    return ladder, out.stdout


@pytest.fixture(scope="module")
def published(played: tuple[Path, str]) -> Path:
    ladder, _ = played
    out = runner.invoke(app, ["ladder", "publish", str(ladder), "--out",
                              str(ladder.parent / "pub")])
    assert out.exit_code == 0, out.output
    assert "published 2 matches of duel" in out.stdout and "verified" in out.stdout
    return ladder.parent / "pub"


def _key(ladder: Path) -> Path:
    return ladder.parent / "state" / "duel" / "keys" / "referee.pub"


def test_run_ladder_names_its_signing_key(played: tuple[Path, str]) -> None:
    ladder, stdout = played
    first = stdout.splitlines()[0]
    assert first.startswith("signing logs with key ") and "(made now)" in first
    assert first.endswith(f"; public key: {_key(ladder)}")
    pub = runner.invoke(app, ["ladder", "publish", str(ladder), "--out", str(ladder.parent / "p")])
    key_id = json.loads((ladder.parent / "p" / "manifest.json").read_text())["key_id"]
    assert first.startswith(f"signing logs with key {key_id} (made now)"), pub.output


def test_verify_passes(published: Path, played: tuple[Path, str]) -> None:
    out = runner.invoke(app, ["verify", str(published), "--key", str(_key(played[0]))])
    assert out.exit_code == 0, out.output
    assert out.stdout.startswith("verified: ") and "2 match logs" in out.stdout


def test_verify_lists_every_difference_exit_1(published: Path, played: tuple[Path, str],
                                             tmp_path: Path) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(published, copy)
    (copy / "logs" / "extra.jsonl").write_text("{}\n")
    manifest = copy / "manifest.json"
    manifest.write_text(manifest.read_text().replace('"termination": "normal"',
                                                     '"termination": "timeout"', 1))
    out = runner.invoke(app, ["verify", str(copy), "--key", str(_key(played[0]))])
    assert out.exit_code == 1, out.output
    lines = out.stdout.splitlines()
    assert any(line.startswith("difference: manifest.sig: ") for line in lines)
    assert any("logs/extra.jsonl: a file the manifest does not list" in line for line in lines)
    assert any("termination is 'normal', the manifest says 'timeout'" in line
               for line in lines)
    assert lines[-1].startswith("NOT verified: ")


@pytest.mark.parametrize("case", ["no such dir", "a file", "no manifest", "no key", "bad key"])
def test_bad_input_is_one_line_exit_2(case: str, published: Path, played: tuple[Path, str],
                                      tmp_path: Path) -> None:
    directory, keys = published, ["--key", str(_key(played[0]))]
    if case == "no such dir":
        directory = tmp_path / "nowhere"
    elif case == "a file":
        directory = published / "manifest.json"
    elif case == "no manifest":
        directory = tmp_path / "empty"
        directory.mkdir()
    elif case == "no key":
        keys = []
    else:
        keys = ["--key", str(published / "manifest.json")]
    out = runner.invoke(app, ["verify", str(directory), *keys])
    assert out.exit_code == 2, out.output
    assert out.stdout == ""
    _one_error(out.stderr)


def test_publish_refusals_are_one_line_exit_2(played: tuple[Path, str], tmp_path: Path) -> None:
    ladder, _ = played
    taken = tmp_path / "taken"
    taken.mkdir()
    (taken / "notes.txt").write_text("mine")
    out = runner.invoke(app, ["ladder", "publish", str(ladder), "--out", str(taken)])
    assert out.exit_code == 2
    _one_error(out.stderr, "holds other files")
    fresh = tmp_path / "fresh.toml"
    fresh.write_text(ladder.read_text().replace('name = "duel"', 'name = "fresh"'))
    out = runner.invoke(app, ["ladder", "publish", str(fresh), "--out", str(tmp_path / "o")])
    assert out.exit_code == 2
    _one_error(out.stderr, "has no results yet")
    assert not (tmp_path / "o").exists()


def _one_error(stderr: str, *words: str) -> None:
    flat = " ".join(stderr.split())  # one message (the test console wraps it at 80 columns)
    assert flat.startswith("error:") and flat.count("error:") == 1, stderr
    assert all(w in flat for w in words), flat
