"""The head's side of a cluster match: ``ClusterPlayer`` is the ladder's ``PlayMatch`` on Dask.

Each match is one task: key = the match id, resources ``{"match": 1}``, a priority shared by
the two legs of an encounter (earlier encounters first), so the legs run close together. While
the task runs, the player's ``LiveLogs`` write the log the worker streams into the ladder's log
directory (``arena.cluster.live``: followable with ``arena watch --follow``). The player awaits
the task, writes the returned match log (atomically replacing the live copy) and seat logs into
that directory (private files, as the referee writes them) and returns the result with the local
paths. A worker that lacked a bot directory or an image answers ``Needs``: the player ships
exactly that and submits the match again (key ``<match id>~shipped``): a directory as a Dask
shipment (once per run), an image from a temporary file in bounded chunks to the worker that
asked (``arena.cluster.shipping``: never whole in memory; the files are removed at the end).
A worker asks only for what the spec names (``arena.cluster.verify``).

Faults: Dask plays a match again elsewhere, from the same spec and seed, when its worker dies;
a match whose attempts killed more workers than ``distributed.scheduler.allowed-failures``
allows comes back as a cancelled result, which says so in its detail: the runner records it as
a void attempt (never rated, not a recorded match) and the next run plays it again.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import dataclasses
import logging
import os
import re
import secrets
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from distributed.scheduler import KilledWorker

from arena.cluster import MATCH_RESOURCE
from arena.cluster.live import LiveLog, LiveLogs, relocate
from arena.cluster.shipping import (
    CHUNK_BYTES,
    Needs,
    Shipment,
    load_shipped_image,
    pack_directory,
    receive_image_chunk,
    save_image,
)
from arena.cluster.task import (
    MatchTask,
    TaskOutcome,
    decode_outcome,
    encode_shipment,
    kernel_bytes,
    play_task,
    void_result,
)
from arena.cluster.verify import (
    CheckedOutput,
    Inconsistent,
    check_needs,
    check_output,
    check_void,
)
from arena.model import MatchEvent, MatchResult, MatchSpec, Termination, plain_text
from arena.record.log import aborted_name, open_private, private_dir, seat_log_path
from arena.sandbox import get_sandbox
from arena.sandbox.api import Sandbox

log = logging.getLogger(__name__)

_LEG_SUFFIX = re.compile(r"-l\d+$")
ImageSource = Callable[[str, Path], object]
"""(image id, path) → write the image's ``docker save`` archive into the new file ``path``
(default: from the head's Docker engine, streamed)."""
SHIP_ROUNDS = 3
"""How often one match may ask for what it lacks (a worker of another host may take it after a
shipment) before it is void."""
KERNEL_QUERY_S = 5.0
"""How long the head waits for the workers to name their kernels (a frozen one never does)."""
DEALS_KEPT = 4096
"""How many deals the head remembers the kernels of (a deal's legs are played close together)."""


def encounter_of(match_id: str) -> str:
    """The encounter a ladder match id belongs to (ids end in ``-l<leg>``)."""
    return _LEG_SUFFIX.sub("", match_id)


def _head_image(image_id: str, path: Path) -> None:
    # the Docker sandbox (~0.9 s to import) only for images: a process-sandbox cluster goes without
    from arena.sandbox.docker import DockerSandbox

    box = get_sandbox("docker")
    assert isinstance(box, DockerSandbox)
    save_image(box.client, image_id, path)


class ClusterPlayer:
    """Plays matches as Dask tasks through an asynchronous ``distributed.Client``."""

    def __init__(self, client: Any, *, images: ImageSource | None = None) -> None:
        self.client = client
        self.images = images or _head_image
        self._encounters: dict[str, int] = {}
        self._shipped: dict[str, Any] = {}
        """Scattered shipments (Dask futures) by the digests they hold."""
        self._spool: Path | None = None
        """The run's temporary directory of saved images (``close`` removes it)."""
        self._saved: dict[str, Path] = {}
        self.live = LiveLogs()
        """The live copies of the match logs in flight (the ``LOG_TOPIC`` subscriber)."""
        self.kernels: dict[str, str] = {}
        """Each worker's kernel, by address, as last asked (``kernel_bytes``)."""
        self.deal_kernels: collections.OrderedDict[int, set[str]] = collections.OrderedDict()
        """The kernels that played each deal (by seed), the most recent ``DEALS_KEPT``."""
        self.placements: dict[str, str] = {}
        """The kernel that played each match of this run, by match id."""

    async def __call__(self, spec: MatchSpec, *, sandbox: str | Sandbox = "process",
                       log_dir: Path, on_event: Callable[[MatchEvent], None] | None = None
                       ) -> MatchResult:
        """Play ``spec`` on the cluster; the logs land in ``log_dir`` (the match log as it
        grows, then whole). What the worker returns is checked (``arena.cluster.verify``): an
        inconsistent outcome is a void match, logged with the worker's address."""
        name = sandbox if isinstance(sandbox, str) else sandbox.name
        live = self.live.expect(spec.match_id, log_dir, spec.seed)
        try:
            return await self._played(MatchTask(spec, name), log_dir, live)
        except _GivenUp as given:
            return given.result
        except _Void as void:
            log.error("match %s: %s", spec.match_id, void)
            return void_result(spec, str(void))
        finally:
            self.live.release(spec.match_id)
            live.close()

    async def _played(self, task: MatchTask, log_dir: Path, live: LiveLog) -> MatchResult:
        """The match's result once its worker's outcome passed the checks; ``_Void`` if not."""
        spec = task.spec
        outcome, worker = await self._outcome(task)
        try:
            if isinstance(outcome, Needs):
                raise Inconsistent(f"it still lacks {outcome} after it was shipped")
            if isinstance(outcome, MatchResult):
                void = check_void(outcome, spec)
                log.warning("match %s is void on worker %s: %s", spec.match_id, worker,
                            void.detail)
                return void
            checked = await asyncio.to_thread(check_output, outcome, spec)
        except Inconsistent as exc:
            raise _Void(f"void: the result from worker {worker} was refused: {exc}") from None
        return write_outputs(checked, spec, log_dir, live)

    async def _outcome(self, task: MatchTask) -> tuple[TaskOutcome, str]:
        """The task's outcome and its worker: played again with what it lacked, shipped, at
        most ``SHIP_ROUNDS`` times."""
        spec = task.spec
        outcome, worker = await self._run(task, spec.match_id, None)
        for round_ in range(SHIP_ROUNDS):
            if not isinstance(outcome, Needs):
                break
            try:
                needs = check_needs(outcome, spec)
            except Inconsistent as exc:
                raise _Void(f"void: the result from worker {worker} was refused: {exc}"
                            ) from None
            shipment = await self._ship(needs, spec, worker, task.sandbox)
            key = f"{spec.match_id}~shipped" + (f"-{round_ + 1}" if round_ else "")
            outcome, worker = await self._run(task, key, shipment)
        return outcome, worker

    def priority(self, match_id: str) -> int:
        """Higher runs first: earlier encounters, both legs alike."""
        encounter = encounter_of(match_id)
        return -self._encounters.setdefault(encounter, len(self._encounters))

    async def _run(self, task: MatchTask, key: str, shipment: Any) -> tuple[TaskOutcome, str]:
        """The task's outcome (decoded, not yet checked against the spec) and the address of the
        worker that holds it. Raises ``_GivenUp`` when the match killed its workers and ``_Void``
        when what came back is no outcome."""
        elsewhere = await self._elsewhere(task.spec.seed)
        future = self.client.submit(
            play_task, task, shipment, key=key, priority=self.priority(task.spec.match_id),
            resources={MATCH_RESOURCE: 1}, pure=False, retries=0,
            workers=elsewhere or None, allow_other_workers=bool(elsewhere),
        )
        try:
            data = await future
            worker = await self._holder(future)
        except KilledWorker as exc:
            log.warning("match %s killed its workers: a void attempt, replayed by the next run "
                        "(%s)", task.spec.match_id, exc)
            raise _GivenUp(given_up(
                task.spec, f"the match killed the workers that played it ({exc}); recorded as "
                           "a void attempt (never rated): the next run plays it again")) from None
        except asyncio.CancelledError:
            with contextlib.suppress(Exception):
                await asyncio.shield(self.client.cancel([future]))
            raise
        finally:
            future.release()
        await self._played_on(task.spec, worker)
        try:
            return decode_outcome(data), worker
        except ValueError as exc:
            raise _Void(f"void: the result from worker {worker} was refused: {exc}") from None

    async def _elsewhere(self, seed: int) -> list[str]:
        """The workers on another kernel than every kernel that played a match of the deal
        ``seed``: where the next leg of that deal goes, so the legs of a deal never share a
        kernel (nothing on one machine carries from one leg to the other); empty when no such
        worker is known (one host: the host's epochs keep the legs apart,
        ``arena.sandbox.epochs``). Dask may run the task elsewhere only when none of them is
        left in the cluster."""
        used = self.deal_kernels.get(seed)
        if not used:
            return []
        await self._ask_kernels()
        return sorted(a for a, kernel in self.kernels.items() if kernel not in used)

    async def _ask_kernels(self) -> None:
        """Know the kernel of every worker in the cluster: the scheduler lists them, and only
        when one is new are the workers asked (a worker that does not answer in time is left
        out; one that left is forgotten)."""
        with contextlib.suppress(Exception):  # a frozen or leaving worker: what is known
            identity = await asyncio.wait_for(self.client.scheduler.identity(n_workers=-1),
                                              KERNEL_QUERY_S)
            present = {str(a) for a in identity.get("workers", {})}
            if present <= set(self.kernels):
                self.kernels = {a: k for a, k in self.kernels.items() if a in present}
                return
            found = await asyncio.wait_for(self.client.run(kernel_bytes), KERNEL_QUERY_S)
            self.kernels = {str(a): k.decode("utf-8", "replace") for a, k in found.items()
                            if isinstance(k, bytes) and len(k) <= 80}

    async def _played_on(self, spec: MatchSpec, worker: str) -> None:
        """Remember the kernel of the worker that played ``spec`` (for its deal's other legs)."""
        if worker not in self.kernels:
            await self._ask_kernels()
        kernel = self.kernels.get(worker)
        if kernel is None:
            return
        self.placements[spec.match_id] = kernel
        self.deal_kernels.setdefault(spec.seed, set()).add(kernel)
        self.deal_kernels.move_to_end(spec.seed)
        while len(self.deal_kernels) > DEALS_KEPT:
            self.deal_kernels.popitem(last=False)

    async def _holder(self, future: Any) -> str:
        """The address of the worker that holds ``future``'s outcome ("?" when unknown)."""
        try:
            holders = await self.client.who_has([future])
            return str(next(iter(holders.get(future.key) or ["?"])))
        except Exception:  # noqa: BLE001 — only for the log line
            return "?"

    async def _ship(self, needs: Needs, spec: MatchSpec, worker: str, sandbox: str) -> Any:
        """Send a worker what it lacked: images straight into its host's engine, then the
        scattered ``Shipment`` of its directories (None when it lacked none)."""
        for image in needs.images:
            await self._ship_image(image, worker, sandbox)
        return await self._shipment(needs, spec) if needs.bots else None

    async def _ship_image(self, image_id: str, worker: str, sandbox: str) -> None:
        """The image's archive, saved once per run to a temporary file, sent to ``worker`` in
        ``CHUNK_BYTES`` pieces and loaded there: never whole in memory on either side."""
        try:
            archive = await self._saved_image(image_id)
            size = archive.stat().st_size
            offset = 0
            with archive.open("rb") as source:
                while offset == 0 or offset < size:
                    data = await asyncio.to_thread(source.read, CHUNK_BYTES)
                    await self.client.run(receive_image_chunk, image_id, offset, data,
                                          workers=[worker])
                    offset += len(data)
                    if not data:
                        break
            await self.client.run(load_shipped_image, image_id, size, sandbox,
                                  workers=[worker])
        except Exception as exc:  # noqa: BLE001 — the engine, the worker or its cache failed
            raise _Void(f"void: shipping image {image_id[:19]} to worker {worker} failed: "
                        f"{plain_text(str(exc))[:300]}") from None

    async def _saved_image(self, image_id: str) -> Path:
        if image_id not in self._saved:
            if self._spool is None:
                self._spool = Path(tempfile.mkdtemp(prefix="arena-images-"))
            path = self._spool / f"{image_id.removeprefix('sha256:')[:64]}.tar"
            path.unlink(missing_ok=True)
            await asyncio.to_thread(self.images, image_id, path)
            self._saved[image_id] = path
        return self._saved[image_id]

    async def _shipment(self, needs: Needs, spec: MatchSpec) -> Any:
        """A scattered ``Shipment`` of the directories a worker lacked (each packed once per
        run)."""
        bots: dict[str, bytes] = {}
        for digest in needs.bots:  # check_needs: each is a directory of the spec
            directory = next(b.directory for b in spec.bots if b.digest == digest)
            bots[digest] = await asyncio.to_thread(pack_directory, directory or "")
        key = "ship-" + "-".join(sorted(needs.bots))
        if key not in self._shipped:
            self._shipped[key] = await self.client.scatter(encode_shipment(Shipment(bots)),
                                                           hash=False)
        return self._shipped[key]

    def close(self) -> None:
        """Remove the run's saved images."""
        if self._spool is not None:
            shutil.rmtree(self._spool, ignore_errors=True)
            self._spool = None
        self._saved.clear()


class _Void(Exception):  # noqa: N818 — the match's verdict
    """The match is void: what its worker returned was refused, or what it lacked could not be
    shipped (the message is the recorded detail)."""


class _GivenUp(Exception):  # noqa: N818 — not an error: the cluster's verdict
    """The match killed the workers that played it: ``result`` is its void attempt."""

    def __init__(self, result: MatchResult) -> None:
        super().__init__(result.detail)
        self.result = result


def given_up(spec: MatchSpec, detail: str) -> MatchResult:
    """The cancelled (void) result of a match the cluster gave up on: the runner records it as
    a void attempt, never as a played match."""
    return MatchResult(
        match_id=spec.match_id, game=spec.game, game_version=0, seed=spec.seed,
        options=dict(spec.options), bots=(spec.bots[0].name, spec.bots[1].name), rounds=(),
        totals=(0, 0), winner=None, termination=Termination.CANCELLED, faulty_seat=None,
        detail=detail, log=None, duration_s=0.0, decisions=0,
    )


def write_outputs(checked: CheckedOutput, spec: MatchSpec, log_dir: Path,
                  live: LiveLog | None = None) -> MatchResult:
    """Write a played match's checked logs into ``log_dir``, at paths made from the SPEC's match
    id (never from a worker's string), and return its result with those paths. The match log
    replaces ``live`` (this attempt's live copy: completed first, so a follower holding it
    reads on to the match end) atomically; any other log of the same id (an earlier attempt's)
    is kept beside it as ``.aborted-N``. Seat logs are written as ``check_output`` left them:
    plain text."""
    private_dir(log_dir)
    path = log_dir / f"{spec.match_id}.jsonl"
    seat_paths: list[str | None] = []
    for seat, data in enumerate(checked.seat_logs):
        seat_path = seat_log_path(path, seat)
        if data is None:
            seat_paths.append(None)
            continue
        with contextlib.suppress(FileNotFoundError):
            seat_path.unlink()
        with open_private(seat_path) as handle:
            handle.write(data)
        seat_paths.append(str(seat_path))
    text = relocate(checked.log, str(path), (seat_paths[0], seat_paths[1]))
    if live is not None and live.holds(checked.worker, checked.attempt):
        live.complete(text.encode("utf-8"))
    elif path.exists():
        path.rename(aborted_name(path))
    if live is not None:
        live.close()
    _replace_private(path, text)
    return dataclasses.replace(checked.result, log=str(path))


def _replace_private(path: Path, text: str) -> None:
    """Put ``text`` at ``path`` (a private file) in one step: a reader sees the old file or the
    whole new one."""
    part = path.with_name(f".{path.name}.{secrets.token_hex(4)}.part")
    try:
        with open_private(part) as handle:
            handle.write(text)
        os.replace(part, path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            part.unlink()


def cpu_slots(cores: int | None = None) -> int:
    """How many matches a host plays at once by default: floor((cores - 1) / 2), at least 1
    (two cores per match, one left for the referees and the engine)."""
    cores = cores if cores is not None else len(os.sched_getaffinity(0))
    return max(1, (cores - 1) // 2)
