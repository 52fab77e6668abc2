"""An SPRT test process for the crash test: the real runner and store with a slow fake player
that leaves a marker line per started match. Usage:
python -m tests.ladder.sprt_crash_driver LADDER MARKERS
"""

from __future__ import annotations

import sys
from pathlib import Path

from arena.ladder.config import load_ladder
from arena.model import MatchSpec
from arena.sprt.run import run_sprt_blocking
from tests.ladder.fakes import FakePlayer, fake_resolve


def main(ladder: str, markers: str) -> None:
    out = Path(markers)
    out.mkdir(parents=True, exist_ok=True)

    def mark(spec: MatchSpec) -> None:
        with (out / "started.txt").open("a") as f:
            f.write(f"{spec.match_id} {spec.seed}\n")

    player = FakePlayer(delay=0.15, hook=mark)
    summary = run_sprt_blocking(load_ladder(ladder), play=player, resolve=fake_resolve)
    print(summary.outcome, summary.status.pairs)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
