"""The JavaScript sample bot (sample_bots/lost-cities/js-random) plays whole matches through the
real referee: any language that speaks arena.v1 over gRPC can play."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections import Counter
from pathlib import Path

import pytest

from arena.model import Termination
from arena.referee.log import read_events
from arena.referee.replay import replay_log

from .conftest import RANDOM_BOT, ROOT, run_match

JS_BOT = ROOT / "sample_bots" / "lost-cities" / "js-random"
NPM_TIMEOUT_S = 300


def _missing(reason: str) -> None:
    """Skip on a developer machine without Node.js; CI must have it, so fail there."""
    if os.environ.get("CI"):
        pytest.fail(f"{reason} (CI is set: the JavaScript bot test must run)")
    pytest.skip(reason)


def _run(command: list[str]) -> None:
    done = subprocess.run(
        command, cwd=JS_BOT, capture_output=True, text=True, timeout=NPM_TIMEOUT_S, check=False
    )
    if done.returncode != 0:
        pytest.fail(f"{' '.join(command)} failed in {JS_BOT}:\n{done.stdout}\n{done.stderr}")


@pytest.fixture(scope="module")
def js_bot() -> Path:
    """The bot directory with its dependencies installed and the .proto files synced."""
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        _missing("node and npm are needed to run the JavaScript sample bot")
    assert node is not None and npm is not None
    if not (JS_BOT / "node_modules" / "@grpc" / "grpc-js").is_dir():
        _run([npm, "ci", "--no-audit", "--no-fund"])
    # Always refresh the copy of the repository's proto/ that the bot loads (cheap).
    _run([node, "sync-proto.js"])
    for name in ("bot.proto", "lost_cities.proto"):
        copied = JS_BOT / "proto" / "arena" / "v1" / name
        source = ROOT / "proto" / "arena" / "v1" / name
        assert copied.read_bytes() == source.read_bytes()
    return JS_BOT


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
    decisions = Counter(e["seat"] for e in read_events(log) if e["type"] == "decision")
    # both seats decided, in turn (a Lost Cities round alternates turns)
    assert decisions[js_seat] > 0 and abs(decisions[0] - decisions[1]) <= 3
    assert sum(decisions.values()) == result.decisions
    report = replay_log(log)
    assert report.finished
    assert report.decisions == result.decisions
    assert [list(r) for r in report.rounds] == [list(r) for r in result.rounds]
