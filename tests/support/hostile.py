"""The hostile bots' checks (sample_bots/hostile): play an attack in a Docker sandbox, then its
outcome, the opponent's speed during it, that the referee goes on and that nothing is left."""

from __future__ import annotations

import statistics
from pathlib import Path
from typing import Any

from tests.support.containers import RecordingSandbox, arena_containers, play
from tests.support.paths import HOSTILE, RANDOM_BOT

OPPONENT_MEDIAN_MS = 5.0
"""The opponent's median decision time while the attacker's children attack, at most. Unattacked
it is about 0.5 ms in containers; an attack that escaped its container's CPU limit (say 62
spinning processes on 2 cores) puts it at tens of ms. 10x headroom over the normal figure."""
OPPONENT_SLOWDOWN = 4.0
"""...or at most this many times the same opponent's median in the unattacked match played right
after (the same machine, the same load), whichever is more: on a machine loaded by others (a
whole suite on 2 cores beside two profilers) the unattacked median itself passed 5 ms, while an
escape still makes it dozens of times slower than its neighbour match."""
OPPONENT_MIN_SAMPLES = 40
"""Decisions the opponent makes after the attack started (a 3-round match gives about 100)."""
ATTACK_DECISION = 3
"""Every hostile bot attacks on its third decision."""
ATTACK_MOVE_TIME_MS = {"memory_bomb": 10_000, "output_flood": 10_000, "fork_bomb": 5_000}
"""Per-decision limits that differ from 1000 ms, for attacks made inside a decision whose point
is not speed: the memory bomb needs about 1 s to fill its 512 MiB under load and must be killed
by the kernel (``memory``), never by the clock; writing 50 MiB through Docker's log driver took
over 1 s on a loaded machine, and what is checked is that only a bounded tail is kept; the
fork bomb's own decisions share its core with 63 spinning processes (median 10 ms, p90 54 ms
here unloaded, and one took over 1 s in CI before its children were niced): what is checked is
the pids limit and the opponent's speed, not the attacker's."""


def opponent_times(result: Any) -> list[float]:
    """The referee-measured decision times (ms) of seat 1 in a whole match, from its log."""
    from arena.model import DecisionEvent
    from arena.record.log import read_events

    assert result.log, "the match has a log"
    return [e.ms for e in read_events(Path(result.log))
            if isinstance(e, DecisionEvent) and e.seat == 1]


def times_after_attack(result: Any) -> list[float]:
    """The referee-measured decision times (ms) of seat 1 (the opponent) after seat 0's
    attack started, from the match log."""
    from arena.model import DecisionEvent
    from arena.record.log import read_events

    assert result.log, "the match has a log"
    events = [e for e in read_events(Path(result.log)) if isinstance(e, DecisionEvent)]
    attack_at = [e.n for e in events if e.seat == 0][ATTACK_DECISION - 1]
    return [e.ms for e in events if e.seat == 1 and e.n > attack_at]


def seat_log(result: Any, seat: int) -> str:
    """The bot log tail the referee stored with the match."""
    assert result.log
    path = Path(result.log).with_name(f"{result.match_id}.seat{seat}.log")
    return path.read_text(encoding="utf-8") if path.exists() else ""


def check_hostile_run(
    sandbox: RecordingSandbox, client: Any, attack: str, log_dir: Path, termination: str
) -> tuple[Any, str]:
    """Play the attack, then check: its outcome, the opponent's speed, that the referee goes
    on, and that nothing is left behind. Returns the result and the attacker's log tail.

    An attack the container absorbs (``normal``) is played over 3 rounds, so the opponent's
    speed during the attack is measured on enough decisions; a forfeit ends the match at the
    attack, so there is nothing of the opponent to measure then."""
    absorbed = termination == "normal"
    result = play(sandbox, HOSTILE / attack, log_dir, rounds=3 if absorbed else 1,
                  move_time_ms=ATTACK_MOVE_TIME_MS.get(attack, 1000))
    assert str(result.termination) == termination, result.detail
    if not absorbed:
        assert result.faulty_seat == 0 and result.winner == 1
    assert not arena_containers(client)
    assert not sandbox.leftovers()
    after = play(sandbox, RANDOM_BOT, log_dir, seed=2)  # the referee keeps going
    assert str(after.termination) == "normal" and after.decisions > 20
    assert not arena_containers(client)
    assert not sandbox.leftovers()
    if absorbed:
        times = sorted(times_after_attack(result))
        assert len(times) >= OPPONENT_MIN_SAMPLES, len(times)
        unattacked = statistics.median(opponent_times(after))
        limit = max(OPPONENT_MEDIAN_MS, OPPONENT_SLOWDOWN * unattacked)
        assert statistics.median(times) < limit, (unattacked, times[len(times) // 2:][-5:])
    return result, seat_log(result, 0)
