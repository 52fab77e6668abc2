"""What duplicate deals buy, measured on real ladders of the sample bots.

Plays a ladder file of the repository (by default the demo's Lost Cities round robin, the
Haggis and the PORTAS ladders) with more cycles, in a fresh state directory, in the process
sandbox, and prints from its store what the standings print under "duplicate deals": the
variance of the paired (two-leg) score and point margin over the variance of two unpaired
games, pooled over the pairs of bots (``arena.stats.rating.pairing_stats``). A ratio r below
1 means an encounter of two legs on one deal tells as much as 2/r independent games: a ladder
of independent deals needs 1/r times the matches for the same precision. The time per match
is printed too (the legs of a deal wait for each other: ``arena.sandbox.epochs``).

    python benchmarks/duplicate_variance.py [--cycles N] [--concurrency N] [ladder/demo.toml ...]
    python benchmarks/duplicate_variance.py --cost 4 --cycles 10 --sandbox docker ladder/demo.toml
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from arena.ladder.config import load_ladder  # noqa: E402
from arena.ladder.reports import load_matches, records_of  # noqa: E402
from arena.ladder.runner import run_ladder_blocking  # noqa: E402
from arena.stats.rating import pairing_stats  # noqa: E402

DEFAULT_LADDERS = ("ladder/demo.toml", "ladder/haggis.toml", "ladder/portas.toml")


def measure(path: Path, cycles: int, concurrency: int, tmp: Path, sandbox: str = "process",
            duplicate: bool = True) -> dict[str, Any]:
    """Run ``path`` with ``cycles`` cycles in ``sandbox``; the pairing statistics."""
    text = path.read_text(encoding="utf-8")
    text = re.sub(r'(?m)^sandbox\s*=.*$', f'sandbox = "{sandbox}"', text)
    text = re.sub(r'(?m)^duplicate\s*=.*$', f"duplicate = {str(duplicate).lower()}", text)
    text = re.sub(r'(?m)^state_dir\s*=.*$', "", text)
    state = tmp / f"{path.stem}-{sandbox}-{'duplicate' if duplicate else 'independent'}"
    copy = path.parent / f".variance-{path.stem}.toml"  # beside it: entrants stay relative
    copy.write_text(text.replace("[options]", f'state_dir = "{state}"\n\n[options]', 1),
                    encoding="utf-8")
    try:
        config = load_ladder(copy)
        started = time.perf_counter()
        summary = run_ladder_blocking(config, cycles=cycles, concurrency=concurrency)
        wall = time.perf_counter() - started
    finally:
        copy.unlink(missing_ok=True)
    stats = pairing_stats(records_of(load_matches(config)))
    return {
        "ladder": str(path), "game": config.game, "sandbox": sandbox, "duplicate": duplicate,
        "played": summary.played,
        "encounters": stats.encounters,
        "score_ratio": None if stats.score_ratio is None else round(stats.score_ratio, 3),
        "margin_ratio": None if stats.margin_ratio is None else round(stats.margin_ratio, 3),
        "per_pair_margin_ratio": {"-".join(k): round(v, 3)
                                  for k, v in stats.per_pair_margin_ratio.items()},
        "notes": [n for n in (stats.score_note, stats.margin_note) if n],
        "seconds_per_match": round(wall / max(summary.played, 1), 3),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("ladders", nargs="*", default=list(DEFAULT_LADDERS))
    parser.add_argument("--cycles", type=int, default=100)
    parser.add_argument("--concurrency", type=int, default=2)
    parser.add_argument("--sandbox", default="process", choices=("process", "docker"))
    parser.add_argument("--cost", type=int, default=0, metavar="N",
                        help="instead: N alternating runs of each ladder with duplicate and with "
                             "independent deals (twice the cycles: as many matches), for the time "
                             "per match (what the legs' epochs cost a ladder on one host)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        if args.cost:
            rows = [measure(ROOT / ladder, args.cycles * (1 if duplicate else 2),
                            args.concurrency, Path(tmp) / f"run{n}", args.sandbox, duplicate)
                    for ladder in args.ladders for n in range(args.cost)
                    for duplicate in ((True, False) if n % 2 == 0 else (False, True))]
        else:
            rows = [measure(ROOT / ladder, args.cycles, args.concurrency, Path(tmp),
                            args.sandbox) for ladder in args.ladders]
    print(json.dumps(rows, indent=2))


if __name__ == "__main__":
    main()
