"""OpenSpiel's MCTS against its ISMCTS, as arena bots, in the arena's sandboxes.

The lab's example bot (``examples/lab/openspiel-mcts``, through ``arena.lab.adapter``) as two
bot directories per game (``tests/support/lab.py``: MCTS and ISMCTS, ``--simulations`` a
decision), playing ``--matches`` short matches of each of the four games against each other,
seats alternating, two at a time, in the process sandbox and in containers (the directories
built on the ``lab`` base image, which must exist: ``arena images build-base --flavor lab``).
Every bot of every match is one of the two, so each plays all of them.

Prints one JSON object: per sandbox and game, the matches played, their terminations, the
crashes (any fault of a seat: ``crash``, ``no_start``, ``timeout``, an illegal or invalid
answer...), the wall time; the lab base image's size.

Run alone: ``python benchmarks/lab_bots.py [--matches 20] [--simulations 10]
[--sandbox process,docker]``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from arena.bots import load_bot_dir  # noqa: E402
from arena.model import MatchSpec, Termination, TimeControl  # noqa: E402
from arena.referee.match import play_match  # noqa: E402
from tests.support.lab import GAMES, SMALL, lab_bot  # noqa: E402

TIME = TimeControl(move_time_ms=5000, startup_ms=60_000)


def play(sandbox: str, matches: int, simulations: int, work: Path) -> dict[str, Any]:
    """``matches`` of each game in ``sandbox``: per game, the tallies."""
    runner: Any = sandbox
    if sandbox == "docker":
        from arena.sandbox.docker import DockerSandbox

        runner = DockerSandbox()
    specs = []
    for game in GAMES:
        pair = [load_bot_dir(lab_bot(work / sandbox, game, algorithm, simulations))
                for algorithm in ("mcts", "ismcts")]
        for seed in range(matches):
            bots = (pair[0], pair[1]) if seed % 2 == 0 else (pair[1], pair[0])
            specs.append(MatchSpec(game, seed, bots, SMALL[game], TIME,
                                   match_id=f"lab-{sandbox}-{game}-{seed}"))
    if sandbox == "docker":
        runner.check(tuple(bot for spec in specs for bot in spec.bots))
    took: dict[str, float] = Counter()

    async def all_of() -> list[Any]:
        slots = asyncio.Semaphore(2)

        async def one(spec: MatchSpec) -> Any:
            async with slots:
                started = time.monotonic()
                result = await play_match(spec, sandbox=runner, log_dir=work / "logs")
                took[spec.game] += time.monotonic() - started
                return result

        return await asyncio.gather(*(one(spec) for spec in specs))

    started = time.monotonic()
    results = asyncio.run(all_of())
    wall = time.monotonic() - started
    out: dict[str, Any] = {"wall_s": round(wall, 1)}
    for game in GAMES:
        mine = [r for s, r in zip(specs, results, strict=True) if s.game == game]
        terminations = Counter(r.termination.value for r in mine)
        faults = [f"{r.match_id}: {r.termination.value} seat {r.faulty_seat}: {r.detail}"
                  for r in mine if r.termination is not Termination.NORMAL]
        out[game] = {"matches": len(mine), "terminations": dict(terminations),
                     "crashes": len(faults), "faults": faults[:5],
                     "match_s_mean": round(took[game] / max(1, len(mine)), 2)}
    return out


def lab_image() -> dict[str, Any]:
    from arena.bots.images import docker_client, require_base_image

    client = docker_client()
    base = require_base_image("lab", client)
    size = client.images.get(base.image_id).attrs["Size"]
    python = require_base_image("python", client)
    return {"lab_base_mb": round(size / 1e6, 1), "python_base_mb": round(
        client.images.get(python.image_id).attrs["Size"] / 1e6, 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=20)
    parser.add_argument("--simulations", type=int, default=10)
    parser.add_argument("--sandbox", default="process,docker")
    args = parser.parse_args()
    report: dict[str, Any] = {"matches_per_game": args.matches,
                              "simulations": args.simulations}
    sandboxes = [s for s in args.sandbox.split(",") if s]
    if "docker" in sandboxes:
        report["images"] = lab_image()
    with tempfile.TemporaryDirectory(prefix="lab-bots-") as tmp:
        work = Path(tmp)
        work.chmod(0o755)
        for sandbox in sandboxes:
            report[sandbox] = play(sandbox, args.matches, args.simulations, work)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
