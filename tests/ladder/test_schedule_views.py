"""The terminal views of the schedule types (``arena.render.schedule``) and the live view that
shows them: hand-built statuses rendered at 100 columns, names with markup and escapes shown
literally, long keys folded rather than widening anything."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.ladder.config import parse_ladder
from arena.ladder.reports import load_matches
from arena.ladder.runner import LadderEvent, LadderEventKind, Progress
from arena.ladder.schedules.schedule import ScheduledMatch
from arena.ladder.schedules.status import AdaptiveStatus, ScheduleStatus
from arena.render.ladder import LiveView, render_live
from arena.render.schedule import render_schedule
from tests.support.statuses import LONG, MARKUP, NOW, adaptive, bracket, decided, swiss
from tests.support.versioned import A2, B1, record_encounters, result, versioned_ladder
from tests.support.views import row_of, text_of

pytestmark = pytest.mark.unit

WIDTH = 100


def shown(status: ScheduleStatus, wall: float | None = NOW) -> str:
    text = text_of(render_schedule(status, wall), width=WIDTH)
    assert max(len(line) for line in text.splitlines()) <= WIDTH, text
    assert "\x1b" not in text
    return text


def flat(text: str) -> str:
    """The text with every run of whitespace (and table borders) made one space."""
    return " ".join(text.replace("│", " ").split())


def unfolded(text: str) -> str:
    """The text with nothing between the pieces of a wrapped line."""
    return "".join(text.replace("│", "").split())


def column(text: str, index: int) -> str:
    """Everything in one column of a table, its cells' pieces joined (no spaces)."""
    cells = [line.split("│") for line in text.splitlines() if line.startswith("│")]
    return "".join("".join(c[index + 1].split()) for c in cells if len(c) > index + 1)


def test_the_bracket_shows_each_tie_with_seeds_scores_and_how_it_was_decided() -> None:
    text = shown(bracket())
    said = flat(text)
    assert said.startswith("knockout: 5 seeds, 1 encounter per tie · now: the semi-final")
    assert "quarter-final 2: (4) delta vs (5) eps encounters: 1-1 (+37) → delta through " \
           "(point margin +37 after a level score)" in said
    assert "quarter-final 1: (1) alpha: bye" in said
    assert f"quarter-final 3: (2) {MARKUP}: bye" in said
    assert f"semi-final 2: (2) {MARKUP} vs (3) gamma encounters: 1.5-0.5 (+12) 1 of 2 " \
           "encounters played" in said
    assert "final: (1) alpha vs ? waiting for the tie before it" in said
    # the tree: the final at the root, each tie above the ties that fed it
    assert text.index("final: (1) alpha") < text.index("semi-final 1") < \
        text.index("quarter-final 1") < text.index("quarter-final 2") < text.index("semi-final 2")


def test_a_decided_bracket_names_its_champion() -> None:
    said = flat(shown(decided()))
    assert said.startswith(f"knockout: 5 seeds, 1 encounter per tie · champion: {MARKUP}")
    assert f"final: (1) alpha vs (2) {MARKUP} encounters: 0.5-1.5 (-8) → {MARKUP} through " \
           "(score 1.5-0.5)" in said
    assert "encounters: 1.5-0.5 (+12), 1-1 (+4)" in said


def test_the_swiss_shows_its_table_round_and_score_groups() -> None:
    text = shown(swiss())
    assert text.splitlines()[0].strip() == "swiss: round 2 of 3, 5 players"
    assert "Swiss standings after 1 of 3 rounds" in text
    assert row_of(text, "2") == ["2", "eps", "1", "0", "0", "1"]  # a bye, no opponent
    assert row_of(text, "3") == ["3", MARKUP, "0.5", "0.5", "0.25", "0", "gamma"]
    said = flat(text)
    assert f"Score groups before round 2: 1: alpha, eps · 0.5: {MARKUP}, gamma · 0: delta" in said
    assert f"Round 2: alpha vs eps (to play), {MARKUP} vs gamma 1-0, bye: delta" in said
    finished = shown(type(swiss())(**{**swiss().__dict__, "current": 3}))
    assert "swiss: finished after 3 rounds" in finished and "Score groups" not in finished


def test_a_continuous_ladder_shows_its_decisions_and_players() -> None:
    text = shown(adaptive())
    said = flat(text)
    assert said.startswith("continuous: 12 encounters, runs until stopped (Ctrl-C) · 1 of 2 "
                           "adjacent pairs separated at 95%")
    assert "1:05 ago greedy@2 vs strong@1: intervals overlap 38%" in said
    assert unfolded(f"1:01:40 ago placement 1/4: {LONG} vs {MARKUP}@1 (rank 2 of 3)") in \
        unfolded(text)  # one decision, one line (wrapped at the screen's edge, never cut)
    assert row_of(text, "strong@1")[1:] == ["playing", "12", "4", "1:05 ago"]
    assert LONG in column(text, 0)  # folded in its column, never cut
    assert row_of(text, f"{MARKUP}@1")[4] == "2:00:00 ago"
    assert f"retired(replacedby{MARKUP}@2)" in column(text, 1)
    assert row_of(text, "odd@1")[2:] == ["0", "0", "never"]
    # the refusal its author's file caused: no escape sequence, no markup, no hyperlink
    assert "refused:[2Jbot.tomlsays[link=x]y[/link]" in column(text, 1)
    # without a clock, the recorded times
    assert "2023-11-14 22:12:15 UTC" in shown(adaptive(), wall=None)


def test_an_adaptive_ladder_shows_its_budget_and_why_it_stopped() -> None:
    status = adaptive("adaptive", budget=40)
    assert flat(shown(status)).startswith("adaptive: 12 of at most 40 encounters · 1 of 2")
    done = AdaptiveStatus(**{**status.__dict__, "stopped": "every adjacent pair is "
                                                            "separated at 95%"})
    assert "· stopped: every adjacent pair is separated at 95%" in flat(shown(done))


def _progress(status: ScheduleStatus | None, **more: object) -> Progress:
    fields: dict[str, object] = dict(ladder="lad", scheduled=0, already=0, planned=0, done=3,
                                     in_flight=(), elo={}, started=100.0, schedule=status)
    return Progress(**(fields | more))  # type: ignore[arg-type]


def test_the_live_view_shows_the_schedules_state() -> None:
    text = text_of(render_live("lad", _progress(adaptive()), None, now=160.0, wall=NOW),
                   width=WIDTH)
    first = text.splitlines()[0]
    assert "3 matches this run" in first and "runs until stopped (Ctrl-C)" in first
    assert "ETA" not in text and text.splitlines()[1].strip() == "In flight"  # no bar
    assert "Latest pairings" in text and "In flight" in text
    knockout = text_of(render_live("lad", _progress(bracket(), scheduled=10, planned=10), None,
                                   now=160.0, wall=NOW), width=WIDTH)
    assert "3/10 matches this run" in knockout and "ETA" in knockout
    assert "knockout: 5 seeds" in knockout
    assert "swiss: round 2 of 3" in text_of(
        render_live("lad", _progress(swiss()), None, now=160.0), width=WIDTH)
    plain = text_of(render_live("lad", _progress(None, planned=4), None, now=160.0))
    assert "knockout" not in plain and "Latest pairings" not in plain


@pytest.mark.integration
def test_the_live_view_of_a_continuous_ladder_rates_versions(tmp_path: Path) -> None:
    """A run's events name bots, not versions: the live standings are read again from the
    store, so a new version shows as itself."""
    config = versioned_ladder(tmp_path)
    reads: list[int] = []

    def reload() -> list:  # type: ignore[type-arg]
        reads.append(1)
        return load_matches(config)

    view = LiveView(config, load_matches(config), reload=reload)
    assert view.table is not None and view.table.by_version
    assert "alpha@2" in {r.bot for r in view.table.rows}
    from arena.ladder.store import LadderStore
    newer = type(A2)(**{**A2.__dict__, "version": "3", "digest": "sha256:" + "cd" * 32})
    with LadderStore(config.database_url) as store:
        record_encounters(store, config.name, [(newer, B1)], first=200)
    m = ScheduledMatch("vers-e0200-l1", "vers-e0200", 200, 1, 1200, (1, 0))
    finished = LadderEvent(LadderEventKind.MATCH_FINISHED, _progress(adaptive(), done=1),
                           m, result("vers-e0200-l1", 1200, (B1, newer)), applied=True)
    view.update(finished)
    assert reads and view.table is not None
    assert "alpha@3" in {r.bot for r in view.table.rows}
    assert "alpha@2" not in {r.bot for r in view.table.rows}
    shown = text_of(view, width=WIDTH)
    assert "alpha@3" in shown and "live Elo" not in shown  # the live Elo is kept by name
    other = parse_ladder('name = "x"\ngame = "lost-cities"\nentrants = ["a", "b"]\n')
    assert LiveView(other, [], reload=reload).reload is None  # names: the events suffice
