"""Attacks on a worker host: real `arena worker` processes on 127.0.0.1 with real TLS.

- A worker host that cannot separate bots (here: run as an unprivileged user) refuses a
  process-sandbox match: the match is void (``internal``), never played, never rated, and the
  head says why (a bot there would run as the worker's user, next to its TLS key).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.cluster.security import CertFiles
from arena.cluster.settings import TlsFiles
from arena.ladder.config import load_ladder
from arena.ladder.reports import load_matches
from tests.cluster.conftest import (
    LOOPBACK,
    cluster_section,
    free_port,
    ladder_file,
    pacers,
    start,
)

pytestmark = pytest.mark.slow

NOBODY = 65534
AS_NOBODY = ("setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups",
             # only to reach the Python installation (under /root here), never to write
             "--inh-caps=+dac_read_search", "--ambient-caps=+dac_read_search")


@pytest.fixture
def shared_dir() -> Iterator[Path]:
    """A directory another user can reach (pytest's own are private to root)."""
    made = Path(tempfile.mkdtemp(prefix="arena-host-"))
    made.chmod(0o755)
    yield made
    shutil.rmtree(made, ignore_errors=True)


def _owned_by(user: int, files: TlsFiles, directory: Path) -> TlsFiles:
    """Copies of a host's TLS files that ``user`` can read (the key still private)."""
    directory.mkdir(mode=0o700)
    copies = []
    for path in (files.ca, files.cert, files.key):
        copy = directory / path.name
        shutil.copy(path, copy)
        os.chown(copy, user, user)
        copies.append(copy)
    os.chown(directory, user, user)
    return TlsFiles(copies[0], copies[1], copies[2])


def test_an_unprivileged_worker_host_refuses_the_unseparated_process_sandbox(
        tmp_path: Path, shared_dir: Path, certs: CertFiles,
        procs: list[subprocess.Popen[bytes]]) -> None:
    if shutil.which("setpriv") is None:
        pytest.fail("setpriv (util-linux) is needed to run a worker as another user")
    address = f"tls://{LOOPBACK}:{free_port()}"
    bots = pacers(tmp_path / "bots", ["ann", "bob"])
    path = ladder_file(tmp_path / "host.toml", "host", bots, sandbox="process",
                       extra=cluster_section(address, certs))
    tls = _owned_by(NOBODY, certs.hosts["w1"], shared_dir / "tls")
    home = shared_dir / "home"
    (home / "tmp").mkdir(parents=True)
    for mine in (home, home / "tmp"):
        os.chown(mine, NOBODY, NOBODY)
    log = shared_dir / "w1.log"
    procs.append(start(["worker", address, "--ca", str(tls.ca), "--cert", str(tls.cert),
                        "--key", str(tls.key), "--matches", "1", "--host", LOOPBACK,
                        "--cache", str(home / "cache"), "--name", "w1"], log,
                       prefix=AS_NOBODY, env={"HOME": str(home), "TMPDIR": str(home / "tmp")})
                 )
    head = start(["run-ladder", str(path)], tmp_path / "head.log")
    procs.append(head)
    assert head.wait(timeout=180) == 0, (tmp_path / "head.log").read_text() + log.read_text()
    found = load_matches(load_ladder(path))
    assert len(found) == 2
    for match in found:
        assert match.void and str(match.termination) == "internal", match
        assert "refuses to play in the process sandbox" in match.detail
        assert "would not separate the bots" in match.detail
    assert "refuses to play in the process sandbox" in (tmp_path / "head.log").read_text()
