"""What signed results cost: signing and verifying a match log, and `arena verify` of a published
ladder of 1,000 matches.

The log: one real 3-round Lost Cities match played by the in-process referee (the real match
loop, two uniformly random policies: ``arena.referee.local.LocalPlayer``), its log written as
every ladder match's is (format 4: the seed committed, the ladder slot in the header). Then,
each the median of ``--repeat`` runs:

  log_bytes                        the log's size (before its signature)
  sign_log_ms                      ``sign_log``: read the finished log, hash it, sign, append
                                   the signature record (what signing adds to a match; it
                                   must stay under 1 ms: ``sign_adds_under_1ms``)
  verify_signature_ms              ``check_log_signature`` against a trusted key
  verify_signature_and_replay_ms   the signature, then ``replay_log`` (the seed's reveal and
                                   every deal, action, clock and score under the rules)

The ladder: ``--matches`` (1,000) real matches, each played by the in-process referee as above
(Lost Cities, one round a match: a full 3-round match costs the verifier about three times
the replay; 20 bots, duplicate encounters of a round robin's pairs, every match its own deal
and log, signed as the ladder runner signs them), recorded in a real SQLite store through
``LadderStore.record_match``. Not a copy of a few logs under other ids: a log's header binds
its match id and slot, and its signature covers them. Then:

  ladder_matches                   matches published and verified
  ladder_generate_s                playing and recording them (not a cost of signing)
  ladder_publish_s                 `arena ladder publish`: logs copied, manifest signed,
                                   verified, the site with its replay pages written (the
                                   pages are most of it, built once: publishing again into
                                   the same directory builds only the new matches' pages)
  ladder_verify_s                  `arena verify` of the directory (every log's signature and
                                   replay, the standings recomputed from the logs)
  ladder_verify_ms_per_match

    python benchmarks/signing.py [--matches N] [--repeat N]     # prints one JSON object
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from itertools import combinations
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from arena.ladder.config import load_ladder  # noqa: E402
from arena.ladder.runner import ladder_signing  # noqa: E402
from arena.ladder.store import LadderStore  # noqa: E402
from arena.model import BotSpec, LadderSlot, MatchResult, MatchSpec, TimeControl  # noqa: E402
from arena.record.replay import replay_log  # noqa: E402
from arena.record.signing import (  # noqa: E402
    Signer,
    TrustedKeys,
    check_log_signature,
    ensure_signer,
    sign_log,
)
from arena.referee.local import LocalPlayer  # noqa: E402
from arena.referee.match import Match  # noqa: E402
from arena.site.publish import publish, verify_publication  # noqa: E402

GAME = "lost-cities"
BOTS = tuple(f"bot{i:02d}" for i in range(20))
TIME_CONTROL = TimeControl(5000, 0, 1000)


def _play(log_dir: Path, match_id: str, bots: tuple[str, str], seed: int, rounds: int,
          slot: LadderSlot) -> MatchResult:
    """One real in-process match between uniformly random policies, its log in ``log_dir``."""
    rng = (random.Random(seed * 2 + 1), random.Random(seed * 2 + 2))
    specs = tuple(BotSpec(name, GAME, command=("true",), version="1",
                          digest=f"dir:sha256:{name}") for name in bots)
    spec = MatchSpec(GAME, seed, (specs[0], specs[1]), {"rounds": rounds}, TIME_CONTROL,
                     match_id=match_id, slot=slot)
    match = Match(spec, sandbox_name="in-process", log_dir=log_dir)
    players = tuple(LocalPlayer(seat, lambda d, r=rng[seat]: r.choice(d.legal_actions))
                    for seat in (0, 1))
    return asyncio.run(match.run((players[0], players[1])))


def _median_ms(runs: int, setup: Callable[[int], Path], timed: Callable[[Path], Any]) -> float:
    samples = []
    for k in range(runs):
        path = setup(k)
        started = time.perf_counter()
        timed(path)
        samples.append((time.perf_counter() - started) * 1000)
    return round(statistics.median(samples), 3)


def log_figures(tmp: Path, repeat: int) -> dict[str, Any]:
    """Sign and verify one 3-round Lost Cities log (see the module doc)."""
    signer, _, _ = ensure_signer(tmp / "state")
    trusted = TrustedKeys([signer.public])
    result = _play(tmp / "logs", "bench-log", ("bot00", "bot01"), 7, 3,
                   LadderSlot("bench", "bench-e0", 0, 0))
    log = Path(result.log or "")
    unsigned = log.read_bytes()
    copies = tmp / "copies"
    copies.mkdir()

    def fresh(k: int) -> Path:
        path = copies / f"{k}" / log.name
        path.parent.mkdir()
        path.write_bytes(unsigned)
        return path

    sign_ms = _median_ms(repeat, fresh, lambda p: sign_log(p, signer))
    signed = fresh(repeat)
    sign_log(signed, signer)
    return {
        "log_rounds": 3,
        "log_bytes": len(unsigned),
        "sign_log_ms": sign_ms,
        "sign_adds_under_1ms": sign_ms < 1.0,
        "verify_signature_ms": _median_ms(repeat, lambda _: signed,
                                          lambda p: check_log_signature(p, trusted)),
        "verify_signature_and_replay_ms": _median_ms(
            repeat, lambda _: signed,
            lambda p: (check_log_signature(p, trusted), replay_log(p))),
    }


def ladder_figures(tmp: Path, matches: int) -> dict[str, Any]:
    """Publish and verify a ladder of ``matches`` real matches (see the module doc)."""
    tmp.mkdir(parents=True, exist_ok=True)
    path = tmp / "bench.toml"
    path.write_text(f'name = "bench"\ngame = "{GAME}"\nentrants = {json.dumps(list(BOTS))}\n'
                    "[options]\nrounds = 1\n")
    config = load_ladder(path)
    signer = ladder_signing(config).signer
    pairs = list(combinations(BOTS, 2))
    started = time.perf_counter()
    with LadderStore(config.database_url) as store:
        for k in range(matches):
            _record(store, config.match_log_dir, k, pairs[(k // 2) % len(pairs)], signer)
    generate_s = time.perf_counter() - started
    out = tmp / "published"
    started = time.perf_counter()
    publish(config, out)
    publish_s = time.perf_counter() - started
    started = time.perf_counter()
    report = verify_publication(out, TrustedKeys([signer.public]))
    verify_s = time.perf_counter() - started
    assert report.ok and report.logs == matches, report.differences[:3]
    return {
        "ladder_matches": matches,
        "ladder_generate_s": round(generate_s, 1),
        "ladder_publish_s": round(publish_s, 1),
        "ladder_verify_s": round(verify_s, 1),
        "ladder_verify_ms_per_match": round(verify_s * 1000 / matches, 2),
    }


def _record(store: LadderStore, log_dir: Path, k: int, pair: tuple[str, str],
            signer: Signer) -> None:
    """Match ``k``: leg ``k % 2`` of encounter ``k // 2`` (the same deal, seats swapped),
    played, signed and recorded as the ladder runner does."""
    encounter, leg = f"bench-e{k // 2:05d}", k % 2
    bots = pair if leg == 0 else (pair[1], pair[0])
    result = _play(log_dir, f"{encounter}-l{leg}", bots, 1000 + k // 2, 1,
                   LadderSlot("bench", encounter, 0, leg))
    sign_log(Path(result.log or ""), signer)
    specs = tuple(BotSpec(name, GAME, command=("true",), version="1",
                          digest=f"dir:sha256:{name}") for name in bots)
    store.record_match("bench", result, (specs[0], specs[1]), encounter_id=encounter,
                       cycle=0, leg=leg)


def signing_figures(tmp: Path, matches: int = 1000, repeat: int = 51) -> dict[str, Any]:
    """Every figure of the module doc."""
    return {**log_figures(tmp / "log", repeat), **ladder_figures(tmp / "ladder", matches)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--matches", type=int, default=1000,
                        help="matches in the published ladder (default 1000)")
    parser.add_argument("--repeat", type=int, default=51,
                        help="runs of each log measurement, the median taken (default 51)")
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="arena-signing-"))
    try:
        (tmp / "log").mkdir()
        (tmp / "ladder").mkdir()
        print(json.dumps(signing_figures(tmp, args.matches, args.repeat), indent=2))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
