"""A small real ladder: the referee, the process sandbox and the Lost Cities sample bots; the
ladder files shipped in ladder/ played as `arena run-ladder` plays them (on the embedded
cluster)."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.ladder.config import load_ladder
from arena.ladder.reports import load_matches, load_standings
from arena.ladder.runner import LadderEventKind, default_play, run_ladder_blocking

pytestmark = pytest.mark.integration

SAMPLES = Path(__file__).resolve().parents[2] / "sample_bots" / "lost-cities"


@pytest.mark.slow
def test_small_real_ladder(tmp_path: Path) -> None:
    """The runner plays it on the real referee in this process: what is tested is the ladder
    (duplicate deals, records, logs, standings, a rerun that plays nothing), not the embedded
    cluster, which costs more than these six one-round matches (tests/cluster, and the shipped
    ladders below, play on it)."""
    path = tmp_path / "small.toml"
    path.write_text(
        'name = "small"\ngame = "lost-cities"\n'
        f'entrants = ["{SAMPLES / "random"}", "{SAMPLES / "greedy"}"]\n'
        'concurrency = 2\nseed = 3\nsandbox = "process"\n'
        "[options]\nrounds = 1\n[schedule]\ncycles = 3\n"
    )
    cfg = load_ladder(path)
    events: list[LadderEventKind] = []
    summary = run_ladder_blocking(cfg, play=default_play(),
                                  on_event=lambda e: events.append(e.kind))
    assert summary.played == 6 and summary.remaining == 0 and not summary.interrupted
    assert events.count(LadderEventKind.MATCH_FINISHED) == 6
    found = load_matches(cfg)
    assert len(found) == 6
    for m in found:
        assert m.termination == "normal" and not m.void, m.detail
        assert m.log_path is not None and Path(m.log_path).exists()
        assert len(m.rounds) == 1 and sum(m.rounds[0]) == sum(m.totals)
    pairs: dict[str, list[int]] = {}
    for m in found:
        pairs.setdefault(m.encounter_id, []).append(m.seed)
    assert all(len(seeds) == 2 and seeds[0] == seeds[1] for seeds in pairs.values())
    standings = load_standings(cfg)
    assert [r.bot for r in standings.rows] == ["greedy", "random"]
    assert standings.rows[0].wins >= 5
    again = run_ladder_blocking(cfg)
    assert again.played == 0 and again.skipped == 6


@pytest.mark.slow
@pytest.mark.parametrize("ladder", ["haggis", "portas", "demo"])
def test_shipped_ladders_run_one_cycle(ladder: str, tmp_path: Path) -> None:
    """Every ladder file in ladder/ plays (one cycle, with its own bots and options) and its
    matches verify under `arena replay`."""
    from arena.record.replay import replay_log

    shipped = Path(__file__).resolve().parents[2] / "ladder" / f"{ladder}.toml"
    text = shipped.read_text().replace('"../sample_bots/', f'"{shipped.parent.parent}/sample_bots/')
    copy = tmp_path / f"{ladder}.toml"
    copy.write_text(text)
    cfg = load_ladder(copy)
    entrants = len(cfg.entrants)
    # a cycle's encounters at most at once (the legs of one deal never play together): a
    # cluster worker more would have nothing to play (haggis: one encounter, two cores)
    width = min(cfg.concurrency, entrants * (entrants - 1) // 2)
    summary = run_ladder_blocking(cfg, cycles=1, concurrency=width)
    assert summary.played == entrants * (entrants - 1) and summary.remaining == 0
    for match in load_matches(cfg):
        assert match.termination == "normal", match.detail
        assert replay_log(Path(match.log_path or "")).finished
    assert len(load_standings(cfg).rows) == entrants
