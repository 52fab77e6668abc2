"""Signed ladder logs: every match log a ladder keeps ends with its referee key's signature, over
a header that names the ladder slot; a bad key is refused before anything is played; a log cut
off by kill -9 stays unsigned and its replayed match's log is signed.

Attack: a published ladder log swapped for another replayable log (another deal, another
ladder's or another encounter's match) — with signed logs and the slot in the signed header,
the swap no longer verifies. Real referee, process sandbox, sample bots, real SQLite."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import logging
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from arena.ladder.config import LadderConfig, load_ladder
from arena.ladder.reports import load_matches
from arena.ladder.runner import default_play, ladder_signing, run_ladder, run_ladder_blocking
from arena.ladder.store import LadderStore
from arena.model import LadderSlot, MatchResult, MatchSpec
from arena.record.log import read_events
from arena.record.signing import (
    check_log_signature,
    load_trusted,
    new_key,
    parse_log_signature,
)
from tests.support.fakes import FakePlayer, fake_resolve

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_bots" / "lost-cities"
IN_PROCESS = default_play()
"""The real referee in this process: the runner signs what it records however the match was
played, and opening the embedded cluster would cost more than these two matches (signing on
the cluster: tests/cluster/test_cluster_signing.py; the kill -9 test below runs the real
`arena run-ladder`)."""


def _ladder(path: Path, extra: str = "", *, cycles: int = 1, entrants: str = "",
            concurrency: int = 2) -> Path:
    bots = entrants or f'"{SAMPLES / "random"}", "{SAMPLES / "greedy"}"'
    path.write_text(f'name = "{path.stem}"\ngame = "lost-cities"\nentrants = [{bots}]\n'
                    f'concurrency = {concurrency}\nseed = 5\nsandbox = "process"\n{extra}'
                    f"[options]\nrounds = 1\n[schedule]\ncycles = {cycles}\n")
    return path


def _assert_signed(cfg: LadderConfig, public: Path, key_id: str) -> None:
    """Every recorded match's log verifies with ``public`` (key ``key_id``) and its header
    names the match's ladder slot."""
    trusted = load_trusted([public])
    recorded = load_matches(cfg)
    assert recorded
    for m in recorded:
        assert m.log_path is not None
        path = Path(m.log_path)
        signature = check_log_signature(path, trusted)
        assert signature is not None and signature.verified, f"{path.name} is not signed"
        assert signature.key_id == key_id
        header = next(iter(read_events(path)))
        assert header.slot == LadderSlot(cfg.name, m.encounter_id, m.cycle, m.leg)


@pytest.mark.slow
def test_a_ladder_without_a_key_makes_one_and_signs_every_log(tmp_path: Path) -> None:
    cfg = load_ladder(_ladder(tmp_path / "keyless.toml"))
    summary = run_ladder_blocking(cfg, play=IN_PROCESS)
    assert summary.played == 2 and summary.void == 0
    private = cfg.state_dir / "keys" / "referee.key"
    public = cfg.state_dir / "keys" / "referee.pub"
    assert private.stat().st_mode & 0o777 == 0o600
    assert (cfg.state_dir / "keys").stat().st_mode & 0o077 == 0
    signing = ladder_signing(cfg)
    assert not signing.created and signing.public_key == public  # made by the first run
    _assert_signed(cfg, public, signing.key_id)
    # the seed stays committed in the signed header: revealed only at the match end
    first = json.loads(Path(load_matches(cfg)[0].log_path or "").read_text().splitlines()[0])
    assert "seed" not in first and first["seed_commitment"]


@pytest.mark.slow
def test_a_ladder_with_a_signing_key_signs_with_it(tmp_path: Path) -> None:
    private, public = new_key(tmp_path / "operator-keys")
    cfg = load_ladder(_ladder(tmp_path / "keyed.toml",
                              'signing_key = "operator-keys/referee.key"\n'))
    signing = ladder_signing(cfg)
    assert signing.public_key == public and not signing.created
    key_id = load_trusted([public]).key_ids[0]
    assert signing.key_id == key_id
    assert run_ladder_blocking(cfg, play=IN_PROCESS).played == 2
    _assert_signed(cfg, public, key_id)
    assert not (cfg.state_dir / "keys").exists(), "no key of its own beside the configured one"


def _bad_keys(tmp_path: Path) -> dict[str, tuple[str, str]]:
    """Each bad ``signing_key`` (relative to the ladder file) and what the refusal says."""
    private, public = new_key(tmp_path / "k")
    loose = tmp_path / "loose.key"
    loose.write_bytes(private.read_bytes())
    loose.chmod(0o640)
    junk = tmp_path / "junk.key"
    junk.write_text("not a key\n")
    junk.chmod(0o600)
    os.chmod(public, 0o600)
    return {
        "missing": ("nowhere/referee.key", "does not exist"),
        "a directory": ("k", "is a directory"),
        "a public key": ("k/referee.pub", "not a PEM private key"),
        "not a key": ("junk.key", "not a PEM private key"),
        "readable by others": ("loose.key", "readable by others"),
    }


def test_a_bad_signing_key_is_one_line_exit_2_and_nothing_played(tmp_path: Path) -> None:
    """The first case through the real `arena` command (a process of its own), the others
    through the same command line in this process (a new interpreter apiece cost 1.4 s of CPU
    to say one line)."""
    from typer.testing import CliRunner

    from arena.cli.main import app

    runner = CliRunner(env={"COLUMNS": "300"})
    for number, (case, (key, says)) in enumerate(_bad_keys(tmp_path).items()):
        path = _ladder(tmp_path / f"bad{len(case)}.toml", f'signing_key = "{key}"\n')
        cfg = load_ladder(path)  # the file is fine: the key is read when the run starts
        if number == 0:
            run = subprocess.run([sys.executable, "-m", "arena", "run-ladder", str(path)],
                                 cwd=ROOT, capture_output=True, text=True, timeout=120,
                                 env={**os.environ, "COLUMNS": "300"})
            code, stdout, stderr = run.returncode, run.stdout, run.stderr
        else:
            done = runner.invoke(app, ["run-ladder", str(path)])
            assert isinstance(done.exception, SystemExit), (case, done.exception)
            code, stdout, stderr = done.exit_code, done.stdout, done.stderr
        lines = [line for line in stderr.splitlines() if line.strip()]
        assert code == 2, (case, stdout, stderr)
        assert any(says in line for line in lines) and "Traceback" not in stderr, \
            (case, stderr)
        assert len([line for line in lines if "error" in line.lower()]) == 1, (case, lines)
        assert not cfg.store_exists() and not cfg.match_log_dir.exists(), case
        assert not (cfg.state_dir / "keys").exists(), case


@pytest.mark.unit
def test_a_log_that_cannot_be_signed_keeps_its_result(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """The referee's log is not whole (here: no match end): the result is recorded all the
    same, the failure is logged, and nothing half-signed is left."""
    cfg = load_ladder(_ladder(tmp_path / "torn.toml", entrants='"alpha", "beta"'))

    class TornLogs(FakePlayer):
        async def __call__(self, spec: MatchSpec, **kwargs: object) -> MatchResult:
            log_dir = kwargs["log_dir"]
            assert isinstance(log_dir, Path)
            path = log_dir / f"{spec.match_id}.jsonl"
            path.write_text('{"type":"header"}\n')
            result = await super().__call__(spec, log_dir=log_dir)
            return dataclasses.replace(result, log=str(path))

    player = TornLogs()
    with caplog.at_level(logging.ERROR, logger="arena.ladder.runner"):
        summary = asyncio.run(run_ladder(cfg, play=player, resolve=fake_resolve))
    assert summary.played == 2
    with LadderStore(cfg.database_url) as db:
        assert len(db.recorded_ids(cfg.name)) == 2
    assert caplog.text.count("was not signed") == 2
    for spec in player.calls:
        assert spec.slot == LadderSlot(cfg.name, spec.match_id.rsplit("-l", 1)[0],
                                       0, int(spec.match_id[-1]))
        assert (cfg.match_log_dir / f"{spec.match_id}.jsonl").read_text() == \
            '{"type":"header"}\n'


def _recorded(cfg: LadderConfig) -> set[str]:
    if not cfg.store_exists():
        return set()
    try:
        with LadderStore(cfg.database_url) as db:
            return db.recorded_ids(cfg.name)
    except Exception:  # noqa: BLE001 — the writer may be creating the schema right now
        return set()


def _started_unrecorded(cfg: LadderConfig) -> list[Path]:
    """Logs of matches in flight that have got past their header."""
    recorded = _recorded(cfg)
    logs = cfg.match_log_dir.glob("*.jsonl") if cfg.match_log_dir.exists() else []
    return [p for p in logs if p.name.removesuffix(".jsonl") not in recorded
            and ".aborted-" not in p.name and p.stat().st_size > 2000]


@pytest.mark.slow
def test_kill_9_mid_match_leaves_the_cut_log_unsigned_and_signs_the_replayed_one(
        tmp_path: Path) -> None:
    from tests.support.cluster import pacers

    bots = pacers(tmp_path / "bots", ["slow1", "slow2"], pace_s=0.05)
    # one encounter: its two legs (one deal) never play at once, so one cluster worker
    path = _ladder(tmp_path / "killed.toml", entrants=", ".join(f'"{b}"' for b in bots),
                   concurrency=1)
    cfg = load_ladder(path)
    args = [sys.executable, "-m", "arena", "run-ladder", str(path)]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    with (tmp_path / "run1.log").open("wb") as out:
        proc = subprocess.Popen(args, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT,
                                start_new_session=True)
    try:
        deadline = time.monotonic() + 180
        while not _started_unrecorded(cfg):
            assert proc.poll() is None, (tmp_path / "run1.log").read_text()
            assert time.monotonic() < deadline, "no match got under way"
            time.sleep(0.05)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
    cut = {p.name.removesuffix(".jsonl") for p in _started_unrecorded(cfg)}
    assert cut
    for match_id in cut:
        assert parse_log_signature((cfg.match_log_dir / f"{match_id}.jsonl").read_bytes()) \
            is None, "a log cut off mid-match is never signed"
    rerun = subprocess.run(args, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert rerun.returncode == 0, rerun.stdout + rerun.stderr
    public = cfg.state_dir / "keys" / "referee.pub"
    _assert_signed(cfg, public, load_trusted([public]).key_ids[0])
    assert cut <= _recorded(cfg)
    aborted = list(cfg.match_log_dir.glob("*.aborted-*.jsonl"))
    assert {p.name.split(".aborted-")[0] for p in aborted} >= cut
    for path in aborted:
        assert parse_log_signature(path.read_bytes()) is None, f"{path.name} was signed"


@pytest.mark.unit
def test_signing_key_is_relative_to_the_ladder_file_and_never_empty(tmp_path: Path) -> None:
    from arena.errors import ConfigError

    cfg = load_ladder(_ladder(tmp_path / "rel.toml", 'signing_key = "k/referee.key"\n'))
    assert cfg.signing_key == tmp_path / "k" / "referee.key"
    assert load_ladder(_ladder(tmp_path / "none.toml")).signing_key is None
    with pytest.raises(ConfigError, match=r"key 'signing_key' \(line \d+\): must be the path"):
        load_ladder(_ladder(tmp_path / "empty.toml", 'signing_key = " "\n'))
    with pytest.raises(ConfigError, match="key 'signing_key'.*must be a string"):
        load_ladder(_ladder(tmp_path / "number.toml", "signing_key = 3\n"))
