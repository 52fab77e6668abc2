"""Whole matches over the real gRPC path between subprocess bots."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arena.errors import ReplayMismatchError
from arena.model import DealEvent, HeaderEvent, Termination
from arena.record.log import read_events
from arena.record.replay import replay_log
from tests.support.matches import run_match
from tests.support.paths import RANDOM_BOT, ROOT

pytestmark = pytest.mark.integration

GREEDY_BOT = ROOT / "sample_bots" / "lost-cities" / "greedy"


def test_full_match_is_logged_and_replays(log_dir: Path, socket_root: Path) -> None:
    result = run_match(RANDOM_BOT, GREEDY_BOT, log_dir, socket_root, seed=7)
    assert result.termination is Termination.NORMAL, result.detail
    assert len(result.rounds) == 3
    assert result.totals == (sum(r[0] for r in result.rounds), sum(r[1] for r in result.rounds))
    events = list(read_events(Path(result.log or "")))
    kinds = [e.type for e in events]
    assert kinds[0] == "header" and kinds[-1] == "match_end"
    assert kinds.count("deal") == 3 and kinds.count("round_end") == 3
    assert kinds.count("decision") == result.decisions
    header = events[0]
    assert isinstance(header, HeaderEvent)
    assert header.seed == 7 and header.options["rounds"] == 3
    assert header.bot_names == result.bots
    report = replay_log(Path(result.log or ""))
    assert report.decisions == result.decisions
    assert [list(r) for r in report.rounds] == [list(r) for r in result.rounds]


def test_same_seed_same_deals(log_dir: Path, socket_root: Path) -> None:
    first = run_match(RANDOM_BOT, RANDOM_BOT, log_dir, socket_root, seed=99,
                      options={"rounds": 1})
    second = run_match(RANDOM_BOT, RANDOM_BOT, log_dir, socket_root, seed=99,
                       options={"rounds": 1})
    deals = [
        [e.deal for e in read_events(Path(r.log or "")) if isinstance(e, DealEvent)]
        for r in (first, second)
    ]
    assert deals[0] == deals[1]
    # the random bots seed themselves from the match id, so the play differs but the deal not


def test_tampered_log_fails_replay(log_dir: Path, socket_root: Path, tmp_path: Path) -> None:
    result = run_match(RANDOM_BOT, RANDOM_BOT, log_dir, socket_root, seed=3,
                       options={"rounds": 1})
    lines = Path(result.log or "").read_text().splitlines()
    events = [json.loads(line) for line in lines]
    index = next(i for i, e in enumerate(events) if e["type"] == "round_end")
    events[index]["scores"][0] += 1
    tampered = tmp_path / "tampered.jsonl"
    tampered.write_text("\n".join(json.dumps(e) for e in events) + "\n")
    with pytest.raises(ReplayMismatchError, match="round 0 scores"):
        replay_log(tampered)


def test_a_rerun_match_id_starts_a_fresh_log(log_dir: Path, socket_root: Path) -> None:
    """A ladder replays an interrupted match under the same id: the new log must not be
    appended to the old attempt's (two headers would make it unreadable)."""
    import asyncio

    from arena.bots import load_bot_dir
    from arena.model import MatchSpec, TimeControl
    from arena.referee.match import play_match

    bot = load_bot_dir(RANDOM_BOT)
    spec = MatchSpec("lost-cities", 4, (bot, bot), {"rounds": 1}, TimeControl(), match_id="again")
    log_dir.mkdir(parents=True)
    (log_dir / "again.jsonl").write_text('{"type": "header", "match_id": "again"}\n')
    result = asyncio.run(play_match(spec, log_dir=log_dir, socket_root=socket_root))
    assert result.termination is Termination.NORMAL
    kinds = [e.type for e in read_events(log_dir / "again.jsonl")]
    assert kinds.count("header") == 1 and kinds[-1] == "match_end"
    assert replay_log(log_dir / "again.jsonl").finished
    assert (log_dir / "again.aborted-1.jsonl").read_text().startswith('{"type": "header"')
