"""`arena sprt CANDIDATE BASELINE`: bad input is one error and exit 2 with nothing played or
written; docs/sprt.md's two real runs, CI-sized (the command in this process, the process
sandbox): H1 accepted on a pairing that separates at once, H0 for a bot against itself; a spent
budget, and Ctrl-C of a real `arena sprt` process, then the same test continued."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli.main import app
from arena.record.replay import replay_log
from tests.support.paths import SAMPLE_BOTS

pytestmark = pytest.mark.integration

runner = CliRunner()
LOST_CITIES = SAMPLE_BOTS / "lost-cities"
STRONG, GREEDY = str(LOST_CITIES / "strong"), str(LOST_CITIES / "greedy")
RANDOM = str(LOST_CITIES / "random")
HAGGIS_GREEDY = str(SAMPLE_BOTS / "haggis" / "greedy")


@pytest.fixture(autouse=True)
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test runs in an empty directory: a test's state would go to ./ladder/state."""
    monkeypatch.chdir(tmp_path)
    return tmp_path


def refused(args: list[str], says: str, workdir: Path) -> None:
    """Exit 2, one error line naming the problem, nothing written."""
    out = runner.invoke(app, ["sprt", *args])
    assert out.exit_code == 2, out.output
    assert says in " ".join(out.stderr.split()), out.stderr
    assert out.stderr.count("error:") == 1 and out.stdout == ""
    assert list(workdir.iterdir()) == [], "nothing may be written"


@pytest.mark.parametrize(("options", "says"), [
    (["--elo0", "50", "--elo1", "0"], "elo0 must be less than elo1"),
    (["--elo0", "10", "--elo1", "10"], "elo0 must be less than elo1"),
    (["--elo0", "0", "--elo1", "50", "--alpha", "0.5"], "alpha must be strictly between 0"),
    (["--elo0", "0", "--elo1", "50", "--beta", "0"], "beta must be strictly between 0"),
    (["--elo0", "0", "--elo1", "50", "--alpha", "-0.1"], "alpha must be strictly between 0"),
    (["--elo1", "50"], "--elo0 and --elo1 are required"),
    (["--elo0", "0", "--elo1", "50", "--move-time", "0"], "move_time_ms"),
    (["--elo0", "0", "--elo1", "50", "-o", "rounds=7"], "option rounds"),
])
def test_a_bad_design_is_one_error(options: list[str], says: str, workdir: Path) -> None:
    refused([STRONG, GREEDY, *options], says, workdir)
    refused(["run", STRONG, GREEDY, *options], says, workdir)


def test_bots_of_two_games_are_one_error(workdir: Path) -> None:
    refused([GREEDY, HAGGIS_GREEDY, "--elo0", "0", "--elo1", "50"],
            "the baseline 'greedy' plays haggis, not lost-cities (the candidate's game): both "
            "bots of an SPRT test play one game", workdir)
    refused([GREEDY, GREEDY, "--game", "haggis", "--elo0", "0", "--elo1", "50"],
            "the candidate 'greedy' plays lost-cities, not haggis", workdir)
    refused([GREEDY, "no-such-bot", "--elo0", "0", "--elo1", "50"], "no bot 'no-such-bot'",
            workdir)


def test_ladder_files_are_checked_too(workdir: Path, tmp_path_factory: pytest.TempPathFactory
                                      ) -> None:
    files = tmp_path_factory.mktemp("files")
    plain = files / "plain.toml"
    plain.write_text('name = "p"\ngame = "lost-cities"\nentrants = ["a", "b"]\n')
    refused(["--ladder", str(plain)], "is not an SPRT test", workdir)
    test = files / "test.toml"
    test.write_text(f'name = "t"\ngame = "lost-cities"\n[sprt]\ncandidate = "{STRONG}"\n'
                    f'baseline = "{HAGGIS_GREEDY}"\nelo0 = 0\nelo1 = 50\n')
    refused(["--ladder", str(test), "--elo1", "40"], "--elo1 cannot be given as well", workdir)
    refused(["--ladder", str(test), STRONG], "CANDIDATE/BASELINE cannot be given", workdir)
    refused(["--ladder", str(test), "--sandbox", "process"], "the baseline", workdir)
    test.write_text(test.read_text().replace("elo1 = 50", "elo1 = -5"))
    refused(["--ladder", str(test)], "key 'sprt.elo1' (line 7)", workdir)


@pytest.mark.unit
def test_a_bad_sandbox_and_the_help(workdir: Path) -> None:
    out = runner.invoke(app, ["sprt", STRONG, GREEDY, "--elo0", "0", "--elo1", "5",
                              "--sandbox", "vm"])
    assert out.exit_code == 2 and "must be one of process, docker, auto" in out.output
    group = runner.invoke(app, ["sprt", "--help"])
    assert group.exit_code == 0 and "run" in group.output and "llr" in group.output
    assert list(workdir.iterdir()) == []


# --- docs/sprt.md's real runs ------------------------------------------------------------------
RUN_OPTIONS = ("--sandbox", "process", "--move-time", "500", "--format", "json")
DECIDES_FAST = ("--elo0", "0", "--elo1", "200")
"""A design that decides in few pairs: H1 after 8 pairs won twice, H0 after 5 split pairs
(``arena sprt llr --pentanomial 0,0,0,0,8 --elo0 0 --elo1 200``, and ``0,0,5,0,0``)."""
SLOW_TO_DECIDE = ("--elo0", "0", "--elo1", "50")
"""docs/sprt.md's design: a few pairs decide nothing (H1 takes 24 pairs won twice, H0 20 split
ones), for the tests of a run that stops before the test is decided."""


def sprt_here(*args: str) -> tuple[int, dict[str, object], str]:
    """The command in this process, in the test's directory (an ``arena`` process would start
    in about a CPU second; the Ctrl-C test runs the real one): exit code, JSON result,
    stderr."""
    out = runner.invoke(app, ["sprt", *args, *RUN_OPTIONS])
    assert out.stdout, (out.stderr, out.exception)
    return out.exit_code, json.loads(out.stdout), out.stderr


def check_the_record(workdir: Path, result: dict[str, object]) -> None:
    """`arena matches FILE` (in this process) lists every match of the run; their logs
    verify."""
    ladder = workdir / str(result["ladder_file"])
    listed = runner.invoke(app, ["matches", str(ladder), "--format", "json"])
    assert listed.exit_code == 0, listed.output
    matches = [json.loads(line) for line in listed.stdout.splitlines()]  # a match a line
    assert len(matches) == result["matches_played"]
    assert {m["encounter_id"] for m in matches} >= {f"{result['test']}-p{p:05d}"
                                                   for p in range(int(str(result["pairs"])))}
    for m in matches[:4]:
        assert m["termination"] == "normal"
        assert replay_log(workdir / m["log"]).finished, "every match log is watchable"


@pytest.mark.slow
def test_greedy_against_random_accepts_h1(workdir: Path) -> None:
    """H1 end to end on a pairing that separates at once: greedy wins both legs of every pair
    against random in one-round matches, so the test takes the fewest pairs H1 can take (8 with
    ``DECIDES_FAST``) and the cheapest matches, one at a time (``--concurrency 1``: one Dask
    worker, and no match still in flight when the test is decided)."""
    args = (GREEDY, RANDOM, *DECIDES_FAST, "--max-pairs", "40", "-o", "rounds=1",
            "--concurrency", "1")
    started = time.monotonic()
    code, result, stderr = sprt_here(*args)
    seconds = time.monotonic() - started
    assert (code, result["outcome"], result["decision"]) == (0, "H1", "H1"), stderr
    assert "warning: playing in the process sandbox (as asked)" in " ".join(stderr.split())
    pairs = int(str(result["pairs"]))
    assert 0 < pairs <= 40 and result["llr"] >= result["upper_bound"]  # type: ignore[operator]
    assert sum(result["pentanomial"]) == pairs  # type: ignore[arg-type]
    low, high = result["elo_ci95"]  # type: ignore[misc]
    # every pair won twice: the estimate is the model's cap, the top of its interval
    assert 0 < low < result["elo"] <= high and result["los"] > 0.99  # type: ignore[operator]
    assert result["candidate"] == "greedy" and result["baseline"] == "random"
    check_the_record(workdir, result)
    print(f"greedy vs random: H1 after {pairs} pairs, {result['matches_played']} matches, "
          f"{seconds:.0f} s")
    # the same command again continues the same (decided) test: nothing more is played
    code, again, _ = sprt_here(*args)
    assert (code, again["outcome"], again["pairs"], again["matches_played"]) == \
        (0, "H1", pairs, 0)
    assert again["test"] == result["test"]


@pytest.mark.slow
def test_greedy_against_itself_never_accepts_h1(workdir: Path) -> None:
    # one-round matches: greedy is deterministic, so a pair's legs mirror each other however
    # long the match, and the LLR takes the same path to H0 (5 pairs with DECIDES_FAST) for a
    # third of the moves
    code, result, stderr = sprt_here(GREEDY, GREEDY, *DECIDES_FAST, "--max-pairs", "10",
                                     "-o", "rounds=1", "--concurrency", "1")
    assert (code, result["outcome"]) in ((1, "H0"), (4, "inconclusive")), stderr
    assert result["candidate"] == "greedy (candidate)"
    assert result["baseline"] == "greedy (baseline)"
    check_the_record(workdir, result)
    print(f"greedy vs greedy: {result['outcome']} after {result['pairs']} pairs, "
          f"{result['matches_played']} matches")


@pytest.mark.slow
def test_a_spent_budget_is_inconclusive_and_a_larger_one_continues(workdir: Path) -> None:
    # one pair a run, far from deciding: its two legs (one deal) never play at once, so one
    # worker is enough
    args = (GREEDY, RANDOM, *SLOW_TO_DECIDE, "-o", "rounds=1", "--concurrency", "1")
    code, first, stderr = sprt_here(*args, "--max-pairs", "1")
    assert (code, first["outcome"], first["pairs"]) == (4, "inconclusive", 1), stderr
    code, more, stderr = sprt_here(*args, "--max-pairs", "2")
    assert (code, more["outcome"]) == (4, "inconclusive"), stderr
    assert more["test"] == first["test"] and more["pairs"] == 2, stderr
    assert more["matches_played"] == 2, "only the second pair was played"


def recorded_matches(workdir: Path) -> int:
    """Matches in the test's store so far (0 before it exists)."""
    found = list(workdir.glob("ladder/state/*/ladder.db"))
    if not found:
        return 0
    try:
        with contextlib.closing(sqlite3.connect(found[0], timeout=5)) as db:
            return int(db.execute("SELECT count(*) FROM matches").fetchone()[0])
    except sqlite3.Error:  # the writer may be creating the schema right now
        return 0


@pytest.mark.slow
def test_ctrl_c_stops_and_the_same_command_continues(workdir: Path) -> None:
    # far from deciding (SLOW_TO_DECIDE): the run is stopped, never finished; two matches at
    # once, so Ctrl-C lands with matches in flight
    args = (GREEDY, RANDOM, *SLOW_TO_DECIDE, "-o", "rounds=1")
    proc = subprocess.Popen(
        [sys.executable, "-m", "arena", "sprt", *args, "--max-pairs", "100",
         "--concurrency", "2", *RUN_OPTIONS],
        cwd=workdir, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        while recorded_matches(workdir) < 3:
            assert proc.poll() is None and time.monotonic() < deadline, proc.stderr
            time.sleep(0.1)
        os.kill(proc.pid, signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    stopped = json.loads(out)
    assert proc.returncode == 130, err
    assert stopped["outcome"] == "unfinished" and stopped["interrupted"] is True
    assert stopped["decision"] == "continue" and int(str(stopped["matches_played"])) >= 3
    pairs = int(str(stopped["pairs"]))
    # the same command, in this process, for one pair more (one worker)
    code, more, err = sprt_here(*args, "--max-pairs", str(pairs + 1), "--concurrency", "1")
    assert (code, more["outcome"], more["test"]) == (4, "inconclusive", stopped["test"]), err
    assert more["pairs"] == pairs + 1
    listed = runner.invoke(app, ["matches", str(workdir / str(more["ladder_file"])),
                                 "--format", "json"])
    assert listed.exit_code == 0, listed.output
    ids = [json.loads(line)["match_id"] for line in listed.stdout.splitlines()]
    assert len(ids) == len(set(ids)) == int(str(stopped["matches_played"])) + \
        int(str(more["matches_played"])), "nothing lost, nothing played twice"
