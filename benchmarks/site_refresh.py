"""The ladder's static site as the competition grows: a refresh after one new result in a store
of N recorded matches (10 000 by default), and the site's size per match.

A synthetic ladder (PORTAS, 20 bots, duplicate encounters, a round robin's pairs over and over)
is recorded straight into a real SQLite store through ``LadderStore.record_match``; each match
has a real small log (a copy, under its own match id, of a match the two bots really played
in-process for that pair and seat order). Then ``arena.site.refresh.refresh_site`` builds the
site once (every replay page), and the figures are taken:

  site_first_build_s             the first refresh: every replay page, list page, the index
  site_refresh_unchanged_s       a refresh with nothing new (writes nothing)
  site_refresh_one_new_s         a refresh after one new result (median of 3), and what it
  site_refresh_one_new_written     wrote: files and bytes (its replay page, the index, one list
  site_refresh_one_new_bytes       page)
  site_rating_history_s          of a refresh, the time the rating history takes (the official
                                 fit after each complete encounter, ``history_of``)
  site_replay_bytes_per_match    the site's replay pages' bytes per match: now (one shared
  site_replay_bytes_per_match_before   player and style sheet) and before (each page carried
                                 them inline: the page ``arena watch --html`` writes)
  site_index_bytes, site_list_page_bytes   the index and a full list page
  site_bytes_per_match           everything the site holds, per match

    python benchmarks/site_refresh.py [--matches N]     # prints one JSON object
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import sys
import tempfile
import time
from itertools import combinations
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from arena.ladder.config import LadderConfig, load_ladder  # noqa: E402
from arena.ladder.reports import history_of  # noqa: E402
from arena.ladder.store import LadderStore  # noqa: E402
from arena.model import BotSpec, MatchResult, MatchSpec, TimeControl  # noqa: E402
from arena.record.log import read_events  # noqa: E402
from arena.record.replay import replay_events  # noqa: E402
from arena.referee.local import LocalPlayer  # noqa: E402
from arena.referee.match import Match  # noqa: E402
from arena.render.html import replay_page  # noqa: E402
from arena.site.match_pages import list_page_path  # noqa: E402
from arena.site.refresh import refresh_site  # noqa: E402

GAME = "portas"
BOTS = tuple(f"bot{i:02d}" for i in range(20))


def _template(log_dir: Path, pair: tuple[str, str], seed: int) -> tuple[Path, MatchResult]:
    """One real in-process match between uniformly random players named after the pair."""
    rng = (random.Random(seed), random.Random(seed + 1))
    spec = MatchSpec(GAME, seed, (BotSpec(pair[0], GAME), BotSpec(pair[1], GAME)), {},
                     TimeControl(5000, 0, 1000), match_id=f"tpl{seed:05d}")
    match = Match(spec, sandbox_name="in-process", log_dir=log_dir)
    players = tuple(LocalPlayer(seat, lambda d, r=rng[seat]: r.choice(d.legal_actions))
                    for seat in (0, 1))
    result = asyncio.run(match.run((players[0], players[1])))
    return log_dir / f"{spec.match_id}.jsonl", result


class SyntheticLadder:
    """A ladder whose matches are copies of real ones, recorded straight into its store."""

    def __init__(self, tmp: Path) -> None:
        path = tmp / "big.toml"
        path.write_text(f'name = "big"\ngame = "{GAME}"\nentrants = {json.dumps(list(BOTS))}\n')
        self.config: LadderConfig = load_ladder(path)
        self.config.match_log_dir.mkdir(parents=True, exist_ok=True)
        templates = tmp / "templates"
        templates.mkdir()
        self.pairs = [p for a, b in combinations(BOTS, 2) for p in ((a, b), (b, a))]
        self.templates = [_template(templates, pair, k) for k, pair in enumerate(self.pairs)]
        self.store = LadderStore(self.config.database_url)
        self.count = 0

    def record(self) -> str:
        """One more match (the next leg of the round robin's next encounter)."""
        k = self.count
        encounter = k // 2
        pair = self.pairs[(2 * encounter) % len(self.pairs)]
        if k % 2:
            pair = (pair[1], pair[0])
        log, result = self.templates[self.pairs.index(pair)]
        match_id = f"big-e{encounter:06d}-l{k % 2}"
        target = self.config.match_log_dir / f"{match_id}.jsonl"
        target.write_text(log.read_text(encoding="utf-8").replace(result.match_id, match_id),
                          encoding="utf-8")
        copy = MatchResult(match_id, result.game, result.game_version, result.seed,
                           result.options, result.bots, result.rounds, result.totals,
                           result.winner, result.termination, result.faulty_seat,
                           result.detail, str(target), result.duration_s, result.decisions)
        specs = tuple(BotSpec(name, GAME, command=("true",), version="1", digest=f"b:{name}")
                      for name in pair)
        self.store.record_match(self.config.name, copy, (specs[0], specs[1]),
                                encounter_id=f"e{encounter}", cycle=0, leg=k % 2)
        self.count += 1
        return match_id


def _standalone_bytes(ladder: SyntheticLadder) -> float:
    """The replay page each match had before (player and style inline), per match."""
    sizes = {}
    for log, result in ladder.templates:
        steps = ((s.event, s.state) for s in replay_events(read_events(log)))
        sizes[result.bots] = len(replay_page(steps).html.encode("utf-8"))
    counts = {pair: 0 for pair in sizes}
    for k in range(ladder.count):
        pair = ladder.pairs[(2 * (k // 2)) % len(ladder.pairs)]
        counts[pair if k % 2 == 0 else (pair[1], pair[0])] += 1
    return sum(sizes[p] * n for p, n in counts.items()) / ladder.count


def site_figures(matches: int, tmp: Path) -> dict[str, Any]:
    """Build a store of ``matches`` matches, its site, then refresh it (see the module doc)."""
    ladder = SyntheticLadder(tmp)
    for _ in range(matches):
        ladder.record()
    out = tmp / "site"
    first = refresh_site(ladder.config, out, store=ladder.store)
    unchanged = refresh_site(ladder.config, out, store=ladder.store)
    assert unchanged.written == 0
    runs = []
    for _ in range(3):
        ladder.record()
        runs.append(refresh_site(ladder.config, out, store=ladder.store))
    started = time.perf_counter()
    history_of(ladder.config, ladder.store.matches(ladder.config.name))
    history_s = time.perf_counter() - started
    replays = sorted((out / "replays").iterdir())
    site_bytes = sum(p.stat().st_size for p in out.rglob("*") if p.is_file()
                     and ".site" not in p.relative_to(out).parts)
    one = runs[len(runs) // 2]
    return {
        "site_matches": ladder.count,
        "site_bots": len(BOTS),
        "site_first_build_s": round(first.seconds, 1),
        "site_refresh_unchanged_s": round(unchanged.seconds, 2),
        "site_refresh_one_new_s": round(statistics.median(r.seconds for r in runs), 2),
        "site_refresh_one_new_written": one.written,
        "site_refresh_one_new_bytes": one.bytes_written,
        "site_rating_history_s": round(history_s, 2),
        "site_replay_bytes_per_match": round(sum(p.stat().st_size for p in replays)
                                             / len(replays)),
        "site_replay_bytes_per_match_before": round(_standalone_bytes(ladder)),
        "site_index_bytes": (out / "index.html").stat().st_size,
        "site_list_page_bytes": (out / list_page_path(1)).stat().st_size,
        "site_bytes_per_match": round(site_bytes / ladder.count),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--matches", type=int, default=10_000,
                        help="recorded matches in the store (default 10000)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        print(json.dumps(site_figures(args.matches, Path(tmp)), indent=2))


if __name__ == "__main__":
    main()
