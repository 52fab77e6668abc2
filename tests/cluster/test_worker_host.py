"""Attacks on a worker host: real `arena worker` processes on 127.0.0.1 with real TLS.

- A worker host that cannot separate bots (here: run as an unprivileged user) refuses a
  process-sandbox match: the match is void (``internal``), never played, never rated, and the
  head says why (a bot there would run as the worker's user, next to its TLS key).
- The worker cache is private: a bot in the separated process sandbox, playing from the cache,
  can neither list the cache nor read another shipped bot (its own directory still runs).
- An image shipped to a worker never sits whole in the head's memory: a ~200 MB image is saved,
  sent and loaded through files while the head's peak RSS grows by far less.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from arena.bots import load_bot_dir
from arena.bots.identity import bot_identity
from arena.bots.images import BaseImage
from arena.cluster.security import CertFiles
from arena.cluster.session import open_cluster
from arena.cluster.settings import ClusterSettings, TlsFiles
from arena.cluster.shipping import (
    cached_directory,
    image_present,
    pack_directory,
    save_image,
    unpack_directory,
)
from arena.ladder.config import load_ladder
from arena.ladder.reports import load_matches
from arena.model import BotSpec, MatchResult, MatchSpec, TimeControl
from tests.support.cluster import (
    LOOPBACK,
    cluster_section,
    free_port,
    ladder_file,
    pacers,
    start,
    worker_args,
)
from tests.support.paths import ROOT

pytestmark = [pytest.mark.integration, pytest.mark.slow]

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


SNOOP = """
import os
import sys
from pathlib import Path

cache, victim = Path(__file__).with_name("targets.txt").read_text().split("\\n")[:2]
for label, path in (("cache", cache), ("bots", cache + "/bots")):
    try:
        print(f"LIST {label}: {sorted(os.listdir(path))}", file=sys.stderr)
    except OSError as exc:
        print(f"LIST {label}: refused ({exc.strerror})", file=sys.stderr)
try:
    print(f"READ victim: {len(Path(victim, 'bot.py').read_text())} chars", file=sys.stderr)
except OSError as exc:
    print(f"READ victim: refused ({exc.strerror})", file=sys.stderr)
sys.stderr.flush()
"""


@pytest.fixture
def visible_dir() -> Iterator[Path]:
    """A directory below world-traversable ones that the separated sandbox does not hide by
    itself (unlike /tmp or /root, or the arena's own installation, which a bot needs): where a
    worker host might keep its cache."""
    made = Path(tempfile.mkdtemp(prefix="arena-test-cache-", dir=ROOT.parent))
    made.chmod(0o755)
    yield made
    shutil.rmtree(made, ignore_errors=True)


def _bot(directory: Path) -> BotSpec:
    bot = load_bot_dir(directory)
    return dataclasses.replace(bot, digest=bot_identity(bot))


async def _play_on_worker(address: str, certs: CertFiles, spec: MatchSpec, sandbox: str,
                          log_dir: Path, **kwargs: Any) -> MatchResult:
    mine = ClusterSettings(listen=address, tls=certs.hosts["head"], wait_s=60)
    async with open_cluster(mine, workers=0, **kwargs) as session:
        return await session.player(spec, sandbox=sandbox, log_dir=log_dir)


def test_a_bot_cannot_list_the_worker_cache_or_read_another_bot(
        tmp_path: Path, visible_dir: Path, certs: CertFiles,
        procs: list[subprocess.Popen[bytes]]) -> None:
    from arena.sandbox.isolation import unseparated_reason

    assert unseparated_reason() is None, "this test needs the separated process sandbox"
    cache = visible_dir / "cache"
    victim_dir, snoop_dir = pacers(tmp_path / "bots", ["victim", "snoop"])
    victim = _bot(victim_dir)
    code = snoop_dir / "bot.py"
    code.write_text(code.read_text().replace("PACE_S = 0.01", SNOOP + "PACE_S = 0.01"))
    (snoop_dir / "targets.txt").write_text(
        f"{cache}\n{cached_directory(cache, victim.digest)}\n")
    snoop = _bot(snoop_dir)
    for bot in (victim, snoop):  # shipped earlier: in the cache, gone from where they were
        unpack_directory(pack_directory(bot.directory or ""), bot.digest, cache)
    shutil.move(tmp_path / "bots", tmp_path / "gone")
    spec = MatchSpec("lost-cities", 3, (snoop, victim), {"rounds": 1},
                     TimeControl(2000, 0, 20_000), match_id="snoop-l0")
    address = f"tls://{LOOPBACK}:{free_port()}"
    procs.append(start(worker_args(address, certs, "w1", cache), tmp_path / "w1.log"))
    result = asyncio.run(_play_on_worker(address, certs, spec, "process", tmp_path / "logs"))
    assert str(result.termination) == "normal", result.detail  # each runs from the cache
    said = (tmp_path / "logs" / "snoop-l0.seat0.log").read_text()
    assert "READ victim: refused" in said, said
    hidden = victim.digest.removeprefix("dir:sha256:")
    assert "LIST cache" in said and hidden not in said, said
    assert oct(cache.stat().st_mode & 0o777) == "0o700"
    assert oct((cache / "bots").stat().st_mode & 0o777) == "0o700"


def _peak_reset() -> None:
    Path("/proc/self/clear_refs").write_text("5")  # resets VmHWM to the current RSS


def _peak_kib() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    raise AssertionError("no VmHWM")


BIG_MB = 200


@pytest.mark.docker
def test_a_big_image_ships_through_files_not_the_heads_memory(
        tmp_path: Path, certs: CertFiles, procs: list[subprocess.Popen[bytes]],
        docker_client: Any, base_image: BaseImage) -> None:
    from arena.bots.images import build_bot_image

    client, base = docker_client, base_image
    (directory,) = pacers(tmp_path / "bots", ["heavy"])
    with (directory / "ballast.bin").open("wb") as ballast:
        for _ in range(BIG_MB):
            ballast.write(os.urandom(1 << 20))
    image_id = build_bot_image(directory, base=base.image_id, client=client).image_id
    shutil.rmtree(directory)
    saved = tmp_path / "saved.tar"
    try:
        _peak_reset()
        before = _peak_kib()
        size = save_image(client, image_id, saved)  # streamed to the file
        saving = _peak_kib() - before
        assert size > BIG_MB << 20
        client.images.remove(image_id, force=True)
        assert not image_present(client, image_id)
        asked: list[str] = []

        def from_head(wanted: str, path: Path) -> None:
            asked.append(wanted)
            shutil.copy(saved, path)

        bot = BotSpec(name="heavy", game="lost-cities", image=image_id, version="1",
                      digest=image_id)
        spec = MatchSpec("lost-cities", 3, (bot, bot), options={"rounds": 1},
                         time_control=TimeControl(2000, 0, 20_000), match_id="heavy-l0")
        address = f"tls://{LOOPBACK}:{free_port()}"
        cache = tmp_path / "cache"
        procs.append(start(worker_args(address, certs, "w1", cache), tmp_path / "w1.log"))
        _peak_reset()
        before = _peak_kib()
        result = asyncio.run(_play_on_worker(address, certs, spec, "docker",
                                             tmp_path / "logs", images=from_head))
        shipping = _peak_kib() - before
        assert str(result.termination) == "normal", result.detail
        assert asked == [image_id] and image_present(client, image_id)  # the same id
        assert not list((cache / "images").iterdir()), "the worker removed the archive"
        # the image is BIG_MB: the head holds a few CHUNK_BYTES chunks at a time (measured: 42
        # MiB with its scheduler's and client's start; holding the image would cost > 2 x BIG_MB)
        assert saving < (BIG_MB // 4) << 10, f"saving grew the peak by {saving} KiB"
        assert shipping < (BIG_MB * 3 // 8) << 10, f"shipping grew the peak by {shipping} KiB"
    finally:
        with contextlib.suppress(Exception):
            client.images.remove(image_id, force=True)
