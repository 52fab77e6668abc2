"""Old import paths keep working for one release: modules that moved out of ``arena.referee``, out
of ``arena.ladder``, into the built-in games' packages and into ``arena.render`` (the views),
and names that moved out of a module that stayed. Each warns once with a ``DeprecationWarning``
naming the new path.

Two kinds of old module path: most are the moved module itself (``arena._moved.moved``: its
names, and what is patched through either path; the warning points at the importing line); the
ladder's old modules re-export the moved names (``from new import *``). A built-in game's old
engine path is its package, which names what the module did, without a warning.
"""

from __future__ import annotations

import importlib
import re
import subprocess
import sys
import warnings

import pytest

pytestmark = pytest.mark.unit

GAMES = ("lost_cities", "haggis", "portas")

AS_MODULE = {
    # out of the referee
    "arena.referee.log": "arena.record.log",
    "arena.referee.replay": "arena.record.replay",
    "arena.referee.signing": "arena.record.signing",
    "arena.referee.clock": "arena.record.clock",
    "arena.referee.server": "arena.serve.server",
    "arena.referee.client": "arena.serve.client",
    "arena.referee.access": "arena.serve.access",
    "arena.referee.gate": "arena.gate",
    # into the built-in games' packages
    **{f"arena.wire.{name}": f"arena.games.{name}.codec" for name in GAMES},
    **{f"arena.render.{name}": f"arena.games.{name}.terminal" for name in GAMES},
    **{f"arena.render.html.{name}": f"arena.games.{name}.board" for name in GAMES},
    "arena.games.haggis_cards": "arena.games.haggis.cards",
    "arena.games.haggis_combos": "arena.games.haggis.combos",
    # the views, out of the CLI and the site into the render room
    "arena.cli.render": "arena.render.match",
    "arena.cli.ladder_view": "arena.render.ladder",
    "arena.cli.schedule_view": "arena.render.schedule",
    "arena.cli.seat_view": "arena.render.seat_view",
    "arena.site.status_text": "arena.render.status_text",
}
"""Old paths that are the moved module itself: old -> new."""

AS_NAMES = {
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
"""Old paths that re-export the moved names: old -> (new, one of its names)."""

EXTRA_NAMES = {
    # an old module that names what moved to a second new home
    ("arena.ladder.sprt_pairs", "PairPlan"): "arena.sprt.plan",
    ("arena.ladder.sources", "schedule_status"): "arena.ladder.schedules.registry",
}
"""Names an old module re-exports from elsewhere than its main new path: (old, name) -> new."""

MOVED_NAMES = {
    ("arena.ladder.runner", "ResolveBot"): "arena.ladder.entrants",
    ("arena.ladder.runner", "default_resolve"): "arena.ladder.entrants",
    ("arena.ladder.runner", "line_up_entrants"): "arena.ladder.entrants",
    ("arena.host.views", "Frame"): "arena.render.frames",
    ("arena.host.views", "seat_frames"): "arena.render.frames",
    ("arena.host.views", "BOARD_WIDTH"): "arena.render.frames",
}
"""Names that left a module that stayed: (module, name) -> the module that holds it now."""


@pytest.mark.parametrize(("old", "new"), sorted(AS_MODULE.items()))
def test_an_old_path_is_the_moved_module_and_warns(old: str, new: str,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delitem(sys.modules, old, raising=False)  # as a fresh process imports it
    with pytest.warns(DeprecationWarning, match=f"{old} moved to {new}") as warned:
        __import__(old)  # an import statement's call: the warning names this line
    assert len(warned) == 1 and warned[0].filename == __file__
    assert sys.modules[old] is importlib.import_module(new)


@pytest.mark.parametrize("old", sorted(AS_NAMES))
def test_an_old_path_names_the_moved_names_and_warns(old: str,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    new, name = AS_NAMES[old]
    monkeypatch.delitem(sys.modules, old, raising=False)
    with pytest.warns(DeprecationWarning, match=rf"{old} is deprecated: import .*{new}") as warned:
        module = importlib.import_module(old)
    assert len(warned) == 1
    assert getattr(module, name) is getattr(importlib.import_module(new), name)


@pytest.mark.parametrize(("old", "name"), sorted(EXTRA_NAMES))
def test_an_old_path_names_what_moved_to_a_second_home(old: str, name: str,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delitem(sys.modules, old, raising=False)
    with pytest.warns(DeprecationWarning):
        module = importlib.import_module(old)
    assert getattr(module, name) is getattr(importlib.import_module(EXTRA_NAMES[old, name]), name)


@pytest.mark.parametrize(("module_name", "name"), sorted(MOVED_NAMES))
def test_a_name_that_left_its_module_warns_when_read_there(module_name: str, name: str) -> None:
    module = importlib.import_module(module_name)
    new = MOVED_NAMES[module_name, name]
    stem = module_name.rsplit(".", 1)[1]
    with pytest.warns(DeprecationWarning,
                      match=re.escape(f"{stem}.{name} is deprecated: import {new}.{name}")):
        found = getattr(module, name)
    assert found is getattr(importlib.import_module(new), name)
    with pytest.raises(AttributeError):
        module.no_such_name  # noqa: B018


def test_the_gate_package_names_what_the_gate_module_did() -> None:
    """``arena.gate`` keeps the old module's public names; those of the checks are imported on
    first use (reading a verdict does without the referee, the codecs and the renderers)."""
    import arena.gate as gate

    assert {name for name in gate.__all__ if getattr(gate, name, None) is None} == set()
    assert gate.CHECKS == tuple(gate.CHECK_FUNCTIONS)


@pytest.mark.parametrize("name", GAMES)
def test_the_engine_path_is_the_package_with_the_rules_names(name: str) -> None:
    """``arena.games.<name>`` names every public name of its rules, as the module did, and so do
    the rules (what they held before a part moved to a module beside them: Lost Cities' cards
    and view)."""
    package = importlib.import_module(f"arena.games.{name}")
    rules = importlib.import_module(f"arena.games.{name}.rules")
    parts = {f"arena.games.{name}.{part}" for part in ("rules", "cards", "view")}
    public = {key for key, value in vars(rules).items()
              if not key.startswith("_") and key != "TYPE_CHECKING"
              and getattr(value, "__module__", rules.__name__) in parts
              and not isinstance(value, type(rules))}
    assert public - set(package.__all__) == set()
    assert all(getattr(package, key) is getattr(rules, key) for key in package.__all__)


def test_the_lost_cities_rules_still_name_what_moved_beside_them() -> None:
    from arena.games.lost_cities import cards, rules, view

    moved = {key for part in (cards, view) for key, value in vars(part).items()
             if not key.startswith("_") and getattr(value, "__module__", None) == part.__name__}
    assert {"Card", "Action", "LastAction", "View", "card_of", "parse_card", "format_action",
            "parse_action", "round_history", "known_opponent_cards", "unseen_cards"} <= moved
    assert all(getattr(rules, key) is getattr(cards if hasattr(cards, key) else view, key)
               for key in moved)


@pytest.mark.integration  # a fresh interpreter
def test_a_bot_of_the_old_imports_runs_without_a_warning_or_a_renderer() -> None:
    """What the sample bots import (the engine path) warns nothing and loads no renderer."""
    code = ("import sys, warnings; warnings.simplefilter('error'); "
            "from arena.games.lost_cities import GAME, Action, Card, State, View, determinize; "
            "from arena.games.haggis import View as HaggisView, lead_combos; "
            "from arena.games.portas import PORT_DECK, Pass, Play; "
            "assert not {'rich', 'arena.games.haggis.terminal'} & set(sys.modules)")
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)


def test_no_warning_from_the_registry() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        from arena.games import game_part

        for game_id in ("lost-cities", "haggis", "portas"):
            for part in ("engine", "codec", "renderer", "board"):
                assert game_part(game_id, part) is not None
