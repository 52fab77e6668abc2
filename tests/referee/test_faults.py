"""Misbehaving bots over the real gRPC path: each fault ends in its named termination, fast,
with the bot stopped and its socket directory gone."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from arena.model import DecisionEvent, HeaderEvent, MatchEndEvent, Termination
from arena.record.log import read_events
from arena.record.replay import replay_log
from tests.support.matches import run_match
from tests.support.paths import RANDOM_BOT, TEST_BOTS

pytestmark = pytest.mark.integration

CASES = [
    ("sleep", Termination.TIMEOUT),
    ("illegal", Termination.ILLEGAL_ACTION),
    ("garbage", Termination.INVALID_ACTION),
    ("crash", Termination.CRASH),
    ("oversized", Termination.OVERSIZED_MESSAGE),
    ("huge", Termination.OVERSIZED_MESSAGE),
    ("never", Termination.NO_START),
    ("exit_early", Termination.NO_START),
    ("wrong_id", Termination.PROTOCOL_VIOLATION),
    ("chatty", Termination.PROTOCOL_VIOLATION),
    ("bad_hello", Termination.PROTOCOL_VIOLATION),
    ("big_hello", Termination.OVERSIZED_MESSAGE),
    ("long_name", Termination.PROTOCOL_VIOLATION),
    ("undecodable", Termination.PROTOCOL_VIOLATION),
]


NO_DECISION = {"never", "exit_early", "bad_hello", "big_hello", "long_name"}
"""Faults before the first decision: there is no decision to record."""


def _bot_processes(mode: str) -> list[str]:
    found = subprocess.run(
        ["pgrep", "-f", f"misbehave.py {mode}$"], capture_output=True, text=True, check=False
    )
    return found.stdout.split()


@pytest.mark.parametrize("mode,termination", CASES)
@pytest.mark.parametrize("bad_seat", [0, 1])
def test_fault_forfeits_with_named_termination(
    mode: str, termination: Termination, bad_seat: int, log_dir: Path, socket_root: Path
) -> None:
    bots = [RANDOM_BOT, RANDOM_BOT]
    bots[bad_seat] = TEST_BOTS / mode
    # margins for a loaded machine (a bot process starts in ~0.3 s quiet, seconds under load):
    # the random bot must neither miss its start nor its move, or the wrong seat forfeits
    result = run_match(bots[0], bots[1], log_dir, socket_root, move_time_ms=1000,
                       startup_ms=6000)
    assert result.termination is termination, result.detail
    assert result.faulty_seat == bad_seat
    assert result.winner == 1 - bad_seat
    assert not result.void
    assert result.duration_s < 15, "a fault must end the match promptly"
    assert list(socket_root.iterdir()) == [], "the socket directory must be removed"
    assert _bot_processes(mode) == [], "the bot must be killed and reaped"
    events = list(read_events(Path(result.log or "")))
    end = events[-1]
    assert isinstance(events[0], HeaderEvent) and isinstance(end, MatchEndEvent)
    assert end.result.termination is termination
    assert end.result.faulty_seat == bad_seat
    decisions = [e for e in events if isinstance(e, DecisionEvent)]
    assert len(decisions) == result.decisions
    if mode not in NO_DECISION:  # the forfeiting decision is logged, last, with its fault
        assert decisions[-1].seat == bad_seat and decisions[-1].fault is termination
        assert events[-2] == decisions[-1]
    assert all(d.fault is None for d in decisions[:-1])
    report = replay_log(Path(result.log or ""))  # what was recorded before the fault is valid
    assert report.finished


def test_a_message_over_grpcs_receive_limit_still_forfeits(log_dir: Path,
                                                          socket_root: Path) -> None:
    """Over gRPC's 1 MiB receive limit (kept low: it bounds what one seat can make the referee
    hold) the stream just ends, without a reason the referee can read: the bot forfeits as a
    crash (it exits) or a protocol violation (it stays), never a void match."""
    # the clocks leave room for a loaded host (1.5 s to start failed there as no_start, with
    # no decision made): the giant message, not a clock, must end the match
    result = run_match(TEST_BOTS / "giant", RANDOM_BOT, log_dir, socket_root, move_time_ms=2000,
                       startup_ms=10_000)
    assert result.termination in (Termination.CRASH, Termination.PROTOCOL_VIOLATION), result
    assert (result.faulty_seat, result.winner, result.void) == (0, 1, False)
    assert _bot_processes("giant") == []


def test_crash_keeps_the_bots_last_words(log_dir: Path, socket_root: Path) -> None:
    result = run_match(TEST_BOTS / "crash", RANDOM_BOT, log_dir, socket_root)
    assert result.termination is Termination.CRASH
    assert "status 3" in result.detail
    events = list(read_events(Path(result.log or "")))
    end = events[-1]
    assert isinstance(end, MatchEndEvent) and end.bot_logs[0] is not None
    assert "crashing on purpose" in Path(end.bot_logs[0]).read_text()


def test_timeout_names_the_limit(log_dir: Path, socket_root: Path) -> None:
    # 1000 ms, not less: the two good moves must come in time on a loaded machine too
    result = run_match(RANDOM_BOT, TEST_BOTS / "sleep", log_dir, socket_root, move_time_ms=1000)
    assert result.termination is Termination.TIMEOUT
    assert "1000" in result.detail
    decisions = [e for e in read_events(Path(result.log or "")) if isinstance(e, DecisionEvent)]
    mine = [d for d in decisions if d.seat == 1]  # two good moves, then the sleep
    assert [d.fault for d in mine] == [None, None, Termination.TIMEOUT]
    assert mine[-1].action is None and mine[-1].ms >= 1000


def test_both_bots_failing_to_start_is_void(log_dir: Path, socket_root: Path) -> None:
    result = run_match(TEST_BOTS / "exit_early", TEST_BOTS / "exit_early", log_dir, socket_root)
    assert result.termination is Termination.NO_START
    assert result.faulty_seat is None
    assert result.void and result.winner is None


def test_typed_actions_are_accepted(log_dir: Path, socket_root: Path) -> None:
    result = run_match(TEST_BOTS / "typed", RANDOM_BOT, log_dir, socket_root,
                       options={"rounds": 1})
    assert result.termination is Termination.NORMAL, result.detail
    assert len(result.rounds) == 1


def test_socket_dirs_of_dead_referees_are_swept(socket_root: Path) -> None:
    import os

    from arena.referee.remote import sweep_stale_socket_dirs

    dead = subprocess.Popen(["true"])
    dead.wait()  # a pid that no longer runs
    stale = socket_root / f"arena-{dead.pid}-abc123"
    (stale / "s0").mkdir(parents=True)
    mine = socket_root / f"arena-{os.getpid()}-def456"
    mine.mkdir()
    living = socket_root / "arena-1-ghi789"  # pid 1 is alive
    living.mkdir()
    sweep_stale_socket_dirs(socket_root)
    assert not stale.exists()
    assert mine.exists() and living.exists()


class _LosingSandbox:
    """The real process sandbox, except that every exit is reported as the sandbox's own
    failure (what the Docker sandbox reports when the daemon goes away mid-match)."""

    name = "process"

    def __init__(self) -> None:
        from arena.sandbox.process import ProcessSandbox

        self.inner = ProcessSandbox()

    def cpu_meter_problem(self) -> str | None:
        return self.inner.cpu_meter_problem()

    async def start(self, bot: object, socket_dir: Path, match_id: str, seat: int) -> object:
        running = await self.inner.start(bot, socket_dir, match_id, seat)  # type: ignore[arg-type]

        class Lost:
            image = None
            meter = running.meter

            async def wait(self) -> object:
                import dataclasses

                info = await running.wait()
                return dataclasses.replace(info, sandbox_error="the engine went away")

            def poll(self) -> object:
                return running.poll()

            async def stop(self) -> object:
                return await running.stop()

            def log_tail(self) -> str:
                return running.log_tail()

        return Lost()


def test_a_sandbox_failure_voids_the_match_instead_of_blaming_a_bot(
    log_dir: Path, socket_root: Path
) -> None:
    import asyncio

    from arena.bots import load_bot_dir
    from arena.model import MatchSpec, TimeControl
    from arena.referee.match import play_match

    spec = MatchSpec("lost-cities", 1, (load_bot_dir(TEST_BOTS / "crash"),
                                       load_bot_dir(RANDOM_BOT)), {}, TimeControl())
    result = asyncio.run(play_match(spec, sandbox=_LosingSandbox(),  # type: ignore[arg-type]
                                    log_dir=log_dir, socket_root=socket_root))
    assert result.termination is Termination.INTERNAL, result.detail
    assert result.void and result.winner is None and result.faulty_seat is None
    assert "the engine went away" in result.detail
    assert list(socket_root.iterdir()) == []


def test_a_flood_of_messages_does_not_fill_the_referees_memory(
    log_dir: Path, socket_root: Path
) -> None:
    """120 MB of out-of-turn messages while the opponent thinks: the seat's inbox is bounded,
    gRPC flow control stalls the flooder, and its next turn ends the match."""
    import resource

    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    result = run_match(TEST_BOTS / "flood", TEST_BOTS / "slow", log_dir, socket_root)
    grown_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    assert result.termination is Termination.PROTOCOL_VIOLATION, result.detail
    assert result.faulty_seat == 0
    assert grown_mb < 60, f"the referee grew by {grown_mb:.0f} MB"


def test_undecodable_bytes_are_named(log_dir: Path, socket_root: Path) -> None:
    result = run_match(TEST_BOTS / "undecodable", RANDOM_BOT, log_dir, socket_root)
    assert result.termination is Termination.PROTOCOL_VIOLATION
    assert "not an arena.v1 BotMessage" in result.detail, result.detail
