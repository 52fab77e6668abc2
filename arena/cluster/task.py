"""What a worker runs: one whole match per task.

``play_task`` runs in a Dask worker process: it finds the bots on this host (their directories,
else the worker's cache, else it answers ``Needs`` and plays nothing), plays the match with
``play_match`` in a fresh event loop in this host's sandbox (named, not an object: a sandbox
does not cross hosts), and returns the result with the match log and the seat logs compressed.
What it returns, and the shipment it takes, are bytes in the arena's own format
(``encode_outcome``, ``encode_shipment``: JSON and raw blobs), never pickles: the head decodes a
worker's answer without running anything a worker chose (``arena.cluster.guard``). It never
raises: a failure of the arena on this host is the match's void result.
It reports the match starting and ending on the ``EVENT_TOPIC`` Dask event topic (the head's
live view) and streams the match log as it grows on ``LOG_TOPIC`` (``arena.cluster.live``: the
head writes it into the ladder's log directory, for ``arena watch --follow``). A match's log
directory on the worker is temporary: the head keeps the logs.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import secrets
import shutil
import socket
import tempfile
import time
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from distributed import get_worker

import arena
from arena.cluster import CLUSTER_PROTOCOL, EVENT_TOPIC
from arena.cluster.live import LogStream
from arena.cluster.shipping import (
    Needs,
    Shipment,
    docker_client,
    image_present,
    local_directory,
    unpack_directory,
    worker_cache,
)
from arena.errors import ClusterError, SandboxError
from arena.model import BotSpec, MatchResult, MatchSpec, Termination
from arena.record.log import seat_log_path
from arena.referee.match import play_match
from arena.sandbox import get_sandbox
from arena.sandbox.isolation import unseparated_reason

_WORKER_HOST = False
"""Set in the worker processes of a worker host (``arena worker``, or Dask's own with the
arena's preload): they play untrusted bots next to the host's TLS key."""


def serve_as_worker_host() -> None:
    """Mark this process as a worker host's: it plays bots only in containers or in the
    separated process sandbox (the embedded cluster's workers, on the operator's own machine,
    play as ``arena match`` does)."""
    global _WORKER_HOST
    _WORKER_HOST = True


def unseparated(sandbox: str) -> str | None:
    """Why this worker host refuses to play in ``sandbox`` (None: it plays): on a worker host
    the process sandbox must separate bots (root, Linux, util-linux), or a bot would run as the
    worker's own user, with network, next to the host's TLS key."""
    if not _WORKER_HOST or sandbox not in ("process", "auto"):
        return None
    reason = unseparated_reason()
    if reason is None:
        return None
    if sandbox == "auto":
        if get_sandbox("auto").name != "process":
            return None
    return (f"worker host {socket.gethostname()} refuses to play in the process sandbox: it "
            f"would not separate the bots ({reason}); a worker host plays bots only in "
            "containers (sandbox = \"docker\") or in the separated process sandbox (run "
            "`arena worker` as root with util-linux)")


@dataclass(frozen=True)
class MatchTask:
    """One match as the head submits it."""

    spec: MatchSpec
    sandbox: str
    """The sandbox's name ("process" or "docker"): the worker uses its own host's."""
    arena_version: str = arena.__version__
    protocol: int = CLUSTER_PROTOCOL


@dataclass(frozen=True)
class MatchOutput:
    """A played match as a worker returns it."""

    result: MatchResult
    log: bytes
    """The match log (JSON lines), zlib-compressed."""
    seat_logs: tuple[bytes | None, bytes | None]
    """Each seat's bot output tail, zlib-compressed (None: none was kept)."""
    worker: str
    """The Dask address of the worker that played it."""
    host: str
    attempt: str = ""
    """The token of this attempt's live log stream ("": none was streamed)."""


TaskOutcome = MatchOutput | Needs | MatchResult
"""What a task returns: the played match, what its host lacked to play it, or the void result
of a match its host could not even start (no log)."""


def void_result(spec: MatchSpec, detail: str) -> MatchResult:
    """The void (``internal``) result of a match that never started."""
    return MatchResult(
        match_id=spec.match_id, game=spec.game, game_version=0, seed=spec.seed,
        options=dict(spec.options), bots=(spec.bots[0].name, spec.bots[1].name), rounds=(),
        totals=(0, 0), winner=None, termination=Termination.INTERNAL, faulty_seat=None,
        detail=detail, log=None, duration_s=0.0, decisions=0,
    )


def play_task(task: MatchTask, shipment: bytes | None = None) -> bytes:
    """Play ``task`` on this worker (see the module doc): its outcome, encoded. ``shipment``:
    an ``encode_shipment``-ed ``Shipment``."""
    try:
        outcome = play(task, None if shipment is None else decode_shipment(shipment))
    except Exception as exc:  # noqa: BLE001 — the arena failed here: void, never a bot's loss
        outcome = void_result(task.spec, f"arena failure on {socket.gethostname()}: "
                                         f"{type(exc).__name__}: {exc}")
    return encode_outcome(outcome)


def play(task: MatchTask, shipment: Shipment | None = None) -> TaskOutcome:
    """``play_task``'s outcome, not encoded. Raises ``ClusterError`` when head and worker differ
    in version (the session refuses such workers before they get any)."""
    if (task.arena_version, task.protocol) != (arena.__version__, CLUSTER_PROTOCOL):
        raise ClusterError(
            f"this worker runs arena {arena.__version__} (cluster protocol {CLUSTER_PROTOCOL}), "
            f"the head {task.arena_version} (protocol {task.protocol})"
        )
    refused = unseparated(task.sandbox)
    if refused is not None:  # void, never a bot's loss: nothing was played
        return void_result(task.spec, refused)
    cache = worker_cache()
    try:
        if shipment is not None:
            receive(shipment, cache)
        bots, needs = locate_bots(task.spec.bots, cache, task.sandbox)
    except SandboxError as exc:  # this host's Docker engine failed: void, never a bot's loss
        return void_result(task.spec, f"sandbox failure on {socket.gethostname()}: {exc}")
    if needs:
        return needs
    spec = dataclasses.replace(task.spec, bots=bots)
    worker, host = _whoami()
    _report("start", spec.match_id, worker, host)
    try:
        return _play(spec, task.sandbox, worker, host)
    finally:
        _report("end", spec.match_id, worker, host)


def receive(shipment: Shipment, cache: Path) -> None:
    """Put the bot directories the head shipped into the cache (images reach the host's engine
    before the match is submitted again: ``arena.cluster.shipping``)."""
    for digest, data in shipment.bots.items():
        unpack_directory(data, digest, cache)


def locate_bots(bots: tuple[BotSpec, BotSpec], cache: Path, sandbox: str
                ) -> tuple[tuple[BotSpec, BotSpec], Needs]:
    """The bots with this host's directories, and what the host lacks (nothing: play)."""
    located: list[BotSpec] = []
    missing_dirs: list[str] = []
    missing_images: list[str] = []
    for bot in bots:
        if bot.image:
            if sandbox == "docker" and not image_present(docker_client(sandbox), bot.image):
                missing_images.append(bot.image)
            located.append(bot)
            continue
        directory = local_directory(bot, cache)
        if directory is None:
            missing_dirs.append(bot.digest)
            located.append(bot)
        else:
            located.append(dataclasses.replace(bot, directory=str(directory)))
    needs = Needs(tuple(dict.fromkeys(missing_dirs)), tuple(dict.fromkeys(missing_images)))
    return (located[0], located[1]), needs


def _play(spec: MatchSpec, sandbox: str, worker: str, host: str) -> MatchOutput:
    work = Path(tempfile.mkdtemp(prefix="arena-task-"))
    stream = None
    if worker and spec.match_id:  # in a worker: stream the log to the head as it grows
        stream = LogStream(work / f"{spec.match_id}.jsonl", spec.match_id, worker,
                           secrets.token_hex(8))
    try:
        result = asyncio.run(_played(spec, sandbox, work, stream))
        log = work / f"{result.match_id}.jsonl"
        seats = tuple(_compressed(seat_log_path(log, seat)) for seat in (0, 1))
        return MatchOutput(result, _compressed(log) or b"", (seats[0], seats[1]), worker, host,
                           stream.attempt if stream else "")
    finally:
        shutil.rmtree(work, ignore_errors=True)


async def _played(spec: MatchSpec, sandbox: str, work: Path, stream: LogStream | None
                  ) -> MatchResult:
    """The match played in ``work``; with ``stream``, its log streamed meanwhile."""
    if stream is None:
        return await play_match(spec, sandbox=sandbox, log_dir=work)
    async with stream.running():
        return await play_match(spec, sandbox=sandbox, log_dir=work)


def _compressed(path: Path) -> bytes | None:
    try:
        return zlib.compress(path.read_bytes(), 6)
    except FileNotFoundError:
        return None


def _whoami() -> tuple[str, str]:
    """(this worker's Dask address, host name); outside a worker: ("", host name)."""
    host = socket.gethostname()
    try:
        return str(get_worker().address), host
    except ValueError:  # not running in a worker (a direct call)
        return "", host


BOOT_ID = Path("/proc/sys/kernel/random/boot_id")
"""The running kernel's boot id: every process and container of one machine shares it, another
machine or virtual machine has its own."""


def kernel_id() -> str:
    """This worker's kernel (its boot id; the host name where there is none): what the head
    tells hosts apart by when it places the legs of a deal (``arena.cluster.executor``)."""
    try:
        return "boot:" + BOOT_ID.read_text(encoding="ascii").strip()
    except OSError:
        return "host:" + socket.gethostname()


def kernel_bytes() -> bytes:
    """``kernel_id`` as bytes: what ``Client.run`` asks workers (the cluster's guard lets only
    bytes and msgpack data come back from them, ``arena.cluster.guard``)."""
    return kernel_id().encode("utf-8")


def _report(kind: str, match_id: str, worker: str, host: str) -> None:
    if not worker:
        return
    get_worker().log_event(EVENT_TOPIC, {"kind": kind, "match_id": match_id, "worker": worker,
                                         "host": host, "time": time.time()})


# --- what crosses the wire: bytes, never pickles ---------------------------------------------
_MAGIC = b"arena-cluster/1\n"
_MAX_META = 1 << 20
"""The most bytes of an encoding's JSON part."""


def _pack(meta: dict[str, Any], blobs: list[bytes]) -> bytes:
    """``meta`` (JSON) and ``blobs`` (their lengths in ``meta``) as one bytes object."""
    head = json.dumps({**meta, "blobs": [len(b) for b in blobs]}).encode("utf-8")
    return b"".join([_MAGIC, len(head).to_bytes(4, "big"), head, *blobs])


def _unpack(data: Any) -> tuple[dict[str, Any], list[bytes]]:
    """What ``_pack`` made; ``ValueError`` for anything else."""
    if not isinstance(data, bytes) or not data.startswith(_MAGIC):
        raise ValueError(f"not an arena encoding but a {type(data).__name__}")
    start = len(_MAGIC) + 4
    size = int.from_bytes(data[len(_MAGIC):start], "big")
    if size > _MAX_META or start + size > len(data):
        raise ValueError("a malformed arena encoding")
    meta = json.loads(data[start:start + size])
    lengths = meta.get("blobs") if isinstance(meta, dict) else None
    if not (isinstance(lengths, list) and all(type(n) is int and n >= 0 for n in lengths)
            and start + size + sum(lengths) == len(data)):
        raise ValueError("a malformed arena encoding")
    blobs, offset = [], start + size
    for length in lengths:
        blobs.append(data[offset:offset + length])
        offset += length
    return meta, blobs


def encode_outcome(outcome: TaskOutcome) -> bytes:
    """A task's outcome as bytes (see ``decode_outcome``)."""
    if isinstance(outcome, Needs):
        return _pack({"kind": "needs", "bots": list(outcome.bots),
                      "images": list(outcome.images)}, [])
    if isinstance(outcome, MatchResult):
        return _pack({"kind": "void", "result": outcome.to_json()}, [])
    blobs = [outcome.log]
    seats: list[int | None] = []
    for data in outcome.seat_logs:
        seats.append(None if data is None else len(blobs))
        if data is not None:
            blobs.append(data)
    return _pack({"kind": "played", "result": outcome.result.to_json(), "worker": outcome.worker,
                  "host": outcome.host, "attempt": outcome.attempt, "seats": seats}, blobs)


def decode_outcome(data: Any) -> TaskOutcome:
    """The outcome ``encode_outcome`` encoded; ``ValueError`` for anything else (nothing in it
    is run or unpickled: JSON, strings and bytes)."""
    try:
        meta, blobs = _unpack(data)
        kind = meta["kind"]
        if kind == "needs":
            return Needs(_strings(meta["bots"]), _strings(meta["images"]))
        result = MatchResult.from_json(meta["result"])
        if kind == "void":
            return result
        if kind != "played":
            raise ValueError(f"an outcome of kind {kind!r}")
        seats = [None if s is None else blobs[int(s)] for s in meta["seats"]][:2]
        return MatchOutput(result, blobs[0], (seats[0], seats[1]), str(meta["worker"]),
                           str(meta["host"]), str(meta["attempt"]))
    except ValueError:
        raise
    except Exception as exc:  # noqa: BLE001 — KeyError, TypeError, IndexError...
        raise ValueError(f"a malformed outcome ({type(exc).__name__}: {exc})") from None


def encode_shipment(shipment: Shipment) -> bytes:
    """A shipment as bytes (bot directories' archives by content hash)."""
    return _pack({"kind": "shipment", "bots": list(shipment.bots)}, list(shipment.bots.values()))


def decode_shipment(data: Any) -> Shipment:
    """The shipment ``encode_shipment`` encoded; ``ValueError`` for anything else."""
    meta, blobs = _unpack(data)
    digests = _strings(meta.get("bots"))
    if meta.get("kind") != "shipment" or len(digests) != len(blobs):
        raise ValueError("a malformed shipment")
    return Shipment(dict(zip(digests, blobs, strict=True)))


def _strings(values: Any) -> tuple[str, ...]:
    if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
        raise ValueError("a malformed list of names")
    return tuple(values)
