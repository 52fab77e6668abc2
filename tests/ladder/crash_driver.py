"""A ladder process for the crash test: the real runner and store with a slow fake player that
leaves a marker file per started match. Usage: python -m tests.ladder.crash_driver LADDER MARKERS
"""

from __future__ import annotations

import sys
from pathlib import Path

from arena.ladder.config import load_ladder
from arena.ladder.runner import run_ladder_blocking
from arena.model import MatchSpec
from tests.ladder.fakes import FakePlayer, fake_resolve


def main(ladder: str, markers: str) -> None:
    out = Path(markers)
    out.mkdir(parents=True, exist_ok=True)

    def mark(spec: MatchSpec) -> None:
        with (out / "started.txt").open("a") as f:
            f.write(f"{spec.match_id} {spec.seed}\n")

    player = FakePlayer(delay=0.15, hook=mark)
    run_ladder_blocking(load_ladder(ladder), play=player, resolve=fake_resolve)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
