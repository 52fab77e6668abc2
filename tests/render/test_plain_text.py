"""Issue 19, holes 4 and 5, at render time: every recorded string (a bot's name, an answer, a
detail, a match id, a worker, a path) reaches rich as plain text. Rendered on a colour terminal
(``force_terminal``), a name ``[/]`` raises no MarkupError, ``[link=...]`` emits no OSC 8
hyperlink, ``[b][/b]victim`` shows as written, and escape sequences in a detail, an answer or a
worker's name are not written (logs and stores from before record-time cleaning hold them)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from arena.cli.common import notice
from arena.cli.watch_cmds import frames
from arena.cluster.progress import HostProgress
from arena.ladder.reports import crosstable_of, standings_of
from arena.ladder.runner import InFlight, LadderEventKind, Progress
from arena.ladder.store import VoidAttempt
from arena.model import MatchEndEvent, Termination
from arena.record.log import read_events
from arena.record.replay import replay_log
from arena.render.ladder import (
    render_crosstable,
    render_live,
    render_matches,
    render_pairing,
    render_report,
    render_sprt_live,
    render_standings,
    render_void_attempts,
)
from arena.render.match import render_match_result, render_replay_report
from arena.render.text import plain
from arena.sprt.run import SprtEvent, SprtStatus
from arena.stats.sprt import Pentanomial, SprtParams
from arena.stats.sprt_pairs import PairBook
from tests.support.fakes import SAMPLE_MATCHES
from tests.support.pages import play_logged
from tests.support.terminal import (
    ESCAPES,
    MARKUP_ANSWER,
    MARKUP_NAMES,
    UNSAFE,
    assert_text,
    on_terminal,
)

pytestmark = pytest.mark.unit

RENAMED = {"alpha": MARKUP_NAMES[0], "beta": MARKUP_NAMES[1], "gamma": MARKUP_ANSWER}
"""The sample ladder's bots under names rich would parse."""
HOSTILE_DETAIL = f"exited with status 3; last output: {ESCAPES}winner: [b]you[/b]"


def shown_as_text(*renderables: Any, width: int = 200) -> str:
    """What a colour terminal gets, checked: no hyperlink, no control character but the
    styling rich adds (taken off); returned with every run of whitespace made one space."""
    out = on_terminal(*renderables, width=width)
    assert "\x1b]8;" not in out, "a name made a hyperlink"
    assert_text(out, "the terminal output")
    return " ".join(out.split())


def assert_literal(text: str) -> None:
    """Every markup name is shown as written."""
    for name in (*MARKUP_NAMES, MARKUP_ANSWER):
        assert name in text, f"{name!r} is not shown literally in {text!r}"


def renamed(m: Any) -> Any:
    return replace(m, bots=(RENAMED[m.bots[0]], RENAMED[m.bots[1]]), match_id=m.match_id +
                   "[/]", detail=HOSTILE_DETAIL, log_path=f"/logs/[/]{m.match_id}.jsonl")


MATCHES = [renamed(m) for m in SAMPLE_MATCHES]


def test_plain_is_text_as_written_without_control_characters() -> None:
    text = plain(f"{MARKUP_NAMES[1]}{ESCAPES}tail", style="bold")
    assert text.plain == f"{MARKUP_NAMES[1]}]52;c;cHduZWQ=]0;title[2J[1;1H2Jtail"
    assert text.spans == [] and str(text.style) == "bold"
    assert plain(7).plain == "7" and plain("tab\tand\nnewline").plain == "tab\tand\nnewline"


@pytest.fixture(scope="module")
def marked_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real match log between bots with markup names; seat 1 answers ``[b][/b]victim`` (an
    invalid action) at its third decision."""
    asked: list[int] = []

    def marked(decision: Any) -> Any:
        asked.append(1)
        return decision.legal_actions[0] if len(asked) < 3 else MARKUP_ANSWER

    return play_logged(tmp_path_factory.mktemp("marked"), "lost-cities", 4,
                       policies=(lambda d: d.legal_actions[0], marked), names=MARKUP_NAMES,
                       match_id="marked[/]")


def test_watch_frames_show_markup_names_and_answers_literally(marked_log: Path) -> None:
    for seat in (None, 0, 1):
        *_, (_, last) = frames(read_events(marked_log), seat)
        text = shown_as_text(last)
        assert_literal(text)
        assert "invalid_action: forfeit" in text


def test_watch_frames_of_an_old_log_do_not_write_its_escapes(marked_log: Path,
                                                             tmp_path: Path) -> None:
    """A log written before record-time cleaning: raw escapes in the answer and the detail."""
    lines = []
    for line in marked_log.read_text(encoding="utf-8").splitlines():
        data = json.loads(line)
        if data.get("fault"):
            data["action"] = ESCAPES + MARKUP_ANSWER
        if data["type"] == "match_end":
            data["result"]["detail"] = HOSTILE_DETAIL
        lines.append(json.dumps(data))
    old = tmp_path / "old.jsonl"
    old.write_text("\n".join(lines) + "\n", encoding="utf-8")
    *_, (_, last) = frames(read_events(old), None)
    assert "]52;c;cHduZWQ=]0;title[2J[1;1H2J[b][/b]victim" in shown_as_text(last)
    end = list(read_events(old))[-1]
    assert isinstance(end, MatchEndEvent)
    summary = shown_as_text(render_match_result(end.result))
    assert "winner: [/] (seat 0)" in summary and f"(seat 1: {MARKUP_NAMES[1]})" in summary
    assert "last output: ]52;c;cHduZWQ=]0;title[2J[1;1H2Jwinner: [b]you[/b]" in summary
    assert "match marked[/]" in summary and "log: " in summary
    assert "marked[/]" in shown_as_text(render_replay_report(replay_log(old)))


def test_the_ladder_tables_show_markup_names_literally() -> None:
    standings = standings_of("lad[/]", MATCHES, live={MARKUP_NAMES[0]: 1530.0})
    for renderable in (render_standings(standings), render_standings(standings, live=True),
                       render_report(standings), render_crosstable(crosstable_of(MATCHES)),
                       render_matches(MATCHES)):
        assert_literal(shown_as_text(renderable, width=300))
    assert "Ladder lad[/]:" in shown_as_text(render_standings(standings))
    pairs = shown_as_text(render_pairing(standings_of("lad", MATCHES)))
    assert f"{MARKUP_NAMES[0]} vs {MARKUP_NAMES[1]}" in pairs
    listed = shown_as_text(render_matches(MATCHES), width=400)
    assert "m0[/]" in listed and "/logs/[/]m0.jsonl" in listed
    assert f"{MARKUP_NAMES[0]} wins 30:10" in listed


def test_a_void_attempts_detail_is_shown_as_text() -> None:
    attempt = VoidAttempt("lad-c0-e1-l0[/]", "lad-c0-e1", 0, 0, "lost-cities", 7, MARKUP_NAMES,
                          Termination.CANCELLED, HOSTILE_DETAIL, started_at=1.0,
                          finished_at=2.0)
    text = shown_as_text(render_void_attempts([attempt]), width=300)
    assert "lad-c0-e1-l0[/]" in text and MARKUP_NAMES[1] in text
    assert "last output: ]52;c;cHduZWQ=]0;title[2J[1;1H2Jwinner: [b]you[/b]" in text


def _progress(**kwargs: Any) -> Progress:
    fields: dict[str, Any] = dict(ladder="lad[/]", scheduled=6, already=0, planned=4, done=1,
                                  in_flight=(), elo={}, started=100.0)
    return Progress(**(fields | kwargs))


def test_the_live_views_show_names_and_workers_as_text() -> None:
    flight = InFlight("lad-c0-e1-l0[/]", MARKUP_NAMES, cycle=0, leg=0, started=130.0)
    worker = HostProgress(f"tls://127.0.0.1:1{ESCAPES}[/]", f"[link=http://127.0.0.1:1/]h{ESCAPES}",
                          1, 2, 3.0)
    progress = _progress(in_flight=(flight,), hosts=(worker,))
    text = shown_as_text(render_live("lad[/]", progress, standings_of("lad", MATCHES),
                                     now=160.0), width=300)
    assert_literal(text)
    assert "ladder lad[/]: 1/4" in text and "lad-c0-e1-l0[/]" in text
    assert "[link=http://127.0.0.1:1/]h]52;c;" in text
    assert "ladder lad[/]: starting" in shown_as_text(render_live("lad[/]", None, None, 0.0))
    params = SprtParams(0.0, 50.0)
    status = SprtStatus.of(params, PairBook(counts=Pentanomial((1, 2, 5, 8, 6))), 200, 23)
    event = SprtEvent(LadderEventKind.MATCH_FINISHED, progress, status)
    sprt = shown_as_text(render_sprt_live(f"SPRT t: {MARKUP_ANSWER} vs [/]", event, 160.0),
                         width=300)
    assert f"SPRT t: {MARKUP_ANSWER} vs [/]" in sprt and MARKUP_NAMES[1] in sprt
    assert "[/]: starting" in shown_as_text(render_sprt_live("[/]", None, 0.0))


def test_an_error_line_is_text() -> None:
    line = notice("error", "bold red", f"no bot.toml in /bots/[/]{ESCAPES}x")
    assert shown_as_text(line) == "error: no bot.toml in /bots/[/]]52;c;cHduZWQ=]0;title[2J[1;1H2Jx"
    assert not UNSAFE.search(line.plain)
