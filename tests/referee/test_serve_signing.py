"""`arena serve --sign-key KEY`: a real referee process signs every finished match log with the
operator's key (its listening line names the key id); a bad key is one line, exit 2, and
nothing listens.

Attack: a log of the referee swapped for another replayable one — signed, the swap no longer
verifies against the referee's public key."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.model import TimeControl
from arena.record.signing import check_log_signature, load_trusted, new_key
from arena.serve.client import run_on_referee
from tests.support.matches import wait_serving
from tests.support.paths import RANDOM_BOT, ROOT

pytestmark = pytest.mark.integration


def _serve(tmp_path: Path, *extra: str) -> tuple[subprocess.Popen[bytes], str, Path]:
    sock_dir = Path(tempfile.mkdtemp(prefix="r", dir="/tmp"))
    address = f"unix://{sock_dir}/admin.sock"
    out = tmp_path / "serve.out"
    with out.open("wb") as handle:
        proc = subprocess.Popen(
            [sys.executable, "-m", "arena", "serve", "--listen", address,
             "--sandbox", "process", "--log-dir", str(tmp_path / "logs"), *extra],
            cwd=ROOT, stdout=handle, stderr=subprocess.STDOUT,
            env={**os.environ, "COLUMNS": "400"})
    return proc, address, out


def _stop(proc: subprocess.Popen[bytes], address: str) -> None:
    if proc.poll() is None:
        proc.terminate()
        proc.wait(30)
    sock_dir = Path(address.removeprefix("unix://")).parent
    for leftover in sock_dir.iterdir():
        leftover.unlink()
    sock_dir.rmdir()


@pytest.fixture
def signing_referee(tmp_path: Path) -> Iterator[tuple[str, Path, Path]]:
    """A referee serving with a key: (address, its public key, its output)."""
    _, public = new_key(tmp_path / "keys")
    proc, address, out = _serve(tmp_path, "--sign-key", str(tmp_path / "keys" / "referee.key"))
    try:
        wait_serving(address)
        yield address, public, out
    finally:
        _stop(proc, address)


def _listening_line(out: Path) -> str:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        found = [line for line in out.read_text().splitlines() if "listening on" in line]
        if found:
            return found[0]
        time.sleep(0.1)
    raise AssertionError(out.read_text())


def test_serve_signs_every_finished_log_with_its_key(
        signing_referee: tuple[str, Path, Path]) -> None:
    address, public, out = signing_referee
    trusted = load_trusted([public])
    key_id = trusted.key_ids[0]
    assert f"signed with key {key_id}" in _listening_line(out)
    for seed in (4, 5):
        result = run_on_referee(address, [str(RANDOM_BOT), str(RANDOM_BOT)], None, seed,
                                {"rounds": "1"}, TimeControl(), "process")
        assert str(result.termination) == "normal"
        signature = check_log_signature(Path(result.log or ""), trusted)
        assert signature is not None and signature.verified and signature.key_id == key_id


def test_serve_without_a_key_leaves_logs_unsigned(tmp_path: Path) -> None:
    proc, address, out = _serve(tmp_path)
    try:
        wait_serving(address)
        assert "signed with key" not in _listening_line(out)
        result = run_on_referee(address, [str(RANDOM_BOT), str(RANDOM_BOT)], None, 4,
                                {"rounds": "1"}, TimeControl(), "process")
        assert check_log_signature(Path(result.log or ""), None) is None
    finally:
        _stop(proc, address)


def test_a_bad_sign_key_is_one_line_exit_2_and_nothing_listens(tmp_path: Path) -> None:
    private, public = new_key(tmp_path / "keys")
    loose = tmp_path / "loose.key"
    loose.write_bytes(private.read_bytes())
    loose.chmod(0o644)
    given_public = tmp_path / "given.pub"
    given_public.write_bytes(public.read_bytes())
    given_public.chmod(0o600)
    for key, says in ((given_public, "not a PEM private key"), (loose, "readable by others"),
                      (tmp_path / "none.key", "does not exist")):
        proc, address, out = _serve(tmp_path, "--sign-key", str(key))
        try:
            assert proc.wait(60) == 2, out.read_text()
        finally:
            _stop(proc, address)
        lines = [line for line in out.read_text().splitlines() if line.strip()]
        assert len(lines) == 1 and says in lines[0], lines
        assert re.search(r"\bsigning key\b", lines[0])
        assert not (tmp_path / "logs").exists()
