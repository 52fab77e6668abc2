"""What confining a bot costs its start, and how much the channels that remain carry.

**Start-up** (``--samples N`` each, interleaved in one run so load on the machine hits both
alike): the time from asking the sandbox for a bot to its Hello on the seat's socket, for the
SDK-only bot (``benchmarks/bots/first``):

* Docker: the arena's container (``DockerSandbox.create_container``: masked paths, synthetic
  ``/proc`` files, the derived seccomp profile) against the container of before (the same
  hardening flags through docker-py's ``containers.run``, Docker's default profile, nothing
  masked);
* the separated process sandbox (root): the bot's command through the confinement launcher
  (``arena.sandbox.confine``) against the same command without it; and the launcher alone
  (``python -I -S confine.py -- /bin/true`` against ``/bin/true``).

**Remaining channels** (``--channels``): the twin probe (``tests/sandbox/bots/twin``) in both
legs of one deal at once, in the arena's sandboxes, over channels nothing masks (``ino``: the
host-wide inode-number counter; ``statfs``: the disk under a container's root; ``timing``: CPU
contention), ``--runs`` times each: how often 4 bits in 1.5 s frames came through; and the one
found to outlive a bot (``inoseq``: leg 0 leaves 4 bits in that inode counter, leg 1 reads them,
the legs played one after the other through ``play_match``, so with the host's epochs between).

Run alone: ``python benchmarks/confinement.py [--samples N] [--runs N]`` prints JSON.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import arena.sandbox.isolation as isolation  # noqa: E402
from arena.bots import load_bot_dir  # noqa: E402
from arena.referee.seat import SeatEndpoint  # noqa: E402
from arena.sandbox import confine  # noqa: E402
from arena.sandbox.api import Limits  # noqa: E402
from arena.sandbox.docker import DockerSandbox, docker_available  # noqa: E402
from arena.sandbox.process import ProcessSandbox  # noqa: E402

BOT = ROOT / "benchmarks" / "bots" / "first"


class BeforeSandbox(DockerSandbox):
    """The container of before: the same flags, started through ``containers.run``, with
    Docker's default seccomp profile and nothing masked."""

    def create_container(self, image: str, command: list[str] | None,
                         mounts: dict[str, dict[str, str]], match_id: str, seat: int, core: int,
                         environment: dict[str, str] | None = None) -> Any:
        options = self.run_options(match_id, seat, core)
        options["environment"].update(environment or {})
        options["security_opt"] = ["no-new-privileges"]
        return self.client.containers.run(image, command, volumes=mounts, **options)


async def _hello_ms(sandbox: Any, socket_root: Path, index: int) -> float:
    """Ask ``sandbox`` for the bot, wait for its Hello; the ms in between."""
    endpoint = SeatEndpoint(socket_root / f"seat{index}")
    await endpoint.start()
    started = time.perf_counter()
    bot = await sandbox.start(load_bot_dir(BOT), endpoint.socket_dir, f"bench-{index}", 0)
    try:
        await asyncio.wait_for(endpoint.servicer.inbox.get(), timeout=60)
        return (time.perf_counter() - started) * 1000
    finally:
        await endpoint.close(0)
        await bot.stop()


def _unconfined(command: list[str], limits: Limits) -> list[str]:
    return list(command)


def _compare(name: str, variants: dict[str, tuple[Any, Any]], samples: int) -> dict[str, Any]:
    """Interleaved starts of each variant ((sandbox, ``confined`` to use))."""
    times: dict[str, list[float]] = {label: [] for label in variants}
    original = isolation.confined
    with tempfile.TemporaryDirectory(prefix="cb-", dir="/tmp") as tmp:
        try:
            for index in range(samples):
                for label, (sandbox, confined) in variants.items():
                    isolation.confined = confined  # type: ignore[assignment]
                    times[label].append(asyncio.run(_hello_ms(sandbox, Path(tmp), index)))
        finally:
            isolation.confined = original  # type: ignore[assignment]
    figures: dict[str, Any] = {}
    for label, values in times.items():
        values.sort()
        figures[f"{name}_{label}_hello_ms_median"] = round(statistics.median(values), 1)
        figures[f"{name}_{label}_hello_ms_p90"] = round(values[int(0.9 * (len(values) - 1))], 1)
    figures[f"{name}_samples"] = samples
    return figures


def launcher_figures(samples: int) -> dict[str, Any]:
    """Wall ms of ``/bin/true`` alone and through the launcher (no masking: any user)."""
    def run(argv: list[str]) -> float:
        started = time.perf_counter()
        subprocess.run(argv, check=True)
        return (time.perf_counter() - started) * 1000

    launcher = [sys.executable, "-I", "-S", str(confine.__file__), "--", "/bin/true"]
    bare = [run(["/bin/true"]) for _ in range(samples)]
    through = [run(launcher) for _ in range(samples)]
    return {"launcher_true_ms_median": round(statistics.median(bare), 2),
            "launcher_through_ms_median": round(statistics.median(through), 2)}


def startup_figures(samples: int) -> dict[str, Any]:
    figures: dict[str, Any] = {}
    if docker_available():
        figures.update(_compare("docker", {
            "before": (BeforeSandbox(run_janitor=False), isolation.confined),
            "after": (DockerSandbox(run_janitor=False), isolation.confined),
        }, samples))
    if isolation.isolation_available():
        process = ProcessSandbox()
        figures.update(_compare("process", {
            "before": (process, _unconfined), "after": (process, isolation.confined),
        }, samples))
    figures.update(launcher_figures(samples))
    return figures


def channel_figures(channels: list[str], runs: int) -> dict[str, Any]:
    """For each channel and sandbox: in how many of ``runs`` both-legs-at-once plays the
    receiver decoded the sender's 4 bits."""
    from arena.sandbox import get_sandbox
    from tests.support.twins import play_legs, twin_copy, work_dir

    boxes: dict[str, Any] = {}
    if docker_available():
        boxes["docker"] = DockerSandbox(Limits(pids=512), run_janitor=False)
    if isolation.isolation_available():
        boxes["process"] = get_sandbox("process")
    figures: dict[str, Any] = {}
    for name, box in boxes.items():
        for channel in channels:
            right = heard_any = 0
            for run in range(runs):
                work = work_dir()
                try:
                    sent, heard = play_legs(twin_copy(work, channel), box, work / "logs",
                                            seed=11 + run)
                finally:
                    shutil.rmtree(work, ignore_errors=True)
                right += heard.get(channel) == f"decoded {sent}"
                heard_any += heard.get(channel, "").startswith("decoded")
            figures[f"{name}_{channel}_decoded_right"] = f"{right}/{runs}"
            figures[f"{name}_{channel}_decoded_any"] = f"{heard_any}/{runs}"
    return figures


def sequential_figures(runs: int) -> dict[str, Any]:
    """The one channel found to outlive a bot: the host-wide counter of inode numbers (pipes,
    sockets), set by leg 0 and read by leg 1, both played by ``play_match`` one after the other
    (so inside the host's epochs: leg 1 waits for a drain and a drop of the caches)."""
    from arena.referee.match import play_match
    from tests.support.twins import RANDOM_BOT, _spec, seat_log, twin_copy, work_dir

    boxes: dict[str, Any] = {}
    if docker_available():
        boxes["docker"] = DockerSandbox(run_janitor=False)
    if isolation.isolation_available():
        boxes["process"] = "process"
    figures: dict[str, Any] = {}
    for name, box in boxes.items():
        right = 0
        for run in range(runs):
            work = work_dir()
            try:
                twin = twin_copy(work, "inoseq", send_s=0, listen_s=0)

                async def legs(twin: Path = twin, work: Path = work, seed: int = 31 + run,
                               box: Any = box) -> tuple[Any, Any]:
                    first = await play_match(_spec((twin, RANDOM_BOT), seed, 0), sandbox=box,
                                             log_dir=work / "logs")
                    second = await play_match(_spec((RANDOM_BOT, twin), seed, 1), sandbox=box,
                                              log_dir=work / "logs")
                    return first, second

                first, second = asyncio.run(legs())
                sent = seat_log(first, 0).split("[twin] sent ")[-1][:4]
                right += f"[twin] inoseq: decoded {sent}" in seat_log(second, 1)
            finally:
                shutil.rmtree(work, ignore_errors=True)
        figures[f"{name}_inoseq_through_epochs_decoded_right"] = f"{right}/{runs}"
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--samples", type=int, default=30, help="starts measured per variant")
    parser.add_argument("--runs", type=int, default=0, help="twin plays per remaining channel")
    parser.add_argument("--channels", default="ino,statfs,timing",
                        help="remaining channels the twin tries (comma-separated)")
    args = parser.parse_args()
    figures = startup_figures(args.samples) if args.samples else {}
    if args.runs:
        figures.update(channel_figures(args.channels.split(","), args.runs))
        figures.update(sequential_figures(args.runs))
    print(json.dumps(figures, indent=2))
    sys.stdout.flush()
    os._exit(0)  # gRPC's threads may linger after the last match


if __name__ == "__main__":
    main()
