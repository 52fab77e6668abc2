"""The JavaScript sample bot (sample_bots/lost-cities/js-random) plays whole matches through the
real referee: any language that speaks arena.v1 over gRPC can play."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from arena.model import DecisionEvent, Termination
from arena.record.log import read_events
from arena.record.replay import replay_log
from tests.support.js import prepare_js_bot
from tests.support.matches import run_match
from tests.support.paths import RANDOM_BOT

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def js_bot() -> Path:
    return prepare_js_bot()


@pytest.mark.parametrize("js_seat", [0, 1])
def test_js_bot_plays_a_full_match(
    js_bot: Path, js_seat: int, log_dir: Path, socket_root: Path
) -> None:
    bots = (js_bot, RANDOM_BOT) if js_seat == 0 else (RANDOM_BOT, js_bot)
    result = run_match(*bots, log_dir, socket_root, seed=11 + js_seat)
    assert result.termination is Termination.NORMAL, result.detail
    assert result.bots[js_seat] == "js-random"
    assert len(result.rounds) == 3
    assert result.totals == (sum(r[0] for r in result.rounds), sum(r[1] for r in result.rounds))
    log = Path(result.log or "")
    decisions = Counter(e.seat for e in read_events(log) if isinstance(e, DecisionEvent))
    # both seats decided, in turn (a Lost Cities round alternates turns)
    assert decisions[js_seat] > 0 and abs(decisions[0] - decisions[1]) <= 3
    assert sum(decisions.values()) == result.decisions
    report = replay_log(log)
    assert report.finished
    assert report.decisions == result.decisions
    assert [list(r) for r in report.rounds] == [list(r) for r in result.rounds]
