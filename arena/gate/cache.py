"""The verdict kept: a plugin's identity (what the verdict depends on), the cache under
``arena_home()/games/``, and the refusal of a game that fails (``require_gated``)."""

from __future__ import annotations

import contextlib
import json
import logging
import os
import threading
from pathlib import Path

from arena.bots.home import arena_home
from arena.errors import ConfigError
from arena.games import plugin
from arena.games.plugin import GamePlugin
from arena.gate.identity import plugin_identity
from arena.gate.report import GateReport, clip

log = logging.getLogger("arena.gate")

_memo: dict[tuple[str, str], GateReport] = {}
_memo_lock = threading.Lock()


def cache_path(game_id: str, identity: str) -> Path:
    """Where the verdict on one plugin identity is kept."""
    return arena_home() / "games" / f"{game_id}-{identity[:16]}.json"


def gate_status(plugin: GamePlugin) -> GateReport | None:
    """The cached verdict on this plugin as it is now (None: the gate has not run on it)."""
    identity = plugin_identity(plugin)
    known = _memo.get((plugin.id, identity))
    if known is not None:
        return known
    try:
        report = GateReport.from_json(json.loads(cache_path(plugin.id, identity).read_text()))
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if report.plugin_identity != identity or report.game_id != plugin.id:
        return None
    _memo[(plugin.id, identity)] = report
    return report


def save_report(report: GateReport) -> None:
    """Keep a verdict (atomically: a reader sees the old file or the new one)."""
    _memo[(report.game_id, report.plugin_identity)] = report
    path = cache_path(report.game_id, report.plugin_identity)
    with contextlib.suppress(OSError):  # a read-only home: the verdict lives in this process
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        tmp.write_text(json.dumps(report.to_json(), indent=1) + "\n", encoding="utf-8")
        os.replace(tmp, path)


def checked_report(game_plugin: GamePlugin) -> GateReport:
    """The cached verdict on the plugin, or the gate's, run now and kept."""
    with _memo_lock:
        report = gate_status(game_plugin)
        if report is None:
            # here, not at the top: the checks import the referee, the codecs and the renderers,
            # which reading a verdict (`arena games list`, a competition starting) does without
            from arena.gate.run import run_gate

            log.info("running the conformance gate on %s", game_plugin.id)
            report = run_gate(game_plugin)
            save_report(report)
        return report


def require_gated(game_id: str, *, allow: bool = False,
                  override: str = "allow_ungated_game = true") -> str:
    """Refuse a game that fails the conformance gate (run now when nothing is cached): a
    ``ConfigError`` of one line naming the failed checks and `arena games check`. With
    ``allow`` the game passes with a warning line, logged and returned ("" for a game that
    passes). ``override`` names the setting that allows it, for the message."""
    report = checked_report(plugin(game_id))
    if report.passed:
        return ""
    first = next(c for c in report.checks if not c.passed)
    failed = ", ".join(report.failed)
    if not allow:
        raise ConfigError(f"game {game_id!r} fails the conformance gate ({failed}; "
                          f"{first.name}: {clip(first.detail)}): run `arena games check "
                          f"{game_id}` for the report, or set {override} to play it anyway")
    warning = (f"game {game_id!r} fails the conformance gate ({failed}) and is played anyway "
               f"({override})")
    log.warning("%s", warning)
    return warning
