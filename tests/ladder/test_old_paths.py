"""The old import paths of moved modules keep working for one release, with a warning."""

from __future__ import annotations

import importlib
import sys

import pytest

pytestmark = pytest.mark.unit

MOVED = {
    "arena.ladder.rating": ("arena.stats.rating", "fit"),
    "arena.ladder.sprt": ("arena.stats.sprt", "SprtParams"),
    "arena.ladder.sprt_pairs": ("arena.stats.sprt_pairs", "PairBook"),
    "arena.ladder.stats": ("arena.stats.resources", "match_stats"),
    "arena.ladder.encounters": ("arena.stats.encounters", "Leg"),
    "arena.ladder.sprt_run": ("arena.sprt.run", "run_sprt"),
    "arena.ladder.sprt_file": ("arena.sprt.file", "sprt_ladder"),
    "arena.ladder.schedule": ("arena.ladder.schedules.schedule", "build_schedule"),
    "arena.ladder.pairing": ("arena.ladder.schedules.pairing", "choose"),
    "arena.ladder.swiss": ("arena.ladder.schedules.swiss", "swiss_state"),
    "arena.ladder.knockout": ("arena.ladder.schedules.knockout", "bracket"),
    "arena.ladder.sources": ("arena.ladder.schedules.sources", "open_source"),
    "arena.ladder.continuous": ("arena.ladder.schedules.continuous", "ContinuousSource"),
    "arena.ladder.status": ("arena.ladder.schedules.status", "AdaptiveStatus"),
    "arena.ladder.site": ("arena.site.refresh", "refresh_site"),
    "arena.ladder.report_page": ("arena.site.report_page", "report_page"),
    "arena.ladder.match_pages": ("arena.site.match_pages", "replay_name"),
    "arena.ladder.status_text": ("arena.render.status_text", "adaptive_headline"),
    "arena.ladder.publish": ("arena.site.publish", "verify_publication"),
}


@pytest.mark.parametrize("old", sorted(MOVED))
def test_an_old_path_imports_and_warns(old: str) -> None:
    new, name = MOVED[old]
    sys.modules.pop(old, None)
    with pytest.warns(DeprecationWarning, match=rf"{old} is deprecated: import .*{new}"):
        module = importlib.import_module(old)
    assert getattr(module, name) is getattr(importlib.import_module(new), name)


def test_the_moved_plan_of_an_sprt_test_is_there_too() -> None:
    sys.modules.pop("arena.ladder.sprt_pairs", None)
    with pytest.warns(DeprecationWarning):
        module = importlib.import_module("arena.ladder.sprt_pairs")
    from arena.sprt.plan import PairPlan

    assert module.PairPlan is PairPlan


def test_the_old_sources_path_still_has_the_schedule_status() -> None:
    sys.modules.pop("arena.ladder.sources", None)
    with pytest.warns(DeprecationWarning):
        module = importlib.import_module("arena.ladder.sources")
    from arena.ladder.schedules.registry import schedule_status

    assert module.schedule_status is schedule_status


@pytest.mark.parametrize("name", ["ResolveBot", "default_resolve", "line_up_entrants"])
def test_the_runners_moved_names_warn(name: str) -> None:
    from arena.ladder import entrants, runner

    with pytest.warns(DeprecationWarning, match=rf"runner\.{name} is deprecated: import "
                                                rf"arena\.ladder\.entrants\.{name}"):
        moved = getattr(runner, name)
    assert moved is getattr(entrants, name)
    with pytest.raises(AttributeError):
        runner.no_such_name  # noqa: B018
