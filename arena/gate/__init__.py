"""The conformance gate: a game is checked before the arena lets it decide rated matches.

Every game is an adversary's until it has shown otherwise: its engine runs inside the referee,
and a bug in it (a leak of the opponent's cards, a deal that depends on the process, a legal
action that ``apply`` refuses) decides matches. ``run_gate`` runs the game protocol's contract
(``arena/games/api.py``) on a plugin, the built-ins included, and reports each check:

- ``determinism``: the same seed and actions give the same deals, states, legal actions and
  observation bytes twice, and in another Python process (another ``PYTHONHASHSEED``: a match
  a cluster worker plays is replayed by the head); two in-process matches write the same log
  (the referee's own figures set aside: times, the seed's salt, paths); different seeds deal
  differently;
- ``grammar``: ``parse_action(format_action(a)) == a`` and the text is canonical, for the legal
  actions (sampled where a position offers many); garbage text is ``InvalidActionError``; a
  game's optional ``legal_texts`` gives exactly those texts, in the legal list's order;
- ``playouts-end``: uniform-random matches end within ``DECISION_CAP`` decisions, with a
  non-empty, duplicate-free, stable legal list while running and a result that adds up;
- ``is-legal``: ``is_legal`` agrees with ``legal_actions`` on the legal actions and on illegal
  ones (actions of other positions), ``apply`` refuses those and never changes its input;
- ``replay``: an in-process match's log (a real file) replays (``replay_log``), deals and
  round summaries are JSON;
- ``codec-round-trip``: observations (one by one and incrementally, as the referee and the SDK
  do) and actions survive the ``arena.v1`` envelope and its bytes;
- ``leak``: ``determinize`` redraws what a seat cannot see; that seat's observation bytes and
  legal actions stay the same, and the redraw really changes hidden parts (else the comparison
  proves nothing);
- ``options``: defaults, unknown keys, values out of range or outside the choices;
- ``renderers``: the terminal renderer draws states and views, the HTML board draws them.

A check that raises is a failed check (the exception, and where, in its detail), never a crash.
A detail names the seed and the decision of the first failure, so an author reproduces it.

Results are cached per plugin identity (the plugin's fields, its distribution version and the
bytes of its packages' files) under ``arena_home()/games/``: ``gate_status`` reads the cache,
``require_gated`` (what ladders and the competition server ask) runs the gate when nothing is
cached and refuses a failing game unless the operator overrides it.

The package, one module per group of checks: ``report`` (the checks' names, verdicts and
reports), ``subject`` (the game under test, its random matches and logs), ``determinism``,
``actions`` (``grammar``, ``is-legal``), ``playouts`` (``playouts-end``, ``replay``), ``views``
(``codec-round-trip``, ``leak``, ``renderers``), ``options``, ``run`` (``run_gate``),
``identity`` and ``cache`` (the verdict kept, ``require_gated``).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from arena.gate.cache import cache_path, checked_report, gate_status, require_gated, save_report
from arena.gate.identity import package_root, plugin_identity
from arena.gate.report import CHECKS, GATE_VERSION, Check, CheckFailed, GateReport

if TYPE_CHECKING:
    from arena.gate.actions import GARBAGE, OTHER_ACTIONS, check_grammar, check_is_legal
    from arena.gate.determinism import (
        OTHER_PROCESS_TIMEOUT_S,
        REFEREE_FIGURES,
        check_determinism,
        trace,
    )
    from arena.gate.options import check_options
    from arena.gate.playouts import check_playouts_end, check_replay
    from arena.gate.run import CHECK_FUNCTIONS, run_gate
    from arena.gate.subject import (
        DECISION_CAP,
        GATE_MATCH,
        SAMPLED_ACTIONS,
        SAMPLED_POINTS,
        Playout,
        Step,
        Subject,
        points,
        random_playout,
        sampled,
    )
    from arena.gate.views import NAMES, check_codec, check_leak, check_renderers

_CHECKING = {
    "actions": ("GARBAGE", "OTHER_ACTIONS", "check_grammar", "check_is_legal"),
    "determinism": ("OTHER_PROCESS_TIMEOUT_S", "REFEREE_FIGURES", "check_determinism", "trace"),
    "options": ("check_options",),
    "playouts": ("check_playouts_end", "check_replay"),
    "run": ("CHECK_FUNCTIONS", "run_gate"),
    "subject": ("DECISION_CAP", "GATE_MATCH", "SAMPLED_ACTIONS", "SAMPLED_POINTS", "Playout",
                "Step", "Subject", "points", "random_playout", "sampled"),
    "views": ("NAMES", "check_codec", "check_leak", "check_renderers"),
}
"""The names imported on first use, by module."""
_HOME = {name: module for module, names in _CHECKING.items() for name in names}

__all__ = [
    "CHECKS", "CHECK_FUNCTIONS", "DECISION_CAP", "GARBAGE", "GATE_MATCH", "GATE_VERSION", "NAMES",
    "OTHER_ACTIONS", "OTHER_PROCESS_TIMEOUT_S", "REFEREE_FIGURES", "SAMPLED_ACTIONS",
    "SAMPLED_POINTS", "Check", "CheckFailed", "GateReport", "Playout", "Step", "Subject",
    "cache_path", "check_codec", "check_determinism", "check_grammar", "check_is_legal",
    "check_leak", "check_options", "check_playouts_end", "check_renderers", "check_replay",
    "checked_report", "gate_status", "package_root", "plugin_identity", "points",
    "random_playout", "require_gated", "run_gate", "sampled", "save_report", "trace",
]


def __getattr__(name: str) -> Any:
    """The names of the checks and of running them, imported on first use: they import the
    referee, the codecs and the renderers, which reading a verdict (``arena games list``, a
    competition starting) does without."""
    if name not in _HOME:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{_HOME[name]}"), name)
