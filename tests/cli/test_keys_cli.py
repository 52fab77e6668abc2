"""`arena keys new/show` and `arena match --sign-key`, run in-process with typer's runner: a key
pair made private and never overwritten, its id printed; a match's log signed and verified by
`arena replay --key`; a bad key refused in one line before anything is played."""

from __future__ import annotations

import json
import re
import stat
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli.main import app
from arena.record.signing import load_signer, load_trusted

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
RANDOM_BOT = str(ROOT / "sample_bots" / "portas" / "random")
GREEDY_BOT = str(ROOT / "sample_bots" / "portas" / "greedy")
MARGIN = ["--move-time", "5000", "--startup-time", "30000"]
"""Generous limits: a sample bot slowed by a loaded machine still plays normally."""
runner = CliRunner()


def _flat(text: str) -> str:
    return " ".join(text.split())  # the test console wraps lines at 80 columns


def _one_error(stderr: str, *words: str) -> None:
    flat = _flat(stderr)
    assert flat.startswith("error:") and flat.count("error:") == 1, stderr
    assert all(w in flat for w in words), flat


def _new_key(directory: Path, *extra: str) -> tuple[Path, Path, str]:
    out = runner.invoke(app, ["keys", "new", str(directory), *extra])
    assert out.exit_code == 0, out.output
    key_id = _flat(out.stdout).split("key id ", 1)[1].split()[0]
    name = extra[extra.index("--name") + 1] if "--name" in extra else "referee"
    return directory / f"{name}.key", directory / f"{name}.pub", key_id


def test_keys_new_makes_a_private_key_and_its_public_key_once(tmp_path: Path) -> None:
    keys = tmp_path / "keys"
    private, public, key_id = _new_key(keys)
    assert stat.S_IMODE(private.stat().st_mode) == 0o600
    assert stat.S_IMODE(keys.stat().st_mode) == 0o700
    assert public.read_text().startswith("-----BEGIN PUBLIC KEY-----")
    assert load_signer(private).key_id == key_id and load_trusted([public]).key_ids == (key_id,)
    before = private.read_bytes()
    again = runner.invoke(app, ["keys", "new", str(keys)])
    assert again.exit_code == 2
    _one_error(again.stderr, "exists", "never overwritten")
    assert private.read_bytes() == before
    other = _new_key(keys, "--name", "2027")
    assert other[2] != key_id and other[0].exists()
    shown = runner.invoke(app, ["keys", "show", str(public)])
    assert shown.exit_code == 0 and shown.stdout.split()[0] == key_id
    both = runner.invoke(app, ["keys", "show", str(keys)])
    assert sorted(re.findall(r"\b[0-9a-f]{16}\b", both.stdout)) == sorted((key_id, other[2]))
    for bad in (private, tmp_path / "missing.pub"):
        refused = runner.invoke(app, ["keys", "show", str(bad)])
        assert refused.exit_code == 2
        _one_error(refused.stderr)


def test_match_sign_key_signs_the_log_that_replay_verifies(tmp_path: Path) -> None:
    private, public, key_id = _new_key(tmp_path / "keys")
    out = runner.invoke(app, ["match", RANDOM_BOT, GREEDY_BOT, "-o", "games=1", "--seed", "3",
                              *MARGIN, "--log-dir", str(tmp_path / "logs"),
                              "--sign-key", str(private)])
    assert out.exit_code == 0, out.output
    assert f"log signed (key {key_id})" in _flat(out.stdout)
    (log,) = (tmp_path / "logs").glob("*.jsonl")
    assert json.loads(log.read_text().splitlines()[-1])["key_id"] == key_id
    replayed = runner.invoke(app, ["replay", str(log), "--key", str(public), "--format", "json"])
    assert replayed.exit_code == 0, replayed.output
    data = json.loads(replayed.stdout)
    assert data["signature"] == {"key_id": key_id, "verified": True}
    assert data["seed"] == "matches its commitment" and data["log_format"] >= 4
    as_json = runner.invoke(app, ["match", RANDOM_BOT, GREEDY_BOT, "-o", "games=1", *MARGIN,
                                  "--log-dir", str(tmp_path / "logs2"), "--sign-key",
                                  str(private), "--format", "json"])
    assert as_json.exit_code == 0, as_json.output
    assert json.loads(as_json.stdout)["termination"] == "normal"  # stdout stays one JSON object
    assert f"log signed (key {key_id})" in _flat(as_json.stderr)


def test_a_bad_sign_key_is_refused_before_anything_is_played(tmp_path: Path) -> None:
    private, public, _ = _new_key(tmp_path / "keys")
    loose = tmp_path / "loose.key"
    loose.write_bytes(private.read_bytes())
    loose.chmod(0o644)
    not_private = tmp_path / "public-as-private.key"
    not_private.write_bytes(public.read_bytes())
    not_private.chmod(0o600)
    cases = [(["--sign-key", str(tmp_path / "none.key")], "does not exist"),
             (["--sign-key", str(not_private)], "not a PEM private key"),
             (["--sign-key", str(loose)], "chmod 600"),
             (["--sign-key", str(private), "--referee", "default"], "arena serve --sign-key")]
    for extra, words in cases:
        logs = tmp_path / "logs"
        out = runner.invoke(app, ["match", RANDOM_BOT, GREEDY_BOT, "-o", "games=1",
                                  "--log-dir", str(logs), *extra])
        assert out.exit_code == 2, out.output
        _one_error(out.stderr, words)
        assert not logs.exists(), "a refused key must not play the match"
