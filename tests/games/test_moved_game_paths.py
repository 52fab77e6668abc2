"""Each built-in game is one package (``arena.games.<name>``: ``rules``, ``codec``, ``terminal``,
``board``). The old paths of its codec, renderers and Haggis's card and combination modules keep
working for one release as the moved module itself, warning once and naming the new path; the
old engine path is the game's package, which names what the module did, without a warning."""

from __future__ import annotations

import importlib
import subprocess
import sys
import warnings

import pytest

pytestmark = pytest.mark.unit

MOVED = {
    **{f"arena.wire.{name}": f"arena.games.{name}.codec"
       for name in ("lost_cities", "haggis", "portas")},
    **{f"arena.render.{name}": f"arena.games.{name}.terminal"
       for name in ("lost_cities", "haggis", "portas")},
    **{f"arena.render.html.{name}": f"arena.games.{name}.board"
       for name in ("lost_cities", "haggis", "portas")},
    "arena.games.haggis_cards": "arena.games.haggis.cards",
    "arena.games.haggis_combos": "arena.games.haggis.combos",
}


@pytest.mark.parametrize(("old", "new"), sorted(MOVED.items()))
def test_an_old_path_still_imports_and_warns(old: str, new: str,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delitem(sys.modules, old, raising=False)  # as a fresh process imports it
    with pytest.warns(DeprecationWarning, match=f"{old} moved to {new}") as warned:
        __import__(old)  # an import statement's call: the warning names this line
    assert len(warned) == 1 and warned[0].filename == __file__
    assert sys.modules[old] is importlib.import_module(new)


@pytest.mark.parametrize("name", ["lost_cities", "haggis", "portas"])
def test_the_engine_path_is_the_package_with_the_rules_names(name: str) -> None:
    """``arena.games.<name>`` names every public name of its rules, as the module did."""
    package = importlib.import_module(f"arena.games.{name}")
    rules = importlib.import_module(f"arena.games.{name}.rules")
    public = {key for key, value in vars(rules).items()
              if not key.startswith("_") and key != "TYPE_CHECKING"
              and getattr(value, "__module__", rules.__name__) == rules.__name__
              and not isinstance(value, type(rules))}
    assert public - set(package.__all__) == set()
    assert all(getattr(package, key) is getattr(rules, key) for key in package.__all__)


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
