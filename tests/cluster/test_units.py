"""The cluster's parts on their own: per-worker progress from events and its table in the live
view, the [cluster] section of a ladder file, certificates, and a worker's task with a bot
directory its host lacks (shipped, unpacked into the cache, checked by content hash)."""

from __future__ import annotations

import dataclasses
import io
import ssl
import tarfile
from pathlib import Path

import pytest

from arena.bots import load_bot_dir
from arena.bots.identity import bot_identity
from arena.cluster.executor import cpu_slots, encounter_of, relocate
from arena.cluster.progress import HostBoard
from arena.cluster.security import HEAD_ROLE, WORKER_ROLE, certificate_role, make_certs
from arena.cluster.shipping import Needs, Shipment, pack_directory, unpack_directory
from arena.cluster.task import (
    MatchOutput,
    MatchTask,
    decode_outcome,
    encode_shipment,
    play_task,
)
from arena.errors import ConfigError, SandboxError
from arena.ladder.config import parse_ladder
from arena.ladder.runner import Progress
from arena.model import MatchSpec, TimeControl
from arena.render.ladder import render_live
from tests.support.cluster import PACER
from tests.support.views import text_of

pytestmark = pytest.mark.unit

LADDER = 'name = "lad"\ngame = "lost-cities"\nentrants = ["alpha", "beta"]\n'


def _event(kind: str, match_id: str, worker: str, at: float) -> tuple[float, dict[str, object]]:
    return at, {"kind": kind, "match_id": match_id, "worker": worker, "host": "h1", "time": at}


def test_host_board_folds_events_and_the_live_view_shows_it() -> None:
    board = HostBoard()
    board.handle(_event("start", "m1", "tls://127.0.0.1:1", 100.0))
    board.handle(_event("start", "m2", "tls://127.0.0.1:2", 100.0))
    board.handle(_event("end", "m1", "tls://127.0.0.1:1", 106.0))
    board.handle(_event("start", "m3", "tls://127.0.0.1:1", 106.0))
    board.handle(_event("end", "m9", "tls://127.0.0.1:1", 107.0))  # never started: ignored
    board.handle((107.0, "not a dict"))
    rows = board.snapshot(now=130.0)
    assert [(r.worker, r.in_flight, r.done) for r in rows] == [
        ("tls://127.0.0.1:1", 1, 1), ("tls://127.0.0.1:2", 1, 0)]
    assert rows[0].per_min == pytest.approx(2.0)  # 1 match in 30 s
    board.forget("tls://127.0.0.1:2")  # the worker died: nothing in flight there
    rows = board.snapshot(now=130.0)
    assert rows[1].in_flight == 0
    progress = Progress(ladder="lad", scheduled=4, already=0, planned=4, done=1, in_flight=(),
                        elo={}, started=100.0, hosts=rows)
    text = " ".join(text_of(render_live("lad", progress, None, now=130.0)).split())
    assert "Workers" in text and "tls://127.0.0.1:1 │ h1 │ 1 │ 1 │ 2.0" in text


def test_cluster_section() -> None:
    cfg = parse_ladder(LADDER, source=Path("/l/x.toml"))
    assert cfg.cluster.embedded and cfg.cluster.tls is None and cfg.cluster.worker_ttl_s == 60
    cfg = parse_ladder(LADDER + '[cluster]\nlisten = "tls://0.0.0.0:8786"\nca = "c/ca.pem"\n'
                       'cert = "c/h.pem"\nkey = "c/h-key.pem"\nworker_ttl_s = 30\n',
                       source=Path("/l/x.toml"))
    assert cfg.cluster.listen == "tls://0.0.0.0:8786" and not cfg.cluster.embedded
    assert cfg.cluster.tls is not None and cfg.cluster.tls.ca == Path("/l/c/ca.pem")
    assert cfg.cluster.worker_ttl_s == 30
    bad = {
        'scheduler = "tcp://h:1"\n': "must be tls://HOST:PORT",
        'scheduler = "tls://h:1"\n': r"'cluster.ca' \(line 4\): is required",
        'scheduler = "tls://h:1"\nlisten = "tls://h:2"\n': "not both",
        'workers = 3\n': "unknown key",
        'wait_s = 0\n': "must be > 0",
    }
    for body, message in bad.items():
        with pytest.raises(ConfigError, match=message):
            parse_ladder(LADDER + "[cluster]\n" + body)


def test_certificates_chain_to_their_ca_only(tmp_path: Path) -> None:
    made = make_certs(tmp_path / "a", ["head", "10.0.0.7"])
    other = make_certs(tmp_path / "b", ["x"])
    assert oct(made.ca_key.stat().st_mode & 0o777) == "0o600"
    for files in made.hosts.values():
        assert oct(files.key.stat().st_mode & 0o777) == "0o600"
        context = ssl.create_default_context(cafile=str(files.ca))
        context.load_cert_chain(str(files.cert), str(files.key))
    assert {certificate_role(f.cert) for f in made.hosts.values()} == {WORKER_ROLE}
    again = make_certs(tmp_path / "a", ["w3"], head="boss")  # the CA is reused: w3 joins
    assert certificate_role(again.hosts["boss"].cert) == HEAD_ROLE
    assert certificate_role(again.hosts["w3"].cert) == WORKER_ROLE
    assert again.ca.read_bytes() == made.ca.read_bytes()
    assert other.ca.read_bytes() != made.ca.read_bytes()
    with pytest.raises(ConfigError):
        make_certs(tmp_path / "c", ["../evil"])


def test_slots_encounters_and_relocated_logs() -> None:
    assert [cpu_slots(n) for n in (1, 2, 3, 4, 16)] == [1, 1, 1, 1, 7]
    assert encounter_of("lad-c0001-abc-l1") == encounter_of("lad-c0001-abc-l0")
    text = ('{"type":"header"}\n'
            '{"type":"match_end","result":{"log":"/w/x"},"bot_logs":[null,null]}\n')
    moved = relocate(text, "/head/x.jsonl", ("/head/x.seat0.log", None))
    assert '"log":"/head/x.jsonl"' in moved and '"bot_logs":["/head/x.seat0.log",null]' in moved
    assert relocate('{"type":"deal"}\n', "/a", (None, None)) == '{"type":"deal"}\n'


@pytest.mark.integration
def test_a_task_asks_for_a_missing_directory_then_plays_the_shipped_copy(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARENA_CACHE", str(tmp_path / "cache"))
    bot = load_bot_dir(PACER)
    bot = dataclasses.replace(bot, digest=bot_identity(bot))
    elsewhere = dataclasses.replace(bot, directory="/nonexistent/head/path/pacer")
    spec = MatchSpec("lost-cities", 7, (elsewhere, bot), options={"rounds": 1},
                     time_control=TimeControl(2000, 0, 10_000), match_id="ship-test")
    task = MatchTask(spec, "process")
    assert decode_outcome(play_task(task)) == Needs(bots=(bot.digest,))
    shipment = encode_shipment(Shipment({bot.digest: pack_directory(PACER)}))
    outcome = decode_outcome(play_task(task, shipment))
    assert isinstance(outcome, MatchOutput), outcome
    assert str(outcome.result.termination) == "normal" and outcome.result.decisions > 20
    cached = tmp_path / "cache" / "bots" / bot.digest.removeprefix("dir:sha256:")
    assert (cached / "bot.py").read_bytes() == (PACER / "bot.py").read_bytes()
    with pytest.raises(SandboxError, match="hashes to"):
        unpack_directory(pack_directory(PACER), "dir:sha256:" + "0" * 64, tmp_path / "c2")


@pytest.mark.integration
def test_a_host_whose_docker_engine_fails_makes_the_match_void(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from arena import sandbox
    from arena.model import BotSpec, MatchResult

    monkeypatch.setenv("DOCKER_HOST", "unix:///nonexistent/docker.sock")  # no engine answers
    sandbox._sandbox.cache_clear()
    try:
        bot = BotSpec(name="img", game="lost-cities", image="sha256:" + "1" * 64, version="1")
        spec = MatchSpec("lost-cities", 7, (bot, bot), match_id="no-engine-l0")
        outcome = decode_outcome(play_task(MatchTask(spec, "docker")))
    finally:
        sandbox._sandbox.cache_clear()
    assert isinstance(outcome, MatchResult)
    assert outcome.void and str(outcome.termination) == "internal" and outcome.winner is None
    assert "sandbox failure on" in outcome.detail


def _archive(members: list[tuple[tarfile.TarInfo, bytes]]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for info, data in members:
            tar.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def test_unpacking_a_shipped_directory_is_bounded(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    link = tarfile.TarInfo("notes.txt")
    link.type, link.linkname = tarfile.SYMTYPE, "/etc/shadow"
    fifo = tarfile.TarInfo("pipe")
    fifo.type = tarfile.FIFOTYPE
    big = tarfile.TarInfo("big.bin")
    big.size = 2 << 20
    digest = "dir:sha256:" + "0" * 64
    for members, reason in (([(link, b"")], "not a regular file"),
                            ([(fifo, b"")], "not a regular file")):
        with pytest.raises(SandboxError, match=reason):
            unpack_directory(_archive(members), digest, tmp_path / "cache")
    monkeypatch.setenv("ARENA_MAX_BOT_DIR_MB", "1")
    with pytest.raises(SandboxError, match="ARENA_MAX_BOT_DIR_MB"):
        unpack_directory(_archive([(big, b"\0" * big.size)]), digest, tmp_path / "cache")
    assert not list((tmp_path / "cache" / "bots").iterdir()), "nothing half-written"
    assert oct((tmp_path / "cache").stat().st_mode & 0o777) == "0o700"


def test_what_a_peer_that_is_not_the_head_may_send() -> None:
    """The guard's read check (arena.cluster.guard.check_frames) on messages Dask itself
    encodes: msgpack and bytes pass; a pickle, and a compressed frame (a 1 KiB zlib frame here
    inflates to 1 MiB, a bomb without a bound), are refused before Dask decodes them."""
    from distributed.protocol import dumps, to_serialize
    from distributed.protocol.serialize import ToPickle

    from arena.cluster.guard import Refused, check_frames

    check_frames(dumps({"op": "x", "keys": ["a"], "data": to_serialize(b"\0" * (1 << 20))}))
    bomb = dumps({"op": "x", "data": to_serialize(b"\0" * (1 << 20))},
                 context={"compression": "zlib"})
    assert sum(len(frame) for frame in bomb) < 4096
    with pytest.raises(Refused, match="serialized data other than msgpack or bytes"):
        check_frames(bomb)
    with pytest.raises(Refused, match="a pickled object"):
        check_frames(dumps({"op": "x", "data": ToPickle(Path("/"))}))
