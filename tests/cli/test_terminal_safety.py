"""Issue 19, holes 4 and 5: nothing a bot controls reaches the operator's terminal as anything
but text. Real bots (the process sandbox: real subprocesses over real gRPC) write terminal escape
sequences in their output and their answers; `arena match`, `arena watch` and `arena replay`
run in-process through typer's runner. The match log, the seat's output tail and the result hold
text only, and so does every line printed. Bot names holding rich markup render literally
(tests/render/test_plain_text.py has the renderers; here the commands)."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from arena.cli.main import app
from arena.cluster.executor import given_up
from arena.ladder.config import load_ladder
from arena.ladder.runner import run_ladder
from arena.model import DecisionEvent, MatchEndEvent, MatchResult, MatchSpec, Termination
from arena.record.log import read_events, seat_log_path
from tests.support.fakes import FakePlayer, fake_resolve
from tests.support.pages import play_logged
from tests.support.terminal import ESCAPES, MARKUP_ANSWER, MARKUP_NAMES, assert_text

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
TEST_BOTS = ROOT / "tests" / "referee" / "bots"
RANDOM_BOT = str(ROOT / "sample_bots" / "lost-cities" / "random")
runner = CliRunner()


def play(bot: str, log_dir: Path) -> tuple[str, str, Path]:
    """`arena match BOT random` in the process sandbox: its stdout, stderr and match log."""
    out = runner.invoke(app, ["match", str(TEST_BOTS / bot), RANDOM_BOT, "--seed", "3",
                              "--sandbox", "process", "--move-time", "5000",
                              "--log-dir", str(log_dir)])
    assert out.exit_code == 0, out.output
    logs = [p for p in log_dir.glob("*.jsonl") if ".aborted-" not in p.name]
    assert len(logs) == 1, logs
    return out.stdout, out.stderr, logs[0]


def watched(log: Path) -> str:
    """What `arena watch LOG` prints (it must exit 0)."""
    out = runner.invoke(app, ["watch", str(log), "--delay", "0"])
    assert out.exit_code == 0, out.output
    assert_text(out.output, "arena watch's output")
    return out.stdout


def test_a_crashing_bots_escape_sequences_are_recorded_and_shown_as_text(tmp_path: Path
                                                                           ) -> None:
    """The attack: a bot writes an OSC 52 clipboard write, a title change, clear-screen and
    cursor moves, a C1 CSI and a bidi override, then a fake result line, and crashes; the referee
    quotes its last output line in the crash detail."""
    stdout, stderr, log = play("escape_crash", tmp_path / "logs")
    assert_text(stdout, "arena match's output")
    assert_text(stderr, "arena match's error output")
    assert "crash" in stdout
    end = list(read_events(log))[-1]
    assert isinstance(end, MatchEndEvent)
    result = end.result
    assert (result.termination, result.faulty_seat) == (Termination.CRASH, 0)
    assert_text(result.detail, "the crash detail")
    assert "last output: ]52;c;cHduZWQ=]0;arena: you won" in result.detail
    assert result.detail.endswith("winner: escape_crash (seat 0)"), "the rest stays readable"
    tail = seat_log_path(log, 0).read_text(encoding="utf-8")
    assert_text(tail, "the seat's output tail")
    assert tail.count("winner: escape_crash (seat 0)") == 2  # its stdout and its stderr
    assert result.log == str(log) and end.bot_logs[0] == str(seat_log_path(log, 0))
    watched(log)
    replay = runner.invoke(app, ["replay", str(log)])
    assert replay.exit_code == 0, replay.output


@pytest.mark.parametrize("bot", ["escape_answer", "escape_hidden"])
def test_an_answer_of_escape_sequences_is_recorded_as_text(bot: str, tmp_path: Path) -> None:
    """The attack: an invalid answer made of escape sequences, whose raw text the log keeps and
    `arena watch` shows. ``escape_hidden`` hides a legal action behind controls: recorded with
    the controls dropped, its log would claim an invalid answer that is a legal action (a
    forgery to `arena replay`); they are written as escapes instead."""
    stdout, stderr, log = play(bot, tmp_path / "logs")
    assert_text(stdout + stderr, "arena match's output")
    events = list(read_events(log))
    fault = [e for e in events if isinstance(e, DecisionEvent)][-1]
    end = events[-1]
    assert isinstance(end, MatchEndEvent)
    assert (end.result.termination, end.result.faulty_seat) == (Termination.INVALID_ACTION, 0)
    assert fault.fault is Termination.INVALID_ACTION and fault.action is not None
    assert_text(fault.action, "the recorded answer")
    assert_text(end.result.detail, "the result's detail")
    if bot == "escape_answer":
        assert fault.action.startswith("\\x1b]52;c;cHduZWQ=\\x07")
        assert fault.action.endswith("\\u202ewinner: escape_crash (seat 0)")
    else:
        assert re.fullmatch(r"\w\\x07\\x9b\\u202e\S+( \S+)*", fault.action), fault.action
    assert runner.invoke(app, ["replay", str(log)]).exit_code == 0
    shown = watched(log)
    assert "invalid_action:" in shown and "forfeit" in shown


def test_a_log_written_before_the_fix_is_still_shown_as_text(tmp_path: Path) -> None:
    """Old logs keep what they recorded (raw escapes in an answer and in the detail): `arena
    watch` and `arena replay` show them as text."""
    log = play_logged(tmp_path, "lost-cities", 5, policies=(_first, _answers_after_two("x")),
                      match_id="old")
    lines = []
    for line in log.read_text(encoding="utf-8").splitlines():
        data = json.loads(line)
        if data.get("fault"):
            data["action"] = ESCAPES + "raw answer"
        if data["type"] == "match_end":
            data["result"]["detail"] = ESCAPES + "raw detail"
        lines.append(json.dumps(data))
    log.write_text("\n".join(lines) + "\n", encoding="utf-8")
    shown = watched(log)
    assert "]52;c;cHduZWQ=]0;title" in shown and "invalid_action:" in shown
    replay = runner.invoke(app, ["replay", str(log)])
    assert replay.exit_code == 0 and "agree" in replay.stdout


@pytest.mark.unit
def test_bot_names_holding_markup_are_shown_literally_by_arena_watch(tmp_path: Path) -> None:
    """A name ``[/]`` made rich raise MarkupError (a crash of `arena watch`), ``[link=...]``
    made a hyperlink and hid itself, ``[b][/b]victim`` showed as ``victim``."""
    log = play_logged(tmp_path, "lost-cities", 5, names=MARKUP_NAMES,
                      policies=(_first, _answers_after_two(MARKUP_ANSWER)), match_id="names")
    shown = watched(log)
    assert "[/]" in shown and MARKUP_ANSWER in shown and "[link=" in shown
    assert "\x1b]8;" not in shown


def test_a_ladder_of_markup_names_and_escape_details_is_shown_as_text(tmp_path: Path) -> None:
    """`arena standings/crosstable/matches` over a store holding markup names and a
    void attempt whose detail holds escapes (a store written before the fix)."""
    path = tmp_path / "marked.toml"
    names = [*MARKUP_NAMES, MARKUP_ANSWER]
    path.write_text('name = "marked"\ngame = "lost-cities"\n'
                    f"entrants = {json.dumps(names)}\n[schedule]\ncycles = 1\n")
    asyncio.run(run_ladder(load_ladder(path), play=_GivesUpOnce(), resolve=fake_resolve))
    for command in (["standings"], ["ladder", "crosstable"], ["matches"]):
        out = runner.invoke(app, [*command, str(path)])
        assert out.exit_code == 0, out.output
        assert_text(out.output, f"arena {' '.join(command)}'s output")
        assert "[/]" in out.stdout and "\x1b]8;" not in out.stdout
    listed = runner.invoke(app, ["matches", str(path)]).stdout
    assert "given up" in listed and "killed" in listed


class _GivesUpOnce(FakePlayer):
    """The fake player, giving up on its first match with an escape-laden detail (what a
    store written before record-time cleaning may hold)."""

    async def __call__(self, spec: MatchSpec, **kwargs: Any) -> MatchResult:
        result = await super().__call__(spec, **kwargs)
        if spec is self.calls[0]:
            return given_up(spec, f"killed{ESCAPES}the workers")
        return result


def test_an_error_quoting_markup_or_escapes_is_one_plain_line(tmp_path: Path) -> None:
    """A refusal quotes what it refuses (a path, a name): printed as text, exit 2."""
    for name in ("[/]", "bot\x1b]0;pwned\x07\x1b[2J"):
        missing = tmp_path / name / "log.jsonl"
        out = runner.invoke(app, ["watch", str(missing), "--delay", "0"])
        assert out.exit_code == 2, out.output
        assert_text(out.output, "the error line")
        assert out.output.count("error:") == 1 and "no match log at" in out.output
    marked = runner.invoke(app, ["watch", str(tmp_path / "[/]" / "log.jsonl")])
    assert "[/]" in marked.output


def _first(decision: Any) -> Any:
    return decision.legal_actions[0]


def _answers_after_two(answer: str) -> Any:
    """Legal twice, then ``answer`` (no action of the game: an invalid action)."""
    asked: list[int] = []

    def policy(decision: Any) -> Any:
        asked.append(1)
        return _first(decision) if len(asked) < 3 else answer

    return policy
